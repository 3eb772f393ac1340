// The peer of bench/peer.py: the race served by a Colyseus room. Each room holds 4 racers
// and its spectators; a racer's board lives in the room's schema state, every action is
// judged and played by rules.js, the mover gets an ack with its legal moves at once, and
// Colyseus sends the state's changes to every client of the room in one binary patch per
// patch interval (its default, 50 ms).
//
// Run: node server.js --port PORT --metrics-port PORT. GET /healthz on the metrics port
// answers once the rooms can be made; GET /metrics counts the actions acknowledged, as the
// Seahaven server's seahaven_move_latency_seconds_count does.

import http from "node:http";
import { parseArgs } from "node:util";
import { Room, Server } from "@colyseus/core";
import { ArraySchema, MapSchema, schema, t } from "@colyseus/schema";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { Board, Illegal, parseLocation } from "./rules.js";

const { values: opts } = parseArgs({
  options: { port: { type: "string" }, "metrics-port": { type: "string" } },
});

const Column = schema({ cards: t.array("uint8") }, "Column");
const RacerBoard = schema(
  {
    columns: t.array(Column),
    cells: t.array("int8"), // -1: a free cell
    foundations: t.array("uint8"),
    score: t.uint16(),
    moves: t.uint16(),
  },
  "RacerBoard",
);
const RaceState = schema({ racers: t.map(RacerBoard), started: t.boolean() }, "RaceState");

let acked = 0;

/** The schema board of a fresh table. */
function schemaBoard(board) {
  const b = new RacerBoard();
  b.columns = new ArraySchema(...board.columns.map((col) => new Column({ cards: new ArraySchema(...col) })));
  b.cells = new ArraySchema(...board.cells.map((c) => (c === null ? -1 : c)));
  b.foundations = new ArraySchema(...board.foundations);
  b.score = 0;
  b.moves = 0;
  return b;
}

/** Mirror a played action's change into the schema board (the patch carries it). */
function mirror(b, board, change) {
  const { src, dst, cards } = change;
  if (src.kind === "col") {
    const col = b.columns[src.index].cards;
    for (let i = 0; i < cards.length; i++) col.pop();
  } else if (src.kind === "cell") b.cells[src.index] = -1;
  else b.foundations[src.index] = board.foundations[src.index];
  if (dst.kind === "col") b.columns[dst.index].cards.push(...cards);
  else if (dst.kind === "cell") b.cells[dst.index] = cards[0];
  else b.foundations[dst.index] = board.foundations[dst.index];
  b.score = board.score;
  b.moves = board.moves;
}

class RaceRoom extends Room {
  onCreate(options) {
    this.state = new RaceState();
    this.code = String(options.code);
    this.maxClients = 4 + Number(options.spectators ?? 1);
    this.boards = new Map(); // sessionId -> the racer's Board (rules.js)
    this.host = null;
    for (const type of ["move", "tap", "double_tap", "undo"]) {
      this.onMessage(type, (client, msg) => this.action(client, type, msg));
    }
    this.onMessage("start", (client) => {
      if (client.sessionId !== this.host || this.state.started) return;
      this.state.started = true;
      this.lock();
      this.broadcast("started", { code: this.code });
    });
  }

  onJoin(client, options) {
    if (options?.role === "spectator") return;
    if (this.boards.size >= 4) throw new Error("the room is full");
    const board = new Board(this.code);
    this.boards.set(client.sessionId, board);
    this.state.racers.set(client.sessionId, schemaBoard(board));
    this.host ??= client.sessionId;
  }

  action(client, type, msg) {
    const board = this.boards.get(client.sessionId);
    const id = msg?.id;
    if (!board || !this.state.started) {
      client.send("reject", { id, reason: "not_racing" });
      return;
    }
    let change;
    try {
      if (type === "move") change = board.move(parseLocation(msg.src), parseLocation(msg.dst));
      else if (type === "undo") change = board.undo();
      else change = board.tapAt(type === "tap", parseLocation(msg.at));
    } catch (err) {
      client.send("reject", { id, reason: err instanceof Illegal ? err.message : "bad_action" });
      return;
    }
    mirror(this.state.racers.get(client.sessionId), board, change);
    acked += 1;
    client.send("ack", { id, score: board.score, won: board.isWon(), legal: board.targets() });
  }

  onLeave(client) {
    // A racer who leaves keeps their board in the state; nothing else to do in a bench.
  }
}

const server = new Server({ transport: new WebSocketTransport(), greet: false });
server.define("race", RaceRoom);
await server.listen(Number(opts.port), "127.0.0.1");

http
  .createServer((req, res) => {
    if (req.url === "/healthz") res.end("ok\n");
    else if (req.url === "/metrics") res.end(`seahaven_move_latency_seconds_count ${acked}\n`);
    else {
      res.statusCode = 404;
      res.end();
    }
  })
  .listen(Number(opts["metrics-port"]), "127.0.0.1");
