// One load process of bench/peer.py against the Colyseus room of server.js, with the
// Colyseus client: rooms of 4 racers and their spectators, set up before any starts, then
// raced at one action a second per racer along the lines bench/move_cost.py races.
//
// Run: node load.js CONFIG.json, where the config holds {url, first, rooms, spectators,
// deals: [{code, actions: [{type, ...payload}]}], result}. It prints {"ready": n} once its
// rooms are set up, reads {"go_at", "stop_at"} (Unix seconds) from stdin, writes to the file
// `result` the ack latencies (ms) and the bytes and frames its clients received while
// racing, and prints {"done": true}. (A pipe takes a large line only in parts, and a
// process that exits at once may cut it.)

import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { Client } from "@colyseus/sdk";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const out = {
  latencies: [],
  rejects: 0,
  unanswered: 0,
  acked: 0,
  bytes: 0,
  frames: 0,
  failed: [],
};

/** A websocket frame's bytes on the wire: the server's frames are unmasked. */
const frameBytes = (n) => n + (n < 126 ? 2 : n < 65536 ? 4 : 10);

/** One connection to a room: counts what it receives once the race is on. */
function watch(room) {
  const conn = { room, racing: false, pending: new Map(), started: null };
  conn.started = new Promise((resolve) => room.onMessage("started", resolve));
  room.onMessage("ack", (msg) => {
    const sent = conn.pending.get(msg.id);
    if (sent !== undefined) {
      conn.pending.delete(msg.id);
      out.latencies.push(performance.now() - sent);
      out.acked += 1;
    }
  });
  room.onMessage("reject", (msg) => {
    out.rejects += 1;
    conn.pending.delete(msg.id);
  });
  const events = room.connection.events;
  const onmessage = events.onmessage;
  events.onmessage = (event) => {
    if (conn.racing) {
      out.bytes += frameBytes(event.data.byteLength);
      out.frames += 1;
    }
    onmessage(event);
  };
  return conn;
}

async function setUpRoom(index) {
  const deal = config.deals[index % config.deals.length];
  const client = new Client(config.url);
  const host = watch(await client.create("race", { code: deal.code, spectators: config.spectators }));
  const racers = [host];
  for (let i = 1; i < 4; i++) racers.push(watch(await client.joinById(host.room.roomId, { role: "player" })));
  const spectators = [];
  for (let i = 0; i < config.spectators; i++) {
    spectators.push(watch(await client.joinById(host.room.roomId, { role: "spectator" })));
  }
  return { racers, spectators, deal };
}

async function play(conn, actions, stopAt) {
  await sleep(Math.random() * 1000);
  let next = performance.now();
  for (let i = 0; i < actions.length; i++) {
    if (Date.now() / 1000 >= stopAt) return;
    const { type, ...payload } = actions[i];
    conn.pending.set(payload.id, performance.now());
    conn.room.send(type, payload);
    next += 1000;
    await sleep(next - performance.now());
  }
}

async function raceRoom(room, goAt, stopAt) {
  await sleep(goAt * 1000 - Date.now());
  const all = [...room.racers, ...room.spectators];
  room.racers[0].room.send("start");
  await Promise.all(all.map((c) => c.started));
  for (const c of all) c.racing = true;
  await Promise.all(room.racers.map((c) => play(c, room.deal.actions, stopAt)));
  // As the Python load does: the last move had a second; what is unanswered now counts.
  for (const c of all) c.racing = false;
  for (const c of room.racers) out.unanswered += c.pending.size;
  await Promise.all(all.map((c) => c.room.leave().catch(() => {})));
}

async function main() {
  const rooms = [];
  let next = 0;
  const worker = async () => {
    // 25 rooms being set up at once, as the Python load does: do not flood the accept.
    while (next < config.rooms) {
      const i = next++;
      try {
        rooms.push(await setUpRoom(config.first + i));
      } catch (err) {
        if (out.failed.length < 5) out.failed.push(String(err?.stack ?? err));
        else out.failed.push("");
      }
    }
  };
  await Promise.all(Array.from({ length: 25 }, worker));
  process.stdout.write(JSON.stringify({ ready: rooms.length }) + "\n");
  const lines = createInterface({ input: process.stdin });
  const go = JSON.parse((await lines[Symbol.asyncIterator]().next()).value);
  const raced = await Promise.allSettled(rooms.map((r) => raceRoom(r, go.go_at, go.stop_at)));
  for (const r of raced) if (r.status === "rejected") out.failed.push(String(r.reason));
  finish(0);
}

function finish(status) {
  writeFileSync(config.result, JSON.stringify(out));
  process.stdout.write(JSON.stringify({ done: true }) + "\n", () => process.exit(status));
}

main().catch((err) => {
  out.failed.push(`load process failed: ${err?.stack ?? err}`);
  process.stdout.write(JSON.stringify({ ready: 0 }) + "\n");
  finish(1);
});
