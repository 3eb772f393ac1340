// An arena's leading race, live on the arena's page: the race of its best-placed racer
// racing now (`GET /api/arena/ID`'s `top_room`), its boards as Watch shows them. The page
// watches it as any spectator does, on a socket of its own (the page's own socket stays
// free for the arena and the viewer's races): the server sends that socket what the race's
// watch mode lets a spectator see (boards some seconds late, or progress only until the
// end), nothing more. One race at a time; the top race is read again every few seconds and
// the boards follow it when another race leads. A viewer racing in the leading race is not
// shown its rivals' boards: the card then leads back to their race.

import { Game } from "../game.js";
import { t } from "../i18n.js";
import { esc } from "../dom.js";
import { Net, defaultUrl } from "../net.js";
import { playerName } from "../player.js";
import { POLL_MS } from "./livelist.js";
import { drawBoards, staleBoards, tickBoards } from "./miniboards.js";

/** A spectator's socket for one card: it keeps no room across reloads (the page's does). */
class SpectatorNet extends Net {
  constructor() {
    super(defaultUrl(), playerName);
    this.room = null; // never the page's saved room
    this.closed = false;
  }
  setRoom(room) {
    this.room = room;
    if (!room) {
      this.lastSeq = 0;
      this.pending.clear();
    }
  }
  scheduleReconnect() {
    if (!this.closed) super.scheduleReconnect();
  }
  /** Close for good: no reconnection. */
  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    const ws = this.ws;
    this.ws = null;
    ws?.close();
  }
}

export class ArenaLive {
  /** @param {HTMLElement} host the panel's place; `id` the arena; `app` the page's app */
  constructor(host, id, app) {
    this.host = host;
    this.id = id;
    this.app = app;
    this.room = null; // the leading race shown
    this.net = null;
    this.game = null;
    this.drawn = new Map();
    this.refused = false;
    this.timer = setInterval(() => this.read(), POLL_MS);
    this.ticker = setInterval(() => this.game && tickBoards(this.drawn, this.game), 500);
    this.onResize = () => this.redraw();
    window.addEventListener("resize", this.onResize);
    this.read();
  }

  stop() {
    clearInterval(this.timer);
    clearInterval(this.ticker);
    this.timer = null;
    window.removeEventListener("resize", this.onResize);
    this.net?.close();
    this.net = null;
  }

  async read() {
    let top;
    try {
      const res = await fetch(`/api/arena/${encodeURIComponent(this.id)}?top=1`, { cache: "no-cache" });
      top = res.ok ? (await res.json())?.top_room || null : this.room;
    } catch {
      top = this.room; // not read: keep what is shown
    }
    if (this.timer) this.follow(top);
  }

  /** Our own race, in which we race: never watched from here. */
  racingIn(room) {
    const g = this.app.game;
    return Boolean(room) && g.roomId === room && g.role === "player";
  }

  /** Show `room` (null: none leads now): leave the race watched before, watch this one. */
  follow(room) {
    if (room === this.room) {
      // Refused as not found, it may only not have been open yet when we asked (the arena
      // lists a race as it pairs it): ask again at each read while the arena says it leads.
      if (room && this.refused === "room_not_found" && !this.racingIn(room)) {
        this.refused = false;
        this.watch(room);
      }
      this.draw();
      return;
    }
    this.room = room;
    this.refused = false;
    this.host.querySelector(".mini-boards")?.replaceChildren();
    this.drawn = new Map();
    if (this.net?.room) this.net.leave();
    this.game?.clear();
    if (room && !this.racingIn(room)) this.watch(room);
    this.draw();
  }

  watch(room) {
    if (!this.net) {
      // The page's identity (its token), once it has one: never a second new player.
      if (this.app.net.state !== "open") {
        this.room = null; // asked again at the next read
        return;
      }
      const net = new SpectatorNet();
      this.net = net;
      this.game = new Game(net);
      this.game.onChange(() => this.draw());
      net.on("welcome", () => {
        if (this.room && !net.room && !this.racingIn(this.room)) net.send("join", { room: this.room, role: "spectator" });
      });
      net.on("error", (m) => {
        if (["racing_here", "spectators_full", "room_not_found", "race_in_progress"].includes(m.code)) {
          this.refused = m.code; // why (a room not found is asked for again: follow)
          this.draw();
        }
      });
      net.connect();
      return;
    }
    if (this.net.state === "open") this.net.send("join", { room, role: "spectator" });
  }

  /** Draw again at the new size or language. */
  redraw() {
    staleBoards(this.drawn);
    this.draw();
  }

  draw() {
    const room = this.room;
    this.host.hidden = !room;
    if (!room) return;
    const g = this.game;
    const mine = this.racingIn(room);
    const shown = !mine && g && g.roomId === room;
    const link = mine
      ? `<a class="live-room" href="#/race/${encodeURIComponent(room)}">${esc(t("play.backToRace"))}</a>`
      : `<a class="live-room" href="#/watch/${encodeURIComponent(room)}">${esc(t("arena.watchThere"))}</a>`;
    const explain = shown ? `<span class="muted watch-explain" data-watch="${esc(g.watch)}">${esc(t(`race.watchMode.explain.${g.watch}`, { n: g.delayS ?? 30 }))}</span>` : "";
    const head = `<h2>${esc(t("arena.leading"))}</h2><p class="arena-live-head">${explain} ${link}</p>`;
    if (this.host.dataset.room !== room || this.host.dataset.head !== head) {
      const keep = this.host.dataset.room === room ? this.host.querySelector(".mini-boards") : null;
      this.host.innerHTML = head;
      this.host.dataset.room = room;
      this.host.dataset.head = head;
      const grid = keep || Object.assign(document.createElement("div"), { className: "mini-boards arena-boards" });
      if (!keep) this.drawn = new Map();
      this.host.append(grid);
    }
    const grid = this.host.querySelector(".mini-boards");
    if (!shown) {
      grid.innerHTML = mine || this.refused ? "" : `<p class="muted">${esc(t("msg.loading"))}</p>`;
      this.drawn = new Map();
      return;
    }
    grid.querySelector(":scope > p")?.remove();
    // The boards take at most most of the window: the standings stay a scroll away.
    drawBoards(grid, this.drawn, g, Math.max(200, Math.min(560, Math.round(window.innerHeight * 0.62))));
  }
}
