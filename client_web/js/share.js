// Sharing a win: one short line and a link, handed to the phone's share sheet or copied to
// the clipboard. The line never gives the deal or the line played away: no game code, no
// moves, no replay; only the time, the number of moves and the place.

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

/**
 * A daily win: `Seahaven daily 2026-11-30 · 2:31 · 84 moves (par 79) · #12 of 340 · streak 5`.
 * `rank`, `finishers`, `par` and `streak` are left out while unknown (or for an unranked game).
 */
export function dailyLine({ date, kind, timeMs, moves, par, rank, finishers, streak }) {
  return join([
    t(kind === "hard" ? "share.hard" : "share.daily", { date }),
    shortTime(timeMs),
    par ? t("share.movesPar", { n: moves, par }) : t("share.moves", { n: moves }),
    rank && finishers ? t("share.place", { rank, n: finishers }) : "",
    streak ? t("share.streak", { n: streak }) : "",
  ]);
}

/** A race: `Seahaven race · 3:12 · 91 moves · #1 of 3`. */
export function raceLine({ timeMs, moves, rank, racers }) {
  return join([
    t("share.race"),
    shortTime(timeMs),
    t("share.moves", { n: moves }),
    rank && racers ? t("share.place", { rank, n: racers }) : "",
  ]);
}

/** A game alone: `Seahaven solitaire · Easy · 4 cells · 4:05 · 102 moves`. */
export function soloLine({ cells, timeMs, moves }) {
  const level = { 4: "level.easy", 2: "level.medium", 1: "level.hard" }[cells] || "level.easy";
  return join([t("share.solo"), t(level), shortTime(timeMs), t("share.moves", { n: moves })]);
}

/** Where a shared line points: the daily page of that day, or the race or play page. */
export function shareLink(mode, daily) {
  const base = `${location.origin}${location.pathname}`;
  if (mode === "daily" && daily) {
    return `${base}#/daily/${daily.date}${daily.kind === "hard" ? "/hard" : ""}`;
  }
  return `${base}#/${mode === "race" ? "race" : "play"}`;
}

/**
 * Hand a line and its link on: the share sheet on a touch screen that has one, else the
 * clipboard. Returns "shared", "copied" or "cancelled".
 */
export async function share(text, url) {
  const touch = window.matchMedia?.("(pointer: coarse)").matches;
  if (touch && navigator.share) {
    try {
      await navigator.share({ text, url });
      return "shared";
    } catch (err) {
      if (err?.name === "AbortError") return "cancelled";
      // no share sheet after all: the clipboard below
    }
  }
  await copyText(`${text}\n${url}`);
  return "copied";
}
