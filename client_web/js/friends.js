// The players we follow: kept by the server (yours alone), learnt once welcomed and after
// each `follow` / `unfollow`. A follow button anywhere is `[data-follow=PLAYER_ID]`; this
// module answers its click and keeps every such button's label true.

import { t } from "./i18n.js";
import { esc } from "./dom.js";

export class Friends {
  constructor(app) {
    this.app = app;
    this.ids = new Set();
    this.list = [];
    this.known = false;
    this.listeners = new Set();
    app.net.on("welcome", () => app.net.send("friends"));
    app.net.on("friends", (m) => {
      this.list = m.follows;
      this.ids = new Set(m.follows.map((f) => f.player_id));
      this.known = true;
      this.relabel(document);
      for (const fn of [...this.listeners]) fn();
    });
    document.addEventListener("click", (ev) => {
      const button = ev.target.closest?.("[data-follow]");
      if (!button) return;
      ev.preventDefault();
      const pid = button.dataset.follow;
      app.net.send(this.ids.has(pid) ? "unfollow" : "follow", { player_id: pid });
    });
  }

  /** Call `fn` whenever the list changes; returns the way to stop. */
  onChange(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  has(pid) {
    return this.ids.has(pid);
  }

  /** A follow button for player `pid` (none for ourselves). `compact`: a star alone. */
  button(pid, compact = false) {
    if (!pid || pid === this.app.net.playerId) return "";
    const on = this.ids.has(pid);
    const label = t(on ? "friends.unfollow" : "friends.follow");
    const text = compact ? (on ? "★" : "☆") : `${on ? "★" : "☆"} ${esc(t(on ? "friends.following" : "friends.follow"))}`;
    return `<button class="btn small follow${compact ? " star" : ""}" data-follow="${esc(pid)}"
      aria-pressed="${on}" title="${esc(label)}" aria-label="${esc(label)}">${text}</button>`;
  }

  relabel(root) {
    for (const b of root.querySelectorAll("[data-follow]")) {
      const compact = b.classList.contains("star");
      b.outerHTML = this.button(b.dataset.follow, compact);
    }
  }
}
