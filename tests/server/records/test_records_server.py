"""Perfect games and solo statistics through a server: real sockets, real Redis, the player
page over HTTP.

A finish is perfect when the deal's par is proven the fewest actions that win it and the
win took exactly that many; the server says so (``finished.perfect``, the results, the
snapshot, the player page), never the page; a par that is only a best line makes no claim.
A solo win is counted and answered by ``solo_stats`` with the records it set; a solo game
given up or abandoned after its first move is a loss (once, however it ends); one left
before its first move, a daily game and a race are not counted; the player page shows the
statistics to anyone, and whom a player follows to that player alone. Redis holds one small
hash per player and variant.

What the records decide on their own is tested without a server: ``test_perfect.py`` (the
rule, the fewest-actions board, a daily entry's mark) and ``test_solo_stats.py`` (the
solo script).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from typing import Any

import pytest
import redis as redis_sync
import redis.asyncio as aioredis

from server.records.solo_stats import GAMES_KEPT, IDS_KEPT
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_server import (
    daily_server,
    get,
    line_of,
    play,
    start_daily,
    wait_for,
    wire,
)
from tests.helpers.perfect import CODE, one_longer, shortest
from tests.helpers.serverproc import FAST, REVIEW_OFF, WsClient, http_request, redis_url
from tests.helpers.waits import until

# -- perfect games ---------------------------------------------------------------------------


def plant_deal(prefix: str, date: str, *, optimal: bool) -> None:
    """A past day whose daily deal is deal 1, its par 69, proven or only a best line."""
    deal = dataclasses.replace(daily_deal(date), code=CODE, par=69, optimal=optimal)
    client = redis_sync.Redis.from_url(redis_url(), decode_responses=True)
    client.set(Keys(prefix).daily_deal(date, "daily"), deal.to_json(), ex=3600)
    client.close()


async def finish(client: WsClient, line: tuple[str, ...]) -> dict[str, Any]:
    await play(client, line, pace=0)
    return await client.expect("finished", player_id=client.player_id, timeout=10)


async def test_a_perfect_finish_is_marked_and_one_action_more_is_not() -> None:
    prefix = f"test:perfect:{secrets.token_hex(6)}:"
    best, longer = shortest(CODE), one_longer(CODE, shortest(CODE))
    plant_deal(prefix, "2026-03-10", optimal=True)
    plant_deal(prefix, "2026-03-11", optimal=False)
    with daily_server(prefix) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        # A solo game on a pool deal of proven par, won in exactly par actions: perfect.
        await ann.send({"type": "solo", "code": CODE})
        await ann.expect("snapshot")
        done = await finish(ann, best)
        assert done["moves"] == 69 and done["perfect"] is True
        over = await ann.expect("race_over")
        assert (over["par"], over["par_optimal"]) == (69, True)
        assert [r["perfect"] for r in over["results"]] == [True]
        mine = f"{srv.http_url}/api/player/{ann.player_id}"
        await until(lambda: http_request(mine, token=ann.token)[1]["perfect"]["solo"] == 1)
        own = http_request(mine, token=ann.token)[1]["perfect"]
        assert own == {"race": 0, "solo": 1, "daily": 0, "unrated": 0, "total": 1}
        # A solo game proves nothing (a solver's line typed in): its own count, not public.
        status, body = get(srv, f"/api/player/{ann.player_id}")
        assert status == 200 and body["perfect"] == {"race": 0, "daily": 0, "total": 0}
        await ann.send({"type": "leave"})
        await ann.expect("left")
        # The same deal won in one action more: no claim.
        await ann.send({"type": "solo", "code": CODE})
        await ann.expect("snapshot")
        done = await finish(ann, longer)
        assert done["moves"] == 70 and done["perfect"] is False
        over = await ann.expect("race_over", round=1, timeout=10)
        assert [r["perfect"] for r in over["results"]] == [False]
        await ann.send({"type": "leave"})
        await ann.expect("left")
        # RULES.md, "Par and perfect games": the same deal won in par actions after a hint is
        # not perfect (and the player page's count stays at one).
        await ann.send({"type": "solo", "code": CODE})
        await ann.expect("snapshot")
        await ann.send({"type": "hint", "id": 900})
        assert (await ann.expect("hint", id=900, timeout=20))["status"] == "move"
        done = await finish(ann, best)
        assert done["moves"] == 69 and done["perfect"] is False
        over = await ann.expect("race_over", round=1, timeout=10)
        assert [r["perfect"] for r in over["results"]] == [False]
        await ann.send({"type": "leave"})
        await ann.expect("left")
        # A daily deal of proven par 69: perfect in 69 actions, not in 70.
        snap = await start_daily(ann, date="2026-03-10")
        assert (snap["par"], snap["par_optimal"]) == (69, True)
        assert (await finish(ann, best))["perfect"] is True
        await ann.send({"type": "leave"})
        await ann.expect("left")
        await start_daily(ann, date="2026-03-10")
        assert (await finish(ann, longer))["perfect"] is False
        await ann.send({"type": "leave"})
        await ann.expect("left")
        # A par that is only a best line: 69 actions make no perfect claim.
        snap = await start_daily(ann, date="2026-03-11")
        assert (snap["par"], snap["par_optimal"]) == (69, False)
        done = await finish(ann, best)
        assert done["moves"] == 69 and done["perfect"] is False
        # Only the first solo game counted: the dailies were practice, the rest not perfect.
        status, body = http_request(f"{srv.http_url}/api/player/{ann.player_id}", token=ann.token)
        assert status == 200 and body["perfect"]["total"] == 1
        await ann.close()


def race_counted(page: dict[str, Any], mode: str = "race") -> bool:
    """Whether a player page shows one perfect race (of ``mode``) and its entry. The page
    reads the history before the perfect counts while a finish writes them the other way
    about: a read between the two writes can show the count without the entry."""
    return bool(page["perfect"].get(mode) == 1 and page["recent"])


async def test_a_race_result_says_the_par_and_who_was_perfect() -> None:
    prefix = f"test:perfect:{secrets.token_hex(6)}:"
    with daily_server(prefix) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        bob = await WsClient.connect(srv.ws_url, "Bob")
        await ann.send({"type": "create_room", "code": CODE})
        room = (await ann.expect("snapshot"))["room_id"]
        await bob.send({"type": "join", "room": room})
        await bob.expect("snapshot")
        await ann.send({"type": "start"})
        await ann.expect("started", timeout=10)
        await bob.expect("started", timeout=10)
        done = await finish(ann, shortest(CODE))
        assert done["perfect"] is True
        # Bob, still racing, hears Ann's finish as it is; not the par (the round runs).
        seen = await bob.expect("finished", player_id=ann.player_id)
        assert seen["perfect"] is True
        await bob.send({"type": "give_up"})
        over = await bob.expect("race_over", timeout=10)
        assert (over["par"], over["par_optimal"]) == (69, True)
        assert {r["name"]: (r["moves"], r["perfect"]) for r in over["results"]} == {
            "Ann": (69, True),
            "Bob": (0, False),
        }
        # An unrated race is not reviewed: its perfect game is its player's own count.
        mine = f"{srv.http_url}/api/player/{ann.player_id}"
        await until(lambda: race_counted(http_request(mine, token=ann.token)[1], "unrated"))
        status, body = get(srv, f"/api/player/{ann.player_id}")
        assert body["recent"][0]["perfect"] is True and body["perfect"]["total"] == 0
        status, bob_page = get(srv, f"/api/player/{bob.player_id}")
        assert status == 200 and bob_page["perfect"]["total"] == 0
        # A view the server does not rank is refused: over the socket in
        # net/test_session_input.py, over HTTP in http/test_http_api.py.
        await ann.close()
        await bob.close()


async def test_a_rated_races_perfect_win_counts_once_its_round_settles() -> None:
    # A rated race's history is written when its round settles (after the review), not at
    # the finish: the perfect mark and count must come with it.
    prefix = f"test:perfect:{secrets.token_hex(6)}:"
    args = [*FAST, *REVIEW_OFF, "--rated-min-actions", "0", "--provisional-games", "0"]
    with daily_server(prefix, args) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        bob = await WsClient.connect(srv.ws_url, "Bob")
        await ann.send({"type": "create_room", "code": CODE})
        room = (await ann.expect("snapshot"))["room_id"]
        await bob.send({"type": "join", "room": room})
        await bob.expect("snapshot")
        await ann.send({"type": "rated", "rated": True})
        await bob.expect("room", rated=True)
        await ann.send({"type": "start"})
        await ann.expect("started", timeout=10)
        await bob.expect("started", timeout=10)
        assert (await finish(ann, shortest(CODE)))["perfect"] is True
        await bob.send({"type": "give_up"})
        await ann.expect("ratings", timeout=10)
        body = await wait_for(srv, f"/api/player/{ann.player_id}", race_counted)
        assert body["recent"][0]["perfect"] is True and body["perfect"]["total"] == 1
        await ann.close()
        await bob.close()


# -- solo statistics ------------------------------------------------------------------------


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
