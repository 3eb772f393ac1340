// Rules: the rules page of the current language (client_web/rules/LANG.html).

import { currentLang, t } from "../i18n.js";
import { html, esc } from "../dom.js";

export class RulesView {
  constructor(app) {
    this.app = app;
  }

  show(main) {
    this.el = html(`<article class="rules" lang="${currentLang()}"><p>${esc(t("msg.loading"))}</p></article>`);
    main.append(this.el);
    this.load();
  }

  hide() {
    this.el = null;
  }

  onLang() {
    if (this.el) this.load();
  }

  async load() {
    const lang = currentLang();
    const el = this.el;
    const res = await fetch(`rules/${lang}.html`, { cache: "no-cache" });
    const text = res.ok ? await res.text() : `<p>${esc(res.status)}</p>`;
    // Gone, or another language asked for meanwhile: this page is no longer wanted.
    if (!this.el || this.el !== el || currentLang() !== lang) return;
    // The page is our own static file; take its <main> if it is a whole document.
    const doc = new DOMParser().parseFromString(text, "text/html");
    const body = doc.querySelector("main") || doc.body;
    this.el.lang = lang;
    this.el.replaceChildren(...[...body.childNodes].map((n) => document.importNode(n, true)));
  }
}
