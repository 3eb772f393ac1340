// Play: a solo game from a new deal (Easy 4 / Medium 2 / Hard 1 cells) or a typed code;
// the daily challenge is played here too.

import { Table } from "../table.js";
import { t, formatTime } from "../i18n.js";
import { html, esc } from "../dom.js";
import { toast } from "../notify.js";
import { quickRace } from "./quickpanel.js";
import { Intro, INTRO_CODE, introWanted } from "../intro.js";

/** How long a game asked for holds back the next one (its answer lost with a dropped
 * connection must not hold it back for good). */
const ANSWER_MS = 5000;

export class PlayView {
  constructor(app) {
    this.app = app;
    this.table = null;
    this.requested = null; // the game asked for, until the server answers it
    this.requestedAt = 0;
    this.next = null; // a game asked for meanwhile
  }

  show(main, parts) {
    const app = this.app;
    this.el = html(`
      <div class="play">
        <div class="bar newgame">
          <div class="seg" role="radiogroup" data-i18n-aria="race.cells">
            <label><input type="radio" name="cells" value="4" checked> <span data-i18n="level.easy"></span></label>
            <label><input type="radio" name="cells" value="2"> <span data-i18n="level.medium"></span></label>
            <label><input type="radio" name="cells" value="1"> <span data-i18n="level.hard"></span></label>
          </div>
          <button class="btn primary" data-act="new" data-i18n="act.newGame"></button>
          <button class="btn quick" data-act="quick" data-i18n="quick.go" data-i18n-title="quick.goHint"></button>
          <span class="spacer"></span>
          <form class="row" data-act="codeform">
            <input class="field code" name="code" size="15" maxlength="32" autocomplete="off" spellcheck="false"
              placeholder="SH1-C4-AAAAAJ2" data-i18n-aria="play.codeInput">
            <button class="btn" data-i18n="act.playCode"></button>
          </form>
        </div>
        <div class="elsewhere"></div>
        <div class="table-host"></div>
      </div>`);
    main.append(this.el);
    const giveUp = html(`<button class="btn small" data-i18n="act.giveUp"></button>`);
    giveUp.onclick = () => {
      if (this.table?.canPlay() && confirm(t("msg.confirmGiveUp"))) app.net.send("give_up");
    };
    this.table = new Table(app, this.el.querySelector(".table-host"), { extraButtons: [giveUp] });
    this.el.querySelector('[data-act="new"]').onclick = () => this.start({ cells: this.cells() });
    // A race against whoever is waiting, on the level picked here.
    this.el.querySelector('[data-act="quick"]').onclick = () => {
      if (this.leaving()) quickRace(app, this.cells());
    };
    this.el.querySelector('[data-act="codeform"]').onsubmit = (ev) => {
      ev.preventDefault();
      const code = ev.target.code.value.trim().toUpperCase();
      if (!code) return;
      // Always a new game on that deal: on the deal being played, a restart. The address
      // names the deal once the server has dealt it: a refused code leaves it as it was.
      if (this.start({ code })) this.addressFor = code;
    };
    this.offQuick = app.quick.onChange(() => this.refresh());
    this.offError = app.net.on("error", () => {
      this.addressFor = null;
      if (this.requested) this.answered();
    });
    const code = parts[0] ? parts[0].trim().toUpperCase() : null;
    app.online(() => {
      const g = app.game;
      if (code) {
        this.el.querySelector('[name="code"]').value = code;
        // A reload resumes the room we were in: its snapshot says whether it is this deal
        // (nothing to start) or not (then a new game), never a refused second room.
        if (app.net.room && !g.roomId) {
          this.afterResume = code;
          return;
        }
        if (g.code !== code || g.mode === "race") this.start({ code });
      } else if (parts[0] === undefined && !g.roomId && !app.net.room && !this.requested && !app.quick.waiting()) {
        // A first visit: the introduction, on a deal where its three steps are open.
        if (introWanted()) {
          this.intro = new Intro(app, this.el);
          this.start({ code: INTRO_CODE });
        } else {
          this.start({ cells: 4 });
        }
      }
    });
    this.refresh();
  }

  cells() {
    return Number(this.el.querySelector('[name="cells"]:checked').value);
  }

  /** A new game alone; false if the player chose to stay in the game they are in. */
  start(what) {
    if (!this.leaving()) return false;
    const app = this.app;
    if (this.requested && performance.now() - this.requestedAt < ANSWER_MS) {
      // A game asked for and not begun yet (the one a first visit starts, say): the server
      // would refuse a second one ("Leave your room first"), so this one is asked for
      // once the first is answered (answered()).
      this.next = what;
      return true;
    }
    app.leaveRoom();
    this.requested = what;
    this.requestedAt = performance.now();
    const msg = what.code ? { code: what.code } : { cells: what.cells };
    if (app.net.send("solo", msg) == null) toast(t("msg.offline"));
    return true;
  }

  /** Whether the player may leave the game they are in (asked when it would cost them). */
  leaving() {
    return this.app.mayLeave();
  }

  /** The server answered the game asked for (its room's snapshot, or an error): a game
   * asked for meanwhile is asked for now. */
  answered() {
    this.requested = null;
    const next = this.next;
    this.next = null;
    if (next && this.el) this.start(next);
  }

  onGame(type) {
    if (type === "snapshot" && this.addressFor) {
      this.addressFor = null;
      const g = this.app.game;
      const where = `#/play/${encodeURIComponent(g.code)}`;
      if (g.mode === "solo" && g.code && location.hash !== where) history.pushState(null, "", where);
    }
    if (type === "snapshot" && this.requested) this.answered();
    if (type === "snapshot" && this.intro?.el.isConnected) requestAnimationFrame(() => this.intro?.place());
    const code = this.afterResume;
    if (code && (type === "snapshot" || type === "room_gone")) {
      this.afterResume = null;
      const g = this.app.game;
      if (g.code !== code || g.mode === "race") this.start({ code });
    }
    this.refresh();
  }

  refresh() {
    if (!this.el) return;
    const g = this.app.game;
    const other = this.el.querySelector(".elsewhere");
    if (this.app.quick.waiting() && !g.roomId) {
      // Waiting to be paired: the wait is on the Race page.
      other.innerHTML = `<div class="banner info" data-quick="waiting">${esc(t("quick.waitingElsewhere"))}
        <a class="btn small" href="#/race">${esc(t("quick.backToWait"))}</a></div>`;
      this.el.querySelector(".table-host").hidden = true;
      return;
    }
    if (g.mode === "race" && g.roomId) {
      other.innerHTML = `<div class="banner info">${esc(t("play.inRace"))}
        <a class="btn small" href="#/${g.role === "spectator" ? "watch" : "race"}/${esc(g.roomId)}">${esc(t("play.backToRace"))}</a></div>`;
      this.el.querySelector(".table-host").hidden = true;
      return;
    }
    other.innerHTML = g.mode === "daily" ? this.dailyBanner(g.daily, g.me()?.time_ms) : "";
    this.el.querySelector(".table-host").hidden = false;
    this.table?.draw();
  }

  /** What a daily game counts for: ranked attempt, ranked #n, practice, held for review
   * (our time stands, the rank waits for an operator), or why unranked. */
  dailyBanner(d, timeMs) {
    let text = t("daily.rankedAttempt");
    let kind = "info";
    let state = "ranked-attempt";
    if (d?.ranked === true) {
      text = t("daily.rankedResult", { rank: d.rank });
      kind = "won";
      state = "ranked";
    } else if (d?.ranked === false) {
      const reason = d.unranked_reason || "not_verified";
      text = t(`unranked.${reason}`, { time: timeMs == null ? "" : formatTime(timeMs) });
      state = reason === "practice" || reason === "after_day" ? "practice"
        : reason === "pending_review" ? "held" : "unranked";
      kind = state === "practice" || state === "held" ? "info" : "lost";
    }
    // Our own replay is ours to see at once (the server asks for our token).
    const replay = d?.replay_id
      ? ` <a class="btn small" href="#/replay/${encodeURIComponent(d.replay_id)}">${esc(t("act.replay"))}</a>` : "";
    return `<div class="banner ${kind}" data-daily="${state}" role="status">${esc(text)}
      <a class="btn small" href="#/daily">${esc(t("nav.daily"))}</a>${replay}</div>`;
  }

  onResize() {
    this.table?.draw();
  }

  onLang() {
    if (this.intro?.el.isConnected) this.intro.draw();
    this.table?.redraw();
    this.refresh(); // the banners are texts too
  }

  hide() {
    this.afterResume = null;
    this.addressFor = null;
    this.next = null;
    this.offError?.();
    this.offError = null;
    this.intro?.destroy();
    this.intro = null;
    this.offQuick?.();
    this.offQuick = null;
    this.table?.destroy();
    this.table = null;
    this.el = null;
  }
}
