// What the client holds of its room: members, boards, counts, results. It is filled only
// from the server's messages (snapshot, room, started, delta, progress ...).

import { applyChanges, changeLegal, fromJSON } from "./board.js";

/** A racer's counts at the start of a round (`status` as given). */
function fresh(status) {
  return { status, foundation_cards: 0, moves: 0, score: 0, time_ms: null, rank: null,
    perfect: false, lost: false };
}

/** The room state, updated from server messages; listeners hear every change. */
export class Game {
  constructor(net) {
    this.net = net;
    this.listeners = new Set();
    this.clear();
    const on = (type, fn) => net.on(type, (m) => {
      fn.call(this, m);
      this.changed(type, m);
    });
    on("snapshot", this.onSnapshot);
    on("room", this.onRoom);
    on("countdown", this.onCountdown);
    on("started", this.onStarted);
    on("delta", this.onDelta);
    on("progress", this.onProgress);
    on("finished", this.onFinished);
    on("gave_up", this.onGaveUp);
    on("race_over", this.onRaceOver);
    on("lost", this.onLost);
    on("daily_pending", this.onDailyPending);
    on("daily_result", this.onDailyResult);
    on("ratings", this.onRatings);
    // The seq of the last delta of our latest acknowledged action: until it is applied, the
    // legal moves we hold are of a board about to change.
    net.on("ack", (m) => { this.awaitSeq = Math.max(this.awaitSeq, m.seq); });
    net.on("room_gone", () => {
      this.clear();
      this.changed("room_gone", null);
    });
  }

  clear() {
    this.roomId = null;
    this.mode = null;
    this.state = null;
    this.code = null; // null until the start, unless the host typed it (codeTyped)
    this.codeTyped = false;
    this.public = false; // listed on the Watch page (never watched live)
    this.rated = false; // the race changes the racers' ratings
    this.household = false; // the pairing put racers of one address together: counts nothing between them
    this.paired = false; // made by the quick race queue: no host, the server starts it
    this.ratings = null; // after a rated race: {round, cells, changes: [{player_id, rating, change ...}]}
    this.watch = "live"; // what spectators see during the race: live, delayed, progress
    this.delayS = null; // the delay of "delayed", in seconds
    this.cells = 4;
    this.round = 0;
    this.host = null;
    this.you = null;
    this.role = null;
    this.invite = null;
    this.spectators = 0;
    this.startsAt = null;
    this.startedAt = null; // server ms of the start (solo: of the first move)
    this.clockOffset = 0; // server now - local now
    this.players = new Map(); // player_id -> {name, status, foundation_cards, moves, ...}
    this.order = []; // player ids in room order
    this.results = null;
    this.par = null; // the deal's par, once the server says it: {par, optimal}
    this.daily = null; // a daily game: {date, kind, attempt, ranked, rank, unranked_reason}
    this.awaitSeq = 0;
  }

  onChange(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  changed(type, msg) {
    for (const fn of this.listeners) fn(type, msg);
  }

  /** The server's clock now, as far as the client can tell. */
  serverNow() {
    return Date.now() + this.clockOffset;
  }

  syncClock(now) {
    this.clockOffset = now - Date.now();
  }

  me() {
    return this.players.get(this.you) || null;
  }

  myBoard() {
    return this.me()?.board || null;
  }

  /**
   * Our board's legal moves as the server sent them with it ({moves: {src: [dst ...]},
   * send_home}), or null while unknown: none sent, or an action of ours not yet answered
   * (its delta may change the board).
   */
  myLegal() {
    const legal = this.me()?.legal;
    if (!legal || this.net.actionPending() || this.net.lastSeq < this.awaitSeq) return null;
    return legal;
  }

  /** Elapsed play time of a player in ms (server-measured when finished). */
  elapsed(pid) {
    const p = this.players.get(pid);
    if (p?.time_ms != null) return p.time_ms;
    if (p && p.status === "gave_up") return null; // no time, even before a first move
    if (!this.startedAt || this.state === "lobby") return 0;
    return Math.max(0, this.serverNow() - this.startedAt);
  }

  player(pid, name) {
    let p = this.players.get(pid);
    if (!p) {
      p = { player_id: pid, name: name || pid, status: "waiting", foundation_cards: 0, moves: 0,
        score: 0, time_ms: null, rank: null, lost: false, board: null, role: "player" };
      this.players.set(pid, p);
      this.order.push(pid);
    }
    if (name) p.name = name;
    return p;
  }

  /** The room's own fields, as a `snapshot` and a `room` message both carry them. */
  takeRoom(m) {
    this.roomId = m.room_id;
    this.mode = m.mode;
    this.state = m.state;
    this.code = m.code;
    this.codeTyped = m.code_typed;
    this.public = Boolean(m.public);
    this.rated = Boolean(m.rated);
    this.paired = Boolean(m.paired);
    this.watch = m.watch;
    this.delayS = m.delay_s;
    this.cells = m.cells;
    this.round = m.round;
    this.host = m.host;
    this.spectators = m.spectators;
  }

  onSnapshot(m) {
    // A settled rated round's snapshot carries its rating changes (a reload of the
    // results); one without them, of the same round (a spectator's at the end of a
    // late-shown race, before they were settled), keeps those already received.
    const kept = this.roomId === m.room_id && this.ratings?.round === m.round ? this.ratings : null;
    const ratings = m.ratings ? { round: m.round, cells: m.cells, changes: m.ratings } : kept;
    this.clear();
    this.ratings = ratings;
    this.syncClock(m.now);
    this.takeRoom(m);
    this.household = Boolean(m.household);
    this.you = m.you;
    this.role = m.role;
    this.startsAt = m.starts_at;
    this.daily = m.daily || null;
    this.par = m.par ? { par: m.par, optimal: Boolean(m.par_optimal) } : null;
    for (const ps of m.players) {
      const p = this.player(ps.player_id, ps.name);
      Object.assign(p, ps, { board: ps.board ? fromJSON(ps.board) : null, legal: ps.legal || null });
      if (ps.board) p.board.code = m.code;
    }
    // A race's clock runs from its start and a daily game's from the reveal: starts_at. A
    // solo game's runs from its first move, which a snapshot does not give: until the next
    // delta says, count from the room's start.
    const moved = m.players.some((p) => p.moves > 0);
    const fromStart = m.mode === "race" || m.mode === "daily";
    if ((m.state === "racing" || m.state === "done") && m.starts_at && (fromStart || moved)) {
      this.startedAt = m.starts_at;
    }
    if (m.state === "done") {
      // A snapshot of a finished race carries each racer's result: the finish order.
      this.results = m.players.map((ps) => ({ player_id: ps.player_id, name: ps.name,
        status: ps.status, rank: ps.rank, time_ms: ps.time_ms, moves: ps.moves,
        perfect: Boolean(ps.perfect) }))
        .sort((a, b) => (a.rank ?? 1e9) - (b.rank ?? 1e9));
    }
  }

  onRoom(m) {
    if (this.round && m.round !== this.round) {
      // A rematch: a new round starts from the lobby with nothing carried over.
      this.results = null;
      this.ratings = null;
      this.par = null;
      this.startedAt = null;
      this.startsAt = null;
      for (const p of this.players.values()) {
        Object.assign(p, fresh("waiting"), { board: null, legal: null });
      }
    }
    this.takeRoom(m);
    this.invite = m.invite;
    this.net.setRoom(m.room_id);
    const present = new Set();
    for (const e of m.players) {
      const p = this.player(e.player_id, e.name);
      p.role = e.role;
      present.add(e.player_id);
    }
    for (const [pid, p] of this.players) p.gone = !present.has(pid);
    if (!this.you) this.you = this.net.playerId;
    if (this.you && this.role === "player" && !present.has(this.you)) {
      // Our seat is gone (an old socket of ours closed after we came back): start over;
      // the view takes the seat again. A spectator is never among the players listed (a
      // late-shown race's held `room` events came before the spectator, too).
      this.net.leave();
      this.net.emit("room_gone", { type: "room_gone" });
    }
  }

  onCountdown(m) {
    this.syncClock(m.now);
    this.state = "countdown";
    this.round = m.round;
    this.startsAt = m.starts_at;
    this.results = null;
  }

  onStarted(m) {
    this.state = "racing";
    this.round = m.round;
    this.code = m.code;
    this.cells = m.cells;
    this.startedAt = m.started_at;
    this.results = null;
    for (const pid of m.players) {
      const p = this.player(pid);
      Object.assign(p, fresh("playing"));
      // Racers see only their own board; spectators everyone's, unless the host chose
      // progress only (then the boards come with the snapshot after the race).
      if (pid === this.you || (this.role === "spectator" && this.watch !== "progress")) {
        p.board = fromJSON(m.board);
        p.board.code = m.code;
      } else {
        p.board = null;
      }
      p.legal = pid === this.you ? m.legal || null : null;
    }
  }

  onDelta(m) {
    const p = this.player(m.player_id);
    // Only our own deltas carry a change of our legal moves; it needs the listing it changes.
    if (m.legal_change && !p.legal) {
      this.net.resync();
      return;
    }
    if (p.board && !applyChanges(p.board, m.changes)) {
      // Our copy disagrees with the server's: fetch the whole room again.
      this.net.resync();
      return;
    }
    p.score = m.score;
    p.moves = m.moves;
    p.foundation_cards = m.foundation_cards;
    p.lost = m.lost;
    p.legal = m.legal_change ? changeLegal(p.legal, m.legal_change) : null;
    if (m.finished) p.status = "finished";
    else if (p.status === "waiting") p.status = "playing";
    // Solo games start their clock with the first move: `t` is the time since the start.
    if (!this.startedAt || this.mode !== "race") {
      this.startedAt = this.serverNow() - m.t;
    }
  }

  onProgress(m) {
    const p = this.player(m.player_id);
    p.foundation_cards = m.foundation_cards;
    p.moves = m.moves;
    if (m.finished) p.status = "finished";
  }

  onFinished(m) {
    const p = this.player(m.player_id);
    // Perfect (won in the deal's proven par) is the server's word, never worked out here.
    Object.assign(p, { status: "finished", time_ms: m.time_ms, moves: m.moves, rank: m.rank,
      foundation_cards: 52, perfect: Boolean(m.perfect) });
  }

  onGaveUp(m) {
    const p = this.player(m.player_id);
    p.status = "gave_up";
    p.moves = m.moves;
  }

  onRaceOver(m) {
    this.state = "done";
    this.results = m.results;
    this.par = m.par ? { par: m.par, optimal: Boolean(m.par_optimal) } : null;
    for (const r of m.results) {
      const p = this.player(r.player_id, r.name);
      Object.assign(p, { status: r.status, rank: r.rank, time_ms: r.time_ms, moves: r.moves,
        perfect: Boolean(r.perfect) });
    }
  }

  onDailyPending(m) {
    // Our daily win stands, its rank pending review: said at once, until `daily_result`.
    if (this.daily && this.daily.date === m.date && this.daily.kind === m.kind && this.daily.ranked == null) {
      Object.assign(this.daily, { ranked: false, rank: null, unranked_reason: "pending_review",
        replay_id: m.replay_id });
    }
  }

  onDailyResult(m) {
    // Our daily win is ranked, or not and why (the server tells the winner alone).
    if (this.daily && this.daily.date === m.date && this.daily.kind === m.kind) {
      Object.assign(this.daily, { ranked: m.ranked, rank: m.rank, unranked_reason: m.unranked_reason,
        replay_id: m.replay_id });
    }
  }

  onRatings(m) {
    if (m.round === this.round) this.ratings = { round: m.round, cells: m.cells, changes: m.changes };
  }

  /** A racer's line of the latest `ratings` ({rating, change, unrated_reason}), or null. */
  ratingOf(pid) {
    return this.ratings?.changes.find((c) => c.player_id === pid) || null;
  }

  onLost(m) {
    const p = this.player(m.player_id);
    p.lost = true;
  }

  /** Racers (not spectators), in room order. */
  racers() {
    return this.order.map((id) => this.players.get(id))
      .filter((p) => p && p.role !== "spectator");
  }
}
