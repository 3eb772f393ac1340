// Telling the player something: a toast on screen, a message for screen readers.

let toastTimer = null;
/** A short message at the bottom of the screen. */
export function toast(text, kind = "error") {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.className = `toast ${kind === "error" ? "" : kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, kind === "error" ? 3500 : 2500);
}

/** Say something to screen readers. */
export function announce(text) {
  const el = document.getElementById("live");
  el.textContent = "";
  setTimeout(() => { el.textContent = text; }, 30);
}
