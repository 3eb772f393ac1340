// The player's display name, kept in local storage: made up at first, then the one typed.

const NAME_KEY = "seahaven.name";

/** The player's display name (kept in local storage). */
export function playerName() {
  let name = localStorage.getItem(NAME_KEY);
  if (!name) {
    name = `Player ${Math.floor(1000 + Math.random() * 9000)}`;
    localStorage.setItem(NAME_KEY, name);
  }
  return name;
}

/** Keep a typed name (trimmed, at most 24 characters; a blank one changes nothing). */
export function setPlayerName(name) {
  const clean = String(name).trim().slice(0, 24);
  if (clean) {
    localStorage.setItem(NAME_KEY, clean);
    localStorage.setItem(`${NAME_KEY}.chosen`, "1");
  }
}

/** Forget the name: the next `playerName()` makes one up (the server refused the typed
 * one: it passes for an established player's). */
export function forgetName() {
  localStorage.removeItem(NAME_KEY);
  localStorage.removeItem(`${NAME_KEY}.chosen`);
}

/** Whether the player ever typed a name (or still has the one made up for them). */
export function nameChosen() {
  return localStorage.getItem(`${NAME_KEY}.chosen`) === "1";
}
