// Reads {you, messages: [...]} on stdin: feeds each server message to the client's room
// state (js/game.js) through a stand-in for the socket, and prints, after each, what the
// client then holds of the room (the fields the views read).
import { Game } from "../js/game.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { you, messages } = JSON.parse(input);

/** The socket as the room state uses it: handlers by type, and what it was asked to do. */
const net = {
  handlers: new Map(),
  asked: [],
  playerId: you,
  lastSeq: 0,
  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, []);
    this.handlers.get(type).push(fn);
  },
  emit(type, m) {
    for (const fn of this.handlers.get(type) || []) fn(m);
  },
  actionPending: () => false,
  setRoom(id) { net.asked.push(["setRoom", id]); },
  leave() { net.asked.push(["leave"]); },
  resync() { net.asked.push(["resync"]); },
};

const game = new Game(net);
const out = [];
for (const m of messages) {
  net.emit(m.type, m);
  if (m.seq) net.lastSeq = Math.max(net.lastSeq, m.seq);
  out.push({
    type: m.type,
    room: {
      roomId: game.roomId, mode: game.mode, state: game.state, code: game.code,
      codeTyped: game.codeTyped, public: game.public, rated: game.rated, paired: game.paired,
      watch: game.watch, delayS: game.delayS, cells: game.cells, round: game.round,
      host: game.host, you: game.you, role: game.role, spectators: game.spectators,
      invite: game.invite, startsAt: game.startsAt, startedAt: game.startedAt, par: game.par,
      results: game.results, ratings: game.ratings,
    },
    players: game.order.map((id) => {
      const p = game.players.get(id);
      return { player_id: id, name: p.name, status: p.status, moves: p.moves,
        foundation_cards: p.foundation_cards, score: p.score, rank: p.rank, time_ms: p.time_ms,
        perfect: Boolean(p.perfect), lost: p.lost, role: p.role, board: p.board !== null,
        legal: p.legal ?? null };
    }),
    asked: net.asked.splice(0),
  });
}
process.stdout.write(JSON.stringify(out));
