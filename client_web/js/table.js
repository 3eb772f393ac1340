// The player's own table: draws the board, turns pointer and keyboard input into intents
// (move, tap, double_tap, undo, send_home, hint), and shows what the server answers. The
// legal moves the server sends with our board make taps instant and light drop targets;
// its send_home flag shows the button that sends every card left home.

import { render, cardsAt } from "./board.js";
import { attachPointer } from "./dnd.js";
import { attachKeyboard } from "./keyboard.js";
import { t, reasonText, cardLabel, formatTime } from "./i18n.js";
import { html, esc, setText } from "./dom.js";
import { toast, announce, dismissToast, shownToast } from "./notify.js";
import { copyText } from "./clipboard.js";

export class Table {
  /**
   * @param {object} app the App
   * @param {HTMLElement} host where the stats bar, banners and board go
   * @param {{canPlay?():boolean, extraButtons?:HTMLElement[]}} opts
   */
  constructor(app, host, opts = {}) {
    this.app = app;
    this.net = app.net;
    this.game = app.game;
    this.opts = opts;
    this.hintMove = null;
    this.offs = [];
    this.el = html(`
      <section class="table-view">
        <div class="bar stats">
          <div class="stat"><b data-k="time">0:00.0</b><small data-i18n="stat.time"></small></div>
          <div class="stat"><b data-k="moves">0</b><small data-i18n="stat.moves"></small></div>
          <div class="stat"><b data-k="score">0</b><small data-i18n="stat.score"></small></div>
          <div class="stat"><b data-k="found">0/52</b><small data-i18n="stat.foundations"></small></div>
          <span class="spacer"></span>
          <button class="btn primary away" data-act="sendHome" data-i18n-title="sendHome.title" disabled aria-hidden="true"><span data-i18n="sendHome.button"></span></button>
          <button class="btn" data-act="undo" data-i18n-title="act.undoKey"><span data-i18n="act.undo"></span></button>
          <button class="btn" data-act="hint" data-i18n-title="act.hintKey"><span data-i18n="act.hint"></span></button>
        </div>
        <div class="bar codebar">
          <span class="muted" data-i18n="play.code"></span>
          <b class="code" data-k="code">–</b>
          <button class="btn small" data-act="copy" data-i18n="act.copy"></button>
          <span class="spacer"></span>
          <span class="extra"></span>
        </div>
        <div class="banners"></div>
        <div class="board" data-board="mine" aria-describedby="kbd-help"></div>
        <p id="kbd-help" class="muted small-print" data-i18n="play.keyboardHelp"></p>
      </section>`);
    host.append(this.el);
    for (const b of opts.extraButtons || []) this.el.querySelector(".extra").append(b);
    this.boardEl = this.el.querySelector("[data-board]");
    this.banners = this.el.querySelector(".banners");
    const handlers = {
      enabled: () => this.canPlay(),
      onMove: (src, dst) => this.act("move", { src, dst }),
      onTap: (at) => this.act("tap", { at }),
      onDoubleTap: (at) => this.act("double_tap", { at }),
      onUndo: () => this.act("undo"),
      onSendHome: () => this.sendHome(),
      onHint: () => this.hint(),
      // The destinations the server listed for a source, or null while it has not said.
      targets: (loc) => {
        const legal = this.game.myLegal();
        return legal ? legal.moves[loc] || [] : null;
      },
      announce,
      label: (loc) => this.locLabel(loc),
    };
    this.pointer = attachPointer(this.boardEl, handlers);
    this.keyboard = attachKeyboard(this.boardEl, handlers);
    this.el.querySelector('[data-act="undo"]').onclick = () => this.act("undo");
    this.el.querySelector('[data-act="sendHome"]').onclick = () => this.sendHome();
    this.el.querySelector('[data-act="hint"]').onclick = () => this.hint();
    this.el.querySelector('[data-act="copy"]').onclick = () => {
      const b = this.el.querySelector('[data-act="copy"]');
      if (this.game.code && !b.hidden) copyText(this.game.code);
    };
    this.offs.push(this.net.on("ack", () => this.pointer.settle()));
    this.offs.push(this.net.on("reject", (m) => this.onReject(m)));
    // A hint's toast holds for the position it was asked in: it goes with the next move,
    // and with the end of the game (a win's banner is no place for a stale hint).
    this.offs.push(this.net.on("hint", (m) => {
      this.onHint(m);
      this.hintToast = shownToast();
    }));
    // Screen readers hear each of the player's own moves.
    this.offs.push(this.net.on("delta", (m) => {
      if (m.player_id !== this.game.you || !m.changes.length) return;
      const c = m.changes[0];
      announce(`${cardLabel(c.cards[0])} → ${this.locLabel(c.dst)}`);
    }));
    this.timer = setInterval(() => this.tick(), 100);
    this.draw();
  }

  destroy() {
    clearInterval(this.timer);
    this.pointer.detach();
    for (const off of this.offs) off();
    this.el.remove();
  }

  canPlay() {
    const me = this.game.me();
    return Boolean(this.game.myBoard() && this.game.role === "player" && this.game.state === "racing" &&
      me && me.status !== "finished" && me.status !== "gave_up" && (this.opts.canPlay?.() ?? true));
  }

  act(type, fields = {}) {
    if (!this.canPlay()) return;
    this.clearHint();
    const id = this.net.send(type, fields);
    if (id == null) {
      this.pointer.returnCards();
      toast(t("msg.offline"));
    }
  }

  /** Every card left home, when the server says foundation moves alone can do it. */
  sendHome() {
    if (this.game.me()?.legal?.send_home) this.act("send_home");
  }

  hint() {
    if (!this.canPlay() || this.game.mode === "race" || this.game.mode === "daily") return;
    this.net.send("hint");
  }

  onReject(m) {
    this.pointer.returnCards();
    // A tap that finds no foundation move does nothing, as the rules say: no message.
    if (m.reason === "no_foundation_move") return;
    const text = reasonText(m.reason, m.message);
    toast(text);
    announce(text);
  }

  onHint(m) {
    if (m.status === "move" && m.move) {
      this.hintMove = m.move;
      this.draw();
      // Say which search named the move: a proven shortest line, or the fast solver's win.
      const move = this.describe(m.move);
      let text = t("msg.hintMove", { move });
      if (m.source === "proven" && m.remaining) text = t("msg.hintProven", { move, n: m.remaining });
      else if (m.source === "solver") text = t("msg.hintSolver", { move });
      announce(text);
      toast(text, "info");
    } else if (m.status === "lost") {
      toast(t("msg.hintLost"));
    } else {
      toast(t("msg.hintUnknown"), "info");
    }
  }

  clearHint() {
    dismissToast(this.hintToast);
    this.hintToast = null;
    if (this.hintMove) {
      this.hintMove = null;
      for (const el of this.boardEl.querySelectorAll(".hint")) el.classList.remove("hint");
    }
  }

  /** A move in notation, in words: "10♥ → column 3". */
  describe(move) {
    const [src, dst] = move.split(" ");
    const board = this.game.myBoard();
    const cards = board ? cardsAt(board, src) : [];
    const what = cards.length ? cardLabel(cards[cards.length - 1]) : this.locLabel(src);
    return `${what} → ${this.locLabel(dst)}`;
  }

  locLabel(loc) {
    if (loc.startsWith("col")) return t("board.column", { n: loc.slice(3) });
    if (loc.startsWith("cell")) return t("board.cell", { n: loc.slice(4) });
    if (loc.startsWith("found:")) return t("board.foundation", { suit: t(`suit.${loc.slice(6)}`) });
    return t("board.ownFoundation");
  }

  /** Redraw even an unchanged board (a new language relabels the cards). */
  redraw() {
    this.drawnKey = null;
    this.draw();
  }

  /** Redraw everything from the game state. */
  draw() {
    const board = this.game.myBoard();
    const me = this.game.me();
    this.el.querySelector('[data-k="code"]').textContent = this.game.code || "–";
    // A running day's daily deal is played only in the daily: no Copy to paste it elsewhere.
    const daily = this.game.mode === "daily" ? this.game.daily : null;
    const running = !!daily && daily.date >= new Date().toISOString().slice(0, 10);
    this.el.querySelector('[data-act="copy"]').hidden = running;
    this.el.querySelector('[data-k="moves"]').textContent = String(me?.moves ?? 0);
    this.el.querySelector('[data-k="score"]').textContent = String(me?.score ?? 0);
    this.el.querySelector('[data-k="found"]').textContent = `${me?.foundation_cards ?? 0}/52`;
    const playing = this.canPlay();
    if (!playing) this.clearHint(); // won, given up or over: no hint holds any more
    for (const b of this.el.querySelectorAll(".stats .btn, .extra .btn")) b.disabled = !playing;
    // Send home keeps its place when it goes (the table must not move when it comes).
    const home = this.el.querySelector('[data-act="sendHome"]');
    const away = !(playing && me?.legal?.send_home);
    home.classList.toggle("away", away);
    home.disabled = away;
    home.setAttribute("aria-hidden", String(away));
    // A solver's hint would decide a race or hand out a daily line: only for solo games.
    const noHint = ["race", "daily"].includes(this.game.mode);
    this.el.querySelector('[data-act="hint"]').hidden = noHint;
    const help = this.el.querySelector(".small-print"); // nor a hint key
    help.dataset.i18n = noHint ? "play.keyboardHelpNoHint" : "play.keyboardHelp";
    help.textContent = t(help.dataset.i18n);
    this.tick();
    this.drawBanners();
    if (!board) {
      this.boardEl.innerHTML = "";
      return;
    }
    // Redraw the board only when it changed: others' progress must not disturb a drag.
    const key = JSON.stringify([board.cells, board.columns, board.foundations, this.hintMove,
      playing, this.boardEl.getBoundingClientRect().width, window.innerHeight,
      Math.round(this.boardEl.getBoundingClientRect().top + window.scrollY)]);
    if (key === this.drawnKey && this.boardEl.firstChild) return;
    this.drawnKey = key;
    this.pointer.settle();
    render(this.boardEl, board, { interactive: true });
    this.boardEl.classList.toggle("locked", !playing);
    if (this.hintMove) {
      const [src, dst] = this.hintMove.split(" ");
      const pile = this.boardEl.querySelector(`.pile[data-loc="${src}"]`);
      const cards = pile?.querySelectorAll(".card");
      if (cards?.length) cards[cards.length - 1].classList.add("hint");
      const target = dst === "found" ? null : this.boardEl.querySelector(`.pile[data-loc="${dst}"]`);
      target?.classList.add("drop-ok");
    }
    this.keyboard.afterRender();
  }

  drawBanners() {
    const me = this.game.me();
    const parts = [];
    if (me?.status === "finished") {
      parts.push(this.app.wins.banner()); // the result, next game, rematch, share (win.js)
    } else if (me?.status === "gave_up") {
      parts.push(`<div class="banner lost" role="status">${esc(t("msg.gaveUp"))}</div>`);
    } else if (me?.lost) {
      parts.push(`<div class="banner lost">${esc(t("msg.lost"))}</div>`); // announced below, once
    }
    const key = parts.join("");
    if (this.banners.dataset.key !== key) {
      this.banners.dataset.key = key;
      this.banners.innerHTML = key;
      if (me?.lost && me.status === "playing") announce(t("msg.lost"));
    }
  }

  tick() {
    const ms = this.game.you ? this.game.elapsed(this.game.you) : 0;
    // A game given up has no time: "–", not a clock stopped at 0:00.0.
    setText(this.el.querySelector('[data-k="time"]'), formatTime(ms));
  }
}
