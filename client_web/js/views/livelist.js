// The Watch page's list of public races running now (GET /api/rooms/live, polled every few
// seconds while it shows): each room's state, its racers' progress and how many watch; a
// click opens the room as a spectator. On top, the featured race: the live public race with
// the highest ratings (the server picks it). Neither ever holds a game code or a board: the
// server gives names, ratings and counts only; the boards are seen by watching the room, as
// its watch mode allows (never live in a public room). Above the list, friends racing now:
// the listed rooms in which someone we follow races (picked here from the public list, so
// a private room is never among them).

import { t } from "../i18n.js";
import { esc, who } from "../dom.js";
import { shortTime } from "../share.js";
import { showRating } from "./ratings.js";

/** How often the list is asked for again, in ms. */
export const POLL_MS = 3000;

export class LiveList {
  /** @param {HTMLElement} host where the list goes; `featuredHost` where the featured race goes */
  constructor(host, featuredHost = null, friends = null) {
    this.host = host;
    this.friends = friends;
    this.featuredHost = featuredHost;
    this.drawnFeatured = "";
    this.timer = null;
    this.data = null;
    this.drawn = "";
  }

  start() {
    if (this.timer) return;
    this.draw();
    this.load();
    this.timer = setInterval(() => this.load(), POLL_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  async load() {
    try {
      const res = await fetch("/api/rooms/live", { cache: "no-cache" });
      if (!res.ok) throw new Error(String(res.status));
      const data = await res.json();
      this.data = { ...data, offset: data.now - Date.now() };
    } catch {
      this.data = this.data || { rooms: [], failed: true };
    }
    if (this.timer) this.draw();
  }

  /** Redraw (a new language too); unchanged rows are left alone. */
  draw() {
    if (!this.data) {
      this.host.innerHTML = `<p class="muted">${esc(t("msg.loading"))}</p>`;
      return;
    }
    this.drawFeatured();
    const rooms = this.data.rooms;
    const mine = this.friends
      ? rooms.filter((r) => r.racers.some((p) => this.friends.has(p.player_id))) : [];
    const friends = mine.length ? `<section class="friends-racing"><h2>${esc(t("friends.racing"))}</h2>
      <ul class="live-list">${mine.map((r) => this.row(r, "friend")).join("")}</ul></section>` : "";
    const html = `${friends}<h2>${esc(t("live.title"))} <small class="muted">${esc(t("live.count", { n: rooms.length }))}</small></h2>
      ${rooms.length ? `<ul class="live-list">${rooms.map((r) => this.row(r)).join("")}</ul>`
        : `<p class="muted live-empty">${esc(t("live.empty"))}</p>`}`;
    if (html !== this.drawn) {
      this.drawn = html;
      this.host.innerHTML = html;
    }
  }

  /** The featured race on top, or nothing while there is none. */
  drawFeatured() {
    if (!this.featuredHost) return;
    const f = this.data?.featured;
    this.featuredHost.hidden = !f;
    const html = f ? `<h2>${esc(t("featured.title"))} <small class="muted">${esc(t("featured.why"))}</small></h2>
      <ul class="live-list featured-list">${this.row(f, "featured")}</ul>` : "";
    if (html !== this.drawnFeatured) {
      this.drawnFeatured = html;
      this.featuredHost.innerHTML = html;
    }
  }

  row(r, copy = null) {
    const levels = { 4: "level.easy", 2: "level.medium", 1: "level.hard" };
    const now = Date.now() + (this.data.offset || 0);
    const ran = r.state === "racing" && r.starts_at ? ` ${shortTime(now - r.starts_at)}` : "";
    const watch = r.watch === "delayed" ? t("live.delayed", { n: r.delay_s }) : t("live.progress");
    const racers = r.racers.map((p) => {
      const pct = Math.round((100 * p.foundation_cards) / 52);
      const done = p.finished ? " 🏆" : p.status === "gave_up" ? ` · ${t("race.gaveUp")}` : "";
      const rating = p.rating != null ? ` <span class="muted rating">${esc(showRating(p.rating, p.provisional))}</span>` : "";
      return `<li><span class="name">${who(p.name, p.player_id)}${rating}</span>
        <span class="progress" aria-hidden="true"><span style="width:${pct}%"></span></span>
        <span class="muted">${p.foundation_cards}/52 · ${esc(t("race.movesN", { n: p.moves }))}${esc(done)}</span></li>`;
    }).join("");
    // The featured and friends' copies are marked apart: the list below still has the room once.
    const mark = copy ? `data-${copy}="${esc(r.room_id)}"` : `data-room="${esc(r.room_id)}"`;
    return `<li><a class="live-room" href="#/watch/${encodeURIComponent(r.room_id)}" ${mark}>
      <span class="live-head"><b>${esc(title(r, levels))}</b>
        <span class="chip" data-state="${esc(r.state)}">${esc(t(`race.state.${r.state}`))}${esc(ran)}</span>
        <span class="muted">${r.arena && r.arena_minutes ? "" : `${esc(t(levels[r.cells] || "level.easy"))} · `}${esc(watch)} · ${esc(t("race.spectators", { n: r.spectators }))}</span></span>
      <ul class="live-racers">${racers}</ul></a></li>`;
  }
}

/** A listed race's name: an arena's race by its arena, as the arena's page titles it (its
 * level and length: the line under it then does not say the level again), else its room. */
function title(r, levels) {
  if (!r.arena) return t("race.room", { room: r.room_id });
  if (!r.arena_minutes) return t("arena.raceTitle");
  return `${t("arena.raceTitle")}: ${t(levels[r.cells] || "level.easy")} · ${t("arena.length", { n: r.arena_minutes })}`;
}
