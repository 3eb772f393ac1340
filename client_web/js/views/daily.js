// Daily: today's deal and the hard one, the leaderboard with your own rank (live), past
// days, and a replay viewer. While a day runs its deals are hidden: Start reveals one and
// starts its clock (protocol/DAILY.md, "Fair play"); a player who never chose a name is
// asked for one first (the name their time is ranked under). The Friends tab shows only the
// players we follow, and us.

import { render, fromJSON, applyChanges } from "../board.js";
import { t, formatTime, formatDate } from "../i18n.js";
import { html, esc, who } from "../dom.js";
import { toast } from "../notify.js";
import { playerName, setPlayerName, nameChosen } from "../player.js";
import { perfectMark } from "../win.js";
import { loadMine, isDone, cardHtml, shareResult, countdown } from "./dailycard.js";

async function getJSON(url, token = null) {
  // A running day's replay is its player's alone: they show their token.
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const res = await fetch(url, { cache: "no-cache", headers });
  if (!res.ok) {
    let detail = "";
    try {
      const body = await res.json();
      detail = body.message || body.error || "";
    } catch { /* not JSON */ }
    const err = new Error(detail || `${res.status}`);
    err.status = res.status;
    throw err;
  }
  return res.json();
}

/** Past days the picker offers (any day can still be opened by its address). */
const PAST_DAYS = 90;

export class DailyView {
  constructor(app) {
    this.app = app;
    this.off = null;
  }

  show(main, parts) {
    const app = this.app;
    this.asking = null; // a page drawn afresh: its tiles first
    this.date = parts[0] && /^\d{4}-\d{2}-\d{2}$/.test(parts[0]) ? parts[0] : null;
    this.kind = parts[1] === "hard" ? "hard" : "daily";
    this.el = html(`
      <div class="daily">
        <div class="card-panel">
          <div class="row" style="justify-content:space-between">
            <h2 data-k="title"></h2>
            <form class="row" data-act="day">
              <label class="muted" for="daily-date" data-i18n="daily.pastDays"></label>
              <select class="field" id="daily-date" name="date"></select>
              <button class="btn small" data-i18n="act.show"></button>
            </form>
          </div>
          <div class="daily-grid deals"><p class="muted" data-i18n="msg.loading"></p></div>
        </div>
        <div class="card-panel">
          <div class="row" style="justify-content:space-between">
            <h2 data-i18n="daily.leaderboard"></h2>
            <div class="seg" role="radiogroup" data-i18n-aria="daily.leaderboard">
              <label><input type="radio" name="kind" value="daily"> <span data-i18n="daily.normal"></span></label>
              <label><input type="radio" name="kind" value="hard"> <span data-i18n="daily.hard"></span></label>
            </div>
            <div class="seg" role="radiogroup" data-i18n-aria="friends.tab">
              <label><input type="radio" name="scope" value="all"> <span data-i18n="friends.everyone"></span></label>
              <label><input type="radio" name="scope" value="friends"> <span data-i18n="friends.tab"></span></label>
            </div>
            <div class="seg" role="radiogroup" data-i18n-aria="lb.view" data-k="by">
              <label><input type="radio" name="by" value="time"> <span data-i18n="lb.fastest"></span></label>
              <label><input type="radio" name="by" value="actions"> <span data-i18n="lb.fewest"></span></label>
            </div>
          </div>
          <p class="muted" data-k="finishers"></p>
          <div class="lb-body"><p class="muted" data-i18n="msg.loading"></p></div>
          <p class="row"><span class="muted" data-k="myrank"></span>
            <a class="btn small" href="#/player" data-i18n="profile.mine"></a></p>
        </div>
      </div>`);
    main.append(this.el);
    this.el.querySelector(`[name="kind"][value="${this.kind}"]`).checked = true;
    for (const r of this.el.querySelectorAll('[name="kind"]')) {
      r.onchange = () => { location.hash = `#/daily/${this.date || this.today || ""}/${r.value}`; };
    }
    this.el.querySelector('[data-act="day"]').onsubmit = (ev) => {
      ev.preventDefault();
      const d = ev.target.date.value;
      if (d) location.hash = `#/daily/${d}/${this.kind}`;
    };
    // The Friends tab: the server filters the day's board to whom we follow, and us.
    this.scope = this.scope || "all";
    this.el.querySelector(`[name="scope"][value="${this.scope}"]`).checked = true;
    for (const r of this.el.querySelectorAll('[name="scope"]')) {
      r.onchange = () => { this.scope = r.value; app.online(() => this.loadBoard()); };
    }
    // Fastest or fewest actions (then fastest): the server ranks both, under the same rules.
    this.by = this.by || "time";
    this.el.querySelector(`[name="by"][value="${this.by}"]`).checked = true;
    for (const r of this.el.querySelectorAll('[name="by"]')) {
      r.onchange = () => {
        this.by = r.value;
        app.online(() => {
          this.loadBoard();
          this.watch();
        });
      };
    }
    this.off = app.net.on("leaderboard", (m) => {
      if (m.date !== this.shownDate || m.kind !== this.kind || (m.by || "time") !== this.by) return;
      if (this.scope === "friends") this.loadBoard(); // a change: our friends' rows again
      else this.drawBoard(m);
    });
    this.load();
  }

  hide() {
    this.asking = null;
    this.off?.();
    clearInterval(this.ticker);
    this.ticker = null;
    this.el = null;
  }

  onGame(type) {
    // "Start" or "Back to your game": it depends on whether our daily game is still on.
    const kinds = ["snapshot", "finished", "gave_up", "room_gone", "daily_pending", "daily_result"];
    if (kinds.includes(type) && this.info && this.el) {
      this.drawDeals(this.info);
      // Our attempt may be over now; a won one is pending review, then ranked (or held).
      if (type !== "snapshot") this.loadMine();
    }
  }

  onLang() {
    if (this.asking) this.askName(this.asking); // in the new language, what was typed kept
    else if (this.info) this.drawDeals(this.info);
    if (this.lb) this.drawBoard(this.lb);
    this.drawTitle();
  }

  drawTitle() {
    if (!this.el) return;
    const d = this.shownDate;
    this.el.querySelector('[data-k="title"]').textContent = d && d !== this.today
      ? t("daily.titleDay", { date: formatDate(d) }) : t("daily.title");
    this.drawDays();
  }

  /** The past days to pick, in the page's language ("Mon, 30 November 2026"), newest first. */
  drawDays() {
    const select = this.el?.querySelector('[name="date"]');
    if (!select || !this.today) return;
    const days = [];
    const today = Date.parse(`${this.today}T00:00:00Z`);
    for (let i = 0; i < PAST_DAYS; i++) days.push(new Date(today - i * 86_400_000).toISOString().slice(0, 10));
    if (this.shownDate && !days.includes(this.shownDate)) days.push(this.shownDate);
    const long = { weekday: "short", day: "numeric", month: "long", year: "numeric" };
    select.innerHTML = days.map((d) => `<option value="${d}"${d === this.shownDate ? " selected" : ""}>${esc(formatDate(d, long))}</option>`).join("");
  }

  async load() {
    const app = this.app;
    try {
      const today = await getJSON("/api/daily");
      this.today = today.date;
      this.info = this.date && this.date !== today.date
        ? await getJSON(`/api/daily/${this.date}`) : today;
    } catch (err) {
      if (!this.el) return;
      const box = this.el.querySelector(".deals");
      box.drawnHtml = null;
      box.innerHTML =
        `<p class="banner lost">${esc(t("daily.unavailable"))} <small>(${esc(err.message)})</small></p>`;
      return;
    }
    if (!this.el) return;
    this.shownDate = this.info.date;
    this.mine = {};
    if (!this.info.running) this.asking = null; // a past day shown: its practice asks no name
    this.drawTitle();
    this.drawDeals(this.info);
    // The leaderboard is centred on us, so it waits for the server to say who we are.
    app.online(() => {
      if (!this.el) return;
      this.loadBoard();
      this.loadMine();
      this.watch();
    });
  }

  /** Our own ranked attempts of the day shown (a running one): done, its card. */
  async loadMine() {
    const info = this.info;
    if (!info?.running) return;
    const [daily, hard] = await Promise.all(["daily", "hard"].map((k) => loadMine(this.app.net, info.date, k)));
    if (!this.el || this.info !== info) return;
    this.mine = { daily, hard };
    this.drawDeals(info);
    if (this.lb) this.drawBoard(this.lb);
  }

  /** Pushes of the board shown: this day, kind and view. */
  watch() {
    this.app.net.send("watch_leaderboard", { date: this.shownDate, kind: this.kind, by: this.by });
  }

  onFriends() {
    if (this.scope === "friends") this.loadBoard();
    else if (this.lb) this.drawBoard(this.lb);
  }

  async loadBoard() {
    const net = this.app.net;
    const pid = net.playerId;
    const around = pid ? `&around=${encodeURIComponent(pid)}` : "";
    const kind = this.kind === "hard" ? "&kind=hard" : "";
    const friends = this.scope === "friends" && net.token;
    const by = this.by === "actions" ? "&by=actions" : "";
    const query = friends ? `limit=20&friends=1${kind}${by}` : `limit=20${around}${kind}${by}`;
    const headers = friends ? { Authorization: `Bearer ${net.token}` } : {};
    try {
      const res = await fetch(`/api/daily/${this.shownDate}/leaderboard?${query}`, { cache: "no-cache", headers });
      if (!res.ok) throw new Error(String(res.status));
      const lb = await res.json();
      if (this.el && (lb.by || "time") === this.by) this.drawBoard(lb); // not a late other view
    } catch (err) {
      if (this.el) this.el.querySelector(".lb-body").innerHTML = `<p class="muted">${esc(err.message)}</p>`;
    }
  }

  /** Whether our current game is this day's `kind` game, still being played. */
  playing(kind) {
    const g = this.app.game;
    return g.mode === "daily" && g.daily?.date === this.shownDate && g.daily?.kind === kind &&
      g.state === "racing" && g.me()?.status === "playing";
  }

  drawDeals(info) {
    // The name asked before a game stays until it is given: a late answer of the server
    // (our own results, a message of our game) would otherwise wipe it while it is typed.
    if (this.asking) return;
    // A running day shows no code: Start reveals the deal, and the clock starts then.
    const tile = (kind, deal) => {
      const mine = info.running && this.mine?.[kind];
      if (isDone(mine) && !this.playing(kind)) {
        const title = t(kind === "hard" ? "daily.hardDeal" : "daily.todayDeal");
        return cardHtml(mine, { title, par: deal.par, endsAt: info.ends_at });
      }
      const back = this.playing(kind);
      const act = back ? "act.backToGame" : info.running ? "act.startDaily" : "act.practice";
      return `
      <div class="deal-tile mini" data-kind="${kind}">
        <h3>${esc(t(kind === "hard" ? "daily.hardDeal" : "daily.todayDeal"))}</h3>
        ${deal.code ? `<p><span class="code">${esc(deal.code)}</span></p>` : ""}
        <p class="muted">${esc(t("daily.par", { par: deal.par }))}</p>
        <button class="btn primary" data-play="${kind}">${esc(t(act))}</button>
      </div>`;
    };
    const notes = info.running ? ["daily.clockNote", "daily.rankedNote"] : ["daily.pastNote"];
    const box = this.el.querySelector(".deals");
    const drawn = tile("daily", info) + tile("hard", info.hard) +
      `<div class="daily-notes">${notes.map((k) => `<p class="muted">${esc(t(k))}</p>`).join("")}</div>`;
    // Drawn again only when it changes: any message of our game asks for a redraw, and one
    // between a press of Start and its release would lose the click.
    if (box.drawnHtml === drawn) return;
    box.innerHTML = drawn;
    box.drawnHtml = drawn;
    for (const b of box.querySelectorAll("[data-play]")) {
      b.onclick = () => this.start(b.dataset.play);
    }
    for (const b of box.querySelectorAll('[data-done-act="share"]')) {
      const kind = b.closest("[data-kind]").dataset.kind;
      b.onclick = () => shareResult(this.mine[kind], kind === "hard" ? info.hard.par : info.par);
    }
    // The countdown to the next deal, while a card shows it.
    clearInterval(this.ticker);
    this.ticker = null;
    if (box.querySelector('[data-k="next-deal"]')) {
      this.ticker = setInterval(() => {
        const left = countdown(info.ends_at);
        for (const el of this.el?.querySelectorAll('[data-k="next-deal"]') || []) el.textContent = left;
        if (Date.now() >= info.ends_at && this.el) this.load(); // a new day: its deals
      }, 1000);
    }
  }

  /** Before a running day's game, a player who never chose a name chooses one: it is the
   * name their time is ranked under (with its tag, as everywhere). */
  askName(kind) {
    this.asking = kind;
    const box = this.el.querySelector(".deals");
    const typed = box.querySelector('[data-k="ask-name"] [name="name"]')?.value;
    box.drawnHtml = null;
    box.innerHTML = `<form class="ask-name" data-k="ask-name">
      <label><span>${esc(t("names.daily"))}</span>
        <input class="field" name="name" maxlength="24" autocomplete="nickname" required></label>
      <button class="btn primary">${esc(t("names.start"))}</button></form>`;
    const form = box.querySelector("form");
    const input = form.querySelector('[name="name"]');
    input.value = typed ?? playerName();
    input.select();
    input.focus();
    form.onsubmit = (ev) => {
      ev.preventDefault();
      this.asking = null;
      setPlayerName(input.value);
      if (this.info) this.drawDeals(this.info);
      this.start(kind, true);
    };
  }

  start(kind, renamed = false) {
    const app = this.app;
    if (this.playing(kind)) { // our game of this day: back to it, its clock still running
      location.hash = "#/play";
      return;
    }
    if (this.info?.running && !nameChosen()) {
      this.askName(kind);
      return;
    }
    if (!app.mayLeave()) return; // a running race or the ranked daily: asked first
    app.leaveRoom();
    if (renamed) app.net.greet(); // hello again with the chosen name (same token, same player)
    const msg = { hard: kind === "hard" };
    app.views.play.requested = { daily: msg }; // the Play view shows it, starts nothing
    if (this.shownDate !== this.today) msg.date = this.shownDate;
    if (app.net.send("daily", msg) == null) {
      toast(t("msg.offline"));
      return;
    }
    location.hash = "#/play";
  }

  drawBoard(lb) {
    this.lb = lb;
    const me = this.app.net.playerId;
    this.el.querySelector('[data-k="finishers"]').textContent = t("daily.finishers", { n: lb.finishers });
    // Our finish held for review: said where the board would show it, with our time.
    const held = this.mine?.[lb.kind]?.state === "held" && lb.date === this.info?.date ? this.mine[lb.kind] : null;
    const heldNote = held ? `<p class="held-note" data-k="held-note">${esc(t("done.held", { time: formatTime(held.time_ms) }))}</p>` : "";
    if (!lb.entries.length) {
      const none = lb.friends && lb.finishers ? "friends.noneHere" : "daily.empty";
      this.el.querySelector(".lb-body").innerHTML = heldNote || `<p class="muted">${esc(t(none))}</p>`;
      this.el.querySelector('[data-k="myrank"]').textContent = held ? t("done.heldShort") : "";
      return;
    }
    // Every finisher is listed from their first day, a newcomer marked "new": ranks are
    // places among every finisher, so the Friends tab alone skips places (marked "…").
    let prev = 0;
    // While the day runs the server names no replay: they are shown once it is over.
    const rows = lb.entries.map((e) => {
      const gap = e.rank > prev + 1 && prev > 0 ? `<tr><td colspan="5" class="muted">…</td></tr>` : "";
      const perfect = perfectMark(e.perfect); // the server's mark: won in the day's proven par
      const fresh = e.new ? ` <span class="new-mark" data-k="new">${esc(t("daily.newMark"))}</span>` : "";
      prev = e.rank;
      const replay = e.replay_id
        ? `<a class="btn small" href="#/replay/${encodeURIComponent(e.replay_id)}">${esc(t("act.replay"))}</a>` : "";
      return `${gap}<tr class="${e.player_id === me ? "me" : ""}">
        <td>${e.rank}</td><td><a class="who" href="#/player/${encodeURIComponent(e.player_id)}">${who(e.name, e.player_id)}</a>${fresh}${this.app.friends.button(e.player_id, true)}</td><td>${formatTime(e.time_ms)}</td><td>${e.moves}${perfect}</td>
        <td>${replay}</td></tr>`;
    }).join("");
    const later = lb.entries.some((e) => !e.replay_id)
      ? `<p class="muted small-print">${esc(t("daily.replaysLater"))}</p>` : "";
    const newNote = lb.entries.some((e) => e.new)
      ? `<p class="muted footnote" data-k="new-note"><span class="new-mark">${esc(t("daily.newMark"))}</span> ${esc(t("daily.newExplain"))}</p>` : "";
    this.el.querySelector(".lb-body").innerHTML = `<table class="lb" data-by="${esc(lb.by || "time")}">
      <thead><tr><th>#</th><th>${esc(t("lb.name"))}</th><th>${esc(t("lb.time"))}</th><th>${esc(t("lb.moves"))}</th><th>${esc(t("act.replay"))}</th></tr></thead>
      <tbody>${rows}</tbody></table>${newNote}${later}${heldNote}`;
    // The HTTP answer says our rank even when we are outside the entries; pushes do not.
    if (lb.player && lb.player.player_id === me) {
      this.myRank = lb.player.rank;
      this.streak = lb.player.streak;
      this.provisional = !!lb.player.provisional;
    }
    const mine = lb.entries.find((e) => e.player_id === me);
    // A rank is the same public place for everyone, a newcomer's too: no "?" on it.
    const rank = mine ? mine.rank : this.myRank;
    const streak = this.streak ? ` · ${t("daily.streak", { n: this.streak })}` : "";
    const newcomer = rank && this.provisional ? ` · ${t("daily.youAreNew")}` : "";
    const unranked = held ? t("done.heldShort") : t("daily.notRanked");
    this.el.querySelector('[data-k="myrank"]').textContent = (rank
      ? t("daily.yourRank", { rank, n: lb.finishers }) : unranked) + streak + newcomer;
  }
}

/**
 * The replay viewer. The client never decides legality, so it shows only board states the
 * server computed: the opening table and each step's delta, as `GET /api/replay/ID` gives
 * them.
 */
export class ReplayView {
  constructor(app) {
    this.app = app;
  }

  show(main, parts) {
    this.id = parts[0];
    this.el = html(`
      <div class="replay card-panel">
        <div class="row" style="justify-content:space-between">
          <h2 data-i18n="replay.title"></h2>
          <a class="btn small" href="#/daily" data-i18n="nav.daily"></a>
        </div>
        <p class="muted" data-k="meta" data-i18n="msg.loading"></p>
        <div class="bar">
          <button class="btn" data-act="first" data-i18n-aria="replay.first">⏮</button>
          <button class="btn" data-act="prev" data-i18n-aria="replay.prev">⟨</button>
          <button class="btn primary" data-act="play" data-i18n-aria="replay.play">▶</button>
          <button class="btn" data-act="next" data-i18n-aria="replay.next">⟩</button>
          <button class="btn" data-act="last" data-i18n-aria="replay.last">⏭</button>
          <input type="range" min="0" max="0" value="0" data-act="seek" data-i18n-aria="replay.step" style="flex:1;min-width:120px">
          <span class="stat"><b data-k="step">0/0</b><small data-i18n="replay.step"></small></span>
          <span class="stat"><b data-k="time">0:00.0</b><small data-i18n="stat.time"></small></span>
        </div>
        <p class="code" data-k="action">&nbsp;</p>
        <div class="board" data-board="replay"></div>
      </div>`);
    main.append(this.el);
    this.step = 0;
    this.states = null;
    const on = (a, fn) => { this.el.querySelector(`[data-act="${a}"]`).onclick = fn; };
    on("first", () => this.go(0));
    on("prev", () => this.go(this.step - 1));
    on("next", () => this.go(this.step + 1));
    on("last", () => this.go(this.states.length - 1));
    on("play", () => this.togglePlay());
    this.el.querySelector('[data-act="seek"]').oninput = (ev) => this.go(Number(ev.target.value));
    this.load();
  }

  hide() {
    clearInterval(this.playing);
    this.el = null;
  }

  onResize() { this.draw(); }
  onLang() { this.draw(); }

  async load() {
    let rep;
    try {
      rep = await getJSON(`/api/replay/${encodeURIComponent(this.id)}`, this.app.net.token);
    } catch (err) {
      if (this.el) this.el.querySelector('[data-k="meta"]').textContent = `${t("replay.notFound")} (${err.message})`;
      return;
    }
    if (!this.el) return;
    this.rep = rep;
    this.states = buildStates(rep);
    const meta = this.el.querySelector('[data-k="meta"]');
    const r = rep.result;
    const parts = [rep.name, rep.code];
    if (rep.daily) parts.push(`${formatDate(rep.daily.date)} · ${t(rep.daily.kind === "hard" ? "daily.hard" : "daily.normal")}`);
    if (r.won) parts.push(t("msg.won", { time: formatTime(r.time_ms), n: r.moves }));
    meta.textContent = parts.filter(Boolean).join(" · ");
    if (!this.states) {
      meta.textContent += ` — ${t("replay.noStates")}`;
      this.el.querySelector('[data-board="replay"]').innerHTML =
        `<ol class="code">${rep.actions.map((a) => `<li>${esc(a)}</li>`).join("")}</ol>`;
      return;
    }
    this.el.querySelector('[data-act="seek"]').max = String(this.states.length - 1);
    this.go(0);
  }

  togglePlay() {
    const button = this.el.querySelector('[data-act="play"]');
    if (this.playing) {
      clearInterval(this.playing);
      this.playing = null;
      button.textContent = "▶";
      return;
    }
    button.textContent = "⏸";
    if (this.step >= this.states.length - 1) this.go(0);
    this.playing = setInterval(() => {
      if (!this.el || this.step >= this.states.length - 1) {
        clearInterval(this.playing);
        this.playing = null;
        if (this.el) button.textContent = "▶";
        return;
      }
      this.go(this.step + 1);
    }, 450);
  }

  go(i) {
    if (!this.states) return;
    this.step = Math.max(0, Math.min(this.states.length - 1, i));
    this.draw();
  }

  draw() {
    if (!this.el || !this.states) return;
    const i = this.step;
    const n = this.states.length - 1;
    this.el.querySelector('[data-k="step"]').textContent = `${i}/${n}`;
    this.el.querySelector('[data-act="seek"]').value = String(i);
    const times = this.rep.elapsed_ms;
    this.el.querySelector('[data-k="time"]').textContent = formatTime(i > 0 ? times[i - 1] ?? 0 : 0);
    this.el.querySelector('[data-k="action"]').textContent = i > 0 ? `${i}. ${this.rep.actions[i - 1]}` : "\u00a0";
    render(this.el.querySelector('[data-board="replay"]'), this.states[i], { interactive: false });
  }
}

/**
 * The board after each step: the opening table (`start`), then each step's delta applied
 * in turn, up to one that does not fit. Null when the server has no opening table (a
 * record whose game code it cannot read).
 */
export function buildStates(rep) {
  if (!rep.start) return null;
  const states = [fromJSON(rep.start)];
  for (const d of rep.deltas) {
    const next = structuredClone(states[states.length - 1]);
    if (!applyChanges(next, d.changes)) break;
    states.push(next);
  }
  return states;
}
