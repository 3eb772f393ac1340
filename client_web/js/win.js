// The win banner: the result, the next game, the host's rematch, a line to share and the
// chime's switch. A fresh win (the server's `finished` for us, not one a reload shows again)
// is celebrated once. What the banner says comes from the game and the public leaderboard;
// the line shared holds no game code and no moves (share.js). A solo win also says what it
// changed in our statistics (the server's `solo_stats`: a best time, a streak).

import { t, formatTime } from "./i18n.js";
import { esc } from "./dom.js";
import { announce } from "./notify.js";
import { celebrate, soundOn, setSound } from "./celebrate.js";
import { dailyLine, raceLine, soloLine, share, shareLink, progressCard, rememberCard, rememberedCard } from "./share.js";

async function getJSON(url) {
  const res = await fetch(url, { cache: "no-cache" });
  if (!res.ok) throw new Error(String(res.status));
  return res.json();
}

/** The deal's par under the results: the proven fewest actions, or only the best line
 * found (then no result is perfect); nothing when the server knows none (a typed code). */
export function parLine(par) {
  if (!par?.par) return "";
  const key = par.optimal ? "perfect.parProven" : "perfect.parBest";
  return `<p class="muted par-line" data-k="par" data-optimal="${par.optimal ? 1 : 0}">${esc(t(key, { par: par.par }))}</p>`;
}

/** The server's mark of a win in the deal's proven par (HTML; nothing when not perfect). */
export function perfectMark(perfect) {
  if (!perfect) return "";
  return ` <span class="perfect-mark" data-k="perfect" title="${esc(t("perfect.explain"))}">${esc(t("perfect.mark"))}</span>`;
}

export class Wins {
  constructor(app) {
    this.app = app;
    this.facts = new Map(); // "room/round" -> {par, finishers, streak} of a daily win
    this.asked = new Set();
    this.asking = 0;
    this.celebrated = new Set();
    this.closed = new Set(); // "room/round" of the banners closed (a pill opens them again)
    this.solo = new Map(); // "room/round" -> the `solo_stats` of a solo win
    // Our foundations after each of our moves, for the share card (this room and round).
    this.samples = { key: null, list: [] };
    app.net.on("delta", (m) => {
      const g = app.game;
      const board = g.myBoard();
      if (m.player_id !== g.you || !board) return;
      if (this.samples.key !== this.key()) this.samples = { key: this.key(), list: [] };
      this.samples.list.push({ t: m.t, f: { ...board.foundations } });
    });
    app.net.on("finished", (m) => {
      const g = app.game;
      if (m.player_id !== g.you || g.role !== "player") return;
      const key = `${g.roomId}/${m.round}`;
      if (this.celebrated.has(key)) return;
      this.celebrated.add(key);
      celebrate();
      // Said once, with the server's time (the banner is drawn before it comes, and again).
      announce(this.title());
    });
    // The leaderboard has our rank once the server says the win is ranked (or why not).
    app.net.on("daily_result", () => this.learn(true));
    app.net.on("solo_stats", (m) => {
      if (app.game.mode !== "solo") return;
      this.solo.set(this.key(), m);
      app.game.changed("win", null);
    });
    // A rematch in one click: the room back in its lobby with its new deal, the host's
    // page starts it at once (everyone still in the room gets the countdown).
    this.rematching = null;
    app.net.on("room", (m) => {
      if (this.rematching !== m.room_id || m.state !== "lobby" || m.host !== app.net.playerId) return;
      this.rematching = null;
      app.net.send("start");
    });
    document.addEventListener("click", (ev) => {
      const button = ev.target.closest?.("[data-win]");
      if (button) this.act(button.dataset.win);
    });
  }

  key() {
    return `${this.app.game.roomId}/${this.app.game.round}`;
  }

  /** What our win says: "Finished #1 in 0:45.6 with 74 moves!". */
  title() {
    const g = this.app.game;
    const me = g.me();
    return t(g.mode === "race" && me?.rank ? "msg.wonRace" : "msg.won",
      { time: formatTime(me?.time_ms), n: me?.moves ?? 0, rank: me?.rank });
  }

  /** The banner of our finished game (HTML; its buttons act through `data-win`). It is no
   * live region: the win is announced once, when the server's `finished` comes. */
  banner() {
    const g = this.app.game;
    const race = g.mode === "race";
    const text = this.title();
    const rematch = race && g.host === g.you && g.state === "done"
      ? `<button class="btn small" data-win="rematch">${esc(t("act.rematch"))}</button>` : "";
    const on = soundOn();
    if (g.mode === "daily") this.learn();
    // Closed, the banner is one small button that opens it again: nothing over the table.
    if (this.closed.has(this.key())) {
      return `<div class="banner won win closed"><button class="btn small" data-win="open" aria-expanded="false">★ ${esc(text)}</button></div>`;
    }
    return `<div class="banner won win">
      <button class="btn small banner-close" data-win="close" aria-expanded="true" aria-label="${esc(t("act.close"))}" title="${esc(t("act.close"))}">×</button>
      <span class="win-title">★ ${esc(text)}</span>
      ${this.perfectHtml()}
      <span class="win-actions">
        <button class="btn small primary" data-win="next">${esc(t("win.next"))}</button>
        ${rematch}
        <button class="btn small" data-win="share">${esc(t("win.share"))}</button>
        <a class="btn small" href="#/player" data-k="stats-link">${esc(t("stats.open"))}</a>
        <button class="btn small" data-win="sound" aria-pressed="${on}"
          title="${esc(t(on ? "win.soundOn" : "win.soundOff"))}">${on ? "🔊" : "🔇"} ${esc(t("win.sound"))}</button>
      </span>
      ${g.mode !== "race" ? parLine(g.par) : ""}
      ${g.mode === "solo" ? this.records() : ""}
      ${this.cardHtml()}
      <p class="win-share" data-k="share-line">${esc(this.line())}</p>
    </div>`;
  }

  /** Our win in exactly the deal's proven par: the server says so (`finished.perfect`);
   * this page never works it out. */
  perfectHtml() {
    const me = this.app.game.me();
    if (!me?.perfect) return "";
    return `<span class="win-perfect" data-k="perfect"><span class="perfect-mark">${esc(t("perfect.mark"))}</span>
      ${esc(t("perfect.win", { n: me.moves }))}</span>`;
  }

  /** What a solo win changed: a best time, fewest moves, the streak, the wins so far. */
  records() {
    const m = this.solo.get(this.key());
    if (!m) return "";
    const s = m.stats;
    const chips = [];
    if (s.games > 1 && m.records.includes("best_time")) chips.push(t("solo.newBestTime"));
    if (s.games > 1 && m.records.includes("fewest_moves")) chips.push(t("solo.newFewest"));
    if (s.streak > 1) {
      chips.push(t("solo.streakN", { n: s.streak }) +
        (m.records.includes("best_streak") ? ` · ${t("solo.newBestStreak")}` : ""));
    }
    chips.push(t("solo.record", { wins: s.wins, games: s.games }));
    return `<span class="win-records" data-k="solo-records">${chips.map((c) => `<span class="chip">${esc(c)}</span>`).join("")}</span>`;
  }

  /** The share card of our win (emoji: the foundations over time), or null (a reload of
   * a race or solo game). A daily win's is kept on this device all day: a reload, and the
   * Daily page's result card, share it too. */
  card() {
    const g = this.app.game;
    const me = g.me();
    const daily = g.mode === "daily" ? g.daily : null;
    if (this.samples.key !== this.key()) return daily ? rememberedCard(daily.date, daily.kind) : null;
    const card = progressCard(this.samples.list, me?.time_ms);
    if (daily && card && daily.attempt === "ranked") rememberCard(daily.date, daily.kind, card);
    return card;
  }

  /** The card on the page: the same squares drawn in CSS (no emoji font needed to see
   * them); the emoji text it shares is in `data-card`. */
  cardHtml() {
    const card = this.card();
    if (!card) return "";
    const level = { "⬜": 0, "🟥": 1, "🟧": 2, "🟨": 3, "🟩": 4 };
    const rows = card.split("\n").map((row) => {
      const [suit, squares] = [row[0], [...row.slice(2)]];
      return `<span class="win-row"><b>${suit}</b>${squares.map((q) => `<i data-level="${level[q]}"></i>`).join("")}</span>`;
    }).join("");
    return `<div class="win-card" role="img" aria-label="${esc(t("share.cardLabel"))}" data-card="${esc(card)}">${rows}</div>
      <p class="win-legend" data-k="legend">${esc(t("share.legend"))}</p>`;
  }

  /** The line to share: time, moves and place; never the code or the moves played. */
  line() {
    const g = this.app.game;
    const me = g.me();
    if (g.mode === "daily" && g.daily) {
      const f = this.facts.get(this.key()) || {};
      return dailyLine({
        date: g.daily.date, kind: g.daily.kind, timeMs: me.time_ms, moves: me.moves,
        par: f.par ?? g.par?.par, rank: g.daily.ranked ? g.daily.rank : null,
        finishers: f.finishers, streak: f.streak, perfect: me.perfect,
      });
    }
    if (g.mode === "race") {
      const racers = g.racers().filter((p) => p.status !== "waiting").length;
      return raceLine({ timeMs: me.time_ms, moves: me.moves, rank: me.rank, racers, perfect: me.perfect });
    }
    return soloLine({ cells: g.cells, timeMs: me.time_ms, moves: me.moves, perfect: me.perfect });
  }

  /** A daily win's par, the day's finishers and our streak (from the public API). */
  async learn(again = false) {
    const g = this.app.game;
    const d = g.daily;
    if (g.mode !== "daily" || !d || g.me()?.status !== "finished") return;
    const key = this.key();
    if (this.asked.has(key) && !again) return;
    this.asked.add(key);
    const asking = ++this.asking;
    const pid = encodeURIComponent(this.app.net.playerId || "");
    try {
      const [day, board] = await Promise.all([
        getJSON(`/api/daily/${d.date}`),
        getJSON(`/api/daily/${d.date}/leaderboard?limit=1&kind=${d.kind}&around=${pid}`),
      ]);
      if (asking !== this.asking || this.key() !== key) return; // a later answer counts
      this.facts.set(key, {
        par: d.kind === "hard" ? day.hard?.par : day.par,
        finishers: board.finishers,
        streak: board.player?.streak || 0,
      });
      g.changed("win", null);
    } catch {
      // the line goes without them
    }
  }

  /** The host's rematch: a new deal in the room, started as soon as the room is back in
   * its lobby (one click, not two). */
  rematch() {
    this.rematching = this.app.game.roomId;
    this.app.net.send("rematch");
  }

  act(what) {
    const app = this.app;
    const g = app.game;
    if (what === "sound") {
      setSound(!soundOn());
      g.changed("win", null);
    } else if (what === "close" || what === "open") {
      if (what === "close") this.closed.add(this.key());
      else this.closed.delete(this.key());
      g.changed("win", null);
      document.querySelector(`.banners [data-win="${what === "close" ? "open" : "close"}"]`)?.focus();
    } else if (what === "share") {
      share(this.line(), shareLink(g.mode, g.daily, g.code), this.card());
    } else if (what === "rematch") {
      this.rematch();
    } else if (what === "next") {
      if (g.mode === "daily") {
        location.hash = "#/daily"; // the other deal of the day, or the leaderboard
      } else if (g.mode === "race") {
        if (!app.mayLeave()) return; // others still race: leaving ends our part in it
        const arena = app.arena?.joined && app.arena.room === g.roomId ? app.arena.id : null;
        app.leaveRoom();
        location.hash = arena ? `#/arena/${encodeURIComponent(arena)}` : "#/race"; // back in the pool
      } else {
        if (location.hash !== "#/play") location.hash = "#/play";
        app.views.play.start({ cells: g.cells });
      }
    }
  }
}
