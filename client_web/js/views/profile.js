// The player page (#/player/ID; #/player for oneself): best race times per level, races
// played and won, the rating of each variant with a chart of its history, the recent public
// races, the daily record (streak as a calendar of 13 weeks, the daily times of the last 30
// days as a chart), the solo statistics of each variant (figures, a win-rate bar and the
// last games as a chart), whom we follow (on our own page), drawn here in SVG and CSS (no
// library, no build step). From GET /api/player/ID. Someone else's page has a follow button.

import { t, formatTime, formatDate, locale } from "../i18n.js";
import { esc, who } from "../dom.js";
import { playerName, setPlayerName } from "../player.js";
import { toast } from "../notify.js";
import { shortTime } from "../share.js";
import { perfectMark } from "../win.js";
import { DevicesPanel } from "./devices.js";
import { ratingChart } from "./ratingchart.js";
import { showDelta, showRating } from "./ratings.js";

/** A date in a table: "1 Dec 2026", "1. Dez. 2026". */
const SHORT_DATE = { day: "numeric", month: "short", year: "numeric" };

const DAY_MS = 86_400_000;
const LEVELS = [["C4", "level.easy"], ["C2", "level.medium"], ["C1", "level.hard"]];

/** A UTC date (YYYY-MM-DD) `n` days after `date`. */
export function addDays(date, n) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export class ProfileView {
  constructor(app) {
    this.app = app;
  }

  show(main, parts) {
    this.pid = parts[0] || null;
    this.data = null;
    this.el = document.createElement("div");
    this.el.className = "profile";
    this.el.innerHTML = `<div class="card-panel"><p class="muted">${esc(t("msg.loading"))}</p></div>`;
    main.append(this.el);
    // Our own page needs our id (and shows our token, for what is ours alone).
    this.app.online(() => this.load());
  }

  hide() {
    this.el = null;
    this.devices?.close();
    this.devices = null;
  }

  onLang() { this.draw(); }
  onFriends() { this.draw(); }
  onResize() { this.draw(); }

  async load() {
    const net = this.app.net;
    const pid = this.pid || net.playerId;
    if (!pid || !this.el) return;
    this.own = pid === net.playerId;
    const headers = this.own && net.token ? { Authorization: `Bearer ${net.token}` } : {};
    try {
      const res = await fetch(`/api/player/${encodeURIComponent(pid)}`, { cache: "no-cache", headers });
      if (!res.ok) throw new Error(String(res.status));
      this.data = await res.json();
    } catch (err) {
      if (this.el) {
        this.el.innerHTML = `<div class="card-panel"><p class="muted">${esc(t("profile.notFound"))} (${esc(err.message)})</p></div>`;
      }
      return;
    }
    this.draw();
  }

  /** The rating of each variant with the chart of its history (variants never rated say so). */
  ratingsPanel(ratings) {
    const rated = LEVELS.filter(([c]) => ratings[c.slice(1)]);
    const width = this.el.clientWidth || 600;
    const cols = width > 760 ? Math.max(1, rated.length) : 1;
    const each = (width - 40 - (cols - 1) * 12) / cols;
    const blocks = LEVELS.map(([c, label]) => {
      const r = ratings[c.slice(1)];
      if (!r) return "";
      const points = (r.history || []).map((p) => ({ at: p.t, rating: p.rating, change: p.change }))
        .sort((a, b) => a.at - b.at);
      // The line starts where the first rated race started from.
      if (points.length && points[0].change != null) {
        points.unshift({ at: points[0].at, rating: points[0].rating - points[0].change, start: true });
      }
      return `<section class="rating-variant" data-cells="${c.slice(1)}">
        <h4><span>${esc(t(label))} <small class="muted">${esc(t("profile.ratedGames", { n: r.games }))}</small></span>
          <b${r.provisional ? ` title="${esc(t("rating.provisional"))}"` : ""}>${esc(showRating(r.rating, r.provisional))}</b></h4>
        ${points.length ? ratingChart(points, t(label), each) : ""}
      </section>`;
    }).join("");
    // Someone who never raced a rated race: nothing to show (the daily record comes first).
    if (!rated.length) return "";
    return `<div class="card-panel player-ratings">
      <h3>${esc(t("profile.ratings"))}</h3>
      <div class="profile-ratings">${blocks}</div>
    </div>`;
  }

  /** The last public races: when, the level, the place among how many, the rating after. */
  publicRaces(races) {
    if (!races.length) return "";
    const levels = { 4: "level.easy", 2: "level.medium", 1: "level.hard" };
    const rows = races.slice(0, 10).map((r) => {
      const n = Array.isArray(r.racers) ? r.racers.length : r.racers;
      const place = r.rank != null ? t("profile.place", { rank: r.rank, n }) : t(`race.status.${r.status}`, {});
      const cls = r.change > 0 ? "delta-up" : r.change < 0 ? "delta-down" : "muted";
      return `<tr><td>${esc(formatDate(new Date(r.at).toISOString().slice(0, 10), SHORT_DATE))}</td><td>${esc(t(levels[r.cells] || "level.easy"))}</td>
        <td>${esc(place)}</td>
        <td class="num">${r.rating != null ? `${esc(showRating(r.rating))} <span class="${cls}">${esc(showDelta(r.change))}</span>` : "–"}</td></tr>`;
    }).join("");
    return `<div class="card-panel public-races"><h3>${esc(t("profile.publicRaces"))}</h3>
      <table class="results"><thead><tr><th>${esc(t("profile.date"))}</th><th>${esc(t("profile.level"))}</th>
        <th>${esc(t("profile.placeHead"))}</th><th class="num">${esc(t("rating.rating"))}</th></tr></thead>
      <tbody>${rows}</tbody></table></div>`;
  }

  draw() {
    if (!this.el || !this.data) return;
    const d = this.data;
    const daily = d.daily || { name: null, results: [], days: [] };
    const name = this.own ? playerName() : daily.name || t("profile.player");
    const today = new Date().toISOString().slice(0, 10);
    const races = d.races;
    const tile = (value, label) => `<div class="stat"><b>${esc(value)}</b><small>${esc(t(label))}</small></div>`;
    const best = LEVELS.map(([c, label]) => `<tr><td>${esc(t(label))}</td>
      <td>${races.best_ms[c] != null ? formatTime(races.best_ms[c]) : `<span class="muted">${esc(t("profile.noBest"))}</span>`}</td></tr>`).join("");
    const recent = (d.recent || []).slice(0, 8).map((r) => `<tr>
      <td>${r.rank ?? "–"}</td><td>${r.time_ms != null ? formatTime(r.time_ms) : esc(t("race.status.gave_up"))}</td>
      <td>${r.moves}${perfectMark(r.perfect)}</td><td>${esc(formatDate(new Date(r.at).toISOString().slice(0, 10), SHORT_DATE))}</td></tr>`).join("");
    const head = `
      <div class="card-panel profile-top">
        <div class="row profile-head"><h2>${who(name, d.player_id)} ${this.own ? `<small class="muted">${esc(t("profile.you"))}</small>` : ""}</h2>
          ${this.own ? "" : this.app.friends.button(d.player_id)}</div>
        ${d.arena ? `<p class="profile-arena"><a href="#/arena/${encodeURIComponent(d.arena)}">${esc(t("arena.inArena"))}</a></p>` : ""}
        ${this.own ? `<form class="row rename" data-k="rename"><label><span>${esc(t("names.title"))}</span>
          <input class="field" name="name" maxlength="24" autocomplete="nickname" required value="${esc(playerName())}"></label>
          <button class="btn small">${esc(t("names.save"))}</button></form>` : ""}
      </div>`;
    const raceBlock = `
      <div class="card-panel profile-races" data-mode="race">
        <h3>${esc(t("profile.racesTitle"))}</h3>
        <div class="bar profile-stats">
          ${tile(races.played, "profile.played")}
          ${tile(races.won, "profile.won")}
          ${tile(races.finished, "profile.finished")}
          <div class="stat" data-k="perfect-games" title="${esc(t("perfect.explain"))}"><b>${esc(d.perfect?.total ?? 0)}</b><small>${esc(t("perfect.games"))}</small></div>
        </div>
        <section><h4>${esc(t("profile.best"))}</h4><table class="results best"><tbody>${best}</tbody></table></section>
      </div>
      ${this.ratingsPanel(d.ratings || {})}
      ${this.publicRaces(d.public_races || [])}
      ${recent ? `<div class="card-panel"><h3>${esc(t("profile.recent"))}</h3>
        <table class="results"><thead><tr><th>#</th><th>${esc(t("lb.time"))}</th><th>${esc(t("lb.moves"))}</th><th>${esc(t("profile.date"))}</th></tr></thead>
        <tbody>${recent}</tbody></table></div>` : ""}`;
    const dailyBlock = `
      <div class="card-panel daily-record" data-mode="daily">
        <h3>${esc(t("profile.dailyRecord"))}</h3>
        <div class="bar profile-stats">${tile(d.streak, "profile.streak")}</div>
        <section><h4>${esc(t("profile.calendar"))}</h4>${calendar(daily.days, today)}</section>
        ${dailyRecord(daily)}
        <h4>${esc(t("profile.chart"))}</h4>
        ${chart(daily.results, today, this.el.clientWidth - 40)}
        ${daily.results.length ? "" : `<p class="muted">${esc(t("profile.noDaily"))}</p>`}
      </div>`;
    const soloBlock = soloPanel(d.solo || {}, this.el.clientWidth || 600);
    // The player's own most played mode first (a tie: solo, then races, then the daily).
    const blocks = [[soloBlock, soloGames(d.solo || {})], [raceBlock, races.played || 0],
      [dailyBlock, (daily.results || []).length]];
    blocks.sort((a, b) => b[1] - a[1]); // a stable sort: ties keep that order
    this.el.innerHTML = `${head}${blocks[0][0]}
      ${this.own ? '<div data-k="devices"></div>' : ""}
      ${this.own ? followsPanel(d.follows || this.app.friends.list) : ""}
      ${blocks.slice(1).map((b) => b[0]).join("")}`;
    const slot = this.el.querySelector('[data-k="devices"]');
    if (slot) {
      // Signed in as another player (or signed out elsewhere): our page is theirs now.
      this.devices ||= new DevicesPanel(this.app, () => { this.devices?.close(); this.devices = null; this.load(); });
      this.devices.mount(slot);
    }
    const form = this.el.querySelector('[data-k="rename"]');
    if (form) form.onsubmit = (ev) => { ev.preventDefault(); this.rename(form.name.value); };
  }

  /** Our name, edited here: the next hello carries it (at once when we are in no room; a
   * room keeps the name we joined it with, so then from our next game on). */
  rename(value) {
    setPlayerName(value);
    const app = this.app;
    if (app.game.roomId) {
      app.renamePending = true;
      toast(t("names.later"), "info");
    } else {
      app.net.greet();
      toast(t("names.saved"), "info");
    }
    this.draw();
  }
}

/** How many solo games the player has played, every variant together. */
export function soloGames(solo) {
  return LEVELS.reduce((n, [c]) => n + (solo[c.slice(1)]?.games || 0), 0);
}

/**
 * The solo statistics of each variant played: games, wins, a win-rate bar, the current and
 * best streak, the best time and the fewest moves, and the last games as a chart.
 */
export function soloPanel(solo, width) {
  const played = LEVELS.filter(([c]) => solo[c.slice(1)]?.games);
  if (!played.length) {
    return `<div class="card-panel solo-stats" data-mode="solo"><h3>${esc(t("solo.title"))}</h3>
      <p class="muted">${esc(t("solo.none"))}</p></div>`;
  }
  const cols = width > 760 ? played.length : 1;
  const each = (width - 40 - (cols - 1) * 12) / cols;
  const tile = (value, label) => `<div class="stat"><b>${esc(value)}</b><small>${esc(t(label))}</small></div>`;
  const blocks = played.map(([c, label]) => {
    const s = solo[c.slice(1)];
    const pct = Math.round(100 * (s.win_rate || 0));
    return `<section class="solo-variant" data-cells="${c.slice(1)}">
      <h4>${esc(t(label))}</h4>
      <div class="bar">
        ${tile(s.games, "solo.games")}${tile(s.wins, "solo.wins")}
        ${tile(`${pct}%`, "solo.winRate")}
      </div>
      <div class="win-rate" role="img" aria-label="${esc(t("solo.winRate"))}: ${pct}%"><span style="width:${pct}%"></span></div>
      <div class="bar">
        ${tile(s.streak, "solo.streak")}${tile(s.best_streak, "solo.bestStreak")}
        ${tile(s.best_ms != null ? formatTime(s.best_ms) : "–", "solo.bestTime")}
        ${tile(s.fewest_moves ?? "–", "solo.fewestMoves")}
      </div>
      ${soloChart(s.last || [], t(label), each)}
    </section>`;
  }).join("");
  return `<div class="card-panel solo-stats" data-mode="solo"><h3>${esc(t("solo.title"))}</h3>
    <div class="profile-solo">${blocks}</div></div>`;
}

/**
 * The last solo games, oldest on the left: a bar per win (its height the time, a taller bar
 * a slower win), a cross on the baseline per loss. Drawn for `width` px.
 */
export function soloChart(games, level, width = 300) {
  const w = Math.round(Math.max(240, Math.min(520, width || 300)));
  const h = 90;
  const m = { l: 4, r: 4, t: 6, b: 14 };
  const slots = Math.max(10, games.length);
  const step = (w - m.l - m.r) / slots;
  const slowest = Math.max(1, ...games.filter((g) => g.won).map((g) => g.time_ms));
  const marks = games.map((g, i) => {
    const x = m.l + i * step;
    const what = g.won
      ? `${t("solo.won")} · ${formatTime(g.time_ms)} · ${t("race.movesN", { n: g.moves })}`
      : `${t("solo.lost")} · ${t("race.movesN", { n: g.moves })}`;
    if (!g.won) {
      const cx = x + step / 2;
      const y = h - m.b - 4;
      return `<path class="loss" d="M${(cx - 3).toFixed(1)},${y - 3}l6,6m0,-6l-6,6"><title>${esc(what)}</title></path>`;
    }
    const bh = Math.max(3, ((h - m.t - m.b) * g.time_ms) / slowest);
    return `<rect class="win" x="${(x + step * 0.15).toFixed(1)}" y="${(h - m.b - bh).toFixed(1)}"
      width="${(step * 0.7).toFixed(1)}" height="${bh.toFixed(1)}" rx="2"><title>${esc(what)}</title></rect>`;
  }).join("");
  const label = t("solo.chart", { n: games.length, level });
  return `<svg class="chart solo-chart" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(label)}">
    <line class="grid" x1="${m.l}" x2="${w - m.r}" y1="${h - m.b}" y2="${h - m.b}"/>${marks}
    <text class="axis" x="${m.l}" y="${h - 2}">${esc(t("solo.games"))}: ${games.length}</text></svg>`;
}

/** Whom we follow (our own page alone: nobody else is told). */
export function followsPanel(list) {
  const rows = list.map((f) => `<li><a class="who" href="#/player/${encodeURIComponent(f.player_id)}">${esc(f.name || f.player_id)}</a></li>`).join("");
  return `<div class="card-panel follows"><h3>${esc(t("friends.list"))}</h3>
    ${rows ? `<ul class="follow-list">${rows}</ul>` : `<p class="muted">${esc(t("friends.noneYet"))}</p>`}</div>`;
}

/**
 * The daily record in figures (the streak is among the page's first figures): the ranked
 * days of the last 13 weeks, the best place and the best time of the last 30 days.
 */
export function dailyRecord(daily) {
  const normal = daily.results.filter((r) => r.kind === "daily");
  const ranks = daily.results.map((r) => r.rank).filter((r) => r != null);
  const best = normal.length ? Math.min(...normal.map((r) => r.time_ms)) : null;
  const tile = (value, label) => `<div class="stat"><b>${esc(value)}</b><small>${esc(t(label))}</small></div>`;
  return `<div class="bar record-stats">
    ${tile(daily.days.length, "profile.rankedDays")}
    ${tile(ranks.length ? `#${Math.min(...ranks)}` : "–", "profile.bestPlace")}
    ${tile(best != null ? shortTime(best) : "–", "profile.bestDaily")}
  </div>`;
}

/**
 * The ranked days of the last 13 weeks as a calendar: a column a week (Monday on top), the
 * last column this week, a filled square for a day with a ranked finish.
 */
export function calendar(days, today) {
  const played = new Set(days);
  const size = 14;
  const step = 17;
  const left = 18;
  const top = 16;
  const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
  const monday = addDays(today, -weekday);
  const cells = [];
  const months = [];
  for (let week = 0; week < 13; week++) {
    const start = addDays(monday, (week - 12) * 7);
    const monthStarts = (s) => s.slice(8) <= "07";
    if (monthStarts(start) || (week === 0 && !monthStarts(addDays(start, 7)))) {
      months.push(`<text x="${left + week * step}" y="11" class="axis">${esc(monthName(start))}</text>`);
    }
    for (let day = 0; day < 7; day++) {
      const date = addDays(start, day);
      if (date > today) continue;
      const on = played.has(date);
      cells.push(`<rect x="${left + week * step}" y="${top + day * step}" width="${size}" height="${size}" rx="3"
        class="day${on ? " on" : ""}${date === today ? " today" : ""}" data-date="${date}" data-played="${on ? 1 : 0}">
        <title>${esc(formatDate(date))}${on ? ` · ${esc(t("profile.rankedDay"))}` : ""}</title></rect>`);
    }
  }
  const labels = [0, 2, 4].map((d) => `<text x="0" y="${top + d * step + 11}" class="axis">${esc(dayName(addDays(monday, d)))}</text>`).join("");
  const width = left + 13 * step;
  const height = top + 7 * step;
  return `<svg class="calendar" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(t("profile.calendar"))}">
    ${months.join("")}${labels}${cells.join("")}</svg>`;
}

/**
 * The daily times of the last 30 days: a line per kind, a dot per ranked finish. Drawn for
 * the width it gets (`width` px), so that its text keeps its size on a phone and a laptop.
 */
export function chart(results, today, width = 640) {
  const w = Math.round(Math.max(300, Math.min(960, width || 640)));
  const h = w < 520 ? 210 : 240;
  const m = { l: 44, r: 12, t: 30, b: 26 };
  const first = addDays(today, -29);
  const dayIndex = (date) => Math.round((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / DAY_MS);
  const max = Math.max(60_000, ...results.map((r) => r.time_ms));
  const stepMs = niceStep(max / 4);
  const top = Math.ceil(max / stepMs) * stepMs;
  const x = (i) => m.l + (i * (w - m.l - m.r)) / 29;
  const y = (ms) => h - m.b - (ms * (h - m.t - m.b)) / top;
  const grid = [];
  for (let v = 0; v <= top; v += stepMs) {
    grid.push(`<line x1="${m.l}" x2="${w - m.r}" y1="${y(v)}" y2="${y(v)}" class="grid"/>
      <text x="${m.l - 6}" y="${y(v) + 4}" text-anchor="end" class="axis">${shortTime(v)}</text>`);
  }
  for (let i = 0; i < 27; i += 7) {
    const date = addDays(first, i);
    grid.push(`<text x="${x(i)}" y="${h - 8}" text-anchor="${i ? "middle" : "start"}" class="axis">${esc(date.slice(5))}</text>`);
  }
  grid.push(`<text x="${x(29)}" y="${h - 8}" text-anchor="end" class="axis">${esc(today.slice(5))}</text>`);
  const series = ["daily", "hard"].map((kind) => {
    const points = results.filter((r) => r.kind === kind && dayIndex(r.date) >= 0)
      .map((r) => ({ ...r, i: dayIndex(r.date) })).sort((a, b) => a.i - b.i);
    // Consecutive days are joined; a missed day breaks the line.
    const runs = [];
    for (const p of points) {
      const run = runs[runs.length - 1];
      if (run && run[run.length - 1].i === p.i - 1) run.push(p);
      else runs.push([p]);
    }
    const lines = runs.filter((r) => r.length > 1).map((r) =>
      `<polyline class="line ${kind}" points="${r.map((p) => `${x(p.i).toFixed(1)},${y(p.time_ms).toFixed(1)}`).join(" ")}"/>`).join("");
    const dots = points.map((p) => `<circle class="dot ${kind}${p.perfect ? " perfect" : ""}" cx="${x(p.i).toFixed(1)}" cy="${y(p.time_ms).toFixed(1)}" r="4"
      data-date="${esc(p.date)}"><title>${esc(formatDate(p.date))} · ${esc(t(kind === "hard" ? "daily.hard" : "daily.normal"))} · ${shortTime(p.time_ms)} · ${esc(t("race.movesN", { n: p.moves }))}${p.rank ? ` · #${p.rank}/${p.finishers}` : ""}${p.perfect ? ` · ★ ${esc(t("perfect.mark"))}` : ""}</title></circle>`).join("");
    return lines + dots;
  }).join("");
  const legend = ["daily", "hard"].map((kind, n) => `<g transform="translate(${m.l + 6 + n * 90}, 12)">
    <circle class="dot ${kind}" cx="0" cy="0" r="4"/><text x="9" y="4" class="axis">${esc(t(kind === "hard" ? "daily.hard" : "daily.normal"))}</text></g>`).join("");
  return `<svg class="chart" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(t("profile.chart"))}">
    ${grid.join("")}${series}${legend}</svg>`;
}

/** A round step for the time axis: from 5 seconds to an hour (whole hours beyond). */
function niceStep(ms) {
  const candidates = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map((s) => s * 1000);
  return candidates.find((c) => c >= ms) || Math.ceil(ms / 3_600_000) * 3_600_000;
}

function monthName(date) {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(locale(), { month: "short", timeZone: "UTC" });
}

function dayName(date) {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(locale(), { weekday: "narrow", timeZone: "UTC" });
}
