// Race: create a room (4, 2 or 1 cells), invite, lobby (with the host's pick of what
// spectators see), countdown, the race with the others' progress bars, the finish order,
// rematch.

import { Table } from "../table.js";
import { t, formatTime } from "../i18n.js";
import { html, esc, setText, who } from "../dom.js";
import { toast, announce } from "../notify.js";
import { raceNews } from "../racenews.js";
import { copyText } from "../clipboard.js";
import { playerName, setPlayerName, nameChosen } from "../player.js";
import { quickEntry, quickRace, QuickWait } from "./quickpanel.js";
import { RatingsTable, ratingCell, provisionalNote } from "./ratings.js";
import { parLine, perfectMark } from "../win.js";
import { clock as arenaClock } from "./arena.js";

/**
 * The invite link of a room: the server's (`/?room=ID`) made absolute, or the same link made
 * here until a `room` message brings the server's (a snapshot has none).
 */
export function inviteLink(game) {
  if (game.invite) return `${location.origin}${game.invite}`;
  return `${location.origin}/?room=${encodeURIComponent(game.roomId)}`;
}

/** The spectators' link of a room (`#/watch/ID`): racers copy it, they never follow it. */
export function watchLink(game) {
  return `${location.origin}${location.pathname}#/watch/${encodeURIComponent(game.roomId)}`;
}

export class RaceView {
  constructor(app) {
    this.app = app;
    this.table = null;
    this.countTimer = null;
  }

  show(main, parts) {
    const app = this.app;
    const room = parts[0] ? parts[0].trim().toUpperCase() : null; // room ids are upper case
    this.el = html(`<div class="race"><div class="race-top"></div><div class="race-table"></div></div>`);
    main.append(this.el);
    this.topEl = this.el.querySelector(".race-top");
    this.table = null;
    this.joining = null;
    this.wait = null;
    this.offQuick = app.quick.onChange(() => this.refresh());
    this.arenaTimer = setInterval(() => this.tickArena(), 500);
    if (room) {
      // Too late to race: watch instead.
      this.offError = app.net.on("error", (m) => {
        this.joining = null;
        if (m.code === "race_in_progress") location.hash = `#/watch/${encodeURIComponent(room)}`;
        // A link to a room that is gone: say so, and offer the ways on.
        const inRace = app.game.mode === "race" && app.game.roomId;
        if (m.code === "room_not_found" && !inRace) this.deadInvite(room, "gone");
      });
      // The server ends a lobby seat when its socket closes (a reload does that): take the
      // seat again.
      this.offGone = app.net.on("room_gone", () => {
        if (this.el && nameChosen()) app.online(() => this.join(room));
      });
      app.online(() => {
        if (app.game.roomId === room || app.net.room === room) return; // a resume brings it back
        // Our own arena's race: the server brings us in (never an invitation to it).
        if (app.arena.joined && app.arena.room === room && app.arena.seat === "racing") return;
        if (nameChosen()) {
          this.join(room);
        } else {
          this.askName(room); // someone new, from an invite: ask their name first
        }
      });
    } else if (app.game.mode === "race" && app.game.roomId && app.game.role === "player") {
      location.replace(`#/race/${app.game.roomId}`);
      return;
    }
    this.refresh();
  }

  join(room) {
    if (this.joining === room) return; // one join at a time (a resume may also bring us in)
    this.joining = room;
    this.app.leaveRoom();
    this.app.net.send("join", { room, role: "player" });
  }

  /** An invite's page for someone new: who invites, the level, rated or not and who is in
   * (`GET /api/room/ID/invite`), their name, Accept or Decline. */
  askName(room) {
    this.topEl.dataset.mode = "ask";
    this.topEl.innerHTML = "";
    const el = html(`
      <form class="card-panel invite-card" data-k="invite">
        <h2></h2>
        <ul class="invite-terms" data-k="terms"></ul>
        <div class="row">
          <label><span data-i18n="race.yourName"></span>
            <input class="field" name="name" maxlength="24" autocomplete="nickname" required></label>
        </div>
        <div class="row">
          <button class="btn primary" data-i18n="invite.accept"></button>
          <a class="btn" href="#/play" data-i18n="invite.decline"></a>
        </div>
      </form>`);
    el.querySelector("h2").textContent = t("race.room", { room });
    this.topEl.append(el);
    this.invite(room, el);
    const input = el.querySelector('[name="name"]');
    input.value = playerName();
    input.select();
    input.focus();
    el.onsubmit = (ev) => {
      ev.preventDefault();
      setPlayerName(input.value);
      this.app.leaveRoom();
      this.app.net.greet(); // hello again with the chosen name (same token, same player)
      this.topEl.dataset.mode = "";
      this.join(room);
    };
  }

  /** Fill an invite's page with what the server says of its room. */
  async invite(room, el) {
    let info = null;
    try {
      const res = await fetch(`/api/room/${encodeURIComponent(room)}/invite`, { cache: "no-cache" });
      info = res.ok ? await res.json() : null;
    } catch { /* offline: the room's id alone */ }
    if (!el.isConnected) return;
    if (!info || info.state === "done") {
      this.deadInvite(room, info ? "over" : "gone", info?.cells);
      return;
    }
    el.querySelector("h2").textContent = info.host ? t("invite.title", { host: info.host }) : t("invite.titleNoHost");
    const level = t({ 4: "level.easy", 2: "level.medium", 1: "level.hard" }[info.cells] || "level.easy");
    const terms = [level, t(info.rated ? "rating.on" : "rating.off")];
    if (info.racers.length) terms.push(t("invite.in", { names: info.racers.join(", ") }));
    el.querySelector('[data-k="terms"]').innerHTML = terms.map((x) => `<li>${esc(x)}</li>`).join("");
  }

  /**
   * An invitation that can no longer be taken (its room gone, or its race over): said
   * plainly, with the ways on instead of an Accept that would lead nowhere: a quick race at
   * the invitation's level, a game alone, and an over race's results.
   */
  deadInvite(room, why, cells = 4) {
    if (!this.el) return;
    this.topEl.dataset.mode = "ask"; // kept until the player goes on
    this.topEl.innerHTML = "";
    const el = html(`
      <section class="card-panel invite-card invite-dead" data-k="invite" data-dead="${esc(why)}" aria-labelledby="invite-dead-title">
        <h2 id="invite-dead-title"></h2>
        <p data-k="why"></p>
        <div class="row">
          <button class="btn primary" data-act="quick" data-i18n="quick.go"></button>
          <a class="btn" href="#/play" data-i18n="invite.play"></a>
          ${why === "over" ? `<a class="btn" href="#/watch/${encodeURIComponent(room)}" data-i18n="invite.results"></a>` : ""}
        </div>
      </section>`);
    el.querySelector("h2").textContent = t("invite.deadTitle");
    el.querySelector('[data-k="why"]').textContent = t(why === "over" ? "invite.over" : "invite.goneWhy");
    el.querySelector('[data-act="quick"]').onclick = () => {
      this.topEl.dataset.mode = "";
      quickRace(this.app, [4, 2, 1].includes(cells) ? cells : 4);
    };
    this.topEl.append(el);
  }

  hide() {
    clearInterval(this.arenaTimer);
    this.offError?.();
    this.offGone?.();
    this.offQuick?.();
    this.offError = this.offGone = this.offQuick = null;
    this.wait?.destroy();
    this.wait = null;
    clearInterval(this.countTimer);
    this.countTimer = null;
    document.querySelector(".countdown")?.remove();
    this.table?.destroy();
    this.table = null;
    this.el = null;
  }

  onGame(type, msg) {
    if (type === "snapshot") this.joining = null;
    // A racer hears the race: countdown, start, each rival's finish, the end and the place.
    if (this.app.game.role === "player") announce(raceNews(this.app.game, type, msg));
    if (type === "snapshot" || type === "room" || type === "started" || type === "countdown") {
      const g = this.app.game;
      if (g.mode === "race" && g.roomId && g.role === "player" && location.hash !== `#/race/${g.roomId}`) {
        history.replaceState(null, "", `#/race/${g.roomId}`);
      }
    }
    this.refresh();
  }

  onResize() { this.table?.draw(); }
  onLang() {
    this.topEl.dataset.mode = "";
    this.refresh();
    this.table?.redraw();
  }

  refresh() {
    if (!this.el) return;
    const g = this.app.game;
    const inRace = g.mode === "race" && g.roomId && g.role === "player";
    if (!inRace && this.topEl.dataset.mode === "ask") return;
    if (!inRace && this.app.quick.waiting()) {
      this.drawWait();
      this.setTable(false);
      return;
    }
    this.wait?.destroy();
    this.wait = null;
    if (!inRace) {
      this.drawCreate();
      this.setTable(false);
      return;
    }
    this.drawRoom();
    // The table appears at the start: the countdown is for getting ready, not for studying.
    this.setTable(g.state === "racing" || g.state === "done");
    this.drawCountdown();
  }

  setTable(on) {
    if (on && !this.table) {
      const giveUp = html(`<button class="btn small" data-i18n="act.giveUp"></button>`);
      giveUp.onclick = () => {
        if (this.table?.canPlay() && confirm(t("msg.confirmGiveUp"))) this.app.net.send("give_up");
      };
      this.table = new Table(this.app, this.el.querySelector(".race-table"), { extraButtons: [giveUp] });
    } else if (!on && this.table) {
      this.table.destroy();
      this.table = null;
    }
    this.table?.draw();
  }

  /** Waiting to be paired: the quick race's wait panel. */
  drawWait() {
    if (this.topEl.dataset.mode !== "wait" || !this.wait) {
      this.topEl.dataset.mode = "wait";
      this.topEl.innerHTML = "";
      this.wait?.destroy();
      this.wait = new QuickWait(this.app, this.topEl);
    }
    this.wait.draw();
  }

  drawCreate() {
    const app = this.app;
    if (this.topEl.dataset.mode === "create") return;
    this.topEl.dataset.mode = "create";
    this.topEl.innerHTML = "";
    this.topEl.append(quickEntry(app));
    this.topEl.append(html(`
      <section class="card-panel arena-entry" aria-labelledby="arena-entry-title">
        <h2 id="arena-entry-title" data-i18n="arena.title"></h2>
        <p class="muted" data-i18n="arena.entry"></p>
        <a class="btn" href="#/arena" data-i18n="arena.see"></a>
      </section>`));
    const el = html(`
      <div class="card-panel">
        <h2 data-i18n="race.title"></h2>
        <p class="muted" data-i18n="race.intro"></p>
        <div class="row">
          <label><span data-i18n="race.yourName"></span>
            <input class="field" name="name" maxlength="24" autocomplete="nickname"></label>
        </div>
        <h3 data-i18n="race.create"></h3>
        <div class="row">
          <div class="seg" role="radiogroup" data-i18n-aria="race.cells">
            <label><input type="radio" name="rcells" value="4" checked> <span data-i18n="level.easy"></span></label>
            <label><input type="radio" name="rcells" value="2"> <span data-i18n="level.medium"></span></label>
            <label><input type="radio" name="rcells" value="1"> <span data-i18n="level.hard"></span></label>
          </div>
          <button class="btn primary" data-act="create" data-i18n="act.createRoom"></button>
        </div>
        <label class="row public-pick"><input type="checkbox" name="public"> <span data-i18n="race.public"></span></label>
        <h3 data-i18n="race.join"></h3>
        <form class="row" data-act="join">
          <input class="field code" name="room" maxlength="16" autocomplete="off" spellcheck="false" data-i18n-placeholder="race.roomId" data-i18n-aria="race.roomId">
          <button class="btn" data-i18n="act.join"></button>
        </form>
      </div>`);
    this.topEl.append(el);
    const top = document.createElement("div");
    this.topEl.append(top);
    this.ratings = new RatingsTable(top, { limit: 10, me: () => app.net.playerId });
    const name = el.querySelector('[name="name"]');
    name.value = playerName();
    name.onchange = () => this.rename(name.value);
    el.querySelector('[data-act="create"]').onclick = () => {
      this.rename(name.value);
      const cells = Number(el.querySelector('[name="rcells"]:checked').value);
      // A public room is on the Watch list for anyone (never watched live).
      const listed = el.querySelector('[name="public"]').checked ? { public: true } : {};
      app.leaveRoom();
      if (app.net.send("create_room", { cells, ...listed }) == null) toast(t("msg.offline"));
    };
    el.querySelector('[data-act="join"]').onsubmit = (ev) => {
      ev.preventDefault();
      const room = ev.target.room.value.trim();
      if (room) location.hash = `#/race/${encodeURIComponent(room)}`;
    };
  }

  rename(value) {
    const before = playerName();
    setPlayerName(value);
    // The name travels in hello: say hello again (same token, so we stay the same player).
    if (playerName() !== before && !this.app.game.roomId) this.app.net.greet();
  }

  /** In an arena's race, the arena's clock (HTML; ticked by tick()). */
  arenaClock(g) {
    const a = this.app.arena;
    if (!a.joined || !a.info || a.room !== g.roomId) return "";
    return ` <a class="chip arena-clock-chip" href="#/arena/${encodeURIComponent(a.id)}" data-k="arena-clock"></a>`;
  }

  /** The arena's clock in its race: the time left, or that the last races finish. */
  tickArena() {
    const el = this.topEl?.querySelector('[data-k="arena-clock"]');
    if (!el) return;
    const left = this.app.arena.left(true);
    const closes = this.app.arena.left(true, true);
    setText(el, left > 0 ? t("arena.raceClock", { time: arenaClock(left) })
      : closes > 0 ? t("arena.lastRacesClock", { time: arenaClock(closes) }) : t("arena.lastRaces"));
  }

  drawRoom() {
    const app = this.app;
    const g = app.game;
    this.topEl.dataset.mode = "room";
    const isHost = g.host === g.you;
    const link = inviteLink(g);
    const players = g.racers().filter((p) => !p.gone || g.state !== "lobby");
    const rows = players.map((p, i) => {
      const pct = Math.round((100 * (p.foundation_cards || 0)) / 52);
      let status = "";
      if (p.status === "finished") status = `#${p.rank ?? "?"} · ${formatTime(p.time_ms)}`;
      else if (p.status === "gave_up") status = esc(t("race.gaveUp"));
      else if (g.state === "racing") {
        status = `${p.foundation_cards}/52<span class="opt"> · ${esc(t("race.movesN", { n: p.moves }))}</span>`;
      }
      const cls = [p.player_id === g.you ? "me" : "", p.status === "finished" ? "finished" : "",
        p.gone ? "gone" : ""].join(" ");
      return `<li class="${cls}" data-player="${esc(p.player_id)}">
        <span>${i + 1}.</span><span class="name">${who(p.name, p.player_id)}${p.player_id === g.you ? ` (${esc(t("race.you"))})` : ""}</span>
        <span class="progress" role="progressbar" aria-valuemin="0" aria-valuemax="52" aria-valuenow="${p.foundation_cards || 0}" aria-label="${esc(p.name)}"><span style="width:${pct}%"></span></span>
        <span class="muted">${status}</span></li>`;
    }).join("");
    let actions = "";
    if (g.state === "lobby" && g.paired) {
      actions = `<span class="muted">${esc(t("quick.startsSoon"))}</span>`; // the server starts it
    } else if (g.state === "lobby") {
      actions = isHost
        ? `<button class="btn primary" data-act="start">${esc(t("act.start"))}</button>`
        : `<span class="muted">${esc(t("race.waitHost"))}</span>`;
    } else if (g.state === "done" && g.paired && app.arena.joined && app.arena.room === g.roomId) {
      actions = `<a class="btn primary" href="#/arena/${encodeURIComponent(app.arena.id)}">${esc(t("arena.backToArena"))}</a>`;
    } else if (g.state === "done" && g.paired) {
      actions = `<button class="btn primary" data-act="again">${esc(t("quick.again"))}</button>`;
    } else if (g.state === "done") {
      actions = isHost
        ? `<button class="btn primary" data-act="rematch">${esc(t("act.rematch"))}</button>`
        : `<span class="muted">${esc(t("race.waitRematch"))}</span>`;
    }
    const results = g.state === "done" && g.results ? this.resultsTable(g) : "";
    const levels = { 4: "level.easy", 2: "level.medium", 1: "level.hard" };
    // From the countdown to the finish the panel is one compact strip above the table.
    const strip = g.state === "countdown" || g.state === "racing" ? " strip" : "";
    this.topEl.innerHTML = `
      <div class="card-panel room${strip}">
        <div class="row room-head" style="justify-content:space-between">
          <h2>${esc(t("race.room", { room: g.roomId }))} <small class="muted">· ${esc(t(levels[g.cells] || "level.easy"))} · ${esc(t(`race.state.${g.state}`))}</small>${g.public ? ` <span class="chip public">${esc(t("race.publicChip"))}</span>` : ""}${g.rated && !g.household ? ` <span class="chip rated">${esc(t("rating.chip"))}</span>` : ""}${this.arenaClock(g)}</h2>
          <div class="row">
            <button class="btn small" data-act="copywatch">${esc(t("race.copyWatchLink"))}</button>
            <button class="btn small" data-act="leave">${esc(t("act.leave"))}</button>
          </div>
        </div>
        ${g.state === "lobby" ? `<div class="invite"><span class="muted">${esc(t("race.invite"))}</span>
          <input class="field" readonly value="${esc(link)}" aria-label="${esc(t("race.invite"))}">
          <button class="btn small" data-act="copyinvite">${esc(t("act.copy"))}</button></div>` : ""}
        ${g.state === "lobby" && g.codeTyped && g.code
          ? `<p class="typed-code">${esc(t("race.typedCode", { code: g.code }))}</p>` : ""}
        ${this.watchBlock(g, isHost)}
        ${this.ratedBlock(g, isHost)}
        <h3 class="racers-title">${esc(t("race.players", { n: players.length }))}${g.spectators ? ` <small class="muted">· ${esc(t("race.spectators", { n: g.spectators }))}</small>` : ""}</h3>
        <ul class="players">${rows}</ul>
        ${results}
        <div class="row room-acts" style="margin-top:10px">${actions}</div>
      </div>`;
    const on = (act, fn) => { const b = this.topEl.querySelector(`[data-act="${act}"]`); if (b) b.onclick = fn; };
    const pick = this.topEl.querySelector('[data-act="watch"]');
    if (pick) pick.onchange = () => app.net.send("watch_mode", { mode: pick.value });
    const delay = this.topEl.querySelector('[data-act="delay"]');
    if (delay) {
      delay.onchange = () => {
        const n = Math.round(Number(delay.value));
        if (n >= 10 && n <= 120) app.net.send("watch_mode", { mode: "delayed", delay_s: n });
        else delay.value = String(g.delayS ?? 30); // the server takes 10 to 120 s
      };
    }
    const rated = this.topEl.querySelector('[data-act="rated"]');
    if (rated) rated.onchange = () => app.net.send("rated", { rated: rated.checked });
    on("again", () => quickRace(app, g.cells)); // leaves this room, queues for the same level
    on("start", () => app.net.send("start"));
    on("rematch", () => app.wins.rematch()); // started at once: one click
    on("copyinvite", () => copyText(link));
    on("copywatch", () => copyText(watchLink(g))); // a racer cannot also watch the race
    on("leave", () => {
      // Never out of a room without a question: out of a race, it is giving up; out of a
      // paired race before its start, the next quick races wait longer (dodging).
      if (!confirm(t(app.leaveQuestion() || "msg.confirmLeaveRoom"))) return;
      app.leaveRoom();
      location.hash = "#/race";
      this.topEl.dataset.mode = "";
      this.refresh();
    });
  }

  /**
   * What spectators see during the race: the host picks it in the lobby; every racer reads
   * it before the start (and after, as a reminder).
   */
  watchBlock(g, isHost) {
    const explain = `<p class="muted watch-explain">${esc(t(`race.watchMode.explain.${g.watch}`, { n: g.delayS ?? 30 }))}</p>`;
    if (!isHost || g.state !== "lobby") return `<div class="watchmode" data-watch="${esc(g.watch)}">${explain}</div>`;
    const option = (mode) => `<option value="${mode}"${g.watch === mode ? " selected" : ""}>${esc(t(`race.watchMode.${mode}`))}</option>`;
    const delay = g.watch === "delayed"
      ? `<label class="row"><span>${esc(t("race.watchMode.delay"))}</span>
          <input class="field delay" type="number" min="10" max="120" step="5" inputmode="numeric" value="${g.delayS ?? 30}" data-act="delay"></label>`
      : "";
    return `<div class="watchmode" data-watch="${esc(g.watch)}">
        <div class="row">
          <label class="row"><span>${esc(t("race.watchMode.label"))}</span>
            <select class="field" data-act="watch">${["live", "delayed", "progress"].filter((m) => !g.public || m !== "live").map(option).join("")}</select></label>
          ${delay}
        </div>
        ${explain}
      </div>`;
  }

  /**
   * Whether the race changes ratings: the host of an invite room decides in the lobby, every
   * racer reads it before the start; a public race is always rated (a race with a bot never).
   */
  ratedBlock(g, isHost) {
    // Racers of one network paired together (nobody else waited): said plainly, before the
    // race and through it, since nothing between them counts.
    if (g.household) return `<p class="household-note" role="status" data-household="1">${esc(t("rating.household"))}</p>`;
    if (g.public && g.rated) return `<p class="muted rated-note" data-rated="1">${esc(t("rating.publicNote"))}</p>`;
    if (isHost && g.state === "lobby" && !g.public) {
      return `<label class="row rated-pick"><input type="checkbox" data-act="rated"${g.rated ? " checked" : ""}>
        <span>${esc(t("rating.toggle"))}</span></label>`;
    }
    return `<p class="muted rated-note" data-rated="${g.rated ? 1 : 0}">${esc(t(g.rated ? "rating.on" : "rating.off"))}</p>`;
  }

  resultsTable(g) {
    const rated = Boolean(g.ratings);
    // Each racer's actions, and the server's mark of a win in the deal's proven par.
    const rows = g.results.map((r) => `<tr class="${r.player_id === g.you ? "me" : ""}" data-player="${esc(r.player_id)}">
      <td>${r.rank ?? "–"}</td><td>${who(r.name, r.player_id)}</td>
      <td>${r.status === "finished" ? formatTime(r.time_ms) : esc(t(`race.status.${r.status}`))}</td>
      <td>${r.moves}${perfectMark(r.perfect)}</td>${rated ? ratingCell(g.ratingOf(r.player_id)) : ""}</tr>`).join("");
    return `<h3>${esc(t("race.results"))}</h3>${parLine(g.par)}<table class="results">
      <thead><tr><th>#</th><th>${esc(t("lb.name"))}</th><th>${esc(t("lb.time"))}</th><th>${esc(t("lb.moves"))}</th>${rated ? `<th class="num">${esc(t("rating.rating"))}</th>` : ""}</tr></thead>
      <tbody>${rows}</tbody></table>${rated ? provisionalNote(g.results.map((r) => g.ratingOf(r.player_id))) : ""}<p class="row results-links"><a class="btn small" href="#/player" data-k="stats-link">${esc(t("stats.open"))}</a></p>`;
  }

  drawCountdown() {
    const g = this.app.game;
    let overlay = document.querySelector(".countdown");
    if (g.state !== "countdown" || !g.startsAt) {
      overlay?.remove();
      clearInterval(this.countTimer);
      this.countTimer = null;
      return;
    }
    if (!overlay) {
      overlay = document.createElement("div");
      overlay.className = "countdown";
      overlay.setAttribute("role", "timer");
      document.body.append(overlay);
    }
    const tick = () => {
      const left = Math.ceil((g.startsAt - g.serverNow()) / 1000);
      setText(overlay, left > 0 ? String(left) : t("race.go"));
    };
    tick();
    clearInterval(this.countTimer);
    this.countTimer = setInterval(tick, 100);
  }
}

