// Watch: a room as a spectator, every racer's board side by side, as the host's watch mode
// allows: live, some seconds late, or progress bars only until the race is over. Without a
// room, the races running now come first, then the arenas and the form for a room's id.

import { announce } from "../notify.js";
import { raceNews } from "../racenews.js";
import { t, formatTime } from "../i18n.js";
import { html, esc, setText, who } from "../dom.js";
import { LiveList } from "./livelist.js";
import { drawBoards, staleBoards, tickBoards } from "./miniboards.js";
import { ratingCell, provisionalNote } from "./ratings.js";
import { ArenaWatchEntry } from "./arena.js";
import { parLine, perfectMark } from "../win.js";

export class WatchView {
  constructor(app) {
    this.app = app;
    this.timer = null;
  }

  show(main, parts) {
    const app = this.app;
    const room = parts[0] ? parts[0].trim().toUpperCase() : null; // room ids are upper case
    this.el = html(`
      <div class="watch">
        <section class="card-panel featured" hidden></section>
        <div class="card-panel live-rooms" hidden></div>
        <section class="card-panel arenas-now" hidden></section>
        <div class="card-panel watch-head"></div>
        <div class="mini-boards"></div>
      </div>`);
    main.append(this.el);
    this.drawn = new Map();
    this.room = room;
    // Public races now, the featured one on top.
    this.live = new LiveList(this.el.querySelector(".live-rooms"), this.el.querySelector(".featured"),
      this.app.friends);
    if (room) {
      // A spectator's seat ends with its socket (a reload does that): take it again.
      this.joining = null;
      const join = () => {
        if (this.joining === room) return; // one join at a time
        this.joining = room;
        app.leaveRoom();
        app.net.send("join", { room, role: "spectator" });
      };
      this.offGone = app.net.on("room_gone", () => {
        if (this.el) app.online(join);
      });
      this.offErr = app.net.on("error", () => { this.joining = null; });
      app.online(() => {
        if ((app.game.roomId === room || app.net.room === room) && app.game.role !== "player") return;
        if (this.racingHere()) return; // the watch link in a racer's own tab: she stays a racer
        join();
      });
    }
    if (!room) this.arenas = new ArenaWatchEntry(this.el.querySelector(".arenas-now"), () => app.net.playerId);
    this.timer = setInterval(() => this.tick(), 100);
    this.refresh();
  }

  hide() {
    this.offGone?.();
    this.offErr?.();
    this.offGone = this.offErr = null;
    clearInterval(this.timer);
    this.live?.stop();
    this.arenas?.stop();
    this.arenas = null;
    this.el = null;
  }

  onGame(type, msg) {
    if (type === "snapshot") this.joining = null;
    // A spectator hears the race as its boards show it (late ones late, as they come).
    if (this.app.game.role === "spectator") announce(raceNews(this.app.game, type, msg));
    this.refresh();
  }
  // Each racer keeps the one board drawn for them: drawn again at the new size or language.
  onResize() { this.redrawBoards(); }
  onLang() { this.live?.draw(); this.arenas?.draw(); this.redrawBoards(); }
  onFriends() { this.live?.draw(); }

  redrawBoards() {
    staleBoards(this.drawn);
    this.refresh();
  }

  /** Whether we race in the room this view is asked to watch. */
  racingHere() {
    const g = this.app.game;
    return Boolean(this.room) && g.roomId === this.room && g.role === "player";
  }

  refresh() {
    if (!this.el) return;
    const g = this.app.game;
    const head = this.el.querySelector(".watch-head");
    const grid = this.el.querySelector(".mini-boards");
    const watching = g.roomId && g.role === "spectator";
    // The public races are listed while no room is watched (nor being opened).
    const listing = !watching && !this.room;
    this.el.querySelector(".live-rooms").hidden = !listing;
    if (listing) this.live.start();
    else {
      this.live.stop();
      this.el.querySelector(".featured").hidden = true;
    }
    if (this.racingHere()) {
      head.dataset.mode = "racer";
      head.innerHTML = `<p>${esc(t("error.racing_here"))}</p>
        <a class="btn primary" href="#/race/${esc(g.roomId)}">${esc(t("play.backToRace"))}</a>`;
      grid.innerHTML = "";
      this.drawn = new Map();
      return;
    }
    if (!watching) {
      if (head.dataset.mode !== "form") {
        head.dataset.mode = "form";
        head.innerHTML = "";
        head.append(html(`
          <div>
            <h2 data-i18n="watch.title"></h2>
            <p class="muted" data-i18n="watch.intro"></p>
            <form class="row">
              <input class="field code" name="room" maxlength="16" autocomplete="off" spellcheck="false" data-i18n-placeholder="race.roomId" data-i18n-aria="race.roomId">
              <button class="btn primary" data-i18n="act.watch"></button>
            </form>
          </div>`));
        head.querySelector("form").onsubmit = (ev) => {
          ev.preventDefault();
          const room = ev.target.room.value.trim();
          if (room) location.hash = `#/watch/${encodeURIComponent(room)}`;
        };
        if (this.room) head.querySelector('[name="room"]').value = this.room;
      }
      grid.innerHTML = "";
      this.drawn = new Map();
      return;
    }
    head.dataset.mode = "room";
    const levels = { 4: "level.easy", 2: "level.medium", 1: "level.hard" };
    let countdown = "";
    if (g.state === "countdown" && g.startsAt) countdown = `<b class="count" data-k="count"></b>`;
    head.innerHTML = `<div class="row" style="justify-content:space-between">
        <h2>${esc(t("watch.watching", { room: g.roomId }))} <small class="muted">· ${esc(t(levels[g.cells]))} · ${esc(t(`race.state.${g.state}`))} ${countdown}</small></h2>
        <span class="code">${esc(g.code || "")}</span></div>
        <p class="muted watch-explain" data-watch="${esc(g.watch)}">${esc(t(`race.watchMode.explain.${g.watch}`, { n: g.delayS ?? 30 }))}</p>
        ${g.state === "lobby" ? `<p class="muted">${esc(t("watch.waiting"))}</p>
          <p>${g.racers().filter((p) => !p.gone).map((p) => `<span class="chip">${who(p.name, p.player_id)}</span>`).join(" ")}</p>` : ""}
        ${g.state === "done" && g.results ? this.results(g) : ""}`;
    drawBoards(grid, this.drawn, g);
    this.tick();
  }

  results(g) {
    const rated = Boolean(g.ratings);
    const rows = g.results.map((r) => `<tr><td>${r.rank ?? "–"}</td><td>${who(r.name, r.player_id)}</td>
      <td>${r.status === "finished" ? formatTime(r.time_ms) : esc(t(`race.status.${r.status}`))}</td>
      <td>${r.moves}${perfectMark(r.perfect)}</td>${rated ? ratingCell(g.ratingOf(r.player_id)) : ""}</tr>`).join("");
    return `<h3>${esc(t("race.results"))}</h3>${parLine(g.par)}<table class="results"><thead><tr><th>#</th>
      <th>${esc(t("lb.name"))}</th><th>${esc(t("lb.time"))}</th><th>${esc(t("lb.moves"))}</th>${rated ? `<th class="num">${esc(t("rating.rating"))}</th>` : ""}</tr></thead>
      <tbody>${rows}</tbody></table>${rated ? provisionalNote(g.results.map((r) => g.ratingOf(r.player_id))) : ""}`;
  }

  tick() {
    if (!this.el) return;
    const g = this.app.game;
    const c = this.el.querySelector('[data-k="count"]');
    if (c && g.startsAt) setText(c, `${Math.max(0, Math.ceil((g.startsAt - g.serverNow()) / 1000))}`);
    tickBoards(this.drawn, g, () => this.refresh());
  }
}
