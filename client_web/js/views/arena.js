// Arenas: the list (the running and next scheduled arenas, and a private one made with an
// invite link), and one arena: its countdown to the start, Join and Leave, the no-take-backs
// pledge, "back in the pool" between races with the standings beside it, and the podium.
// The races themselves are the race view's (the app shows each when it begins).

import { t, locale } from "../i18n.js";
import { html, esc, setText, who } from "../dom.js";
import { toast, announce } from "../notify.js";
import { ArenaLive } from "./arenalive.js";
import { copyText } from "../clipboard.js";

const LEVELS = { 4: "level.easy", 2: "level.medium", 1: "level.hard" };

/** How often the list of arenas is read again while it is shown (ms), and while it has
 * none (or could not be read). */
const LIST_EVERY_MS = 15_000;
const LIST_EMPTY_MS = 2_000;

/** The minutes and seconds of `ms` (never below 0). */
export function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** When an arena starts: a countdown within the hour, else the clock time in the player's
 * time zone and language ("Starts at 14:00", with the day when it is not today). */
function startsText(starts, now) {
  if (starts - now < 3_600_000) return t("arena.startsInClock", { time: clock(starts - now) });
  const at = new Date(starts);
  const today = new Date(now).toDateString() === at.toDateString();
  const opts = today ? { hour: "2-digit", minute: "2-digit" }
    : { weekday: "short", hour: "2-digit", minute: "2-digit" };
  return t("arena.startsAt", { time: new Intl.DateTimeFormat(locale(), opts).format(at) });
}

/** Our own races held for review, beside our line (the server tells us alone). */
function held(n) {
  return ` <span class="held-mark" data-k="held" title="${esc(t("arena.heldExplain"))}">${esc(t("arena.held", { n }))}</span>`;
}

/** A standings table: rank, name, points, streak (the fire), races; our own line marked. */
export function standingsTable(lines, me, you = null) {
  // Only players who raced are numbered: a player yet to race is no place on the table.
  const rows = lines.filter((x) => x.races > 0);
  if (you && you.races > 0 && !rows.some((x) => x.player_id === you.player_id)) rows.push(you);
  if (!rows.length) return `<p class="muted" data-i18n="arena.noRaces"></p>`;
  return `<table class="arena-table">
    <thead><tr><th data-i18n="arena.rank"></th><th data-i18n="arena.name"></th>
      <th data-i18n="arena.points"></th><th data-i18n="arena.streak"></th><th data-i18n="arena.races"></th></tr></thead>
    <tbody>${rows.map((x) => `<tr${x.player_id === me ? ' class="me"' : ""}>
      <td>${x.rank}</td><td>${who(x.name, x.player_id)}${x.player_id === me && you?.held ? held(you.held) : ""}</td><td>${x.points}</td>
      <td>${x.fire ? `<span class="fire" title="${esc(t("arena.fire"))}">×2</span> ` : ""}${x.streak}</td>
      <td>${x.races}</td></tr>`).join("")}</tbody></table>`;
}

export class ArenaView {
  constructor(app) {
    this.app = app;
    this.timer = null;
  }

  show(main, parts) {
    this.id = parts[0] || null;
    this.el = html(`<div class="arena-page"></div>`);
    main.append(this.el);
    this.off = this.app.arena.onChange((kind, m) => this.onArena(kind, m));
    if (this.id) this.openArena();
    else this.openList();
    this.timer = setInterval(() => this.tick(), 250);
  }

  hide() {
    this.live?.stop();
    this.live = null;
    this.off?.();
    clearInterval(this.timer);
    this.timer = null;
    this.el = null;
  }

  onLang() {
    this.live?.redraw();
    if (this.id) this.drawArena();
    else this.openList();
  }

  // -- the list -----------------------------------------------------------------------

  async openList() {
    const app = this.app;
    this.el.replaceChildren(html(`
      <section class="card-panel arena-list" aria-labelledby="arena-list-title">
        <h2 id="arena-list-title" data-i18n="arena.title"></h2>
        <p class="muted" data-i18n="arena.intro"></p>
        <div class="arena-rows" aria-live="polite"></div>
      </section>`), html(`
      <section class="card-panel arena-make" aria-labelledby="arena-make-title">
        <h2 id="arena-make-title" data-i18n="arena.private"></h2>
        <p class="muted" data-i18n="arena.privateIntro"></p>
        <div class="row">
          <label><span data-i18n="race.cells"></span>
            <select name="cells">${[4, 2, 1].map((c) => `<option value="${c}">${esc(t(LEVELS[c]))}</option>`).join("")}</select></label>
          <label><span data-i18n="arena.minutes"></span>
            <select name="minutes">${[10, 20, 30, 60].map((n) => `<option value="${n}"${n === 30 ? " selected" : ""}>${n}</option>`).join("")}</select></label>
          <label><span data-i18n="arena.startsIn"></span>
            <select name="starts">${[1, 5, 15, 60].map((n) => `<option value="${n * 60}">${n}</option>`).join("")}</select></label>
          <button class="btn primary" data-act="create" data-i18n="arena.create"></button>
        </div>
      </section>`));
    this.el.querySelector('[data-act="create"]').onclick = () => {
      const get = (name) => Number(this.el.querySelector(`[name="${name}"]`).value);
      app.leaveRoom();
      if (!app.arena.create(get("cells"), get("minutes"), get("starts"))) toast(t("msg.offline"));
    };
    this.listed = null;
    await this.readList(this.el.querySelector(".arena-rows"));
  }

  /** Read the list into `rows`, redrawn only when it changed (the rows are a live region).
   * Read again from `tick` while the page is open: a scheduled arena is made by the
   * server's arena loop, which may not have made it yet when the page first asks (a server
   * just started), and arenas start and new ones are scheduled while the page is open. */
  async readList(rows) {
    this.listedAt = Date.now();
    this.reading = true;
    let got;
    try {
      const res = await fetch("/api/arenas", { cache: "no-cache" });
      if (!res.ok) throw new Error(String(res.status));
      const data = await res.json();
      got = [...data.running, ...data.next];
    } catch {
      got = null;
    } finally {
      this.reading = false;
      this.listedAt = Date.now();
    }
    const key = JSON.stringify(got);
    if (!rows.isConnected || key === this.listed) return;
    this.listed = key;
    this.listEmpty = !got?.length;
    rows.replaceChildren(...(got === null ? [html(`<p class="muted" data-i18n="arena.failed"></p>`)]
      : got.length ? got.map((a) => this.listRow(a)) : [html(`<p class="muted" data-i18n="arena.none"></p>`)]));
    this.tick();
  }

  listRow(a) {
    const running = a.phase === "running";
    const el = html(`
      <div class="arena-row" data-arena="${esc(a.arena_id)}">
        <div><strong>${esc(t(LEVELS[a.cells]))}</strong> · ${esc(t("arena.length", { n: a.minutes }))}
          <div class="muted arena-when"></div></div>
        <div class="muted">${esc(t("arena.players", { n: a.players }))}</div>
        <a class="btn${running ? " primary" : ""}" href="#/arena/${encodeURIComponent(a.arena_id)}" data-i18n="${running ? "arena.open" : "arena.lobby"}"></a>
      </div>`);
    el.dataset.starts = a.starts_at;
    el.dataset.ends = a.ends_at;
    return el;
  }

  // -- one arena ----------------------------------------------------------------------

  openArena() {
    const app = this.app;
    this.el.replaceChildren(html(`
      <div class="arena-one">
        <section class="card-panel arena-head" aria-labelledby="arena-title">
          <h2 id="arena-title"></h2>
          <p class="arena-clock" aria-live="off"></p>
          <p class="arena-seat" role="status"></p>
          <div class="row">
            <button class="btn primary" data-act="join" data-i18n="arena.join"></button>
            <button class="btn" data-act="leave" data-i18n="arena.leave"></button>
            <a class="btn" data-act="race" hidden data-i18n="arena.backToRace"></a>
            <label class="pledge" data-i18n-title="arena.pledgeHint"><input type="checkbox" name="pledge">
              <span data-i18n="arena.pledge"></span></label>
          </div>
          <p class="muted arena-invite" hidden><span data-k="invite"></span>
            <button class="btn small" data-act="copy-invite" data-i18n="act.copy"></button></p>
          <p class="arena-household" role="note" hidden data-i18n="arena.household"></p>
        </section>
        <section class="card-panel arena-podium" hidden aria-labelledby="arena-podium-title">
          <h2 id="arena-podium-title" data-i18n="arena.podium"></h2><ol class="podium"></ol>
        </section>
        <section class="card-panel arena-live" hidden data-k="arena-live"></section>
        <section class="card-panel arena-standings" aria-labelledby="arena-standings-title">
          <h2 id="arena-standings-title" data-i18n="arena.standings"></h2><div class="arena-lines"></div>
        </section>
      </div>`));
    this.el.querySelector('[data-act="join"]').onclick = () => {
      app.leaveRoom();
      app.online(() => app.arena.join(this.id));
    };
    this.el.querySelector('[data-act="leave"]').onclick = () => app.arena.leave();
    const pledge = this.el.querySelector('[name="pledge"]');
    pledge.checked = app.arena.pledging;
    pledge.onchange = () => app.arena.setPledging(pledge.checked);
    // Its leading race, live (its boards as Watch shows them).
    this.live?.stop();
    this.live = new ArenaLive(this.el.querySelector('[data-k="arena-live"]'), this.id, app);
    // In it already (back from a race), or only looking: the standings either way.
    if (!(app.arena.joined && app.arena.id === this.id)) app.online(() => app.arena.watch(this.id));
    this.drawArena();
  }

  onArena(kind, m) {
    if (!this.el) return;
    if (kind === "arena" && !this.id && m.invite) { // the arena we just made: to its page
      location.hash = `#/arena/${encodeURIComponent(m.arena.arena_id)}`;
      return;
    }
    if (kind === "left" && m.reason === "asked") announce(t("arena.youLeft"));
    if (this.id) this.drawArena();
  }

  drawArena() {
    const a = this.app.arena;
    const el = this.el;
    if (!el || !el.querySelector(".arena-one")) return;
    const info = a.id === this.id ? a.info : null;
    const title = info ? `${t(LEVELS[info.cells])} · ${t("arena.length", { n: info.minutes })}` : t("arena.title");
    el.querySelector("#arena-title").textContent = title;
    const joined = a.joined && a.id === this.id;
    el.querySelector('[data-act="join"]').hidden = joined || info?.phase === "over";
    el.querySelector('[data-act="leave"]').hidden = !joined;
    el.querySelector(".pledge").hidden = info?.phase === "over";
    const race = el.querySelector('[data-act="race"]');
    race.hidden = !(joined && a.seat === "racing" && a.room);
    if (a.room) race.href = `#/race/${encodeURIComponent(a.room)}`;
    const seat = !info ? "" : info.phase === "over" ? t("arena.over")
      : !joined ? t("arena.out") : a.seat === "racing" ? t("arena.racing")
      : info.phase === "soon" ? t("arena.waitStart") : t("arena.pool");
    el.querySelector(".arena-seat").textContent = seat;
    const invite = el.querySelector(".arena-invite");
    invite.hidden = !(info?.private);
    const link = `${location.origin}/#/arena/${this.id}`;
    if (info?.private) setText(invite.querySelector('[data-k="invite"]'), t("arena.invite", { link }));
    invite.querySelector('[data-act="copy-invite"]').onclick = () => copyText(link);
    const st = a.id === this.id ? a.standings : null;
    el.querySelector(".arena-lines").innerHTML = standingsTable(st?.top || [], this.app.net.playerId, st?.you);
    const podium = a.id === this.id ? a.podium : null;
    // Our races that scored nothing because our only rivals were of our own household: say
    // why (the server tells each player about their own races alone).
    const you = podium?.you || st?.you;
    el.querySelector(".arena-household").hidden = !(you?.household > 0);
    el.querySelector(".arena-podium").hidden = !podium;
    if (podium) {
      el.querySelector(".podium").innerHTML = podium.podium.map((x) =>
        `<li><span class="medal m${x.rank}" aria-hidden="true">${x.rank}</span> ${who(x.name, x.player_id)} · ${esc(t("arena.pointsN", { n: x.points }))}</li>`).join("");
    }
    for (const node of el.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
    this.tick();
  }

  tick() {
    if (!this.el) return;
    const a = this.app.arena;
    if (this.id) {
      const info = a.id === this.id ? a.info : null;
      const clockEl = this.el.querySelector(".arena-clock");
      if (!clockEl || !info) return;
      setText(clockEl, info.phase === "over" ? ""
        : a.left() > 0 ? startsText(info.starts_at, info.starts_at - a.left())
        : a.left(true) > 0 ? t("arena.endsInClock", { time: clock(a.left(true)) })
        : a.left(true, true) > 0 ? t("arena.lastRacesClock", { time: clock(a.left(true, true)) })
        : t("arena.closing"));
      return;
    }
    const rows = this.el.querySelector(".arena-rows");
    if (rows && !this.reading && Date.now() - this.listedAt > (this.listEmpty ? LIST_EMPTY_MS : LIST_EVERY_MS)) {
      this.readList(rows);
    }
    for (const row of this.el.querySelectorAll(".arena-row")) {
      const now = Date.now() - a.skew;
      const starts = Number(row.dataset.starts);
      const ends = Number(row.dataset.ends);
      setText(row.querySelector(".arena-when"), now < starts
        ? startsText(starts, now)
        : t("arena.endsInClock", { time: clock(ends - now) }));
    }
  }
}

/** How often the Watch page reads the running arenas' tables again (ms). */
const WATCH_EVERY_MS = 5000;

/** How many lines of each running arena's table the Watch page shows. */
const WATCH_LINES = 5;

/**
 * The Watch page's entry: the running arenas, each with its top race to watch and the
 * first lines of its standings, read again every few seconds while the page is open (the
 * table is public: an arena's own page pushes the same lines to anyone watching it).
 */
export class ArenaWatchEntry {
  constructor(host, me) {
    this.host = host;
    this.me = me; // our player id, when the server has told it
    this.arenas = null; // [{arena, table}] as last read
    this.timer = null;
    this.stopped = false;
    this.read();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  async read() {
    try {
      const res = await fetch("/api/arenas", { cache: "no-cache" });
      if (res.ok) {
        const data = await res.json();
        this.arenas = await Promise.all(data.running.map(async (a) => {
          try {
            const one = await fetch(`/api/arena/${encodeURIComponent(a.arena_id)}?top=${WATCH_LINES}`, { cache: "no-cache" });
            return { arena: a, table: one.ok ? await one.json() : null };
          } catch { return { arena: a, table: null }; } // the arena's own page still works
        }));
        if (!this.stopped) this.draw();
      }
    } catch { /* shown as last read; read again later */ }
    if (!this.stopped) this.timer = setTimeout(() => this.read(), WATCH_EVERY_MS);
  }

  draw() {
    const host = this.host;
    if (!this.arenas?.length) { host.hidden = true; return; }
    const rows = this.arenas.map(({ arena: a, table }) => {
      const top = table?.top_room;
      const lines = table?.standings || [];
      return `<li class="arena-watch-one"><a href="#/arena/${encodeURIComponent(a.arena_id)}">${esc(t(LEVELS[a.cells]))} · ${esc(t("arena.length", { n: a.minutes }))}</a>
        · ${esc(t("arena.players", { n: a.players }))}${top ? ` · <a href="#/watch/${encodeURIComponent(top)}">${esc(t("arena.topRace"))}</a>` : ""}
        ${table ? standingsTable(lines, this.me()) : ""}</li>`;
    });
    host.replaceChildren(html(`<div><h2 data-i18n="arena.running"></h2><ul class="arena-watch">${rows.join("")}</ul></div>`));
    host.hidden = false;
  }
}
