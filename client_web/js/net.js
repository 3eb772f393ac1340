// The websocket to the server: hello or resume on every (re)connection, reconnection with
// backoff, a token kept in local storage, and a resync when a sequence number is skipped.

const TOKEN_KEY = "seahaven.token";
const ROOM_KEY = "seahaven.room";
// resume answers with the events after last_seq while the room keeps them, and with a whole
// snapshot when last_seq is beyond the room's last event: this asks for the snapshot.
const SNAPSHOT_PLEASE = Number.MAX_SAFE_INTEGER;
// What a device signed out everywhere may send: sign in again (a transfer code, a passkey).
const SIGN_IN = new Set(["transfer_claim", "passkey_options", "passkey_sign_in"]);

/** A small event emitter. */
class Emitter {
  constructor() {
    this.handlers = new Map();
  }
  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type).add(fn);
    return () => this.handlers.get(type).delete(fn);
  }
  emit(type, msg) {
    for (const fn of this.handlers.get(type) || []) {
      try {
        fn(msg);
      } catch (err) {
        console.error(err);
      }
    }
    for (const fn of this.handlers.get("*") || []) fn(msg);
  }
}

/**
 * The connection. Events: every server message type, plus "status" ({state}), "gap" and
 * "resynced". `room` is the room the client is in (kept across reloads), `lastSeq` the
 * highest sequence number applied in it. `signedOut`: the player signed out everywhere on
 * another device (told at once, or found by a stale token): no new player is made behind
 * the player's back; the page offers to sign in again or to start as a new player.
 */
export class Net extends Emitter {
  constructor(url, getName) {
    super();
    this.url = url;
    this.getName = getName;
    this.ws = null;
    this.state = "closed";
    this.playerId = null;
    this.token = localStorage.getItem(TOKEN_KEY) || null;
    const saved = JSON.parse(sessionStorage.getItem(ROOM_KEY) || localStorage.getItem(ROOM_KEY) || "null");
    this.room = saved?.room || null;
    this.lastSeq = 0; // a reload starts from nothing: resume from 0 brings a full snapshot
    this.attempt = 0;
    this.timer = null;
    this.pingTimer = null;
    // Ids only need to be unique per connection; starting from the clock keeps them unique
    // across reloads too.
    this.nextId = Date.now() % 1e9 * 1000;
    this.pending = new Map(); // id -> what was sent, until ack or reject
    this.resyncing = false;
    this.leaving = false;
    this.refusedFor = 0; // seconds until this address may make a new player (when refused)
    this.signedOut = false;
    this.afterOpen = null; // a sign-in to send once a socket is open again (when signed out)
  }

  /** Open the connection (and keep it open). */
  connect() {
    clearTimeout(this.timer);
    this.setState("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      if (this.signedOut && this.afterOpen) {
        this.raw(this.afterOpen);
        this.afterOpen = null;
      } else {
        this.greet();
      }
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.receive(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.leaving = false; // a new socket starts outside any room
      clearInterval(this.pingTimer);
      if (this.signedOut) return; // nothing to come back as: a sign-in opens a new socket
      this.setState("closed");
      this.scheduleReconnect();
    };
    ws.onerror = () => ws.close();
  }

  greet() {
    if (this.signedOut) return;
    if (this.room && this.token) {
      // With a board in hand, ask for the events we missed; after a reload (nothing held)
      // ask past the end, which the server answers with a whole snapshot.
      const from = this.lastSeq > 0 ? this.lastSeq : SNAPSHOT_PLEASE;
      this.resyncing = from === SNAPSHOT_PLEASE;
      this.raw({ type: "resume", room: this.room, token: this.token, last_seq: from });
    } else {
      const hello = { type: "hello", name: this.getName() };
      if (this.token) hello.token = this.token;
      this.raw(hello);
    }
  }

  scheduleReconnect() {
    clearTimeout(this.timer);
    // 0.25 s, 0.5 s, 1 s, then every 1.5 s for about a minute (a restarted server is
    // found within 2 s of being back), and only then slower, up to 10 s; with jitter so a
    // restarted server is not stampeded.
    const base = this.attempt < 40 ? Math.min(1500, 250 * 2 ** this.attempt) : Math.min(10000, 5000 * 2 ** (this.attempt - 40));
    this.attempt += 1;
    this.timer = setTimeout(() => this.connect(), base * (0.75 + Math.random() * 0.5));
  }

  /** Signed out: forget the room, stop pinging, and wait for the player's choice. */
  goSignedOut(msg) {
    this.signedOut = true;
    this.resyncing = false;
    this.setRoom(null);
    clearInterval(this.pingTimer);
    this.setState("signedout");
    this.emit("signed_out", msg);
  }

  /** Signed out: start over as a new player (a hello without the old token). */
  startOver() {
    this.signedOut = false;
    this.token = null;
    localStorage.removeItem(TOKEN_KEY);
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.greet();
    else this.connect();
  }

  /** Drop the connection (tests and the reconnect button use it); it comes back by itself. */
  drop() {
    if (this.ws) this.ws.close();
  }

  setState(state) {
    this.state = state;
    this.emit("status", { type: "status", state });
  }

  raw(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Send a message; actions get an id. Returns the id (or null when offline). */
  send(type, fields = {}) {
    const msg = { type, ...fields };
    const needsId = ["move", "tap", "double_tap", "undo", "send_home", "hint"].includes(type);
    if (needsId) msg.id = this.nextId++;
    if (this.signedOut) {
      // Only a sign-in; on a socket closed meanwhile, once a new one is open.
      if (!SIGN_IN.has(type)) return null;
      if (!this.raw(msg)) {
        this.afterOpen = msg;
        if (!this.ws) this.connect();
      }
      return true;
    }
    if (this.state !== "open") return null;
    if (!this.raw(msg)) return null;
    if (needsId) this.pending.set(msg.id, msg);
    return needsId ? msg.id : true;
  }

  /** Whether an action we sent (not a hint) still waits for its ack or reject. */
  actionPending() {
    for (const msg of this.pending.values()) if (msg.type !== "hint") return true;
    return false;
  }

  /**
   * Leave the room. Until the server confirms (`left`), events still on their way from
   * that room are dropped: they carry no room id and must not touch the next room.
   */
  leave() {
    if (this.send("leave") != null) this.leaving = true;
    this.setRoom(null);
  }

  /** Remember the room (so a reload resumes it) or forget it with null. */
  setRoom(room) {
    this.room = room;
    if (room) {
      const v = JSON.stringify({ room });
      sessionStorage.setItem(ROOM_KEY, v);
      localStorage.setItem(ROOM_KEY, v);
    } else {
      sessionStorage.removeItem(ROOM_KEY);
      localStorage.removeItem(ROOM_KEY);
      this.lastSeq = 0;
      this.pending.clear();
    }
  }

  /** Ask for the whole room again (after a gap or a delta that does not fit). */
  resync() {
    if (!this.room || !this.token || this.resyncing) return;
    this.resyncing = true;
    this.emit("gap", { type: "gap" });
    this.raw({ type: "resume", room: this.room, token: this.token, last_seq: SNAPSHOT_PLEASE });
  }

  receive(msg) {
    switch (msg.type) {
      case "welcome":
        this.signedOut = false;
        this.playerId = msg.player_id;
        this.token = msg.token;
        localStorage.setItem(TOKEN_KEY, msg.token);
        this.setState("open");
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.raw({ type: "ping" }), 20000);
        this.emit("welcome", msg);
        if (this.room && this.pending.size) {
          // Actions sent before the drop and never acknowledged: send them again with the
          // same ids; the server acknowledges a repeat without applying it twice.
          for (const pendingMsg of this.pending.values()) this.raw(pendingMsg);
        }
        return;
      case "snapshot":
        this.leaving = false;
        this.resyncing = false;
        this.lastSeq = msg.seq;
        this.setRoom(msg.room_id);
        this.emit("snapshot", msg);
        return;
      case "ack":
      case "reject":
      case "hint":
        this.pending.delete(msg.id);
        break;
      case "left":
        this.leaving = false;
        return;
      case "signed_out":
        this.goSignedOut(msg);
        return;
      case "error":
        if (this.leaving && (msg.code === "not_in_room" || msg.code === "hello_first")) {
          // The server had already let us go (or the player was deleted meanwhile).
          this.leaving = false;
          return;
        }
        if (msg.code === "too_many_identities" && this.state !== "open") {
          // No new player from this address for now: say why (app.js) rather than look
          // offline, and ask again once the server said it may (the socket stays open).
          this.refusedFor = Number(msg.retry_s) || 60;
          this.setState("refused");
          clearTimeout(this.timer);
          this.timer = setTimeout(() => {
            if (this.state === "refused") this.greet();
          }, (this.refusedFor + 1) * 1000);
          return;
        }
        if (msg.code === "name_taken" && this.state !== "open") {
          // The name passes for an established player's: app.js forgets it and says hello
          // again under a made-up one (the error's toast says why; another may be typed).
          this.emit("name_taken", msg);
          break;
        }
        if (msg.code === "bad_token" && this.token) {
          // A stale token (signed out everywhere, or a session that lapsed): say so, and let
          // the player sign in again or start as a new player (app.js), never silently.
          this.goSignedOut(msg);
          return;
        }
        if (this.room && this.state !== "open" && ["room_not_found", "not_in_room", "bad_token"].includes(msg.code)) {
          this.resyncing = true; // a failed resume: handled just below
        }
        if (this.resyncing && ["room_not_found", "not_in_room", "bad_token"].includes(msg.code)) {
          // The room (or our seat) is gone: start over as a plain visitor.
          this.resyncing = false;
          this.setRoom(null);
          if (msg.code === "bad_token") {
            this.token = null;
            localStorage.removeItem(TOKEN_KEY);
          }
          this.emit("room_gone", msg);
          if (this.state !== "open") this.greet();
          return;
        }
        break;
      default:
        break;
    }
    if (this.leaving && (typeof msg.seq === "number" || msg.type === "lost")) return;
    // A room message names its room: one about a room we left is late news, dropped.
    if (msg.type === "room" && msg.room_id !== this.room) return;
    // Sequenced room events: apply each once and in order; a skipped number means we
    // missed something, so ask for the whole room again.
    if (typeof msg.seq === "number" && msg.type !== "ack") {
      if (this.resyncing) return; // a snapshot is on its way; it covers this event
      if (msg.seq <= this.lastSeq) return; // already applied (a resume can repeat events)
      if (msg.seq > this.lastSeq + 1) {
        this.resync();
        return;
      }
      this.lastSeq = msg.seq;
    }
    this.emit(msg.type, msg);
  }
}

/** The websocket address of the server that served this page. */
export function defaultUrl() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws`;
}
