// An arena's leading race, live on the arena's page: the race of its best-placed racer
// racing now (`GET /api/arena/ID`'s `top_room`), as the Watch list shows a public race
// (each racer's progress, as the arena's watch rules allow; never a board or a deal), with
// the link to watch its boards. Read again every few seconds while the page is open.

import { t } from "../i18n.js";
import { esc } from "../dom.js";
import { LiveList, POLL_MS } from "./livelist.js";

export class ArenaLive {
  /** @param {HTMLElement} host the panel's place; `id` the arena */
  constructor(host, id) {
    this.host = host;
    this.id = id;
    this.list = new LiveList(host); // its row() only: the Watch list's look
    this.timer = setInterval(() => this.read(), POLL_MS);
    this.read();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  async read() {
    let room = null;
    try {
      const [one, live] = await Promise.all([
        fetch(`/api/arena/${encodeURIComponent(this.id)}?top=1`, { cache: "no-cache" }),
        fetch("/api/rooms/live", { cache: "no-cache" }),
      ]);
      const table = one.ok ? await one.json() : null;
      const data = live.ok ? await live.json() : null;
      if (table?.top_room && data) {
        this.list.data = { ...data, offset: data.now - Date.now() };
        room = data.rooms.find((r) => r.room_id === table.top_room) || null;
      }
    } catch { /* no race shown */ }
    if (this.timer) this.draw(room);
  }

  draw(room) {
    this.host.hidden = !room;
    if (!room) return;
    this.host.innerHTML = `<h2>${esc(t("arena.leading"))}</h2>
      <ul class="live-list">${this.list.row(room, "arena")}</ul>`;
  }
}
