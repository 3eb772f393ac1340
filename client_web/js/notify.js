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

/** The text of the toast on screen now, or null. */
export function shownToast() {
  const el = document.getElementById("toast");
  return el.hidden ? null : el.textContent;
}

/** Take the toast away now if it still says `text` (news that no longer holds). */
export function dismissToast(text) {
  const el = document.getElementById("toast");
  if (text == null || el.hidden || el.textContent !== text) return;
  clearTimeout(toastTimer);
  el.hidden = true;
}

/** Lines the live region keeps (the newest are read; the oldest go). */
const KEPT = 4;

/**
 * Say something to screen readers: a line added to the page's polite live region, so that
 * news coming together (the last move, then the win) is each read in turn, none replacing
 * the other.
 */
export function announce(text) {
  const el = document.getElementById("live");
  if (!text) return;
  const line = document.createElement("p");
  line.textContent = text;
  el.append(line);
  while (el.childElementCount > KEPT) el.firstElementChild.remove();
}
