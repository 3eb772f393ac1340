// "Done for today": once a player's ranked attempt of a running day is over, its deal tile
// on the Daily page becomes their result card (time, moves against par, rank, streak, a
// share button, their statistics), with the countdown to the next deal; practice is a
// choice named as such. Read from `GET /api/daily/DATE/mine` (the player's own attempt,
// with their token): a held finish says "pending review" with its time, nothing more.

import { t, formatTime } from "../i18n.js";
import { esc } from "../dom.js";
import { dailyLine, share, shareLink, rememberedCard } from "../share.js";

/** The states of an attempt that end it (the card replaces Start). */
const OVER = new Set(["ranked", "held", "unranked", "over"]);

/** The player's own attempt of a day and kind, or null (no token, offline, an error). */
export async function loadMine(net, date, kind) {
  if (!net.token) return null;
  try {
    const res = await fetch(`/api/daily/${date}/mine?kind=${kind}`, {
      cache: "no-cache", headers: { Authorization: `Bearer ${net.token}` },
    });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

/** Whether an attempt is over: its tile shows the result card. */
export function isDone(mine) {
  return Boolean(mine && OVER.has(mine.state));
}

/** "5:02:09": the time left until `endsAt` (ms since the epoch). */
export function countdown(endsAt, now = Date.now()) {
  const s = Math.max(0, Math.floor((endsAt - now) / 1000));
  const pad = (n) => String(n).padStart(2, "0");
  return `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

/** The share line of a result (no code, no move: share.js). */
function line(mine, par) {
  return dailyLine({
    date: mine.date, kind: mine.kind, timeMs: mine.time_ms, moves: mine.moves, par,
    rank: mine.state === "ranked" ? mine.rank : null, finishers: mine.finishers,
    streak: mine.streak, perfect: mine.perfect,
  });
}

/** The result card of a finished attempt (HTML). `par` is the deal's; `endsAt` the day's end. */
export function cardHtml(mine, { title, par, endsAt }) {
  const won = mine.time_ms != null;
  const facts = [];
  if (won) {
    facts.push([t("stat.time"), formatTime(mine.time_ms)]);
    const diff = par ? mine.moves - par : null;
    const against = diff == null ? "" : diff === 0 ? t("done.atPar") : t("done.overPar", { n: diff });
    facts.push([t("stat.moves"), `${mine.moves}${against ? ` · ${against}` : ""}`]);
  }
  if (mine.state === "ranked") facts.push([t("done.rank"), t("done.rankOf", { rank: mine.rank, n: mine.finishers })]);
  facts.push([t("done.streak"), String(mine.streak ?? 0)]);
  let status = "";
  if (mine.state === "held") status = t("done.held", { time: formatTime(mine.time_ms) });
  else if (mine.state === "unranked") status = t(`unranked.${mine.reason}`, { time: formatTime(mine.time_ms) });
  else if (mine.state === "over") status = t("done.notWon");
  const perfect = mine.perfect ? ` <span class="perfect-mark">${esc(t("perfect.mark"))}</span>` : "";
  return `
    <div class="deal-tile mini done-card" data-kind="${esc(mine.kind)}" data-done="${esc(mine.state)}">
      <h3>${esc(title)}</h3>
      <p class="done-title">✓ ${esc(t("done.title"))}${perfect}</p>
      <dl class="done-facts">${facts.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`).join("")}</dl>
      ${status ? `<p class="done-status" data-k="done-status">${esc(status)}</p>` : ""}
      <p class="done-next">${esc(t("done.next"))} <b data-k="next-deal" role="timer" aria-live="off">${esc(countdown(endsAt))}</b></p>
      <div class="row done-actions">
        ${won ? `<button class="btn small primary" data-done-act="share">${esc(t("win.share"))}</button>` : ""}
        <a class="btn small" href="#/player" data-k="stats-link">${esc(t("stats.open"))}</a>
        <button class="btn small" data-play="${esc(mine.kind)}" data-practice="1">${esc(t("done.practice"))}</button>
      </div>
    </div>`;
}

/** Share a result from its card: the line, the day's link, and the grid kept from the win. */
export async function shareResult(mine, par) {
  await share(line(mine, par), shareLink("daily", mine), rememberedCard(mine.date, mine.kind));
}
