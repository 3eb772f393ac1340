// Quick race: the pairing queue as the client knows it. `queue {cells}` puts us in it,
// `unqueue` takes us out; the server pairs us into a public race (its `snapshot` ends the
// wait) or, after a while alone, offers a bot racer that we accept or decline. The server
// decides who races whom; this only remembers that we wait, since when, and for what.

import { errorText } from "./i18n.js";
import { toast } from "./notify.js";

/** What the pairing queue says about us; listeners hear every change. */
export class Quick {
  constructor(net) {
    this.net = net;
    this.listeners = new Set();
    this.reset();
    net.on("queued", (m) => {
      if (this.state === "idle") return; // an answer to a queue we have cancelled since
      if (this.state === "queueing") this.state = "queued";
      this.cells = m.cells ?? this.cells;
      this.rating = m.rating;
      this.provisional = !!m.provisional;
      this.penaltyS = m.penalty_s || 0;
      this.changed();
    });
    // Others ready wait with us: the server pairs us by `pair_by` at the latest.
    net.on("pairing", (m) => {
      if (this.state === "idle") return;
      this.pairing = { racers: m.racers, pairBy: Date.now() + (m.pair_by - m.now) };
      this.changed();
    });
    net.on("bot_offer", (m) => {
      if (this.state === "idle" || this.state === "accepting") return;
      this.state = "offer";
      this.offer = m;
      this.changed();
    });
    net.on("unqueued", (m) => {
      // Out of the queue because we race the bot: its room's snapshot follows.
      if (this.state === "idle" || (this.state === "accepting" && m.reason === "room")) return;
      this.reset();
      this.changed();
    });
    // Paired (or any room entered): the wait is over.
    net.on("snapshot", (m) => {
      if (this.state === "idle") return;
      this.reset();
      this.changed(m);
    });
    net.on("error", (m) => {
      if (this.state === "idle") return;
      if (m.code === "already_queued") {
        // Our old socket may still hold the queue (a connection lost without a close is
        // noticed late, and its wait ends with it): ask again for a while. Another tab of
        // ours that waits keeps its place (it is the one paired): then give up here.
        if (this.state !== "queueing") return;
        if (this.retries < 15) {
          this.retries += 1;
          clearTimeout(this.retryTimer);
          this.retryTimer = setTimeout(() => { if (this.state === "queueing") this.send(); }, 2000);
          return;
        }
        toast(errorText(m.code, m.message));
        this.reset();
        this.changed();
        return;
      }
      if (m.code === "no_bot_offer") {
        // Someone came meanwhile (their room follows) or the offer lapsed: keep waiting.
        this.state = "queued";
        this.offer = null;
      } else if (["already_in_room", "invalid_message", "unavailable", "busy"].includes(m.code) &&
          this.sentAt && Date.now() - this.sentAt < 5000) {
        this.reset(); // the queue refused us; app.js shows why
      } else {
        return;
      }
      this.changed();
    });
    // The server drops a queued socket that closes: a new connection queues again, keeping
    // the time we have waited so far on the screen.
    net.on("welcome", () => {
      if (this.state === "idle" || this.net.room) return;
      if (this.state !== "queueing") this.state = "queueing";
      this.offer = null;
      this.retries = 0;
      this.send();
      this.changed();
    });
  }

  reset() {
    // idle; queueing (asked); queued (the server said so); offer (a bot offered);
    // accepting (we took the bot: its room comes)
    this.state = "idle";
    this.cells = 4;
    this.rating = null;
    this.provisional = false;
    this.penaltyS = 0;
    this.since = null; // local ms when we asked
    this.sentAt = null;
    this.offer = null;
    this.pairing = null; // {racers, pairBy (local ms)}: others ready wait with us
    this.declined = false; // a bot was offered and turned down
    this.retries = 0; // queue sent again after already_queued
    clearTimeout(this.retryTimer);
  }

  onChange(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Tell the listeners; `room` is the snapshot of the room that ended the wait, if one did. */
  changed(room = null) {
    for (const fn of this.listeners) fn(this.state, room);
  }

  /** Whether we wait to be paired (or answer a bot offer). */
  waiting() {
    return this.state !== "idle";
  }

  /** Join the queue for `cells` (4, 2 or 1); false when offline. */
  join(cells) {
    this.reset();
    this.cells = cells;
    this.state = "queueing";
    this.since = Date.now();
    const ok = this.send();
    if (!ok) this.reset();
    this.changed();
    return ok;
  }

  send() {
    this.sentAt = Date.now();
    return this.net.send("queue", { cells: this.cells }) != null;
  }

  /** Leave the queue (the Cancel button). */
  cancel() {
    if (this.state === "idle") return;
    this.net.send("unqueue");
    this.reset();
    this.changed();
  }

  /** Race the bot the server offered (the room's snapshot follows). */
  acceptBot() {
    if (!this.offer || !["offer", "queued"].includes(this.state)) return;
    this.state = "accepting";
    this.net.send("accept_bot");
    this.changed();
  }

  /** Turn the bot down: nothing to tell the server, we simply keep waiting for a person. */
  declineBot() {
    if (this.state !== "offer") return;
    this.state = "queued";
    this.declined = true; // the offer stands (until someone comes): it can still be taken
    this.changed();
  }

  /** Seconds (tenths) left before the server pairs the racers ready now; null: none wait. */
  pairInS() {
    if (!this.pairing) return null;
    return Math.max(0, Math.ceil((this.pairing.pairBy - Date.now()) / 100) / 10);
  }

  /** Seconds waited so far. */
  elapsedS() {
    return this.since ? Math.max(0, Math.floor((Date.now() - this.since) / 1000)) : 0;
  }
}
