// Arenas as the client knows them: the arena we are in (or watch), where we are in it
// (the pool, a race, out), its standings as last pushed, and the podium once it is over.
// The server pairs, starts the races and counts the points; this only remembers what it
// said, pledges no take-backs at each race's start when asked to, and tells the app when
// a race begins (to show it) and when we are back in the pool (to show the standings).

const KEPT = "seahaven.arena";

/** The arena this tab sat in, if its end has not passed. */
function readKept() {
  try {
    const kept = JSON.parse(sessionStorage.getItem(KEPT) || "null");
    return kept && Date.now() - (kept.skew || 0) < kept.until ? kept : null;
  } catch { return null; }
}

/** Remember the arena we sit in (null: none). */
function keep(value) {
  if (value) sessionStorage.setItem(KEPT, JSON.stringify(value));
  else sessionStorage.removeItem(KEPT);
}

/** The arena we joined or watch; listeners hear every change. */
export class ArenaClient {
  constructor(net) {
    this.net = net;
    this.listeners = new Set();
    this.pledging = localStorage.getItem("seahaven.pledge") === "1";
    this.reset();
    // The arena this tab sat in, until its end: a reload (or a new socket) takes the seat
    // again, into the race it was in (the server lets a racer join again from that race).
    const kept = readKept();
    if (kept) { this.id = kept.id; this.joined = true; }
    net.on("arena", (m) => {
      this.info = m.arena;
      this.id = m.arena.arena_id;
      this.seat = m.seat;
      if (m.room) this.room = m.room;
      this.invite = m.invite || this.invite;
      this.skew = Date.now() - m.now; // our clock minus the server's
      if (m.seat !== "out") {
        this.joined = true;
        keep({ id: this.id, until: m.arena.closes_at ?? m.arena.ends_at, skew: this.skew });
      }
      this.changed("arena", m);
    });
    net.on("error", (m) => {
      // The arena we sat in ended (or is gone) while we were away: nothing to take again.
      if (!["arena_over", "arena_not_found"].includes(m.code) || !readKept()) return;
      keep(null);
      this.joined = false;
      this.seat = "out";
      this.changed("left", { arena_id: this.id, reason: "over" });
    });
    net.on("arena_standings", (m) => {
      if (m.arena_id !== this.id) return;
      this.standings = m;
      if (this.info) { this.info.phase = m.phase; this.info.players = m.players; }
      this.changed("standings", m);
    });
    net.on("arena_over", (m) => {
      if (m.arena_id !== this.id) return;
      this.podium = m;
      if (this.info) this.info.phase = "over";
      this.changed("over", m);
    });
    net.on("arena_left", (m) => {
      if (m.arena_id !== this.id) return;
      keep(null);
      this.joined = false;
      this.seat = "out";
      this.changed("left", m);
    });
    // A race of our arena: we are in it (and pledge, if we always do).
    net.on("snapshot", (m) => {
      if (!this.joined || m.mode !== "race" || !m.paired) return;
      this.seat = "racing";
      this.room = m.room_id;
      if (this.pledging && (m.state === "lobby" || m.state === "countdown")) net.send("arena_pledge");
      this.changed("race", m);
    });
    // A new connection: the server dropped our seat with the old socket; take it again.
    net.on("welcome", () => {
      if (this.joined && this.id && this.info?.phase !== "over") net.send("arena_join", { arena: this.id });
      else if (this.watching) net.send("arena_watch", { arena: this.watching });
    });
  }

  reset() {
    this.id = null;
    this.info = null;
    this.seat = "out";
    this.joined = false;
    this.standings = null;
    this.podium = null;
    this.invite = null;
    this.room = null;
    this.watching = null;
    this.skew = 0;
  }

  onChange(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  changed(kind, msg) {
    for (const fn of this.listeners) fn(kind, msg);
  }

  /** Join arena `id` (answered by `arena`). */
  join(id) {
    if (this.id !== id) { this.reset(); this.id = id; }
    return this.net.send("arena_join", { arena: id }) != null;
  }

  /** Watch arena `id`'s standings without joining it. */
  watch(id) {
    if (this.id !== id) { this.reset(); this.id = id; }
    this.watching = id;
    return this.net.send("arena_watch", { arena: id }) != null;
  }

  leave() {
    this.net.send("arena_leave");
    keep(null);
    this.joined = false;
  }

  create(cells, minutes, startsInS) {
    this.reset();
    return this.net.send("create_arena", { cells, minutes, starts_in_s: startsInS }) != null;
  }

  /** Pledge no take-backs in every race from now on (the server's bonus for a win). */
  setPledging(on) {
    this.pledging = on;
    localStorage.setItem("seahaven.pledge", on ? "1" : "0");
  }

  /** Milliseconds until the arena starts (or ends, with `end`; or, with `closes` too, until
   * its last races are ended by its rule), by the server's clock. */
  left(end = false, closes = false) {
    if (!this.info) return 0;
    const at = closes ? (this.info.closes_at ?? this.info.ends_at) : end ? this.info.ends_at : this.info.starts_at;
    return at - (Date.now() - this.skew);
  }
}
