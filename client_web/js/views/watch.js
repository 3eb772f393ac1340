// Watch: a room as a spectator, every racer's board side by side, as the host's watch mode
// allows: live, some seconds late, or progress bars only until the race is over.

import { render } from "../board.js";
import { announce } from "../notify.js";
import { raceNews } from "../racenews.js";
import { t, formatTime } from "../i18n.js";
import { html, esc, setText, who } from "../dom.js";
import { LiveList } from "./livelist.js";
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
        <section class="card-panel arenas-now" hidden></section>
        <div class="card-panel watch-head"></div>
        <div class="card-panel live-rooms" hidden></div>
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
    for (const box of this.drawn.values()) box.querySelector(".board").dataset.key = "";
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
    const racers = g.racers().filter((p) => !(p.gone && g.state === "lobby"));
    const ids = new Set(racers.map((p) => p.player_id));
    for (const [pid, el] of this.drawn) {
      if (!ids.has(pid)) {
        el.remove();
        this.drawn.delete(pid);
      }
    }
    const fit = this.layout(grid, racers);
    for (const p of racers) {
      let box = this.drawn.get(p.player_id);
      if (!box) {
        box = html(`<section class="mini" data-player="${esc(p.player_id)}">
          <header><b class="name"></b><span class="muted status"></span></header>
          <div class="progress"><span></span></div>
          <div class="mini-board-wrap"><div class="board" data-board="${esc(p.player_id)}"></div></div>
        </section>`);
        grid.append(box);
        this.drawn.set(p.player_id, box);
      }
      // The name with its tag, as racers, leaderboards and pages show it (Ann·4f2c).
      box.querySelector(".name").innerHTML = who(p.name, p.player_id);
      box.querySelector(".progress > span").style.width = `${Math.round((100 * (p.foundation_cards || 0)) / 52)}%`;
      box.querySelector(".status").textContent = this.status(p);
      const boardEl = box.querySelector(".board");
      if (p.board) {
        const key = JSON.stringify([p.board.cells, p.board.columns, p.board.foundations, fit]);
        if (boardEl.dataset.key !== key) {
          boardEl.dataset.key = key;
          render(boardEl, p.board, { interactive: false, maxHeight: fit.height, plan: 0 });
        }
      } else {
        const later = g.watch === "progress" && g.state === "racing"; // boards at the end
        boardEl.innerHTML = `<p class="muted">${esc(t(later ? "watch.boardLater" : "watch.noBoard"))}</p>`;
        boardEl.dataset.key = "";
      }
    }
    this.tick();
  }

  /**
   * Every racer's board on the screen at once, as large as it can be: the number of columns
   * of boards whose cards come out widest for the window's shape (side by side on a wide
   * screen, one above the other on a phone held upright). Returns the height each board
   * gets, in px, and the columns; the boards' own fit does the rest (fit.js).
   */
  layout(grid, racers) {
    const n = Math.max(1, racers.length);
    const gap = 10;
    const width = grid.clientWidth || window.innerWidth;
    const top = grid.getBoundingClientRect().top + window.scrollY;
    const height = Math.max(120, window.innerHeight - top - 6);
    // A box's name line, progress bar and padding: as drawn, or about that before the first.
    const box = grid.querySelector(".mini");
    const drawnBoard = box?.querySelector(".board");
    const chrome = box && drawnBoard ? box.offsetHeight - drawnBoard.offsetHeight + 2 : 64;
    // Card widths in a box w x h: ten columns across; a column of about nine cards (or the
    // longest there is) down, at the fan of a covered card's corner.
    const longest = Math.max(9, ...racers.map((p) => Math.max(0, ...(p.board?.columns || []).map((c) => c.length))));
    const tall = 2 * 1.4 + 0.6 + (longest - 1) * 0.42;
    let best = { cols: 1, height: 560, cw: 0 };
    for (let cols = 1; cols <= n; cols++) {
      const rows = Math.ceil(n / cols);
      const w = (width - (cols - 1) * gap) / cols;
      const h = (height - (rows - 1) * gap) / rows - chrome;
      const cw = Math.min((w - 46) / 10, h / tall);
      if (cw > best.cw + 0.5) best = { cols, height: Math.floor(h), cw };
    }
    grid.style.gridTemplateColumns = `repeat(${best.cols}, minmax(0, 1fr))`;
    return { cols: best.cols, height: best.height };
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

  status(p) {
    const g = this.app.game;
    if (p.status === "finished") return `🏆 #${p.rank ?? "?"} · ${formatTime(p.time_ms)} · ${t("race.movesN", { n: p.moves })}`;
    if (p.status === "gave_up") return t("race.gaveUp");
    if (g.state === "lobby") return "";
    const lost = p.lost ? ` · ${t("watch.stuck")}` : "";
    // Boards shown late: so is their clock (the time of the board shown), and it says so.
    const late = g.watch === "delayed" ? (g.delayS ?? 30) : 0;
    const clock = late ? `${formatTime(Math.max(0, g.elapsed(p.player_id) - late * 1000))} (${t("watch.lateBy", { n: late })})`
      : formatTime(g.elapsed(p.player_id));
    return `${p.foundation_cards}/52 · ${t("race.movesN", { n: p.moves })} · ${clock}${lost}`;
  }

  tick() {
    if (!this.el) return;
    const g = this.app.game;
    const c = this.el.querySelector('[data-k="count"]');
    if (c && g.startsAt) setText(c, `${Math.max(0, Math.ceil((g.startsAt - g.serverNow()) / 1000))}`);
    if (g.state === "racing") {
      for (const p of g.racers()) {
        const box = this.drawn.get(p.player_id);
        if (box && p.status === "playing") setText(box.querySelector(".status"), this.status(p));
      }
    }
  }
}
