// Sharing a win: a card of emoji (each suit's foundation over the game's time), one short
// line and a link, handed to the phone's share sheet (with the card as a picture where it
// takes files) or copied to the clipboard. Neither gives the deal or the line played away:
// no game code, no card, no move, no replay; only how the foundations grew, the time, the
// number of moves and the place.

import { t } from "./i18n.js";
import { copyText } from "./clipboard.js";

/** A time for people: m:ss (h:mm:ss past an hour), whole seconds. */
export function shortTime(ms) {
  const s = Math.max(0, Math.floor((ms ?? 0) / 1000));
  const mm = Math.floor(s / 60) % 60;
  const ss = String(s % 60).padStart(2, "0");
  const h = Math.floor(s / 3600);
  return h ? `${h}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

const join = (parts) => parts.filter(Boolean).join(" · ");

/** The word of a perfect game (the server's `perfect`: won in the deal's proven par). */
const perfectWord = (perfect) => (perfect ? `★ ${t("perfect.share")}` : "");

/**
 * A daily win: `Seahaven daily 2026-11-30 · 2:31 · 84 moves (par 79) · #12 of 340 · streak 5`,
 * with `★ perfect` after the moves when the server said the win was perfect.
 * `rank`, `finishers`, `par` and `streak` are left out while unknown (or for an unranked game).
 */
export function dailyLine({ date, kind, timeMs, moves, par, rank, finishers, streak, perfect }) {
  return join([
    t(kind === "hard" ? "share.hard" : "share.daily", { date }),
    shortTime(timeMs),
    par ? t("share.movesPar", { n: moves, par }) : t("share.moves", { n: moves }),
    perfectWord(perfect),
    rank && finishers ? t("share.place", { rank, n: finishers }) : "",
    streak ? t("share.streak", { n: streak }) : "",
  ]);
}

/** A race: `Seahaven race · 3:12 · 91 moves · #1 of 3` (`★ perfect` after the moves). */
export function raceLine({ timeMs, moves, rank, racers, perfect }) {
  return join([
    t("share.race"),
    shortTime(timeMs),
    t("share.moves", { n: moves }),
    perfectWord(perfect),
    rank && racers ? t("share.place", { rank, n: racers }) : "",
  ]);
}

/** A game alone: `Seahaven solitaire · Easy · 4 cells · 4:05 · 102 moves` (`★ perfect`). */
export function soloLine({ cells, timeMs, moves, perfect }) {
  const level = { 4: "level.easy", 2: "level.medium", 1: "level.hard" }[cells] || "level.easy";
  return join([
    t("share.solo"), t(level), shortTime(timeMs), t("share.moves", { n: moves }),
    perfectWord(perfect),
  ]);
}

const SUIT_ROWS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
/** Columns of the card: eighths of the game's time. */
const SLICES = 8;

/** A suit's foundation as a square: none, a few, half, most, all 13. */
function square(n) {
  if (n >= 13) return "🟩";
  if (n >= 9) return "🟨";
  if (n >= 5) return "🟧";
  if (n >= 1) return "🟥";
  return "⬜";
}

/**
 * The share card: one row per suit, one square per eighth of the game's time, saying how
 * far that suit's foundation was at the end of it. `samples` are the foundations after each
 * of our moves ({t: ms since the start, f: {S, H, D, C}}); null without them (a reload).
 */
export function progressCard(samples, timeMs) {
  if (!samples?.length || !timeMs) return null;
  return SUIT_ROWS.map(([suit, symbol]) => {
    let row = `${symbol} `;
    let i = 0;
    let count = 0;
    for (let k = 1; k <= SLICES; k++) {
      const until = (timeMs * k) / SLICES;
      while (i < samples.length && samples[i].t <= until + 1) count = samples[i++].f[suit] ?? count;
      row += square(k === SLICES ? samples[samples.length - 1].f[suit] : count);
    }
    return row;
  }).join("\n");
}

/** The card as a picture (PNG), for a share sheet that takes files; null if it cannot. */
export async function cardImage(card) {
  const lines = card.split("\n");
  const canvas = document.createElement("canvas");
  canvas.width = 560;
  canvas.height = 80 + lines.length * 56;
  const ctx = canvas.getContext("2d");
  if (!ctx) return null;
  ctx.fillStyle = "#0f5a36";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#f4f7f2";
  ctx.font = "bold 28px system-ui, sans-serif";
  ctx.fillText("Seahaven Race", 24, 46);
  ctx.font = "40px system-ui, 'Noto Color Emoji', sans-serif";
  lines.forEach((line, i) => ctx.fillText(line, 24, 112 + i * 56));
  const blob = await new Promise((done) => {
    canvas.toBlob(done, "image/png");
  });
  return blob ? new File([blob], "seahaven.png", { type: "image/png" }) : null;
}

/** Where a shared line points: the daily page of that day, a solo game's deal (anyone may
 * play a solo deal: it is no day's secret), or the race page. */
export function shareLink(mode, daily, code = null) {
  const base = `${location.origin}${location.pathname}`;
  if (mode === "daily" && daily) {
    return `${base}#/daily/${daily.date}${daily.kind === "hard" ? "/hard" : ""}`;
  }
  if (mode === "solo" && code) return `${base}#/play/${encodeURIComponent(code)}`;
  return `${base}#/${mode === "race" ? "race" : "play"}`;
}

/** Where a daily win's grid is kept, so a reload (or the Daily page's card) shares it all
 * day: the grid only (how the foundations grew), never the deal or a move. */
const KEPT = "seahaven.shareCard";

/** Keep a daily win's grid for its day (the day's earlier grids are dropped). */
export function rememberCard(date, kind, card) {
  if (!card) return;
  try {
    let kept = JSON.parse(localStorage.getItem(KEPT) || "{}");
    if (Object.values(kept).some((k) => k.date !== date)) kept = {};
    kept[kind] = { date, card };
    localStorage.setItem(KEPT, JSON.stringify(kept));
  } catch { /* no storage: the grid goes with the page */ }
}

/** A daily win's grid kept on this device, or null. */
export function rememberedCard(date, kind) {
  try {
    const k = JSON.parse(localStorage.getItem(KEPT) || "{}")[kind];
    return k && k.date === date ? k.card : null;
  } catch {
    return null;
  }
}

/**
 * Hand a line and its link on: the share sheet on a touch screen that has one, else the
 * clipboard. Returns "shared", "copied" or "cancelled".
 */
export async function share(text, url, card = null) {
  const touch = window.matchMedia?.("(pointer: coarse)").matches;
  const full = card ? `${card}\n${text}` : text;
  if (touch && navigator.share) {
    try {
      // The card as a picture too, where the share sheet takes one.
      const image = card && navigator.canShare ? await cardImage(card) : null;
      const files = image && navigator.canShare({ files: [image] }) ? { files: [image] } : {};
      await navigator.share({ text: full, url, ...files });
      return "shared";
    } catch (err) {
      if (err?.name === "AbortError") return "cancelled";
      // no share sheet after all: the clipboard below
    }
  }
  await copyText(`${full}\n${url}`);
  return "copied";
}
