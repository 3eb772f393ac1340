// Fitting a drawn board to the height it has. Long columns fan tighter first, down to the
// strip that still shows each card's rank and suit; only past that do the cards get smaller,
// keeping their shape. Nothing is cut and nothing needs scrolling. Knows no rule: it
// measures what board.js drew.

/** Cards never get narrower than this (px): past it the page scrolls instead. */
const MIN_CARD_WIDTH = 18;
/** Space kept free under the board (px). */
const BELOW = 6;

/**
 * Fit the board `root` (drawn by board.js, `columns` its cards bottom first) into
 * `maxHeight` px, or else into the window below its top. Sets `--squeeze-N` (the share of
 * the usual fan each column N keeps) and, when even the tightest fan is too tall, `--cw`
 * (the card width) on `root`.
 */
export function fitBoard(root, columns, maxHeight) {
  root.style.removeProperty("--cw");
  columns.forEach((_, i) => root.style.removeProperty(`--squeeze-${i + 1}`));
  const longest = Math.max(1, ...columns.map((col) => col.length));
  for (let round = 0; round < 6; round++) {
    const m = measure(root, maxHeight);
    if (!m) return;
    // Room for a column's fan: the height below its first card. The usual fan is never
    // tighter than the strip either.
    const room = m.avail - m.colTop - m.ch - m.padBottom;
    const usual = Math.max(m.off, m.strip);
    columns.forEach((col, i) => {
      const gaps = col.length - 1;
      const off = gaps > 0 && gaps * usual > room ? Math.max(m.strip, room / gaps) : usual;
      root.style.setProperty(`--squeeze-${i + 1}`, String(off / m.off));
    });
    const need = Math.max(m.colTop + m.ch + (longest - 1) * m.strip, m.sideBottom) + m.padBottom;
    if (need <= m.avail + 0.5) return;
    // Smaller cards: every height above is nearly proportional to the card width.
    const cw = Math.floor(m.cw * (m.avail / need) * 4) / 4;
    if (cw < MIN_CARD_WIDTH) {
      root.style.setProperty("--cw", `${MIN_CARD_WIDTH}px`);
      return;
    }
    root.style.setProperty("--cw", `${cw}px`);
  }
}

/** The board's sizes as drawn now, in px relative to its top; null if it has no column. */
function measure(root, maxHeight) {
  const col = root.querySelector(".pile.col");
  if (!col) return null;
  const box = root.getBoundingClientRect();
  const pile = col.getBoundingClientRect();
  const style = getComputedStyle(root);
  const avail = maxHeight ?? window.innerHeight - (box.top + window.scrollY) - BELOW;
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
