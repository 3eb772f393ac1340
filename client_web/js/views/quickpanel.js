// The quick race panels of the Race page: the entry (pick a variant, "Quick race") and the
// wait (elapsed time, Cancel, the server's offer of a bot racer). What the queue says is
// in quick.js; the server pairs and starts the race.

import { t } from "../i18n.js";
import { html, esc, setText } from "../dom.js";
import { toast, announce } from "../notify.js";
import { showRating } from "./ratings.js";

const LEVELS = [[4, "level.easy"], [2, "level.medium"], [1, "level.hard"]];

/** Join the quick race queue for `cells` from anywhere (out of any room first). */
export function quickRace(app, cells) {
  app.leaveRoom();
  if (!app.quick.join(cells)) {
    toast(t("msg.offline"));
    return false;
  }
  if (location.hash !== "#/race") location.hash = "#/race"; // the wait is there (not in a room's address)
  return true;
}

/** "Quick race" with its variant: the entry on the Race page. */
export function quickEntry(app) {
  const el = html(`
    <section class="card-panel quick-entry" aria-labelledby="quick-title">
      <h2 id="quick-title" data-i18n="quick.title"></h2>
      <p class="muted" data-i18n="quick.intro"></p>
      <div class="row">
        <div class="seg" role="radiogroup" data-i18n-aria="race.cells">
          ${LEVELS.map(([c, label], i) => `<label><input type="radio" name="qcells" value="${c}"${i ? "" : " checked"}> <span data-i18n="${label}"></span></label>`).join("")}
        </div>
        <button class="btn primary" data-act="quick" data-i18n="quick.go"></button>
      </div>
      <p class="muted quick-online" data-k="online" aria-live="off"></p>
    </section>`);
  el.querySelector('[data-act="quick"]').onclick = () => {
    quickRace(app, Number(el.querySelector('[name="qcells"]:checked').value));
  };
  // How many play now, while the entry is on the page.
  const show = async () => {
    const counts = await onlineCounts();
    if (counts) setText(el.querySelector('[data-k="online"]'), onlineText(counts));
  };
  show();
  const timer = setInterval(() => (el.isConnected ? show() : clearInterval(timer)), 5000);
  return el;
}

/** The server's counts (`GET /api/online`: online, in a race, waiting), or null. */
async function onlineCounts() {
  try {
    const res = await fetch("/api/online", { cache: "no-cache" });
    return res.ok ? await res.json() : null;
  } catch {
    return null; // offline: no counts
  }
}

/**
 * "12 players online · 4 in a race now": counts, never names. The page that asks is online
 * itself, and so is everyone waiting: the server's count of sockets is a few seconds old
 * (each instance tells it every few seconds), so it is never shown below them.
 */
function onlineText(c, here = 1) {
  const n = Math.max(c.online, c.waiting || 0, here);
  return t("quick.online", { n, racing: c.racing });
}

/** The wait: what we queue for, for how long, Cancel; a bot racer when the server offers one. */
export class QuickWait {
  constructor(app, host) {
    this.app = app;
    this.host = host;
    this.timer = setInterval(() => this.tick(), 100);
    this.drawn = "";
    // How many play now (counts from the server, never names), while we wait.
    this.online = null;
    this.count();
    this.counter = setInterval(() => this.count(), 5000);
  }

  destroy() {
    clearInterval(this.timer);
    clearInterval(this.counter);
    this.timer = null;
  }

  /** Ask the server's counts: online, in a race, waiting (`GET /api/online`). */
  async count() {
    this.online = (await onlineCounts()) || this.online;
    this.tick();
  }

  draw() {
    const q = this.app.quick;
    const level = t(LEVELS.find(([c]) => c === q.cells)?.[1] || "level.easy");
    const offer = q.state === "offer";
    const racers = q.pairing?.racers ?? 0;
    const key = JSON.stringify([q.state, q.cells, q.rating, q.provisional, q.penaltyS, q.declined, racers, document.documentElement.lang]);
    if (key === this.drawn) return this.tick();
    const focusWasIn = this.host.contains(document.activeElement) || !this.drawn;
    const stateWas = this.state;
    const racersWas = this.racers;
    this.state = q.state;
    this.racers = racers;
    this.drawn = key;
    this.host.innerHTML = "";
    let say = t("quick.waitIntro");
    if (offer) say = t("quick.offerIntro", { bot: q.offer.bot.name, rating: q.offer.bot.rating });
    else if (q.state === "accepting") say = t("quick.accepting");
    else if (q.declined) say = t("quick.declined");
    // Others are ready: say so, and count down the wait for a fourth.
    if (racers && !offer && q.state !== "accepting") say = t("quick.found", { n: racers - 1 });
    const notes = [];
    if (q.rating != null) notes.push(esc(t("quick.yourRating", { rating: showRating(q.rating, q.provisional) })));
    if (q.rating != null && q.provisional) notes.push(esc(t("rating.provisional"))); // the "?" explained
    if (q.penaltyS > 0) notes.push(esc(t("quick.penalty", { n: q.penaltyS })));
    const el = html(`
      <section class="card-panel quick-wait" data-state="${esc(q.state)}" aria-labelledby="quick-wait-title">
        <h2 id="quick-wait-title">${esc(t("quick.waiting", { level }))}</h2>
        <p class="quick-clock"><span class="spinner" aria-hidden="true"></span>
          <span>${esc(t("quick.elapsed"))}</span> <b data-k="elapsed" role="timer" aria-live="off"></b></p>
        <p class="quick-say" role="status">${esc(say)}</p>
        ${racers ? `<p class="quick-pairing" data-k="pairing" aria-live="off"></p>` : ""}
        ${offer ? `<div class="row bot-offer">
            <button class="btn primary" data-act="bot-yes">${esc(t("quick.botYes"))}</button>
            <button class="btn" data-act="bot-no">${esc(t("quick.botNo"))}</button></div>` : ""}
        ${q.declined && q.offer && !offer ? `<div class="row bot-later">
            <button class="btn small" data-act="bot-yes">${esc(t("quick.botYes"))}</button></div>` : ""}
        ${notes.length ? `<p class="muted quick-notes">${notes.join(" · ")}</p>` : ""}
        <p class="quick-online" data-k="online" aria-live="off"></p>
        <div class="row"><button class="btn" data-act="cancel">${esc(t("quick.cancel"))}</button></div>
        <p class="row quick-meanwhile"><span class="muted">${esc(t("quick.meanwhile"))}</span>
          <a class="btn small" href="#/watch">${esc(t("quick.watchLive"))}</a>
          <a class="btn small" href="#/player" data-k="stats-link">${esc(t("stats.open"))}</a></p>
      </section>`);
    this.host.append(el);
    // The panel is drawn anew: screen readers hear the news from the page's live region.
    if (stateWas && (stateWas !== q.state || racersWas !== racers)) announce(say);
    const on = (act, fn) => { const b = el.querySelector(`[data-act="${act}"]`); if (b) b.onclick = fn; };
    on("cancel", () => this.app.quick.cancel());
    on("bot-yes", () => this.app.quick.acceptBot());
    on("bot-no", () => this.app.quick.declineBot());
    // Keyboard users keep their place: focus moves to the new buttons only from the old ones.
    if (focusWasIn) (el.querySelector('.bot-offer [data-act="bot-yes"]') || el.querySelector('[data-act="cancel"]')).focus();
    this.tick();
  }

  tick() {
    const el = this.host.querySelector('[data-k="elapsed"]');
    if (!el) return;
    const online = this.host.querySelector('[data-k="online"]');
    if (online && this.online) setText(online, onlineText(this.online));
    const s = this.app.quick.elapsedS();
    setText(el, `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`);
    const left = this.app.quick.pairInS();
    const pairing = this.host.querySelector('[data-k="pairing"]');
    if (pairing && left != null) {
      setText(pairing, left > 0 ? t("quick.pairIn", { s: left.toFixed(1) }) : t("quick.pairNow"));
    }
  }
}
