"""Bounded storage: a busy server's every key belongs to a family of the storage table
(docs/server.md), expires (or is the one permanent ``deadlines`` key), and stays within
its size bound; a room takes a bounded number of spectators; a game alone that is over
lets its room go in minutes. (An address's bound on new identities: ``play/test_identity.py``.)"""

from __future__ import annotations

import asyncio
import re

import pytest
import redis.asyncio as aioredis

from server.clients.bot import action_message
from server.engine import Board
from server.engine.solver import solve
from server.net import wire
from server.store.families import FAMILIES, Family
from server.store.keys import Keys
from server.store.status import Status
from server.store.store import Store
from tests import ROOT
from tests.helpers.serverproc import FAST, QUICK, REVIEW_OFF, WsClient, redis_url, running_server
from tests.helpers.store_rooms import joined, made

CODE = "SH1-C4-AAAAAAB"
LINE = solve(Board.from_code(CODE)).moves
#: A game alone's room keys after it is over (``--finished-room-ttl``), and a room's own.
SHORT = 120
ROOM_TTL = 6 * 3600

#: The size bound of each family for the server this test runs (its settings below).
BOUNDS = {
    "room:{R}": 40,
    "room:{R}:members": 8 + 3,
    "room:{R}:events": 2000,
    "room:{R}:log:N:P": 5000,
    "room:{R}:ids:N:P": 5000,
    "room:{R}:res:N": 16,
    "room:{R}:here": 11,
    "session:T": 2,
    "player:{P}:races": 6,
    "player:{P}:recent": 20,
    "player:{P}:counted": 1000,
    "player:{P}:days": 401,
    "daily:{D:K}:attempts": 1000,
    "daily:{D:K}:rank": 1000,
    "daily:{D:K}:entries": 1000,
    "deadlines": 1000,
    "rooms:live": 500,
    "queue:{q}:V:wait": 5000,
    "queue:{q}:V:info": 5000,
    "rating:{P}:V": 6,
    "rating:{P}:V:hist": 100,
    "rating:{P}:applied": 50,
    "rating:{P}:races": 20,
}


def family_of(name: str) -> Family:
    """The one family a key name (after the prefix) belongs to."""
    found = [f for f in FAMILIES if f.regex().fullmatch(name)]
    assert len(found) == 1, (name, [f.pattern for f in found])
    return found[0]


async def size(r: aioredis.Redis, key: str, kind: str) -> int:
    """The number of items of a key."""
    if kind == "hash":
        return int(await r.hlen(key))
    if kind == "list":
        return int(await r.llen(key))
    if kind == "zset":
        return int(await r.zcard(key))
    return 1


def test_the_server_docs_show_every_family() -> None:
    readme = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    for family in FAMILIES:
        row = f"| `{family.pattern}` | {family.kind} | {family.bound} | {family.lifetime} |"
        assert row in readme, row


@pytest.mark.slow
async def test_every_key_of_a_busy_server_is_in_the_table(key_prefix: str) -> None:
    prefix = key_prefix
    env = {"SEAHAVEN_KEY_PREFIX": prefix}
    args = [*QUICK, "--countdown-ms", "100", "--spectators-per-room", "3"]
    args += ["--away-grace-ms", "300", *REVIEW_OFF]
    args += ["--rated-min-actions", "0"]  # Bob's give-up counts
    args += ["--provisional-games", "0"]  # on the top list at once
    with running_server(redis_url(), args=args, env=env) as srv:
        clients: list[WsClient] = []
        for round_ in range(4):  # races: a win, a give-up, a racer gone, spectators
            ann = await WsClient.connect(srv.ws_url, f"Ann{round_}")
            bob = await WsClient.connect(srv.ws_url, f"Bob{round_}")
            eve = await WsClient.connect(srv.ws_url, f"Eve{round_}")
            await ann.send({"type": "create_room", "code": CODE})
            room = (await ann.expect("snapshot"))["room_id"]
            await bob.send({"type": "join", "room": room, "role": "player"})
            await eve.send({"type": "join", "room": room, "role": "spectator"})
            await bob.expect("snapshot")
            await eve.expect("snapshot")
            await ann.send({"type": "rated", "rated": True})  # ratings and their history
            await ann.send({"type": "start"})
            await ann.expect("started")
            for i, text in enumerate(LINE, 1):
                await ann.send(action_message(text, i))
                await ann.expect("ack", id=i)
            if round_ % 2:
                await bob.send({"type": "give_up"})
            else:
                await bob.close()  # gone: given up after the away grace
            await ann.expect("race_over", timeout=5)
            clients += [ann, eve]
        for n in range(10):  # games alone, and identities that only say hello
            solo = await WsClient.connect(srv.ws_url, f"Solo{n}")
            await solo.send({"type": "solo", "cells": 1 + n % 2})
            await solo.expect("snapshot")
            await solo.send(action_message("undo", 1))
            await solo.expect("reject", id=1)
            clients.append(solo)
        public = await WsClient.connect(srv.ws_url, "Pub")  # a public race: listed, moving
        await public.send({"type": "create_room", "public": True})
        await public.expect("snapshot")
        await public.send({"type": "start"})
        drawn = (await public.expect("started"))["code"]
        await public.send(action_message(solve(Board.from_code(drawn)).moves[0], 1))
        await public.expect("ack", id=1)
        clients.append(public)
        waiter = await WsClient.connect(srv.ws_url, "Waiter")  # the quick-race queue
        await waiter.send({"type": "queue", "cells": 2})
        await waiter.expect("queued")
        clients.insert(0, waiter)
        daily = await WsClient.connect(srv.ws_url, "Day")
        await daily.send({"type": "daily"})
        await daily.expect("snapshot")
        clients.append(daily)
        await asyncio.sleep(1.0)  # finishes are recorded in the background
        for c in clients:
            await c.close()
        await asyncio.sleep(0.5)

    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        seen: set[str] = set()
        async for key in r.scan_iter(match=f"{prefix}*", count=1000):
            name = key[len(prefix) :]
            family = family_of(name)
            # Read at one instant (a lease of a few seconds may lapse between two reads).
            async with r.pipeline(transaction=True) as pipe:
                pipe.type(key)
                pipe.pttl(key)
                kind, ttl = await pipe.execute()
            if kind == "none":
                continue  # lapsed since the scan found it
            seen.add(family.pattern)
            assert kind == family.kind, (name, kind)
            if family.expires:
                assert int(ttl) > 0, (name, ttl)
            else:
                assert int(ttl) == -1 and family.pattern == "deadlines", name
            bound = BOUNDS.get(family.pattern)
            if bound is not None:
                assert await size(r, key, kind) <= bound, name
        # The game kinds above touched most families.
        patterns: tuple[str, ...] = (
            "room:{R}:log:N:P",
            "replay:ID",
            "player:{P}:races",
            "session:T",
            "rooms:live",
        )
        patterns += ("rating:{P}:V", "rating:{P}:V:hist", "room:{R}:rated:N", "ratings:V")
        patterns += ("rating:{P}:met",)
        for pattern in patterns:
            assert pattern in seen, pattern
    finally:
        await r.aclose()


async def test_a_room_takes_a_bounded_number_of_spectators(key_prefix: str) -> None:
    """The join script's cap (each spectator costs the room's fan-out and member list), and
    the spectators' sockets the room logic counts against it (``here``: one identity's many
    tabs count many times), on the store on Redis."""
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    store = Store(client, Keys(key_prefix), ttl=60, max_spectators=2)
    try:
        await made(store, "WATCHED2", ("ann",), start=False)
        assert [await joined(store, "WATCHED2", w, "spectator") for w in ("w0", "w1", "w2")] == [
            Status.OK,
            Status.OK,
            Status.SPECTATORS_FULL,
        ]
        body, result = wire.gave_up_body("w0", 1, 0), wire.result("w0", "w0", "gave_up", None, 0)
        assert (await store.leave("WATCHED2", "w0", "c0", body, result)).status is Status.OK
        assert await joined(store, "WATCHED2", "w2", "spectator") is Status.OK  # a place again
        for cid, pid in (("i.a1", "ann"), ("i.w1", "w1"), ("i.w2", "w2"), ("i.w2b", "w2")):
            await store.arrive("WATCHED2", cid, pid)
        fields = await store.redis.hgetall(store.keys.room("WATCHED2"))
        assert await store.spectator_sockets("WATCHED2", fields) == 3  # not Ann, who races
        await store.depart("WATCHED2", "i.w2b")
        assert await store.spectator_sockets("WATCHED2", fields) == 2
    finally:
        await store.aclose()
        await client.aclose()


async def test_a_game_alone_over_lets_its_room_go_in_minutes(key_prefix: str) -> None:
    """Through a server: a solo game's win and a leave after some moves let its events and
    logs go within ``--finished-room-ttl``; its replay and the player's statistics keep
    their days. What the store decides (a race, a watched game, one still played keep their
    hours): ``test_room_done_alone.py``."""
    keys = Keys(key_prefix)
    args = [*FAST, "--finished-room-ttl", str(SHORT)]
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        with running_server(redis_url(), args=args, env=env) as srv:
            ann = await WsClient.connect(srv.ws_url, "ann")
            await ann.send({"type": "solo", "code": CODE})
            room = (await ann.expect("snapshot"))["room_id"]
            for i, text in enumerate(LINE, 1):
                await ann.send(action_message(text, i))
                await ann.expect("ack", id=i)
            await ann.expect("finished")
            await ann.expect("solo_stats")
            won = await room_ttls(r, keys, room, ann.player_id)
            assert all(left == -2 or 0 < left <= SHORT for left in won.values()), won
            await ann.send({"type": "leave"})
            await ann.expect("left")
            replays = [k async for k in r.scan_iter(match=f"{key_prefix}replay:*")]
            assert replays and await r.ttl(replays[0]) > ROOM_TTL
            stats = keys.solo_stats(ann.player_id, 4)
            assert await r.hgetall(stats) and await r.ttl(stats) > ROOM_TTL
            # Given up by leaving after some moves: the same.
            await ann.send({"type": "solo", "code": CODE})
            again = (await ann.expect("snapshot"))["room_id"]
            for i, text in enumerate(LINE[:3], 1):
                await ann.send(action_message(text, i))
                await ann.expect("ack", id=i)
            await ann.send({"type": "leave"})
            await ann.expect("left")
            gone = await room_ttls(r, keys, again, ann.player_id)
            assert all(left == -2 or 0 < left <= SHORT for left in gone.values()), gone
            await ann.close()
    finally:
        await r.aclose()


async def room_ttls(r: aioredis.Redis, keys: Keys, room: str, pid: str) -> dict[str, int]:
    """The seconds each of a room's keys has left (-2: gone, as an empty hash is)."""
    names = {
        "room": keys.room(room),
        "members": keys.members(room),
        "events": keys.events(room),
        "log": keys.log(room, 1, pid),
        "ids": keys.ids(room, 1, pid),
        "res": keys.results(room, 1),
    }
    return {name: int(await r.ttl(key)) for name, key in names.items()}


def test_family_patterns_do_not_overlap() -> None:
    samples = {
        "room:{ABCD1234}": "room:{R}",
        "room:{ABCD1234}:log:2:p123": "room:{R}:log:N:P",
        "player:{p1}:days": "player:{P}:days",
        "daily:{2026-11-30:hard}:rank": "daily:{D:K}:rank",
        "replay:r-abc": "replay:ID",
        "racing:{SH1-C4-AAAAAAB}": "racing:{C}",
        "rooms:live": "rooms:live",
        "queue:{q}:4:wait": "queue:{q}:V:wait",
        "rating:{p12ab}:2": "rating:{P}:V",
        "rating:{p12ab}:2:hist": "rating:{P}:V:hist",
        "rating:{p12ab}:applied": "rating:{P}:applied",
        "ratings:1": "ratings:V",
        "room:{ABCD1234}:rated:3": "room:{R}:rated:N",
        "player:{p1}:dodges": "player:{P}:dodges",
        "arena:{S4-30-29000000}": "arena:{Z}",
        "arena:{AABCDEFGH}:pool": "arena:{Z}:pool",
        "player:{p1}:arena": "player:{P}:arena",
        "player:{p1}:arena_made": "player:{P}:arena_made",
        "arenas": "arenas",
    }
    for name, pattern in samples.items():
        assert family_of(name).pattern == pattern
    assert not any(re.fullmatch(f.regex(), "room:{ABCD1234}:unknown") for f in FAMILIES)
