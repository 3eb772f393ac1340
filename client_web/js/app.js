// The app: one connection, one room at a time, views chosen by the address's hash
// (#/play, #/race/ROOM, #/watch/ROOM, #/daily, #/replay/ID, #/player/ID, #/rules,
// #/arena, #/arena/ID, #/admin).

import { Net, defaultUrl } from "./net.js";
import { Game } from "./game.js";
import { Quick } from "./quick.js";
import { ArenaClient } from "./arenaclient.js";
import { ArenaView } from "./views/arena.js";
import { applyTexts, initialLang, setLang, t, onLangChange, errorText } from "./i18n.js";
import { toast, announce } from "./notify.js";
import { forgetName, playerName } from "./player.js";
import { PlayView } from "./views/play.js";
import { RaceView } from "./views/race.js";
import { WatchView } from "./views/watch.js";
import { DailyView, ReplayView } from "./views/daily.js";
import { RulesView } from "./views/rules.js";
import { ProfileView } from "./views/profile.js";
import { AdminView } from "./views/admin.js";
import { SignedOutView } from "./views/signedout.js";
import { Wins } from "./win.js";
import { Friends } from "./friends.js";

class App {
  constructor() {
    this.main = document.getElementById("main");
    this.net = new Net(defaultUrl(), playerName);
    this.game = new Game(this.net);
    this.quick = new Quick(this.net); // the quick race queue: waiting to be paired
    // Paired, wherever we waited: to the race.
    this.quick.onChange((state, room) => {
      if (room?.mode === "race" && room.role === "player") {
        location.hash = `#/race/${encodeURIComponent(room.room_id)}`;
        announce(t("quick.startsSoon"));
      }
    });
    // An arena: each race it pairs us into is shown in the race view; back in its pool,
    // its page (the standings beside the wait).
    this.arena = new ArenaClient(this.net);
    this.arena.onChange((kind, m) => {
      if (kind === "race") {
        location.hash = `#/race/${encodeURIComponent(m.room_id)}`;
        announce(t("quick.startsSoon"));
      } else if (kind === "arena" && m.seat === "pool" && this.currentName === "race") {
        // Our race is over: back in the pool, on the arena's page (the server takes us
        // out of the race's room when the next race begins).
        location.hash = `#/arena/${encodeURIComponent(m.arena.arena_id)}`;
      } else if (kind === "over" && this.currentName === "race" && this.game.roomId === this.arena.room) {
        // The arena is over (its last race too): its podium, on its page.
        location.hash = `#/arena/${encodeURIComponent(m.arena_id)}`;
      }
    });
    this.wins = new Wins(this); // the win banner and its celebration
    this.friends = new Friends(this); // whom we follow (ours alone)
    this.friends.onChange(() => this.current?.onFriends?.());
    this.views = {
      play: new PlayView(this),
      race: new RaceView(this),
      watch: new WatchView(this),
      daily: new DailyView(this),
      replay: new ReplayView(this),
      rules: new RulesView(this),
      player: new ProfileView(this),
      arena: new ArenaView(this),
      admin: new AdminView(this), // the operator's, reached by its address alone
    };
    this.signedOutView = new SignedOutView(this); // shown, whatever the address, while signed out
    this.current = null;
    this.welcomed = false;
    this.whenWelcomed = [];
    const conn = document.getElementById("conn");
    const offline = document.getElementById("offline");
    let offlineTimer = null;
    this.net.on("status", ({ state }) => {
      // A short blip stays quiet; a connection gone for a second says so. Refused a new
      // player (too many from this address): say why and what to do, at once.
      clearTimeout(offlineTimer);
      conn.dataset.state = state;
      this.labelConn();
      if (state === "open" || state === "signedout") offline.hidden = true;
      else if (state === "refused") offline.hidden = false;
      else offlineTimer = setTimeout(() => { offline.hidden = false; }, 1000);
    });
    this.net.on("welcome", () => {
      this.welcomed = true;
      if (this.currentName === "signedout") this.route(); // signed in again, or a new player
      const queued = this.whenWelcomed.splice(0);
      for (const fn of queued) fn();
    });
    this.net.on("error", (m) => {
      if (m.code === "already_queued") return; // the quick race asks again (quick.js)
      // A refused game code: the server's words say exactly what is wrong with it.
      const detail = m.code === "bad_code" && m.message ? ` (${m.message})` : "";
      // A refusal for a while (slow_down) says when to come back, in whole minutes.
      const minutes = Math.max(1, Math.ceil(Number(m.retry_s || 0) / 60));
      toast(errorText(m.code, m.message, { minutes }) + detail);
    });
    this.net.on("gap", () => toast(t("msg.resync"), "info"));
    // Signed out everywhere (told now, or found by a stale token): out of the game, on the
    // page that says so, until the player signs in again or starts as a new player.
    this.net.on("signed_out", () => {
      this.quick.cancel();
      this.game.clear();
      this.welcomed = false;
      this.route();
      toast(t("signedOut.title"), "info"); // over any older news
      announce(t("signedOut.title"));
    });
    // A sign-in (or a deletion) from a game left it first: what became of it is said with
    // the sign-in's own words, and on the devices panel.
    this.net.on("snapshot", () => { this.gameNotice = null; }); // a new game: old news
    this.net.on("game_left", (m) => {
      this.net.setRoom(null);
      this.game.clear();
      this.gameNotice = t(`gameLeft.${m.mode}${m.given_up ? "GivenUp" : ""}`);
    });
    this.net.on("name_taken", () => {
      forgetName();
      this.net.greet();
    });
    this.game.onChange((type, msg) => this.current?.onGame?.(type, msg));
    window.addEventListener("hashchange", () => this.route());
    window.addEventListener("resize", () => this.current?.onResize?.());
    onLangChange(() => {
      applyTexts(document);
      this.labelConn();
      this.setTitle();
      this.current?.onLang?.();
    });
  }

  /** The connection light's words, and the notice of a connection that is not open, in
   * the current language. */
  labelConn() {
    const conn = document.getElementById("conn");
    conn.title = t(`conn.${conn.dataset.state}`);
    conn.setAttribute("aria-label", conn.title);
    const offline = document.getElementById("offline");
    const refused = conn.dataset.state === "refused";
    offline.classList.toggle("refused", refused);
    offline.setAttribute("role", refused ? "alert" : "status");
    offline.textContent = refused
      ? t("conn.refusedWhy", { min: Math.max(1, Math.ceil(this.net.refusedFor / 60)) })
      : t("conn.closed");
  }

  setTitle() {
    const name = this.currentName === "replay" ? "daily" : this.currentName || "play";
    const title = name === "signedout" ? t("signedOut.title") : t(`nav.${name}`);
    document.title = `${title} · Seahaven Race`;
    // One h1 a page: the view's name (the rules page brings its own).
    const h1 = document.getElementById("page-title");
    h1.textContent = document.title;
    h1.hidden = this.currentName === "rules";
  }

  /** Run `fn` once the server has welcomed us (at once if it has). */
  online(fn) {
    if (this.welcomed && this.net.state === "open") fn();
    else this.whenWelcomed.push(fn);
  }

  /** Leave the current room if it is not `keep`, and the quick race queue (one room at a
   * time, and never a room and the queue). */
  leaveRoom(keep = null) {
    this.quick.cancel();
    // A room being resumed (after a reload, before its snapshot) is left as well: a join
    // sent meanwhile would otherwise be refused ("Leave your room first").
    const room = this.game.roomId || this.net.room;
    if (room && room !== keep) {
      this.net.leave();
      this.game.clear();
      // A name edited in the room is said now: the next room is joined with it.
      if (this.renamePending) this.net.greet();
      this.renamePending = false;
    }
  }

  /**
   * What leaving the room now would cost, as the question to ask first (a text key), or
   * null when it costs nothing: out of a running race it is giving up (or, once finished,
   * the end of the race and its rematch), out of a paired lobby a dodge, out of the ranked
   * daily its only ranked attempt.
   */
  leaveQuestion() {
    const g = this.game;
    if (!g.roomId || g.role !== "player") return null;
    const me = g.me();
    if (g.mode === "race") {
      if (g.state === "countdown" || (g.state === "racing" && me?.status === "playing")) return "msg.confirmLeaveRace";
      // An arena's race has no rematch: leaving it misses its results alone.
      if (g.state === "racing") return this.arena?.room === g.roomId ? "arena.confirmLeaveFinished" : "msg.confirmLeaveFinished";
      if (g.paired && g.state === "lobby") return "quick.confirmDodge";
    }
    if (g.mode === "daily" && g.daily?.attempt === "ranked" && g.state === "racing" && me?.status === "playing") {
      return "msg.confirmLeaveDaily";
    }
    return null;
  }

  /** Whether the player may leave the room: asked when it would cost them (whichever
   * control leaves it: Leave, Next game, a new game, a link out of the race). */
  mayLeave() {
    const question = this.leaveQuestion();
    return !question || confirm(t(question));
  }

  route() {
    const hash = location.hash || "#/play";
    if (this.restoring === hash) {
      this.restoring = null; // back where we were after a "no": nothing to redraw
      return;
    }
    const parts = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
    if (parts[0] === "claim") { // a transfer code's link: sign in on the player page
      this.claimCode = parts[1] || "";
      location.replace("#/player");
      return;
    }
    const name = this.net.signedOut ? "signedout" : this.views[parts[0]] ? parts[0] : "play";
    // A link (or Back) out of a running race asks first; "no" stays in the race, "yes"
    // leaves it (the page is not left showing a race that runs on without us).
    // (The watch page of our own race is not a way out: it leads back to the race.)
    const ownWatch = name === "watch" && parts[1]?.toUpperCase() === this.game.roomId;
    if (this.currentName === "race" && name !== "race" && !ownWatch && this.game.mode === "race" &&
        this.leaveQuestion()) {
      if (!this.mayLeave()) {
        this.restoring = `#/race/${encodeURIComponent(this.game.roomId)}`;
        location.replace(this.restoring);
        return;
      }
      this.leaveRoom();
    }
    const view = name === "signedout" ? this.signedOutView : this.views[name];
    for (const a of document.querySelectorAll(".modes a")) {
      const on = a.dataset.view === name || (name === "replay" && a.dataset.view === "daily");
      if (on) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    }
    if (this.current && this.current !== view) this.current.hide?.();
    this.current = view;
    this.currentName = name;
    const h1 = document.getElementById("page-title"); // each view under the page's h1
    this.main.replaceChildren(h1);
    view.show(this.main, parts.slice(1));
    this.setTitle();
  }
}

async function boot() {
  const lang = initialLang();
  const select = document.getElementById("lang");
  select.value = lang;
  await setLang(lang);
  select.addEventListener("change", () => setLang(select.value));
  const four = document.getElementById("fourcolor");
  four.checked = localStorage.getItem("seahaven.fourcolor") === "1";
  document.body.classList.toggle("four-color", four.checked);
  four.addEventListener("change", () => {
    document.body.classList.toggle("four-color", four.checked);
    localStorage.setItem("seahaven.fourcolor", four.checked ? "1" : "0");
  });
  // An invite link is /?room=ID: open that room's race view.
  const invited = new URLSearchParams(location.search).get("room");
  if (invited) history.replaceState(null, "", `${location.pathname}#/race/${encodeURIComponent(invited)}`);
  // The skip link moves focus without touching the address (the hash is the router's).
  document.querySelector(".skip").addEventListener("click", (ev) => {
    ev.preventDefault();
    (document.querySelector("#main .board .card.top") || document.getElementById("main")).focus();
  });
  const app = new App();
  window.seahaven = app; // for the browser tests and the curious
  app.net.connect();
  app.route();
}

boot();
