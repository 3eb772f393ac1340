"""Races on a real Redis Cluster (3 masters, 3 replicas): across two server instances, and
through the failover of the master that holds the room.

Skipped where ``redis-server`` is missing; under ``SEAHAVEN_REQUIRE_CLUSTER=1`` (CI) they
fail instead.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.asyncio.cluster import RedisCluster

from server.daily.deal import today
from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal, wait_daily
from tests.helpers.daily_server import ENV, line_of, play, start_daily
from tests.helpers.markers import needs_cluster
from tests.helpers.private_redis import private_redis
from tests.helpers.rediscluster import RedisClusterProc, cli
from tests.helpers.serverproc import FAST, ServerProc, WsClient, open_race, running_server
from tests.helpers.waits import until

CODE = "SH1-C4-AAAAAAD"
KEYS = Keys()

pytestmark = needs_cluster


def on_cluster(cluster: RedisClusterProc, *flags: str, env: dict[str, str] | None = None) -> Any:
    """A server instance on the cluster (``REDIS_URL`` unset: the flags are exclusive)."""
    args = ["--redis-cluster", cluster.seed_url, *FAST, *flags]
    return running_server(None, args=args, env=env)


def command_calls(cluster: RedisClusterProc, command: str) -> int:
    """How often the live nodes ran ``command`` (scripts' calls included)."""
    total = 0
    for port in cluster.live_ports():
        for line in cli(port, "info", "commandstats").splitlines():
            if line.startswith(f"cmdstat_{command}:calls="):
                total += int(line.split("=", 1)[1].split(",", 1)[0])
    return total


def wire(text: str, action_id: int) -> dict[str, Any]:
    action = parse_action(text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


async def race_on_two(
    host: ServerProc, other: ServerProc
) -> tuple[str, WsClient, WsClient, WsClient]:
    """ann hosts on ``host``; bob races and spy watches on ``other``; the race starts."""
    ann = await WsClient.connect(host.ws_url, "ann")
    bob = await WsClient.connect(other.ws_url, "bob")
    spy = await WsClient.connect(other.ws_url, "spy")
    room = await open_race(CODE, ann, [bob], [spy])
    return room, ann, bob, spy


async def test_race_across_two_instances_on_the_cluster(cluster: RedisClusterProc) -> None:
    line = solve(Board.from_code(CODE), timeout=10).moves
    published = command_calls(cluster, "publish"), command_calls(cluster, "spublish")
    with on_cluster(cluster) as one, on_cluster(cluster) as two:
        _, ann, bob, spy = await race_on_two(one, two)
        for i, text in enumerate(line):
            await ann.send(wire(text, i))
            await ann.expect("ack", id=i)
            await bob.send(wire(text, i))
            await bob.expect("ack", id=i)
        for who in (ann, bob):
            await spy.expect("finished", player_id=who.player_id)
        await spy.expect("race_over")
        # Every event reached both instances' sockets: the spectator saw every board move,
        # each racer every progress of the other (sharded pub/sub across instances).
        for who in (ann, bob):
            moves = [
                m["moves"]
                for m in spy.messages
                if m["type"] == "delta" and m["player_id"] == who.player_id
            ]
            assert moves == list(range(1, len(line) + 1))
        await ann.expect("race_over")
        assert [
            m["moves"]
            for m in ann.messages
            if m["type"] == "progress" and m["player_id"] == bob.player_id
        ] == list(range(1, len(line) + 1))
        seqs = [int(m["seq"]) for m in spy.messages if "seq" in m and m["type"] != "ack"]
        assert seqs == sorted(set(seqs)), "the spectator missed or repeated an event"
        for c in (ann, bob, spy):
            await c.close()
        assert one.health()["ok"] and two.health()["ok"]
    # The room's events went out on sharded pub/sub only (a PUBLISH reaches every node).
    assert command_calls(cluster, "publish") == published[0]
    assert command_calls(cluster, "spublish") >= published[1] + 2 * len(line)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make a certificate")
async def test_a_race_on_a_cluster_that_speaks_only_tls() -> None:
    """``--redis-cluster rediss://``: the shared client, the move pipeline and the shard
    connections of the room channels all reach nodes that accept TLS only."""
    line = solve(Board.from_code(CODE), timeout=10).moves[:6]
    with RedisClusterProc.start(replicas=0, tls=True) as cluster:
        assert cluster.seed_url.startswith("rediss://")
        with on_cluster(cluster) as one, on_cluster(cluster) as two:
            _, ann, bob, spy = await race_on_two(one, two)
            for i, text in enumerate(line):
                await ann.send(wire(text, i))
                await ann.expect("ack", id=i)
            # The other instance's sockets heard every move (sharded pub/sub over TLS).
            await spy.expect("delta", player_id=ann.player_id, moves=len(line))
            await bob.expect("progress", player_id=ann.player_id, moves=len(line))
            for c in (ann, bob, spy):
                await c.close()
            assert one.health()["ok"] and two.health()["ok"]
        assert command_calls(cluster, "spublish") >= len(line)


async def test_every_room_script_runs_on_the_cluster(cluster: RedisClusterProc) -> None:
    """Each room script (a CROSSSLOT error would fail it) and the reads beside them: a
    public room's listing, the watch mode, a give-up, a leave mid-race, an absence that runs
    out (the deadlines), a finish, a rematch, a resume from the first event, a solo game."""
    grace = ("--away-grace-ms", "300")
    with on_cluster(cluster, *grace) as one, on_cluster(cluster, *grace) as two:
        ann = await WsClient.connect(one.ws_url, "ann")
        bob = await WsClient.connect(two.ws_url, "bob")
        cat = await WsClient.connect(one.ws_url, "cat")
        dan = await WsClient.connect(two.ws_url, "dan")
        spy = await WsClient.connect(two.ws_url, "spy")
        await ann.send({"type": "create_room", "public": True})
        room = str((await ann.expect("snapshot"))["room_id"])
        await ann.send({"type": "watch_mode", "mode": "progress"})
        await ann.expect("room")
        for racer in (bob, cat, dan):
            await racer.send({"type": "join", "room": room, "role": "player"})
            await racer.expect("snapshot")
        await spy.send({"type": "join", "room": room, "role": "spectator"})
        await spy.expect("snapshot")
        await ann.send({"type": "start"})
        for c in (bob, cat, dan, spy):
            await c.expect("started")
        code = str((await ann.expect("started"))["code"])
        line = solve(Board.from_code(code), timeout=10).moves
        status, live = two.get_json("/api/rooms/live")
        assert status == 200 and room in [r["room_id"] for r in live["rooms"]], live
        for i in range(3):
            await ann.send(wire(line[i], i))
            await ann.expect("ack", id=i)
        await bob.send({"type": "give_up"})
        await spy.expect("gave_up", player_id=bob.player_id)
        await cat.send({"type": "leave"})
        await spy.expect("gave_up", player_id=cat.player_id)
        await dan.close()  # gone: once the grace runs out, an instance gives dan up
        await spy.expect("gave_up", player_id=dan.player_id, timeout=10)
        for i in range(3, len(line)):
            await ann.send(wire(line[i], i))
            await ann.expect("ack", id=i)
        await spy.expect("race_over")
        await ann.send({"type": "rematch"})
        # The spectator hears the new round as a room event, or in the snapshot that the end
        # of a progress-only race sends it (the boards revealed) if that comes after.
        deadline = time.monotonic() + 5
        while not any(
            m["type"] in ("room", "snapshot") and m.get("round") == 2 and m["state"] == "lobby"
            for m in spy.messages
        ):
            assert time.monotonic() < deadline, spy.messages[-3:]
            await asyncio.sleep(0.02)
        again = await WsClient.connect(two.ws_url)
        await again.send({"type": "resume", "room": room, "token": bob.token, "last_seq": 0})
        await again.expect("welcome")
        await again.send({"type": "ping"})
        await again.expect("pong")
        solo = await WsClient.connect(two.ws_url, "solo")
        await solo.send({"type": "solo", "code": code})
        await solo.expect("snapshot")
        await solo.send(wire(line[0], 1))
        await solo.expect("ack", id=1)
        for c in (ann, bob, cat, spy, again, solo):
            await c.close()
        assert "Traceback" not in one.log() + two.log(), one.log() + two.log()


async def test_a_daily_game_ranks_and_pushes_across_instances_on_the_cluster(
    cluster: RedisClusterProc,
) -> None:
    """The day's leaderboard (one script on its rank and entries), the attempt, the player's
    history and streak, the push to a watcher on the other instance, the player page."""
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    # Established at once (--provisional-games 0): the public board lists the player.
    est = ("--provisional-games", "0")
    with on_cluster(cluster, *est, env=ENV) as one, on_cluster(cluster, *est, env=ENV) as two:
        wait_daily(one), wait_daily(two)  # the day's deals certified by one of them
        watcher = await WsClient.connect(two.ws_url, "watcher")
        await watcher.send({"type": "watch_leaderboard", "date": date, "kind": "daily"})
        await watcher.expect("leaderboard", date=date)
        player = await WsClient.connect(one.ws_url, "daily-player")
        await start_daily(player, date=date)
        await play(player, line)
        result = await player.expect("daily_result", timeout=10)
        assert result["rank"] is not None, result
        push = await watcher.expect("leaderboard", date=date, finishers=result["rank"])
        assert player.player_id in [e["player_id"] for e in push["entries"]]
        status, page = two.get_json(f"/api/player/{player.player_id}")
        assert status == 200 and page["streak"] >= 1, page
        for c in (watcher, player):
            await c.close()


async def answer_to(c: WsClient, action_id: int, timeout: float = 5.0) -> dict[str, Any]:
    """The next answer to an action: its ack, or an error."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = c.find("ack", id=action_id) or c.find("error")
        if found is not None:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"no answer to action {action_id} within {timeout}s")


async def test_durable_answers_busy_until_a_replica_has_the_move(tmp_path: Path) -> None:
    """--durable on a Redis without a replica: the move is committed but never acknowledged
    (busy, its resend too); once a replica syncs, the resend is acknowledged with the seq
    it was committed as, and play goes on."""
    line = solve(Board.from_code(CODE), timeout=10).moves
    with private_redis() as port:
        url = f"redis://127.0.0.1:{port}/0"
        flags = [*FAST, "--durable", "--durable-timeout-ms", "200"]
        with running_server(url, args=flags) as srv:
            c = await WsClient.connect(srv.ws_url, "lonely")
            await c.send({"type": "solo", "code": CODE})
            room = str((await c.expect("snapshot"))["room_id"])
            for _ in range(2):  # the move, then its resend
                await c.send(wire(line[0], 1))
                assert (await c.expect("error", timeout=5))["code"] == "busy"
            assert c.find("ack") is None
            plain = redis.Redis.from_url(url, decode_responses=True)
            ids = plain.hgetall(KEYS.ids(room, 1, c.player_id))
            assert list(ids) == ["1"], ids  # committed, not acknowledged
            # The replica writes the RDB of its first sync in its folder: a temporary one.
            replica_of = ("--replicaof", "127.0.0.1", str(port), "--dir", str(tmp_path))
            with private_redis(*replica_of) as replica:
                synced = "master_link_status:up"
                await until(lambda: synced in cli(replica, "info", "replication"), 10, "sync")
                online = "state=online"
                await until(lambda: online in cli(port, "info", "replication"), 10, "online")
                deadline = time.monotonic() + 10
                # A client resends what is answered busy. The first resend once the master
                # has the replica online may still be (in about one run in five here: WAIT
                # timed out with the replica's offset at the master's); a later one is
                # acknowledged, with the seq the move was committed as.
                busy_after = -1
                answer: dict[str, Any] = {"type": "error"}
                while answer["type"] == "error" and time.monotonic() < deadline + 5:
                    assert answer.get("code", "busy") == "busy", answer
                    busy_after += 1
                    await asyncio.sleep(0.2 if busy_after else 0)
                    await c.send(wire(line[0], 1))
                    answer = await answer_to(c, 1)
                print(f"\nbusy answers after the replica was online: {busy_after}")
                assert answer["type"] == "ack" and answer["seq"] == int(ids["1"]), answer
                assert plain.hgetall(KEYS.ids(room, 1, c.player_id)) == ids  # applied once
                await c.send(wire(line[1], 2))
                await c.expect("ack", id=2)
            plain.close()
            await c.close()


async def log_length(r: RedisCluster, key: str) -> int:
    """A board's log length, read again while the cluster answers TRYAGAIN (a migration)."""
    for _ in range(50):
        try:
            return int(await r.llen(key))
        except redis.RedisError:
            await asyncio.sleep(0.1)
    raise AssertionError(f"{key} could not be read")


@dataclass
class Racer:
    """A racer that plays the solver's line as fast as acks come, and stops at the first
    failure until told to go on (then it reconnects if needed and resyncs from Redis)."""

    name: str
    server: ServerProc
    line: tuple[str, ...]
    room: str = ""
    client: WsClient | None = None
    acked: dict[int, int] = field(default_factory=dict)
    hit: asyncio.Event = field(default_factory=asyncio.Event)
    first_ack_after: float = 0.0
    trace: list[tuple[int, str]] = field(default_factory=list)
    #: Seconds between an ack and the next move.
    pace: float = 0.0

    async def answer(self, action_id: int, timeout: float) -> tuple[str, dict[str, Any]]:
        """What came back for a move: ack, reject, error, closed or timeout."""
        assert self.client is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for kind in ("ack", "reject"):
                found = self.client.find(kind, id=action_id)
                if found is not None:
                    return kind, found
            found = self.client.find("error")
            if found is not None:
                return "error", found
            if self.client.closed:
                return "closed", {}
            await asyncio.sleep(0.002)
        return "timeout", {}

    async def play(self, go_on: asyncio.Event, r: RedisCluster, pid: str, token: str) -> None:
        """Play the line to the end, pausing at the first failure until ``go_on`` (``hit``
        says it stopped, or finished)."""
        i = 0
        while i < len(self.line):
            assert self.client is not None
            await self.client.send(wire(self.line[i], i))
            got, msg = await self.answer(i, 3.0)
            if got != "ack":
                self.trace.append((i, got))
            if got == "ack":
                self.acked[i] = int(msg["seq"])
                if go_on.is_set() and not self.first_ack_after:
                    self.first_ack_after = time.monotonic()
                i += 1
                if self.pace:
                    await asyncio.sleep(self.pace)
                continue
            if not self.hit.is_set():
                self.hit.set()
                await go_on.wait()
            elif got != "reject":
                await asyncio.sleep(0.05)
            if self.client.closed:
                self.client = await WsClient.connect(self.server.ws_url)
                await self.client.send(
                    {"type": "resume", "room": self.room, "token": token, "last_seq": 0}
                )
                await self.client.expect("welcome")
            # Resync: the board in Redis is a prefix of the line (replication keeps order).
            i = await log_length(r, KEYS.log(self.room, 1, pid))
        self.hit.set()  # done before anything failed: nothing to wait for either


async def race_through_failover(
    cluster: RedisClusterProc, durable: bool, per_instance: int = 3
) -> dict[str, Any]:
    """A race of ``per_instance`` racers on each of two instances (and a spectator) whose
    room's master is SIGKILLed mid-race; returns what was measured."""
    line = solve(Board.from_code(CODE), timeout=10).moves
    flags = ("--durable",) if durable else ()
    r = RedisCluster.from_url(cluster.seed_url, decode_responses=True)
    await r.initialize()
    try:
        with on_cluster(cluster, *flags) as one, on_cluster(cluster, *flags) as two:
            clients = [
                await WsClient.connect((one if n % 2 == 0 else two).ws_url, f"r{n}")
                for n in range(2 * per_instance)
            ]
            spy = await WsClient.connect(two.ws_url, "spy")
            room = await open_race(CODE, clients[0], clients[1:], [spy])
            racers = [
                Racer(f"r{n}", one if n % 2 == 0 else two, line, room, c)
                for n, c in enumerate(clients)
            ]
            go_on = asyncio.Event()
            tasks = [
                asyncio.create_task(racer.play(go_on, r, c.player_id, c.token))
                for racer, c in zip(racers, clients, strict=True)
            ]
            while min(len(racer.acked) for racer in racers) < 15:
                await asyncio.sleep(0.005)
            master = cluster.master_of(KEYS.room(room))
            killed_at = time.monotonic()
            cluster.kill(master)
            hits = [racer.hit.wait() for racer in racers]
            await asyncio.wait_for(asyncio.gather(*hits), timeout=30)
            await asyncio.to_thread(cluster.wait_ok, 30)
            promoted_after = time.monotonic() - killed_at
            # Count acknowledged moves the new master does not have (a client of its own:
            # the racers' one is in use).
            count = RedisCluster.from_url(cluster.seed_url, decode_responses=True)
            await count.initialize()
            lost = acked = 0
            for racer, c in zip(racers, clients, strict=True):
                ids = await count.hgetall(KEYS.ids(room, 1, c.player_id))
                lost += sum(1 for i in racer.acked if str(i) not in ids)
                acked += len(racer.acked)
            await count.aclose()
            go_on.set()
            # The crashed node comes back (empty, a new node) as the new master's replica, so
            # that --durable has a replica to confirm to again (until then it answers busy).
            await asyncio.to_thread(cluster.rejoin, master)
            try:
                await asyncio.wait_for(asyncio.gather(*tasks), timeout=60)
            except TimeoutError:
                for racer in racers:
                    tail = racer.client.messages[-5:] if racer.client else []
                    print(racer.name, racer.trace[-20:], tail)
                print(one.log()[-3000:], two.log()[-3000:])
                raise
            client_failover = min(racer.first_ack_after for racer in racers) - killed_at
            for racer in racers:
                assert racer.client is not None
                await racer.client.expect("finished", timeout=10)
            await spy.expect("race_over", timeout=10)
            assert one.health()["ok"] and two.health()["ok"]
            for ws in (*(racer.client for racer in racers), spy):
                if ws is not None:
                    await ws.close()
    finally:
        await r.aclose()
    return {
        "lost": lost,
        "acked": acked,
        "promoted_s": promoted_after,
        "client_s": client_failover,
    }


async def test_a_race_goes_on_while_its_slot_moves_to_another_master(
    cluster: RedisClusterProc,
) -> None:
    """Resharding mid-race: the room's keys migrate to another master in small batches
    (ASK for the keys already moved, TRYAGAIN for a script whose keys are split, MOVED once
    done), the spectator's instance moves its subscription, and nothing is lost."""
    line = solve(Board.from_code(CODE), timeout=10).moves
    r = RedisCluster.from_url(cluster.seed_url, decode_responses=True)
    await r.initialize()
    try:
        with on_cluster(cluster) as one, on_cluster(cluster) as two:
            room, ann_c, bob_c, spy = await race_on_two(one, two)
            racers = [
                Racer("ann", one, line, room, ann_c, pace=0.02),
                Racer("bob", two, line, room, bob_c, pace=0.02),
            ]
            go_on = asyncio.Event()
            go_on.set()  # a failure (busy) is retried at once: nothing is lost in a migration
            tasks = [
                asyncio.create_task(racer.play(go_on, r, c.player_id, c.token))
                for racer, c in ((racers[0], ann_c), (racers[1], bob_c))
            ]
            while min(len(racer.acked) for racer in racers) < 10:
                await asyncio.sleep(0.005)
            source = cluster.master_of(KEYS.room(room))
            target = next(p for p in sorted(cluster.masters()) if p != source)
            await asyncio.to_thread(cluster.migrate_slot, KEYS.room(room), target, 0.2)
            assert cluster.master_of(KEYS.room(room)) == target
            await asyncio.wait_for(asyncio.gather(*tasks), timeout=60)
            await spy.expect("race_over", timeout=10)
            for racer, c in ((racers[0], ann_c), (racers[1], bob_c)):
                ids = await r.hgetall(KEYS.ids(room, 1, c.player_id))
                assert all(str(i) in ids for i in racer.acked), "an acknowledged move was lost"
                seen = {
                    m["moves"]
                    for m in spy.messages
                    if m["type"] == "delta" and m["player_id"] == c.player_id
                }
                assert seen == set(range(1, len(line) + 1)), (
                    "the spectator missed a move",
                    sorted(set(range(1, len(line) + 1)) - seen),
                    [m.get("seq") for m in spy.messages],
                    [x for x in two.log().splitlines() if "rror" in x or "WARN" in x][-20:],
                )
            print(f"\nmigration: moves answered busy {[racer.trace for racer in racers]}")
            for ws in (*(racer.client for racer in racers), spy):
                if ws is not None:
                    await ws.close()
    finally:
        await r.aclose()


@pytest.mark.parametrize("durable", [False, True], ids=["async", "durable"])
async def test_failover_mid_race(
    cluster: RedisClusterProc, durable: bool, record_property: Callable[[str, object], None]
) -> None:
    found = await race_through_failover(cluster, durable)
    for name, value in found.items():
        record_property(name, value)
    print(
        f"\nfailover ({'durable' if durable else 'async'}): {found['lost']} of {found['acked']} "
        f"acknowledged moves lost, replica promoted {found['promoted_s']:.2f} s after the "
        f"kill, first ack {found['client_s']:.2f} s after it"
    )
    if durable:
        assert found["lost"] == 0


@pytest.mark.parametrize("durable", [False, True], ids=["async", "durable"])
async def test_a_replica_promoted_before_its_first_sync(
    durable: bool, record_property: Callable[[str, object], None]
) -> None:
    """Asynchronous replication at its worst, on purpose: each master holds back its first
    sync to its replica (a minute), the room's master dies, and its replica takes over with
    nothing. Without --durable every move acknowledged in the room is lost (not luck: the
    replica never had one); with it none was acknowledged (busy: no replica confirmed)."""
    line = solve(Board.from_code(CODE), timeout=10).moves
    flags = ("--durable", "--durable-timeout-ms", "200") if durable else ()
    with (
        RedisClusterProc.start(first_sync_delay_s=60) as fresh,
        on_cluster(fresh, *flags) as srv,
    ):
        c = await WsClient.connect(srv.ws_url, "hasty")
        await c.send({"type": "solo", "code": CODE})
        room = str((await c.expect("snapshot"))["room_id"])
        acked: list[int] = []
        for i in range(1, 6):
            await c.send(wire(line[0 if durable else i - 1], i))
            racer = Racer("hasty", srv, line, room, c)
            got, _ = await racer.answer(i, 3.0)
            assert got == ("error" if durable else "ack"), got
            if got == "ack":
                acked.append(i)
        fresh.kill(fresh.master_of(KEYS.room(room)))
        await asyncio.to_thread(fresh.wait_ok, 30, False)
        r = RedisCluster.from_url(fresh.seed_url, decode_responses=True)
        await r.initialize()
        ids = await r.hgetall(KEYS.ids(room, 1, c.player_id))
        await r.aclose()
        lost = sum(1 for i in acked if str(i) not in ids)
        record_property("acked", len(acked))
        record_property("lost", lost)
        print(
            f"\nunsynced replica ({'durable' if durable else 'async'}): {lost} of "
            f"{len(acked)} acknowledged moves lost"
        )
        assert lost == len(acked) == (0 if durable else 5)
        await c.close()
