// The first visit's introduction: three steps on a real deal (a move to a free cell, a
// group move, a card sent home), each done when the server's delta of one of our moves
// shows it; skippable, and remembered once done or skipped. It decides nothing about the
// rules: it reads what the server did.

import { t } from "./i18n.js";
import { html } from "./dom.js";
import { announce } from "./notify.js";

const KEY = "seahaven.intro";
/** A deal the solver wins where all three steps are open from the deal: a card to a free cell,
 * the two cards on top of column 6 onto column 1, an Ace from column 5 or 9 home. */
export const INTRO_CODE = "SH1-C4-AAAAABU";
/** A phone on its side (as the style sheets say it). */
const SIDEWAYS = window.matchMedia("(orientation: landscape) and (max-height: 520px)");
const STEPS = [
  { key: "intro.cell", done: (c) => c.dst.startsWith("cell") },
  { key: "intro.group", done: (c) => c.cards.length > 1 && c.dst.startsWith("col") },
  { key: "intro.home", done: (c) => c.dst.startsWith("found") },
];

/** Whether the introduction is still to be shown (never done nor skipped here). */
export function introWanted() {
  return localStorage.getItem(KEY) == null;
}

/** The introduction over the foot of the Play table while its steps are to be done. */
export class Intro {
  constructor(app, host) {
    this.app = app;
    this.step = 0;
    this.el = html(`<section class="intro card-panel" aria-labelledby="intro-title">
      <h2 id="intro-title"></h2><p class="intro-say" role="status"></p>
      <div class="row"><button class="btn small" data-act="skip"></button></div></section>`);
    host.append(this.el);
    this.el.querySelector('[data-act="skip"]').onclick = () => this.end("skipped");
    this.off = app.net.on("delta", (m) => {
      if (m.player_id !== app.game.you || !m.changes.length || this.step >= STEPS.length) return;
      requestAnimationFrame(() => this.place());
      if (m.changes.some(STEPS[this.step].done)) {
        this.step += 1;
        this.draw();
        if (this.step >= STEPS.length) this.end("done");
      }
    });
    // On a phone on its side it lies over the foot of the columns: placed by them.
    this.place = this.place.bind(this);
    window.addEventListener("resize", this.place);
    this.draw();
  }

  /** On a phone on its side, as wide as the columns and under them (never over the cells,
   * the foundations or the top bar); elsewhere where its style puts it. */
  place() {
    const style = this.el.style;
    style.left = style.right = "";
    if (!SIDEWAYS.matches) return;
    const pile = (loc) => document.querySelector(`.board[data-board="mine"] .pile[data-loc="${loc}"]`);
    const first = pile("col1");
    const last = pile("col10");
    if (!first || !last) return;
    style.left = `${Math.round(first.getBoundingClientRect().left)}px`;
    style.right = `${Math.round(window.innerWidth - last.getBoundingClientRect().right)}px`;
  }

  draw() {
    this.place();
    const done = this.step >= STEPS.length;
    this.el.dataset.step = String(this.step + 1);
    this.el.querySelector("h2").textContent = done ? t("intro.doneTitle")
      : t("intro.title", { n: this.step + 1, of: STEPS.length });
    const say = done ? t("intro.done") : t(STEPS[this.step].key);
    this.el.querySelector(".intro-say").textContent = say;
    this.el.querySelector('[data-act="skip"]').textContent = t(done ? "intro.close" : "intro.skip");
    if (this.step > 0) announce(say);
  }

  /** Done or skipped: remembered, and out of the way (a done one says so a moment first). */
  end(how) {
    localStorage.setItem(KEY, how);
    this.off?.();
    this.off = null;
    if (how === "skipped") this.destroy();
    else {
      this.el.querySelector('[data-act="skip"]').onclick = () => this.destroy();
      this.timer = setTimeout(() => this.destroy(), 6000);
    }
  }

  destroy() {
    window.removeEventListener("resize", this.place);
    clearTimeout(this.timer);
    this.off?.();
    this.el.remove();
  }
}
