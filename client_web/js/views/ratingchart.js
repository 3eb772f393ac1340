// A player's rating history for one variant, drawn here as inline SVG (no library): a line
// through the rating after each rated race, with a title and a description for screen
// readers, and the same figures as a table beside it (behind a disclosure).

import { t } from "../i18n.js";
import { esc } from "../dom.js";
import { showRating } from "./ratings.js";

let uid = 0;

/** A date (YYYY-MM-DD) of a server time in ms. */
function day(ms) {
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : "";
}

/**
 * The chart of `points` ([{at, rating, start?}], oldest first; `start`: the rating before the
 * first race, drawn but not counted) for the variant called `level`,
 * drawn `width` px wide. Returns HTML: the SVG and its table alternative.
 */
export function ratingChart(points, level, width = 480) {
  const id = `rc${++uid}`;
  // Drawn at the width it gets, so its text keeps one size; the height stays small.
  const w = Math.round(Math.max(280, Math.min(1100, width || 480)));
  const h = w < 420 ? 150 : 180;
  const m = { l: 40, r: 10, t: 12, b: 22 };
  const values = points.map((p) => Number(p.rating));
  const first = values[0];
  const last = values[values.length - 1];
  const high = Math.max(...values);
  const low = Math.min(...values);
  // A little air above and below, in whole tens, so a flat history is not a line on an edge.
  const lo = Math.floor((low - 10) / 10) * 10;
  let hi = Math.ceil((high + 10) / 10) * 10;
  if ((hi - lo) % 20) hi += 10; // an even span: the middle line falls on a whole ten
  const n = points.length;
  const x = (i) => m.l + (n < 2 ? (w - m.l - m.r) / 2 : (i * (w - m.l - m.r)) / (n - 1));
  const y = (v) => h - m.b - ((v - lo) * (h - m.t - m.b)) / (hi - lo);
  const ticks = [lo, (lo + hi) / 2, hi].map((v) => Math.round(v));
  const grid = ticks.map((v) => `<line x1="${m.l}" x2="${w - m.r}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="grid"/>
    <text x="${m.l - 5}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" class="axis">${v}</text>`).join("");
  const dates = n ? `<text x="${m.l}" y="${h - 6}" class="axis">${esc(day(points[0].at))}</text>
    ${n > 1 ? `<text x="${w - m.r}" y="${h - 6}" text-anchor="end" class="axis">${esc(day(points[n - 1].at))}</text>` : ""}` : "";
  const line = n > 1
    ? `<polyline class="line" points="${points.map((p, i) => `${x(i).toFixed(1)},${y(Number(p.rating)).toFixed(1)}`).join(" ")}"/>`
    : "";
  // A small dot a race (while they stay apart), the latest one larger.
  const dots = points.map((p, i) => (i === n - 1 || (!p.start && n <= 40)
    ? `<circle class="dot" cx="${x(i).toFixed(1)}" cy="${y(Number(p.rating)).toFixed(1)}" r="${i === n - 1 ? 4.5 : 2.5}"/>` : "")).join("");
  const title = t("profile.ratingChart", { level });
  const races = points.filter((p) => !p.start); // the first point may be the start
  const desc = t("profile.ratingChartDesc", { n: races.length, first: showRating(first), last: showRating(last),
    high: showRating(high), low: showRating(low) });
  const rows = races.slice().reverse().map((p, i) => `<tr><td>${races.length - i}</td><td>${esc(day(p.at))}</td><td class="num">${showRating(p.rating)}</td></tr>`).join("");
  return `<svg class="rating-chart" viewBox="0 0 ${w} ${h}" role="img" aria-labelledby="${id}t ${id}d">
      <title id="${id}t">${esc(title)}</title><desc id="${id}d">${esc(desc)}</desc>
      ${grid}${dates}${line}${dots}</svg>
    <details class="chart-table"><summary>${esc(t("profile.asTable"))}</summary>
      <table class="results"><caption class="visually-hidden">${esc(title)}</caption>
        <thead><tr><th>${esc(t("profile.game"))}</th><th>${esc(t("profile.date"))}</th><th class="num">${esc(t("rating.rating"))}</th></tr></thead>
        <tbody>${rows}</tbody></table></details>`;
}
