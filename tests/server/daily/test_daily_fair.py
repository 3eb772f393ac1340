"""Fair play in the daily challenge, on a real server, real sockets and Redis.

Each attack that used to work is played here and must now fail (protocol/DAILY.md, "Fair
play"): reading today's code before the clock runs, solving it offline and playing the line
at machine speed, copying the leader's replay, and a second clock for the same day (no
hints on today's deal in any room: :mod:`tests.server.play.test_hint_decisions`; today's
deal refused as a typed code: :mod:`tests.server.daily.test_daily_secret`). Each server has
a key prefix of its own.

The server runs in the test's process (:mod:`tests.helpers.inproc`) with the pace model at its real
defaults, on a clock the test moves: a person's pauses (1.1-2.2 s an action) are advances of
the clock, not waits, so a person's game of 90 actions takes a moment, not three minutes.
These players play the solver's line, so the review's agreement is off here (a held
solver-like finish is :mod:`tests.server.review.test_review_server`'s); a finish at a machine's pace
is held for review, never ranked.

:data:`PACE_ENV`, :func:`human` and :func:`play` are the model at an eighth and real pauses
for the tests whose server is a process of its own (its clock cannot be moved).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis

from server.daily.deal import today
from server.records.replays import replay_id
from server.store.keys import Keys
from tests.helpers.cli import run_seahaven
from tests.helpers.dailies import daily_deal, plant
from tests.helpers.daily_pace import human, play_on, reveal
from tests.helpers.daily_server import line_of
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import FAST, WsClient, redis_url

PAST = "2026-03-14"


@dataclass
class Fair:
    """A server with leaderboards of its own, today's deal and the solver's line of it."""

    server: Served
    prefix: str
    date: str
    code: str
    line: tuple[str, ...]


@pytest.fixture
async def fair() -> AsyncIterator[Fair]:
    """A server at the pace model's defaults (the review's agreement off), on a clock the
    test moves."""
    prefix = f"test:fair:{secrets.token_hex(6)}:"
    env = {"SEAHAVEN_REVIEW_HOLD_AGREEMENT": "2", "SEAHAVEN_KEY_PREFIX": prefix}
    date = today().isoformat()
    code = daily_deal(date).code
    plant(prefix, PAST)
    async with serving(settings([*FAST, "--provisional-games", "0"], env)) as srv:
        yield Fair(srv, prefix, date, code, line_of(code))


#: A machine's pace: well above the physical floor (50 ms an action), far below a person's.
MACHINE_S = 0.06


def has_code(body: Any, code: str) -> bool:
    return code in json.dumps(body)


# -- attacks that must fail ------------------------------------------------------------------


async def test_a_running_days_codes_are_not_published(fair: Fair) -> None:
    # Before: GET /api/daily gave today's code, so a script could solve it before its clock.
    hard = daily_deal(fair.date, "hard").code
    for path in ("/api/daily", f"/api/daily/{fair.date}"):
        status, body = await fair.server.get(path)
        assert status == 200 and body["date"] == fair.date and body["running"] is True
        assert body["par"] == daily_deal(fair.date).par and body["hard"]["par"] > 0
        assert not has_code(body, fair.code) and not has_code(body, hard), body
        assert "code" not in body and "code" not in body["hard"]
    status, past = await fair.server.get(f"/api/daily/{PAST}")
    assert status == 200 and past["running"] is False
    assert past["code"] == daily_deal(PAST).code
    assert past["hard"]["code"] == daily_deal(PAST, "hard").code


async def test_the_clock_starts_at_the_reveal_and_a_machine_pace_is_held(
    fair: Fair,
) -> None:
    # Before: the clock started at the first move, so a script revealed the deal, solved it
    # offline and then played the line in a few seconds: ranked first.
    bot = await WsClient.connect(fair.server.ws_url, "bot")
    snap = await reveal(bot)
    assert snap["code"] == fair.code and snap["starts_at"] <= snap["now"]
    line = line_of(snap["code"])  # solved "offline" after the reveal: 5 s
    # Then the solver's line at a machine's pace (plus each ack's round trip): far under
    # the model's floor per decision (1.1 s) however slow a busy machine's round trips.
    await play_on(fair.server, bot, line, [5.0] + [MACHINE_S] * (len(line) - 1))
    first = await bot.expect("delta", moves=1)
    assert first["t"] >= 5000  # the thinking counted: the clock ran from the reveal
    fin = await bot.expect("finished", player_id=bot.player_id)
    last = await bot.expect("delta", moves=len(line))
    assert fin["time_ms"] == last["t"] >= 5000 + 60 * (len(line) - 1)
    assert snap["daily"] == {
        "date": fair.date,
        "kind": "daily",
        "attempt": "ranked",
        "ranked": None,
        "rank": None,
        "unranked_reason": None,
    }

    result = await bot.expect("daily_result", timeout=60)
    assert result["ranked"] is False and result["rank"] is None
    assert result["unranked_reason"] == "pending_review" and "review" in result["message"]
    assert result["replay_id"] == replay_id(snap["room_id"], 1, bot.player_id)
    status, board = await fair.server.get(f"/api/daily/{fair.date}/leaderboard")
    assert status == 200 and board["finishers"] == 0

    # The game is kept and verifies, with the reveal as its clock's start.
    path = f"/api/replay/{result['replay_id']}"
    status, replay = await fair.server.get(path, bot.token)
    assert status == 200 and replay["started_at"] == snap["starts_at"]
    assert replay["times_ms"][0] - replay["started_at"] == first["t"]
    assert replay["verified"]["ok"] is True
    url = fair.server.http_url + path
    out = await asyncio.to_thread(run_seahaven, "verify", url, "--token", bot.token)
    assert out.returncode == 0 and "VERIFIED" in out.stdout, out.stdout + out.stderr
    # Coming back later, the snapshot says the game waits for review.
    await bot.close()
    back = await WsClient.connect(fair.server.ws_url, "bot", token=bot.token)
    await back.send(
        {"type": "resume", "room": snap["room_id"], "token": bot.token, "last_seq": 10**15}
    )
    again = await back.expect("snapshot")
    assert again["daily"]["ranked"] is False
    assert again["daily"]["unranked_reason"] == "pending_review"
    assert again["daily"]["replay_id"] == result["replay_id"]  # a reload offers the replay
    await back.close()


async def test_a_human_pace_ranks_and_the_leaders_line_cannot_be_copied(fair: Fair) -> None:
    server, date, line = fair.server, fair.date, fair.line
    watcher = await WsClient.connect(server.ws_url, "watcher")
    await watcher.send({"type": "watch_leaderboard", "date": date, "kind": "daily"})
    await watcher.expect("leaderboard", finishers=0)

    # The leader plays the solver's line with a person's pauses: ranked.
    ann = await WsClient.connect(server.ws_url, "ann")
    snap = await reveal(ann)
    await play_on(server, ann, line, human(len(line), seed=7, scale=1))
    leader_replay = replay_id(snap["room_id"], 1, ann.player_id)

    # Before: the leaderboard named the leader's replay, which anyone could fetch and replay.
    push = await watcher.expect("leaderboard", finishers=1, timeout=60)
    assert push["entries"][0]["player_id"] == ann.player_id
    assert "replay_id" not in push["entries"][0]
    copier = await WsClient.connect(server.ws_url, "copier")
    status, board = await server.get(f"/api/daily/{date}/leaderboard?limit=5")
    assert status == 200 and board["entries"][0]["player_id"] == ann.player_id
    assert all("replay_id" not in e for e in board["entries"])
    # Even knowing the id, nobody but its player gets a running day's replay.
    path = f"/api/replay/{leader_replay}"
    status, body = await server.get(path)
    assert (status, body["error"]) == (404, "not_found")
    status, mine = await server.get("/api/replay/nosuchreplay")
    assert (status, mine) == (404, body)  # the same answer as a replay that does not exist
    assert (await server.get(path, copier.token))[0] == 404
    assert (await server.get(path, "x" * 16))[0] == 404
    status, own = await server.get(path, ann.token)
    assert status == 200 and tuple(own["actions"]) == line

    result = await ann.expect("daily_result", timeout=60)  # the leader alone hears the rank
    assert result["ranked"] is True and result["rank"] == 1, result
    assert result["unranked_reason"] is None and result["replay_id"] == leader_replay
    assert copier.find("daily_result") is None and watcher.find("daily_result") is None

    # The leader's actions replayed at a machine's pace by a fresh identity (after a second
    # for reading the board): played, held for review, not ranked.
    await reveal(copier)
    await play_on(server, copier, tuple(own["actions"]), [1.0] + [MACHINE_S] * (len(line) - 1))
    copied = await copier.expect("daily_result", timeout=60)
    assert copied["ranked"] is False and copied["unranked_reason"] == "pending_review"
    await asyncio.sleep(0.2)
    status, board = await server.get(f"/api/daily/{date}/leaderboard")
    assert board["finishers"] == 1 and board["entries"][0]["player_id"] == ann.player_id
    for c in (watcher, ann, copier):
        await c.close()


async def test_one_ranked_attempt_resumed_after_a_drop_then_practice(fair: Fair) -> None:
    server, date, line = fair.server, fair.date, fair.line
    ann = await WsClient.connect(server.ws_url, "ann")
    first = await reveal(ann)
    await play_on(server, ann, line[:3], [MACHINE_S] * 3)
    await ann.ws.close()  # the connection drops
    await asyncio.sleep(0.1)

    # Before: a second `daily` made a new room with a new clock, a fresh try at the rank.
    back = await WsClient.connect(server.ws_url, "ann", token=ann.token)
    again = await reveal(back)
    assert again["room_id"] == first["room_id"] and again["starts_at"] == first["starts_at"]
    assert first["daily"]["attempt"] == again["daily"]["attempt"] == "ranked"
    me = next(p for p in again["players"] if p["player_id"] == ann.player_id)
    assert me["moves"] == 3
    await back.send({"type": "give_up"})
    await back.expect("gave_up", player_id=ann.player_id)
    await back.send({"type": "leave"})
    await back.expect("left")

    # Every later game of the day is practice: played, kept, never ranked.
    practice = await reveal(back)
    assert practice["room_id"] != first["room_id"]
    assert practice["daily"]["attempt"] == "practice"
    assert practice["daily"]["unranked_reason"] == "practice"
    await play_on(server, back, line, [MACHINE_S] * len(line), start=100)
    result = await back.expect("daily_result", timeout=10)
    assert result["ranked"] is False and result["unranked_reason"] == "practice"
    status, replay = await server.get(f"/api/replay/{result['replay_id']}", ann.token)
    assert status == 200 and replay["verified"]["ok"] is True
    assert (await server.get(f"/api/daily/{date}/leaderboard"))[1]["finishers"] == 0

    # The ranked attempt is one key of the day, with a bounded lifetime.
    client = redis.Redis.from_url(redis_url(), decode_responses=True)
    key = Keys(fair.prefix).daily_attempts(date, "daily")
    assert client.hget(key, ann.player_id) == first["room_id"]
    assert 0 < client.ttl(key) <= 3 * 86_400
    client.close()
    # A past day is practice from the start.
    old = await WsClient.connect(server.ws_url, "old")
    past = await reveal(old, date=PAST)
    assert past["daily"]["attempt"] == "practice"
    assert past["daily"]["unranked_reason"] == "after_day"
    await old.close()
    await back.close()


async def test_two_reveals_at_once_make_one_ranked_attempt(fair: Fair) -> None:
    ann = await WsClient.connect(fair.server.ws_url, "ann")
    tab = await WsClient.connect(fair.server.ws_url, "ann", token=ann.token)
    await asyncio.gather(
        ann.send({"type": "daily", "hard": True}), tab.send({"type": "daily", "hard": True})
    )
    one, two = await ann.expect("snapshot"), await tab.expect("snapshot")
    assert one["room_id"] == two["room_id"]
    assert one["daily"]["attempt"] == two["daily"]["attempt"] == "ranked"
    for c in (ann, tab):
        await c.close()


async def test_nobody_watches_a_running_days_game_live(fair: Fair) -> None:
    # Before: `join {role: spectator}` into a daily room (or a solo room on today's code)
    # seated a live spectator, who saw every delta of today's ranked line as it was played.
    ann = await WsClient.connect(fair.server.ws_url, "ann")
    room = (await reveal(ann))["room_id"]
    bob = await WsClient.connect(fair.server.ws_url, "bob")
    await bob.send({"type": "join", "room": room, "role": "spectator"})
    assert (await bob.expect("error"))["code"] == "daily_running"
    # Nor by coming back with a token of one's own: a resume would seat a spectator.
    bob2 = await WsClient.connect(fair.server.ws_url)
    await bob2.send({"type": "resume", "room": room, "token": bob.token, "last_seq": 0})
    assert (await bob2.expect("error"))["code"] == "daily_running"
    await play_on(fair.server, ann, fair.line[:2], [0.6] * 2)
    # A round trip on each socket after the moves: nothing of Ann's board came before it.
    for watcher in (bob, bob2):
        await watcher.send({"type": "ping"})
        await watcher.expect("pong")
        kinds = {msg["type"] for msg in watcher.messages}
        assert not kinds & {"snapshot", "delta", "progress", "room"}, kinds
        assert not has_code(watcher.messages, fair.code)
    # (A solo game on today's code is refused: test_daily_secret.py.)
    # The Watch list and the player's page do not show the running game's room.
    status, live = await fair.server.get("/api/rooms/live")
    assert status == 200 and room not in json.dumps(live)
    status, page = await fair.server.get(f"/api/player/{ann.player_id}")
    assert status == 200 and room not in json.dumps(page) and not has_code(page, fair.code)
    # A past day's deal is an ordinary deal again: its game may be watched.
    dan = await WsClient.connect(fair.server.ws_url, "dan")
    await dan.send({"type": "daily", "date": PAST})
    past_room = (await dan.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": past_room, "role": "spectator"})
    watched = await bob.expect("snapshot")
    assert watched["room_id"] == past_room and watched["code"] == daily_deal(PAST).code
    for client in (ann, bob, bob2, dan):
        with contextlib.suppress(Exception):
            await client.close()
