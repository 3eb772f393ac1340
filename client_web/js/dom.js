// Elements from HTML text: html() builds one (its data-i18n texts filled in), esc() makes
// data safe to put in that text.

import { applyTexts } from "./i18n.js";

/** Make an element from an HTML string (the caller escapes data with esc()). */
export function html(s) {
  const tpl = document.createElement("template");
  tpl.innerHTML = s.trim();
  const el = tpl.content.firstElementChild;
  applyTexts(tpl.content);
  return el;
}

/** Set an element's text only where it differs. The clocks tick up to ten times a second,
 *  and a stopped one (before the first move, after the finish) or one of whole seconds
 *  keeps its text through most ticks: writing the same text again would still restyle and
 *  lay out the page at each tick. */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** Text made safe for HTML: & < > " ' escaped (null and undefined give ""). */
export function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

/** A player's name as shown beside others: the name, then a short stable tag from the
 *  player id (Ann·4f2c), so that two players named alike can be told apart. HTML, escaped. */
export function who(name, playerId) {
  const tag = String(playerId ?? "").slice(-4);
  return `${esc(name)}${tag ? `<span class="tag">·${esc(tag)}</span>` : ""}`;
}
