// The table as the server sends it, drawn in the DOM. Knows no rule: it moves cards where
// a delta says and draws what is there.

import { t, cardLabel } from "./i18n.js";
import { fitBoard } from "./fit.js";

export const SUITS = ["S", "H", "D", "C"];
export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RANKS = "A23456789TJQK";

/** Rank shown on a card: T is written 10. */
export function rankText(card) {
  return card[0] === "T" ? "10" : card[0];
}

/**
 * A board state from the server's JSON: {cells, columns, foundations} with all four suits,
 * and a `code` only in a replay's opening table.
 */
export function fromJSON(data) {
  return {
    code: data.code || null,
    cells: data.cells.slice(),
    columns: data.columns.map((c) => c.slice()),
    foundations: Object.fromEntries(SUITS.map((s) => [s, data.foundations[s]])),
  };
}

/** The card on top of a foundation, or null. */
export function foundationTop(state, suit) {
  const n = state.foundations[suit];
  return n > 0 ? RANKS[n - 1] + suit : null;
}

/** The cards a location holds, bottom first. */
export function cardsAt(state, loc) {
  if (loc.startsWith("col")) return state.columns[Number(loc.slice(3)) - 1] || [];
  if (loc.startsWith("cell")) {
    const c = state.cells[Number(loc.slice(4)) - 1];
    return c ? [c] : [];
  }
  if (loc.startsWith("found:")) {
    const top = foundationTop(state, loc.slice(6));
    return top ? [top] : [];
  }
  return [];
}

/**
 * Apply a delta's changes: take `cards` off the top of `src`, put them on `dst`.
 * Returns false when the state does not hold what the delta says (the caller resyncs).
 */
export function applyChanges(state, changes) {
  for (const ch of changes) {
    const n = ch.cards.length;
    const src = ch.src;
    if (src.startsWith("col")) {
      const col = state.columns[Number(src.slice(3)) - 1];
      if (!col || col.length < n) return false;
      const top = col.slice(col.length - n);
      if (top.join() !== ch.cards.join()) return false;
      col.length -= n;
    } else if (src.startsWith("cell")) {
      const i = Number(src.slice(4)) - 1;
      if (state.cells[i] !== ch.cards[0]) return false;
      state.cells[i] = null;
    } else if (src.startsWith("found:")) {
      const s = src.slice(6);
      if (foundationTop(state, s) !== ch.cards[0]) return false;
      state.foundations[s] -= 1;
    } else {
      return false;
    }
    const dst = ch.dst;
    if (dst.startsWith("col")) {
      state.columns[Number(dst.slice(3)) - 1].push(...ch.cards);
    } else if (dst.startsWith("cell")) {
      state.cells[Number(dst.slice(4)) - 1] = ch.cards[0];
    } else {
      const s = dst.startsWith("found:") ? dst.slice(6) : ch.cards[0][1];
      state.foundations[s] += n;
    }
  }
  return true;
}

/**
 * Our legal moves after one of our deltas: `legal` ({moves, send_home}) with the delta's
 * `legal_change` applied (the listed sources' destinations replaced, the gone ones
 * deleted). A new object: the one it came from is not changed.
 */
export function changeLegal(legal, change) {
  const moves = { ...legal.moves, ...change.moves };
  for (const src of change.gone || []) delete moves[src];
  return { moves, send_home: change.send_home };
}

/** Cards on the foundations (0..52). */
export function foundationCount(state) {
  return SUITS.reduce((a, s) => a + state.foundations[s], 0);
}

/** One card element. */
export function cardElement(card, loc, index) {
  const el = document.createElement("div");
  const suit = card[1];
  const rank = card[0];
  el.className = "card";
  el.dataset.card = card;
  el.dataset.suit = suit;
  el.dataset.loc = loc;
  el.dataset.index = String(index);
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardLabel(card));
  const sym = SUIT_SYMBOL[suit];
  const r = rankText(card);
  const corner = `<span class="r">${r}</span><span class="s">${sym}</span>`;
  if ("JQK".includes(rank)) el.classList.add("face");
  const centre = "JQK".includes(rank)
    ? `<div class="face-frame"></div><div class="face-letter">${rank}<small>${sym}</small></div>`
    : `<div class="pip">${sym}</div>`;
  el.innerHTML = `<div class="corner" aria-hidden="true">${corner}</div>${centre}` +
    `<div class="corner br" aria-hidden="true">${corner}</div>`;
  return el;
}

/**
 * Draw a board into `root`. The piles stay and each card keeps its element (by name) from
 * draw to draw: a move changes the few cards it moved, not the whole table, so the page
 * restyles and lays out only those (a table of 52 cards redrawn whole took tens of ms a
 * move on a slow machine). A moved card slides from where it was (FLIP).
 *
 * @param {HTMLElement} root
 * @param {object} state
 * @param {{interactive?: boolean, animate?: boolean, maxHeight?: number, plan?: number}} opts
 *   `plan`: the column length the card size is planned for (fit.js; 0: the columns there are)
 */
export function render(root, state, opts = {}) {
  const interactive = opts.interactive !== false;
  const before = new Map();
  // No sliding cards for people who asked their system for less motion.
  const motion = !window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  if (opts.animate !== false && motion) {
    for (const el of root.querySelectorAll(".card[data-card]")) {
      before.set(el.dataset.card, el.getBoundingClientRect());
    }
  }
  root.classList.add("board");
  root.dataset.cells = String(state.cells.length);
  const drawn = table(root, state.cells.length, state.columns.length);
  // Each card as a new one would be (no drag, hint, selection or slide left over), touched
  // only where it differs: an unchanged card costs the page nothing.
  const use = (card, loc, index, top, style = "") => {
    let el = drawn.cards.get(card);
    if (!el) {
      el = cardElement(card, loc, index);
      drawn.cards.set(card, el);
    }
    for (const anim of el.getAnimations?.() ?? []) anim.cancel();
    const cls = ("JQK".includes(card[0]) ? "card face" : "card") + (top ? " top" : "");
    if (el.className !== cls) el.className = cls;
    if (drawn.styles.get(el) !== style || el.style.cssText !== drawn.css.get(el)) {
      el.style.cssText = style;
      drawn.styles.set(el, style);
      drawn.css.set(el, el.style.cssText); // as the page writes it back
    }
    if (el.dataset.loc !== loc) el.dataset.loc = loc;
    if (el.dataset.index !== String(index)) el.dataset.index = String(index);
    const label = cardLabel(card);
    if (el.getAttribute("aria-label") !== label) el.setAttribute("aria-label", label);
    return el;
  };
  state.cells.forEach((card, i) => {
    const loc = `cell${i + 1}`;
    const pile = drawn.piles.get(loc);
    dress(pile, card ? "pile cell" : "pile cell slot", t("board.cell", { n: i + 1 }));
    place(pile, card ? [use(card, loc, 0, true)] : []);
  });
  for (const s of SUITS) {
    const loc = `found:${s}`;
    const pile = drawn.piles.get(loc);
    const c = foundationTop(state, s);
    dress(pile, c ? "pile found" : "pile found slot", t("board.foundation", { suit: t(`suit.${s}`) }));
    place(pile, c ? [use(c, loc, state.foundations[s] - 1, true)] : []);
  }
  state.columns.forEach((col, i) => {
    const loc = `col${i + 1}`;
    const pile = drawn.piles.get(loc);
    dress(pile, col.length ? "pile col" : "pile col empty", t("board.column", { n: i + 1 }));
    const els = col.map((card, j) =>
      use(card, loc, j, j === col.length - 1, `top: calc(var(--off) * ${j} * var(--squeeze, 1));`));
    place(pile, els);
    const height = `calc(var(--ch) + var(--off) * ${Math.max(0, col.length - 1)} * var(--squeeze, 1))`;
    if (drawn.heights.get(pile) !== height) {
      pile.style.height = height;
      drawn.heights.set(pile, height);
    }
  });
  fitBoard(root, state.columns, opts.maxHeight, opts.plan);
  if (interactive) {
    // One tab stop per pile (its top card, or the pile when empty); arrows move between them.
    for (const el of root.querySelectorAll(".card")) {
      const tab = el.classList.contains("top") ? 0 : -1;
      if (el.tabIndex !== tab || !el.hasAttribute("tabindex")) el.tabIndex = tab;
    }
    for (const el of root.querySelectorAll(".pile")) {
      if (el.querySelector(".card")) el.removeAttribute("tabindex");
      else if (el.tabIndex !== 0 || !el.hasAttribute("tabindex")) el.tabIndex = 0;
    }
  }
  if (before.size) flip(root, before);
}

/** What each board element has drawn in it (see `table`). */
const tables = new WeakMap();

/**
 * The board's piles as drawn into `root` ({piles: loc -> element, cards: card -> element}),
 * made anew when the table has another shape (or `root` held something else meanwhile).
 */
function table(root, nCells, nColumns) {
  const shape = `${nCells}/${nColumns}`;
  const had = tables.get(root);
  if (had && had.shape === shape && had.top.parentNode === root && had.tab.parentNode === root &&
      root.childElementCount === 2) {
    return had;
  }
  const drawn = {
    shape,
    piles: new Map(),
    cards: new Map(),
    // What render last set on each card's style (and how the page wrote it back) and on
    // each column's height: a drag's or a slide's leftovers differ from it.
    styles: new WeakMap(),
    css: new WeakMap(),
    heights: new WeakMap(),
  };
  root.innerHTML = "";
  drawn.top = document.createElement("div");
  drawn.top.className = "toprow";
  for (let i = 0; i < nCells; i++) drawn.top.append(pileElement(drawn, "cell", `cell${i + 1}`));
  // Foundations sit over the four rightmost columns; empty grid cells fill the gap.
  for (let i = nCells; i < 6; i++) drawn.top.append(document.createElement("div"));
  for (const s of SUITS) {
    const pile = pileElement(drawn, "found", `found:${s}`);
    pile.dataset.suit = s;
    pile.dataset.symbol = SUIT_SYMBOL[s];
    drawn.top.append(pile);
  }
  drawn.tab = document.createElement("div");
  drawn.tab.className = "tableau";
  for (let i = 0; i < nColumns; i++) drawn.tab.append(pileElement(drawn, "col", `col${i + 1}`));
  root.append(drawn.top, drawn.tab);
  tables.set(root, drawn);
  return drawn;
}

/** Set a pile's classes and label where they differ. */
function dress(pile, cls, label) {
  if (pile.className !== cls) pile.className = cls;
  if (pile.getAttribute("aria-label") !== label) pile.setAttribute("aria-label", label);
}

/** Put `els` in `pile`, bottom first, touching the page only where they differ. */
function place(pile, els) {
  const now = pile.children;
  if (now.length === els.length && els.every((el, i) => now[i] === el)) return;
  pile.replaceChildren(...els);
}

function pileElement(drawn, kind, loc) {
  const pile = document.createElement("div");
  pile.className = `pile ${kind}`;
  pile.dataset.loc = loc;
  pile.setAttribute("role", "group");
  drawn.piles.set(loc, pile);
  return pile;
}

function flip(root, before) {
  for (const el of root.querySelectorAll(".card[data-card]")) {
    const old = before.get(el.dataset.card);
    if (!old) continue;
    const now = el.getBoundingClientRect();
    const dx = old.left - now.left;
    const dy = old.top - now.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    const anim = el.animate(
      [{ transform: `translate(${dx}px, ${dy}px)`, zIndex: 900 }, { transform: "none", zIndex: 900 }],
      { duration: 180, easing: "ease-out" },
    );
    // A flying card takes no pointer events: a tap goes to the card under it, not to it.
    el.classList.add("flying");
    const landed = () => el.classList.remove("flying");
    anim.onfinish = landed;
    anim.oncancel = landed;
  }
}
