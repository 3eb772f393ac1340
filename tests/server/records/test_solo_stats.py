"""Solo statistics on a real server, real Redis and real sockets: a solo win is counted and
answered by ``solo_stats`` with the records it set; a solo game given up or abandoned after
its first move is a loss (once, however it ends); one left before its first move, a daily
game and a race are not counted; the player page shows the statistics to anyone, and whom
a player follows to that player alone. Redis holds one small hash per player and variant."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.records.solo_stats import GAMES_KEPT, IDS_KEPT
from server.store.keys import Keys
from tests.helpers.daily_server import daily_server, get, line_of, play, start_daily, wait_for, wire
from tests.helpers.serverproc import WsClient, redis_url


async def start_solo(client: WsClient, cells: int = 4) -> dict[str, Any]:
    await client.send({"type": "solo", "cells": cells})
    snap = await client.expect("snapshot")
    assert snap["mode"] == "solo" and snap["state"] == "racing"
    return snap


async def leave(client: WsClient) -> None:
    await client.send({"type": "leave"})
    await client.expect("left")


def solo_of(body: dict[str, Any], cells: int = 4) -> dict[str, Any]:
    return dict(body["solo"][str(cells)])


@pytest.mark.slow
async def test_solo_games_are_counted_once_each_and_shown_on_the_player_page() -> None:
    prefix = f"test:solo:{secrets.token_hex(6)}:"
    keys = Keys(prefix)
    with daily_server(prefix) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        bob = await WsClient.connect(srv.ws_url, "Bob")
        path = f"/api/player/{ann.player_id}"
        # A game left before its first move was never played: nothing is counted.
        await start_solo(ann)
        await leave(ann)
        # A win: counted, with every record a first win sets.
        snap = await start_solo(ann)
        line = line_of(snap["code"])
        await play(ann, line, pace=0)
        stats = await ann.expect("solo_stats", timeout=10)
        assert stats["cells"] == 4
        assert sorted(stats["records"]) == ["best_streak", "best_time", "fewest_moves"]
        won = stats["stats"]
        assert (won["games"], won["wins"], won["streak"], won["best_streak"]) == (1, 1, 1, 1)
        assert won["fewest_moves"] == len(line) and won["best_ms"] > 0
        assert won["win_rate"] == 1.0
        assert won["last"] == [{"won": True, "time_ms": won["best_ms"], "moves": len(line)}]
        await leave(ann)
        # Given up after a move, then left: one loss, and the streak is over.
        snap = await start_solo(ann)
        await ann.send(wire(line_of(snap["code"])[0], 1))
        await ann.expect("ack", id=1)
        await ann.send({"type": "give_up"})
        await ann.expect("gave_up")
        await leave(ann)
        # Abandoned after a move (left for another game): a loss.
        snap = await start_solo(ann)
        await ann.send(wire(line_of(snap["code"])[0], 1))
        await ann.expect("ack", id=1)
        await leave(ann)
        await start_solo(ann)  # the next game, not begun: not counted when it is left
        body = await wait_for(srv, path, lambda b: solo_of(b)["games"] == 3)
        mine = solo_of(body)
        assert (mine["games"], mine["wins"], mine["streak"], mine["best_streak"]) == (3, 1, 0, 1)
        assert mine["win_rate"] == round(1 / 3, 3)
        assert [g["won"] for g in mine["last"]] == [True, False, False]
        assert solo_of(body, 2)["games"] == 0 and solo_of(body, 1)["win_rate"] is None
        # The statistics are public, like the daily results; whom Ann follows is not.
        status, seen = get(srv, path, bob.token)
        assert status == 200 and seen["solo"] == body["solo"] and "follows" not in seen
        status, own = get(srv, path, ann.token)
        assert own["follows"] == []
        # A daily win is not solo play: the solo statistics do not move.
        await leave(ann)
        snap = await start_daily(ann)
        await play(ann, line_of(snap["code"]))
        await ann.expect("daily_result", timeout=10)
        assert ann.find("solo_stats") is None  # the solo win above was the only one
        assert solo_of(get(srv, path)[1]) == mine
        # Bounded: one hash per player and variant, of a few fields.
        r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
        try:
            fields = {
                str(k): str(v)
                for k, v in (await r.hgetall(keys.solo_stats(ann.player_id, 4))).items()
            }
            assert len(fields["seen"].split()) <= IDS_KEPT
            assert len(fields["last"].split(",")) <= GAMES_KEPT
            assert await r.ttl(keys.solo_stats(ann.player_id, 4)) > 0
            assert not await r.exists(keys.solo_stats(ann.player_id, 2))
        finally:
            await r.aclose()
        await ann.close()
        await bob.close()


async def test_the_script_counts_a_game_once_and_keeps_its_lists_bounded() -> None:
    """``lua/solo_record.lua`` directly: a repeat changes nothing; ids and games are capped;
    a loss ends the streak; only a better time or fewer moves is a record."""
    from server.records.solo_stats import SoloStats

    prefix = f"test:solo:{secrets.token_hex(6)}:"
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        stats = SoloStats(r, Keys(prefix), 600)
        first = await stats.record("p1", 2, "R1/1", won=True, time_ms=5000, moves=90)
        again = await stats.record("p1", 2, "R1/1", won=True, time_ms=4000, moves=80)
        assert first.counted and not again.counted and again.stats == first.stats
        slower = await stats.record("p1", 2, "R2/1", won=True, time_ms=6000, moves=85)
        assert (slower.best_time, slower.fewest_moves, slower.best_streak) == (False, True, True)
        assert slower.stats["streak"] == 2 and slower.stats["best_ms"] == 5000
        lost = await stats.record("p1", 2, "R3/1", won=False, time_ms=None, moves=4)
        assert lost.stats["streak"] == 0 and lost.stats["best_streak"] == 2
        for n in range(IDS_KEPT + GAMES_KEPT):
            await stats.record("p1", 2, f"S{n}/1", won=n % 2 == 0, time_ms=7000, moves=99)
        after = await stats.read_variant("p1", 2)
        assert after["games"] == 3 + IDS_KEPT + GAMES_KEPT and len(after["last"]) == GAMES_KEPT
        seen = await r.hget(Keys(prefix).solo_stats("p1", 2), "seen")
        assert seen is not None and len(seen.split()) == IDS_KEPT
    finally:
        await r.delete(Keys(prefix).solo_stats("p1", 2))
        await r.aclose()


async def test_a_game_abandoned_in_a_closed_tab_counts_when_another_replaces_it() -> None:
    """A tab closed mid-game leaves no ``leave``: the player's next solo game gives the
    abandoned one up (a loss), but never one still played in another open tab."""
    prefix = f"test:solo:{secrets.token_hex(6)}:"
    with daily_server(prefix) as (srv, _env):
        tab = await WsClient.connect(srv.ws_url, "Ann")
        path = f"/api/player/{tab.player_id}"
        snap = await start_solo(tab)
        await tab.send(wire(line_of(snap["code"])[0], 1))
        await tab.expect("ack", id=1)
        await tab.close()  # gone mid-game, without a leave
        other = await WsClient.connect(srv.ws_url, "Ann", token=tab.token)
        assert other.player_id == tab.player_id
        # Two tabs: a game begun in one, another started in the second: both played on.
        snap = await start_solo(other)
        await other.send(wire(line_of(snap["code"])[0], 1))
        await other.expect("ack", id=1)
        body = await wait_for(srv, path, lambda b: solo_of(b)["games"] == 1)
        assert solo_of(body)["wins"] == 0 and solo_of(body)["streak"] == 0
        third = await WsClient.connect(srv.ws_url, "Ann", token=tab.token)
        await start_solo(third)
        await other.send(wire(line_of(snap["code"])[1], 2))
        ack = await other.expect("ack", id=2)  # still being played: not given up
        assert ack["type"] == "ack"
        await asyncio.sleep(0.3)
        assert solo_of(get(srv, path)[1])["games"] == 1
        for client in (other, third):
            await client.close()
