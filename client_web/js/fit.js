// Fitting a drawn board to the height it has. Cards are as large as the width allows and a
// column of PLAN cards, fanned as usual, fits the height: on a large screen the table fills
// it, and the cards keep their size while the columns grow to that. Longer columns fan
// tighter first, down to the strip that still shows each card's rank and suit; only past
// that do the cards get smaller, keeping their shape. Nothing is cut and nothing needs
// scrolling. Knows no rule: it measures what board.js drew.

/** Cards never get narrower than this (px): past it the page scrolls instead. */
const MIN_CARD_WIDTH = 18;
/** Space kept free under the board (px). */
const BELOW = 4;
/** The column length the card size is planned for: about the longest of a usual game. */
export const PLAN = 9;

/** The last fit of each board: the key of what it depends on, its sizes and card width. */
const fitted = new WeakMap();

/**
 * Fit the board `root` (drawn by board.js, `columns` its cards bottom first) into
 * `maxHeight` px, or else into the window below its top less what the page shows under it.
 * Sets `--squeeze` on each column (the share of the usual fan it keeps) and, when the cards
 * must be smaller than the width allows, `--cw` (the card width) on `root`. `plan`: the
 * column length to size the cards for (0: only the columns there are).
 */
export function fitBoard(root, columns, maxHeight, plan = PLAN) {
  const piles = [...root.querySelectorAll(".tableau > .pile.col")];
  const longest = Math.max(1, ...columns.map((col) => col.length));
  // The card size depends only on the board's place and width, the window, the plan and
  // the longest column: while those stay, a move only refans the columns it changed. The
  // sizes are measured once for them, not again on each move (each measure after a new
  // card width restyles and lays out the whole table).
  const box = root.getBoundingClientRect();
  const under = maxHeight == null ? below(root) : 0;
  const key = [box.width, box.top + window.scrollY, window.innerWidth, window.innerHeight,
    maxHeight, plan, under, longest, columns.length].join();
  const last = fitted.get(root);
  if (last?.key === key && root.style.getPropertyValue("--cw") === last.cw) {
    fan(piles, columns, last.m);
    reachFoot(root, last.m, maxHeight);
    return;
  }
  fitted.delete(root);
  root.style.removeProperty("--cw");
  root.style.removeProperty("min-height");
  const unfitted = maxHeight == null ? below(root) : 0; // as the table stands unfitted
  for (let round = 0; round < 8; round++) {
    const m = measure(root, maxHeight, unfitted);
    if (!m) return;
    // The planned column at the usual fan: the card size a large screen gets.
    const planned = m.colTop + m.ch + (plan - 1) * Math.max(m.off, m.strip) + m.padBottom;
    if (plan > 1 && planned > m.avail + 0.5) {
      if (!shrink(root, m.cw * (m.avail / planned))) return;
      continue;
    }
    fan(piles, columns, m);
    const need = Math.max(m.colTop + m.ch + (longest - 1) * m.strip, m.sideBottom) + m.padBottom;
    if (need <= m.avail + 0.5) {
      reachFoot(root, m, maxHeight);
      fitted.set(root, { key, m, cw: root.style.getPropertyValue("--cw") });
      return;
    }
    // Smaller cards: every height above is nearly proportional to the card width.
    if (!shrink(root, m.cw * (m.avail / need))) return;
  }
}

/**
 * Fan each column (`piles`, their cards `columns`) into the room the sizes `m` leave: the
 * usual fan, or tighter for a column too long for it (never under the strip). Set on the
 * column itself, so a column that changes restyles its own cards, not the whole table.
 */
function fan(piles, columns, m) {
  // Room for a column's fan: the height below its first card. The usual fan is never
  // tighter than the strip either.
  const room = m.avail - m.colTop - m.ch - m.padBottom;
  // A tall table (a phone held upright) spends its spare height on a wider fan, up to
  // nearly whole cards: larger targets for a thumb, and no empty felt under the columns.
  const tall = window.innerHeight > window.innerWidth * 1.3 && window.innerWidth <= 640;
  const roomy = tall ? Math.min(m.ch * 0.85, room / (PLAN - 1)) : 0;
  const usual = Math.max(m.off, m.strip, roomy);
  columns.forEach((col, i) => {
    const gaps = col.length - 1;
    const off = gaps > 0 && gaps * usual > room ? Math.max(m.strip, room / gaps) : usual;
    const squeeze = String(off / m.off);
    if (piles[i] && piles[i].style.getPropertyValue("--squeeze") !== squeeze) {
      piles[i].style.setProperty("--squeeze", squeeze);
    }
  });
}

/**
 * The player's own table (no `maxHeight`) reaches the foot of the window: the felt the
 * columns grow into is the table's (and its drop area) from the first move.
 */
function reachFoot(root, m, maxHeight) {
  if (maxHeight == null) root.style.minHeight = `${Math.floor(m.avail - 2)}px`;
}

/** Set a smaller card width (not under the minimum); false once at the minimum. */
function shrink(root, width) {
  const cw = Math.floor(width * 4) / 4;
  if (cw < MIN_CARD_WIDTH) {
    root.style.setProperty("--cw", `${MIN_CARD_WIDTH}px`);
    return false;
  }
  root.style.setProperty("--cw", `${cw}px`);
  return true;
}

/** What the page shows under the board (px): the rest of its view and the page's margin. */
function below(root) {
  const main = root.closest("main");
  if (!main) return BELOW;
  return Math.max(0, main.getBoundingClientRect().bottom - root.getBoundingClientRect().bottom) + BELOW;
}

/** The board's sizes as drawn now, in px relative to its top; null if it has no column. */
function measure(root, maxHeight, under) {
  const col = root.querySelector(".pile.col");
  if (!col) return null;
  const box = root.getBoundingClientRect();
  const pile = col.getBoundingClientRect();
  const style = getComputedStyle(root);
  const avail = maxHeight ?? window.innerHeight - (box.top + window.scrollY) - under;
  const ch = root.querySelector(".toprow .pile")?.getBoundingClientRect().height || pile.height;
  const ratio = parseFloat(style.getPropertyValue("--offr")) || 0.27;
  // The strip a covered card must keep: down to the bottom of its corner's rank and suit.
  let strip = ch * ratio;
  const card = root.querySelector(".pile.col .card");
  if (card) {
    const top = card.getBoundingClientRect().top;
    const glyphs = [...card.querySelectorAll(".corner:not(.br) > *")];
    strip = Math.max(...glyphs.map((g) => g.getBoundingClientRect().bottom - top)) + 1;
  }
  let sideBottom = 0;
  for (const p of root.querySelectorAll(".toprow .pile")) {
    sideBottom = Math.max(sideBottom, p.getBoundingClientRect().bottom - box.top);
  }
  return {
    avail,
    cw: pile.width,
    ch,
    off: ch * ratio,
    strip,
    colTop: pile.top - box.top,
    sideBottom,
    padBottom: parseFloat(style.paddingBottom) || 0,
  };
}
