// The ratings table: the top players of a variant (GET /api/ratings?cells=N&limit=L), with a
// switch between the variants. Each name links to the player's page.

import { t } from "../i18n.js";
import { html, esc, who } from "../dom.js";

const LEVELS = [[4, "level.easy"], [2, "level.medium"], [1, "level.hard"]];

/** A rating as shown: a whole number; a provisional player's with "?" (not yet sure). */
export function showRating(r, provisional = false) {
  if (r == null || !Number.isFinite(Number(r))) return "–";
  return String(Math.round(Number(r))) + (provisional ? "?" : "");
}

/** A rating change as shown: +12, −8, ±0 (a real minus sign). */
export function showDelta(d) {
  if (d == null || !Number.isFinite(Number(d))) return "";
  const n = Math.round(Number(d));
  if (n > 0) return `+${n}`;
  if (n < 0) return `−${-n}`;
  return "±0";
}

/** A racer's rating after the race and its change (+12, −8), or why it did not change. */
export function ratingCell(c) {
  if (!c) return `<td class="num muted">–</td>`;
  const cls = c.change > 0 ? "delta-up" : c.change < 0 ? "delta-down" : "muted";
  const title = c.unrated_reason ? t(`rating.unrated.${c.unrated_reason}`) : c.provisional ? t("rating.provisional") : "";
  const why = title ? ` title="${esc(title)}"` : "";
  return `<td class="num rating-change" data-change="${esc(c.change)}"${c.provisional ? " data-provisional" : ""}${why}>${showRating(c.rating, c.provisional)}
    <span class="${cls}">${esc(showDelta(c.change))}</span>${c.unrated_reason ? ` <span class="muted">(${esc(t(`rating.unrated.${c.unrated_reason}`))})</span>` : ""}</td>`;
}

/** The "?" explained under a table that shows one (HTML; nothing when none does). */
export function provisionalNote(changes) {
  if (!changes.some((c) => c?.provisional)) return "";
  return `<p class="muted footnote" data-k="provisional-note">${esc(t("rating.provisional"))}</p>`;
}

export class RatingsTable {
  /** @param {HTMLElement} host where the table goes; `limit` players a variant */
  constructor(host, { limit = 10, me = null } = {}) {
    this.host = host;
    this.limit = limit;
    this.me = me;
    this.cells = 4;
    this.data = null;
    this.failed = false;
    this.host.innerHTML = "";
    this.el = html(`
      <section class="card-panel ratings" aria-labelledby="ratings-title">
        <div class="row" style="justify-content:space-between">
          <h2 id="ratings-title" data-i18n="rating.title"></h2>
          <div class="seg" role="radiogroup" data-i18n-aria="race.cells">
            ${LEVELS.map(([c, label]) => `<label><input type="radio" name="rtcells" value="${c}"${c === 4 ? " checked" : ""}> <span data-i18n="${label}"></span></label>`).join("")}
          </div>
        </div>
        <div class="ratings-body"></div>
      </section>`);
    this.host.append(this.el);
    for (const input of this.el.querySelectorAll('[name="rtcells"]')) {
      input.onchange = () => {
        this.cells = Number(input.value);
        this.load();
      };
    }
    this.load();
  }

  async load() {
    const cells = this.cells;
    this.data = null;
    this.draw();
    try {
      const res = await fetch(`/api/ratings?cells=${cells}&limit=${this.limit}`, { cache: "no-cache" });
      if (!res.ok) throw new Error(String(res.status));
      const data = await res.json();
      if (cells !== this.cells) return; // another variant was picked meanwhile
      this.data = data;
      this.failed = false;
    } catch {
      this.failed = true;
      this.data = { players: [] };
    }
    this.draw();
  }

  draw() {
    const body = this.el.querySelector(".ratings-body");
    if (!this.data) {
      body.innerHTML = `<p class="muted">${esc(t("msg.loading"))}</p>`;
      return;
    }
    const players = this.data.players || [];
    if (!players.length) {
      body.innerHTML = `<p class="muted ratings-empty">${esc(t(this.failed ? "rating.failed" : "rating.empty"))}</p>`;
      return;
    }
    const rows = players.map((p, i) => `<tr class="${p.player_id === this.me?.() ? "me" : ""}" data-player="${esc(p.player_id)}">
      <td>${i + 1}</td>
      <td><a class="who" href="#/player/${encodeURIComponent(p.player_id)}">${who(p.name, p.player_id)}</a></td>
      <td class="num">${showRating(p.rating)}</td><td class="num">${esc(p.games)}</td></tr>`).join("");
    body.innerHTML = `<table class="results ratings-table">
      <thead><tr><th>#</th><th>${esc(t("lb.name"))}</th><th class="num">${esc(t("rating.rating"))}</th><th class="num">${esc(t("rating.games"))}</th></tr></thead>
      <tbody>${rows}</tbody></table>`;
  }

  /** Texts again in the current language. */
  redraw() {
    this.draw();
  }
}
