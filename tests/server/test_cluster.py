"""Races on a real Redis Cluster (3 masters, 3 replicas): across two server instances, and
through the failover of the master that holds the room.

Skipped where ``redis-server`` is missing; under ``SEAHAVEN_REQUIRE_CLUSTER=1`` (CI) they
fail instead.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster

from server.daily.deal import daily_deal, today
from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from server.store.keys import Keys
from tests.rediscluster import RedisClusterProc, available, cli
from tests.server.test_daily_server import ENV, line_of, play, start_daily
from tests.serverproc import FAST, ServerProc, WsClient, running_server

CODE = "SH1-C4-AAAAAAD"
KEYS = Keys()

pytestmark = pytest.mark.skipif(
    not available() and not os.environ.get("SEAHAVEN_REQUIRE_CLUSTER"),
    reason="redis-server and redis-cli are needed for a Redis Cluster",
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisClusterProc]:
    """A fresh cluster for this module's tests (SIGKILLed nodes come back as replicas)."""
    with RedisClusterProc.start() as started:
        print(f"\ncluster up in {started.startup_s:.2f} s")
        yield started


@pytest.fixture
async def client(cluster: RedisClusterProc) -> AsyncIterator[RedisCluster]:
    """A cluster client of the test's own."""
    r = RedisCluster.from_url(cluster.seed_url, decode_responses=True)
    await r.initialize()
    yield r
    await r.aclose()


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


async def open_race(
    host: ServerProc, other: ServerProc
) -> tuple[str, WsClient, WsClient, WsClient]:
    """ann hosts on ``host``; bob races and spy watches on ``other``; the race starts."""
    ann = await WsClient.connect(host.ws_url, "ann")
    bob = await WsClient.connect(other.ws_url, "bob")
    spy = await WsClient.connect(other.ws_url, "spy")
    await ann.send({"type": "create_room", "code": CODE})
    room = str((await ann.expect("snapshot"))["room_id"])
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await spy.send({"type": "join", "room": room, "role": "spectator"})
    await spy.expect("snapshot")
    await ann.send({"type": "start"})
    for c in (ann, bob, spy):
        await c.expect("started")
    return room, ann, bob, spy


async def test_race_across_two_instances_on_the_cluster(cluster: RedisClusterProc) -> None:
    line = solve(Board.from_code(CODE), timeout=10).moves
    published = command_calls(cluster, "publish"), command_calls(cluster, "spublish")
    with on_cluster(cluster) as one, on_cluster(cluster) as two:
        _, ann, bob, spy = await open_race(one, two)
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


async def test_a_daily_game_ranks_and_pushes_across_instances_on_the_cluster(
    cluster: RedisClusterProc,
) -> None:
    """The day's leaderboard (one script on its rank and entries), the attempt, the player's
    history and streak, the push to a watcher on the other instance, the player page."""
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    with on_cluster(cluster, env=ENV) as one, on_cluster(cluster, env=ENV) as two:
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

    async def answer(self, action_id: int, timeout: float) -> str:
        """What came back for a move: ack, reject, error, closed or timeout."""
        assert self.client is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.client.find("ack", id=action_id) is not None:
                return "ack"
            if self.client.find("reject", id=action_id) is not None:
                return "reject"
            if self.client.find("error") is not None:
                return "error"
            if self.client.closed:
                return "closed"
            await asyncio.sleep(0.002)
        return "timeout"

    async def play(self, go_on: asyncio.Event, r: RedisCluster, pid: str, token: str) -> None:
        """Play the line to the end, pausing at the first failure until ``go_on``."""
        i = 0
        while i < len(self.line):
            assert self.client is not None
            await self.client.send(wire(self.line[i], i))
            got = await self.answer(i, 3.0)
            if got != "ack":
                self.trace.append((i, got))
            if got == "ack":
                msg = [m for m in self.client.messages if m.get("type") == "ack"][-1]
                self.acked[i] = int(msg["seq"])
                if go_on.is_set() and not self.first_ack_after:
                    self.first_ack_after = time.monotonic()
                i += 1
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
            with_log = await r.llen(KEYS.log(self.room, 1, pid))
            i = int(with_log)


async def race_through_failover(cluster: RedisClusterProc, durable: bool) -> dict[str, Any]:
    """A race whose room's master is SIGKILLed mid-race; returns what was measured."""
    line = solve(Board.from_code(CODE), timeout=10).moves
    flags = ("--durable",) if durable else ()
    r = RedisCluster.from_url(cluster.seed_url, decode_responses=True)
    await r.initialize()
    try:
        with on_cluster(cluster, *flags) as one, on_cluster(cluster, *flags) as two:
            room, ann_c, bob_c, spy = await open_race(one, two)
            ann = Racer("ann", one, line, room, ann_c)
            bob = Racer("bob", two, line, room, bob_c)
            go_on = asyncio.Event()
            tasks = [
                asyncio.create_task(ann.play(go_on, r, ann_c.player_id, ann_c.token)),
                asyncio.create_task(bob.play(go_on, r, bob_c.player_id, bob_c.token)),
            ]
            while len(ann.acked) < 15 or len(bob.acked) < 15:
                await asyncio.sleep(0.005)
            master = cluster.master_of(KEYS.room(room))
            killed_at = time.monotonic()
            cluster.kill(master)
            await asyncio.wait_for(asyncio.gather(ann.hit.wait(), bob.hit.wait()), timeout=30)
            await asyncio.to_thread(cluster.wait_ok, 30)
            promoted_after = time.monotonic() - killed_at
            # Count acknowledged moves the new master does not have.
            await r.aclose()
            r = RedisCluster.from_url(cluster.seed_url, decode_responses=True)
            await r.initialize()
            lost = 0
            for racer, c in ((ann, ann_c), (bob, bob_c)):
                ids = await r.hgetall(KEYS.ids(room, 1, c.player_id))
                lost += sum(1 for i in racer.acked if str(i) not in ids)
            go_on.set()
            # The crashed node comes back (empty) as the new master's replica, so that
            # --durable has a replica to confirm to again (until then it answers busy).
            await asyncio.to_thread(cluster.restart, master)
            try:
                await asyncio.wait_for(asyncio.gather(*tasks), timeout=60)
            except TimeoutError:
                for racer in (ann, bob):
                    tail = racer.client.messages[-5:] if racer.client else []
                    print(racer.name, racer.trace[-20:], tail)
                print(one.log()[-3000:], two.log()[-3000:])
                raise
            client_failover = min(ann.first_ack_after, bob.first_ack_after) - killed_at
            for racer in (ann, bob):
                assert racer.client is not None
                await racer.client.expect("finished", timeout=10)
            await spy.expect("race_over", timeout=10)
            assert one.health()["ok"] and two.health()["ok"]
            for ws in (ann.client, bob.client, spy):
                if ws is not None:
                    await ws.close()
    finally:
        await r.aclose()
    return {"lost": lost, "promoted_s": promoted_after, "client_s": client_failover}


@pytest.mark.parametrize("durable", [False, True], ids=["async", "durable"])
async def test_failover_mid_race(cluster: RedisClusterProc, durable: bool) -> None:
    found = await race_through_failover(cluster, durable)
    print(
        f"\nfailover ({'durable' if durable else 'async'}): acknowledged moves lost "
        f"{found['lost']}, promoted after {found['promoted_s']:.2f} s, first ack after the "
        f"kill {found['client_s']:.2f} s"
    )
    if durable:
        assert found["lost"] == 0
