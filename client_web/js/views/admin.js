// The moderator's page (#/admin): the operator's token typed in and kept in this tab only
// (sessionStorage: gone when the tab closes, never sent anywhere but /api/admin/), the
// players by their score over recent ranked finishes, the held finishes, a replay whose
// decisions are marked where they matched a reference line, and one click to clear, void,
// bar or unflag. The same data as `seahaven admin suspects` and GET /api/admin/suspects;
// every action is logged by the server.

import { render, fromJSON, applyChanges } from "../board.js";
import { t, formatTime } from "../i18n.js";
import { html, esc } from "../dom.js";
import { toast } from "../notify.js";

const KEY = "seahaven.adminToken";

function pct(x) {
  return x == null ? "–" : `${Math.round(Number(x) * 100)}%`;
}

export class AdminView {
  constructor(app) {
    this.app = app;
  }

  get token() {
    return sessionStorage.getItem(KEY) || "";
  }

  show(main) {
    this.el = html(`<div class="admin"></div>`);
    main.append(this.el);
    this.replay = null;
    this.draw();
  }

  hide() {
    this.el = null;
  }

  onLang() {
    this.draw();
  }

  onResize() {
    this.drawReplay(); // the board fits the width it has now
  }

  async api(method, path) {
    const res = await fetch(`/api/admin/${path}`, {
      method,
      cache: "no-store",
      headers: { Authorization: `Bearer ${this.token}` },
    });
    let body = null;
    try { body = await res.json(); } catch { /* the 404 of a wrong token is text */ }
    return { status: res.status, body };
  }

  draw() {
    if (!this.el) return;
    if (!this.token) {
      this.el.innerHTML = `
        <form class="card-panel admin-login" autocomplete="off">
          <h2>${esc(t("admin.title"))}</h2>
          <label>${esc(t("admin.token"))}
            <input type="password" name="token" required minlength="16" autocomplete="off"></label>
          <p class="muted">${esc(t("admin.tokenHint"))}</p>
          <button class="btn primary" type="submit">${esc(t("admin.open"))}</button>
          <p class="admin-error" role="alert"></p>
        </form>`;
      this.el.querySelector("form").onsubmit = (ev) => {
        ev.preventDefault();
        sessionStorage.setItem(KEY, ev.target.token.value.trim());
        this.load();
      };
      return;
    }
    this.el.innerHTML = `
      <div class="row admin-head" style="justify-content:space-between">
        <h2>${esc(t("admin.title"))}</h2>
        <span class="row">
          <button class="btn small" data-act="reload">${esc(t("admin.reload"))}</button>
          <button class="btn small" data-act="forget">${esc(t("admin.forget"))}</button>
        </span>
      </div>
      <section class="card-panel" aria-labelledby="admin-suspects"><h3 id="admin-suspects">${esc(t("admin.suspects"))}</h3>
        <div class="admin-scroll" data-k="suspects">${esc(t("msg.loading"))}</div></section>
      <section class="card-panel" aria-labelledby="admin-held"><h3 id="admin-held">${esc(t("admin.held"))}</h3>
        <div class="admin-scroll" data-k="held">${esc(t("msg.loading"))}</div></section>
      <section class="card-panel admin-replay" data-k="replay" hidden></section>`;
    this.el.querySelector('[data-act="reload"]').onclick = () => this.load();
    this.el.querySelector('[data-act="forget"]').onclick = () => {
      sessionStorage.removeItem(KEY);
      this.draw();
    };
    if (this.data) this.fill();
    else this.load();
  }

  async load() {
    const [suspects, held] = await Promise.all([
      this.api("GET", "suspects?limit=100"),
      this.api("GET", "held?limit=100"),
    ]);
    if (suspects.status !== 200 || held.status !== 200) {
      sessionStorage.removeItem(KEY);
      this.data = null;
      this.draw();
      const err = this.el?.querySelector(".admin-error");
      if (err) err.textContent = t("admin.denied");
      return;
    }
    this.data = { suspects: suspects.body.suspects, held: held.body.held };
    this.draw();
  }

  fill() {
    const { suspects, held } = this.data;
    const rows = suspects.map((s) => {
      const r = s.records[0] || {};
      const tags = [s.flagged ? `<span class="tag warn">${esc(t("admin.flaggedTag"))}</span>` : "",
        s.barred ? `<span class="tag">${esc(t("admin.barredTag"))}</span>` : ""].join(" ");
      return `<tr data-player="${esc(s.player_id)}">
        <td><a href="#/player/${encodeURIComponent(s.player_id)}">${esc(s.player_id)}</a> ${tags}</td>
        <td class="num"><b>${Number(s.score).toFixed(2)}</b></td>
        <td class="num admin-fin">${s.records.length}</td>
        <td>${esc(t("admin.evidence", { solver: pct(r.solver), optimal: pct(r.optimal), known: pct(r.known) }))}</td>
        <td class="admin-acts">
          ${s.flagged ? `<button class="btn small" data-do="unflag">${esc(t("admin.unflag"))}</button>` : ""}
          <button class="btn small" data-do="${s.barred ? "unbar" : "bar"}">${esc(t(s.barred ? "admin.unbar" : "admin.bar"))}</button>
        </td></tr>`;
    });
    this.el.querySelector('[data-k="suspects"]').innerHTML = rows.length ? `<table class="results admin-table">
      <thead><tr><th>${esc(t("admin.player"))}</th><th>${esc(t("admin.score"))}</th><th class="admin-fin">${esc(t("admin.finishes"))}</th>
      <th>${esc(t("admin.latest"))}</th><th></th></tr></thead><tbody>${rows.join("")}</tbody></table>`
      : `<p class="muted">${esc(t("admin.none"))}</p>`;
    const heldRows = held.map((h) => `<tr data-result="${esc(h.result)}" data-player="${esc(h.player_id)}">
        <td>${esc(h.name || h.player_id)}<br><small class="muted">${esc(h.kind)} ${esc(h.date || h.room || "")}</small></td>
        <td class="num">${h.time_ms != null ? esc(formatTime(h.time_ms)) : "–"}</td>
        <td>${esc(h.score?.reason || "")}<br><small class="muted">${esc(t("admin.evidence", {
          solver: pct(h.score?.evidence?.solver ?? h.score?.agreement), optimal: pct(h.score?.evidence?.optimal),
          known: pct(h.score?.evidence?.known) }))}</small></td>
        <td class="admin-acts">
          <button class="btn small" data-do="replay">${esc(t("admin.replay"))}</button>
          <button class="btn small primary" data-do="clear">${esc(t("admin.clear"))}</button>
          <button class="btn small" data-do="void">${esc(t("admin.void"))}</button>
          <button class="btn small" data-do="bar">${esc(t("admin.bar"))}</button>
        </td></tr>`);
    this.el.querySelector('[data-k="held"]').innerHTML = heldRows.length ? `<table class="results admin-table">
      <thead><tr><th>${esc(t("admin.player"))}</th><th>${esc(t("stat.time"))}</th><th>${esc(t("admin.reason"))}</th><th></th></tr></thead>
      <tbody>${heldRows.join("")}</tbody></table>` : `<p class="muted">${esc(t("admin.none"))}</p>`;
    for (const button of this.el.querySelectorAll("[data-do]")) {
      button.onclick = () => this.act(button.dataset.do, button.closest("tr"));
    }
    if (this.replay) this.drawReplay();
  }

  async act(what, row) {
    if (what === "replay") return this.openReplay(row.dataset.result);
    const target = ["clear", "void"].includes(what) ? row.dataset.result : row.dataset.player;
    const { status, body } = await this.api("POST", `${what}/${encodeURIComponent(target)}`);
    toast(t("admin.done", { action: t(`admin.${what}`), status: body?.status || status }));
    await this.load();
  }

  async openReplay(result) {
    const { status, body } = await this.api("GET", `marks/${encodeURIComponent(result)}`);
    if (status !== 200) {
      // Busy: the line is there, its marks are not yet (the solver processes are taken).
      toast(t(status === 503 ? "admin.marksBusy" : "replay.notFound"));
      return;
    }
    const states = [fromJSON(body.replay.start)];
    for (const d of body.replay.deltas) {
      const next = structuredClone(states[states.length - 1]);
      if (!applyChanges(next, d.changes)) break;
      states.push(next);
    }
    this.replay = { ...body, states, step: 0 };
    this.drawReplay();
    this.el.querySelector('[data-k="replay"]').scrollIntoView({ block: "start" });
  }

  drawReplay() {
    const host = this.el?.querySelector('[data-k="replay"]');
    if (!host || !this.replay) return;
    const r = this.replay;
    const mark = (a) => {
      if (!a.kept) return `<span class="muted" title="${esc(t("admin.undone"))}">↶</span>`;
      if (a.forced) return `<span class="muted" title="${esc(t("admin.forced"))}">·</span>`;
      const s = a.solver ? `<span class="m-solver" title="${esc(t("admin.bySolver"))}">✓</span>` : "";
      const o = a.optimal ? `<span class="m-optimal" title="${esc(t("admin.byOptimal"))}">◆</span>` : "";
      return s || o ? s + o : `<span class="m-own" title="${esc(t("admin.own"))}">–</span>`;
    };
    const decided = r.actions.filter((a) => a.kept && !a.forced);
    const matched = decided.filter((a) => a.solver || a.optimal).length;
    host.hidden = false;
    host.innerHTML = `
      <div class="row" style="justify-content:space-between">
        <h3>${esc(t("admin.replay"))}: ${esc(r.name || r.player_id)}</h3>
        <button class="btn small" data-act="close">✕</button>
      </div>
      <p class="muted">${esc(r.code)} · ${esc(t("admin.matched", { n: matched, of: decided.length }))}</p>
      <p class="muted admin-legend">${esc(t("admin.legend"))}</p>
      <div class="admin-replay-body">
        <div class="board" data-board="admin"></div>
        <ol class="admin-marks">${r.actions.map((a, i) => `<li data-step="${i + 1}" class="${i + 1 === r.step ? "on" : ""}${a.solver || a.optimal ? " hit" : ""}">
          <button type="button">${mark(a)} <code>${esc(a.action)}</code> <small class="muted">${esc(formatTime(a.at_ms ?? 0))}</small></button></li>`).join("")}</ol>
      </div>`;
    host.querySelector('[data-act="close"]').onclick = () => {
      this.replay = null;
      host.hidden = true;
    };
    for (const li of host.querySelectorAll(".admin-marks li")) {
      li.querySelector("button").onclick = () => {
        r.step = Math.min(Number(li.dataset.step), r.states.length - 1);
        this.drawReplay();
      };
    }
    // A height of its own: the board sits below the lists, often past the window's foot.
    const maxHeight = Math.max(240, Math.min(460, window.innerHeight - 300));
    render(host.querySelector('[data-board="admin"]'), r.states[Math.min(r.step, r.states.length - 1)],
      { interactive: false, maxHeight });
  }
}
