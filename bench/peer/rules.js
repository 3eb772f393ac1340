// The rules of docs/RULES.md that a race needs, for the peer room of bench/peer.py: a deal
// from its game code, an action judged and played, an undo, and the legal destinations of
// each movable card as the mover's ack lists them. Written for this bench from RULES.md; a
// card is suit * 13 + rank - 1 (suits S, H, D, C), as the Python engine numbers them, so the
// same deal gives the same table.

export const SUITS = "SHDC";
const RANKS = "A23456789TJQK";
const KING = 12; // a King's rank index
const COLUMNS = 10;
const UNDO_LIMIT = 100;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const MASK64 = (1n << 64n) - 1n;

export const cardName = (card) => RANKS[card % 13] + SUITS[Math.floor(card / 13)];

const COL_NAMES = Array.from({ length: COLUMNS }, (_, i) => `col${i + 1}`);
const CELL_NAMES = ["cell1", "cell2", "cell3", "cell4"];
const FOUND_NAMES = [...SUITS].map((s) => `found:${s}`);

/** A game code's deal number and cell count ("Game codes"); throws on a bad code. */
export function parseCode(text) {
  const parts = String(text).trim().toUpperCase().split("-");
  if (parts.length !== 3 || parts[0] !== "SH1") throw new Error(`bad code ${text}`);
  const cells = { C4: 4, C2: 2, C1: 1 }[parts[1]];
  if (!cells || parts[2].length !== 7) throw new Error(`bad code ${text}`);
  let deal = 0n;
  for (const ch of parts[2]) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) throw new Error(`bad code ${text}`);
    deal = deal * 32n + BigInt(v);
  }
  return { deal, cells };
}

/** The SH1 order of the cards of a deal number (protocol/README.md: SplitMix64, then
 * Fisher-Yates from the top, rejection sampling against modulo bias). */
export function shuffle(deal) {
  const deck = Array.from({ length: 52 }, (_, i) => i);
  let state = deal;
  for (let i = 51; i > 0; i--) {
    const n = BigInt(i + 1);
    const limit = (1n << 64n) - ((1n << 64n) % n);
    let value;
    for (;;) {
      state = (state + 0x9e3779b97f4a7c15n) & MASK64;
      let z = state;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
      value = z ^ (z >> 31n);
      if (value < limit) break;
    }
    const j = Number(value % n);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** A place in notation: {kind: "col"|"cell"|"found", index}; a foundation's index is its
 * suit, or -1 for "the moving card's own". Throws on anything else. */
export function parseLocation(word) {
  const w = String(word).toLowerCase();
  let m = /^col(\d+)$/.exec(w);
  if (m && +m[1] >= 1 && +m[1] <= COLUMNS) return { kind: "col", index: +m[1] - 1 };
  m = /^cell(\d)$/.exec(w);
  if (m && +m[1] >= 1 && +m[1] <= 4) return { kind: "cell", index: +m[1] - 1 };
  if (w === "found") return { kind: "found", index: -1 };
  m = /^found:([shdc])$/.exec(w);
  if (m) return { kind: "found", index: SUITS.indexOf(m[1].toUpperCase()) };
  throw new Error(`bad location ${word}`);
}

const nameOf = (loc) =>
  loc.kind === "col" ? COL_NAMES[loc.index] : loc.kind === "cell" ? CELL_NAMES[loc.index]
    : loc.index < 0 ? "found" : FOUND_NAMES[loc.index];

/** The deepest card of the ordered group (one suit, ranks falling by one) at a column's top. */
function runBottom(column) {
  let i = column.length - 1;
  let card = column[i];
  while (i > 0) {
    const below = column[i - 1];
    if (below !== card + 1 || below % 13 === 0) break;
    card = below;
    i--;
  }
  return card;
}

class Illegal extends Error {}

/** One racer's table: columns bottom to top, cells (null: free), foundations' counts. */
export class Board {
  constructor(code) {
    const { deal, cells } = parseCode(code);
    const order = shuffle(deal);
    this.columns = Array.from({ length: COLUMNS }, () => []);
    for (let i = 0; i < 50; i++) this.columns[i % COLUMNS].push(order[i]);
    this.cells = new Array(cells).fill(null);
    this.cells[0] = order[50];
    if (cells === 1) this.columns[1].push(order[51]);
    else this.cells[1] = order[51];
    this.foundations = [0, 0, 0, 0];
    this.score = 0;
    this.moves = 0;
    this.history = [];
  }

  freeCells() {
    return this.cells.reduce((n, c) => n + (c === null ? 1 : 0), 0);
  }

  emptyColumns() {
    return this.columns.reduce((n, c) => n + (c.length ? 0 : 1), 0);
  }

  /** The largest group that may move ("Group moves"). */
  capacity(intoEmpty) {
    const empty = this.emptyColumns() - (intoEmpty ? 1 : 0);
    return (this.freeCells() + 1) << Math.max(empty, 0);
  }

  /** Judge a move: [cards moving, destination (a foundation by suit), points]; throws
   * Illegal with the rule it breaks. */
  resolve(src, dst) {
    let card;
    let column = null;
    if (src.kind === "col") {
      column = this.columns[src.index];
      if (!column.length) throw new Illegal("empty_source");
      card = column[column.length - 1];
    } else if (src.kind === "cell") {
      if (src.index >= this.cells.length) throw new Illegal("no_such_cell");
      card = this.cells[src.index];
      if (card === null) throw new Illegal("empty_source");
    } else {
      if (src.index < 0) throw new Illegal("foundation_needs_suit");
      if (!this.foundations[src.index]) throw new Illegal("empty_source");
      card = src.index * 13 + this.foundations[src.index] - 1;
    }
    if (src.kind === dst.kind && src.index === dst.index) throw new Illegal("same_location");
    const suit = Math.floor(card / 13);
    if (dst.kind === "found") {
      if (src.kind === "found") throw new Illegal("foundation_to_foundation");
      if (dst.index >= 0 && dst.index !== suit) throw new Illegal("wrong_foundation");
      if (this.foundations[suit] !== card % 13) throw new Illegal("not_next_on_foundation");
      return [1, { kind: "found", index: suit }, 10];
    }
    if (dst.kind === "cell") {
      if (dst.index >= this.cells.length) throw new Illegal("no_such_cell");
      if (this.cells[dst.index] !== null) throw new Illegal("cell_occupied");
      return [1, dst, 0];
    }
    const target = this.columns[dst.index];
    const points = src.kind === "cell" ? 5 : 0;
    if (src.kind !== "col") {
      if (!target.length) {
        if (card % 13 !== KING) throw new Illegal("empty_column_needs_king");
        return [1, dst, points];
      }
      const top = target[target.length - 1];
      if (Math.floor(top / 13) !== suit) throw new Illegal("not_same_suit");
      if (top !== card + 1) throw new Illegal("not_one_lower");
      return [1, dst, points];
    }
    // From a column the rules fix the group: the card that fits the destination's top card,
    // or the group's King for an empty column.
    const bottom = runBottom(column);
    if (!target.length) {
      if (bottom % 13 !== KING) throw new Illegal("empty_column_needs_king");
      const count = bottom - card + 1;
      if (count > 1 && count > this.capacity(true)) throw new Illegal("group_too_large");
      return [count, dst, 0];
    }
    const top = target[target.length - 1];
    if (Math.floor(top / 13) !== suit) throw new Illegal("not_same_suit");
    const wanted = top - 1;
    if (top % 13 === 0 || !(card <= wanted && wanted <= bottom)) throw new Illegal("not_one_lower");
    const count = wanted - card + 1;
    if (count > 1 && count > this.capacity(false)) throw new Illegal("group_too_large");
    return [count, dst, 0];
  }

  take(loc, count) {
    if (loc.kind === "col") return this.columns[loc.index].splice(-count, count);
    if (loc.kind === "cell") {
      const card = this.cells[loc.index];
      this.cells[loc.index] = null;
      return [card];
    }
    this.foundations[loc.index] -= 1;
    return [loc.index * 13 + this.foundations[loc.index]];
  }

  put(loc, cards) {
    if (loc.kind === "col") this.columns[loc.index].push(...cards);
    else if (loc.kind === "cell") this.cells[loc.index] = cards[0];
    else this.foundations[loc.index] += 1;
  }

  apply(src, dst, count, points) {
    const cards = this.take(src, count);
    this.put(dst, cards);
    this.score += points;
    if (this.history.length === UNDO_LIMIT) this.history.shift();
    this.history.push([src, dst, count, points]);
    this.moves += 1;
    return { cards, src, dst, points };
  }

  tappable(at) {
    if (at.kind === "found") throw new Illegal("not_a_top_card");
    if (at.kind === "cell" && at.index >= this.cells.length) throw new Illegal("no_such_cell");
    const card = at.kind === "col" ? this.columns[at.index].at(-1) : this.cells[at.index];
    if (card === undefined || card === null) throw new Illegal("empty_source");
    return card;
  }

  /** A move from src to dst (the group the rules fix, between columns); the change made,
   * or Illegal thrown with nothing changed. */
  move(src, dst) {
    if (src.kind === "found" && src.index < 0) throw new Illegal("foundation_needs_suit");
    const [count, to, points] = this.resolve(src, dst);
    return this.apply(src, to, count, points);
  }

  /** A tap (to its foundation, if it takes the card) or a double tap of a top card. */
  tapAt(single, at) {
    const card = this.tappable(at);
    const suit = Math.floor(card / 13);
    const home = this.foundations[suit] === card % 13;
    if (single) {
      if (!home) throw new Illegal("no_foundation_move");
      return this.apply(at, { kind: "found", index: suit }, 1, 10);
    }
    return this.doubleTap(at, card, home);
  }

  /** Play one action in notation ("col3 cell1", "tap col2", "dtap cell1", "undo"). */
  play(text) {
    const words = String(text).trim().split(/\s+/);
    if (words[0] === "undo" && words.length === 1) return this.undo();
    if (words.length !== 2) throw new Illegal("bad_action");
    if (words[0] === "tap" || words[0] === "dtap") return this.tapAt(words[0] === "tap", parseLocation(words[1]));
    return this.move(parseLocation(words[0]), parseLocation(words[1]));
  }

  /** Double tap: its foundation, the longest column taking it, for a King the leftmost
   * empty column, the leftmost free cell; the card moves alone. */
  doubleTap(at, card, home) {
    if (home) return this.apply(at, { kind: "found", index: Math.floor(card / 13) }, 1, 10);
    const points = at.kind === "cell" ? 5 : 0;
    let best = -1;
    this.columns.forEach((col, i) => {
      const fits = col.length && col.at(-1) === card + 1 && card % 13 !== KING;
      if (fits && (best < 0 || col.length > this.columns[best].length)) best = i;
    });
    if (best >= 0) return this.apply(at, { kind: "col", index: best }, 1, points);
    if (card % 13 === KING) {
      const i = this.columns.findIndex((col) => !col.length);
      if (i >= 0) return this.apply(at, { kind: "col", index: i }, 1, points);
    }
    const free = this.cells.indexOf(null);
    if (free >= 0) return this.apply(at, { kind: "cell", index: free }, 1, 0);
    throw new Illegal("no_destination");
  }

  undo() {
    const last = this.history.pop();
    if (!last) throw new Illegal("nothing_to_undo");
    const [src, dst, count, points] = last;
    const cards = this.take(dst, count);
    this.put(src, cards);
    const removed = Math.min(points, this.score);
    this.score -= removed;
    this.moves += 1;
    return { cards, src: dst, dst: src, points: -removed, undo: true };
  }

  /** Each movable card's legal destinations in notation ({"col3": ["found:H", "cell2"]}),
   * as the mover's ack carries them. */
  targets() {
    const { columns, cells, foundations } = this;
    const free = [];
    cells.forEach((c, i) => c === null && free.push(i));
    const toFree = free.map((i) => CELL_NAMES[i]);
    const empty = [];
    const byTop = new Map();
    columns.forEach((col, i) => (col.length ? byTop.set(col.at(-1), COL_NAMES[i]) : empty.push(COL_NAMES[i])));
    const base = free.length + 1;
    const capOnto = base << empty.length;
    const capIntoEmpty = empty.length ? base << (empty.length - 1) : 0;
    const out = {};
    columns.forEach((column, i) => {
      if (!column.length) return;
      const card = column.at(-1);
      const suit = Math.floor(card / 13);
      const dsts = foundations[suit] === card % 13 ? [FOUND_NAMES[suit]] : [];
      const bottom = runBottom(column);
      for (let fit = card; fit <= Math.min(bottom, card + capOnto - 1); fit++) {
        if (fit % 13 !== KING) {
          const onto = byTop.get(fit + 1);
          if (onto !== undefined) dsts.push(onto);
        }
      }
      if (empty.length && bottom % 13 === KING && bottom - card < capIntoEmpty) dsts.push(...empty);
      dsts.push(...toFree);
      if (dsts.length) out[COL_NAMES[i]] = dsts;
    });
    const singles = [];
    cells.forEach((held, i) => held !== null && singles.push([CELL_NAMES[i], held, true, i]));
    foundations.forEach((n, s) => n && singles.push([FOUND_NAMES[s], s * 13 + n - 1, false, -1]));
    for (const [src, card, homeward, at] of singles) {
      const suit = Math.floor(card / 13);
      const dsts = homeward && foundations[suit] === card % 13 ? [FOUND_NAMES[suit]] : [];
      if (card % 13 !== KING) {
        const onto = byTop.get(card + 1);
        if (onto !== undefined) dsts.push(onto);
      } else dsts.push(...empty);
      for (const i of free) if (i !== at) dsts.push(CELL_NAMES[i]);
      if (dsts.length) out[src] = dsts;
    }
    return out;
  }

  isWon() {
    return this.foundations[0] + this.foundations[1] + this.foundations[2] + this.foundations[3] === 52;
  }
}

export { Illegal, nameOf };
