"""Review and the operator on real server processes, real sockets and the machine's Redis.

The issue's routes, each held or refused here:

- (2) the solver's line played just inside the old pace rules (a quarter of the gaps at
  5 ms, a quarter at 100 ms, half at 300 ms) ranked #1 in 13 s: now held for review, at the
  model's real defaults;
- (2) the solver's line at a person's pace: held as solver-like, its player told
  ``pending_review``; nobody else sees it on the leaderboard, in pushes or on player pages;
- (5) nobody could act: the operator lists held finishes, clears one (it ranks, pushes),
  voids one (off the board and the streak), bars a player (their results hidden, ranked
  play refused) and unbars them, looks up an address's identities and reads the log, over
  HTTP with the admin token (404 to anyone else) and with ``seahaven admin``.

The pace model runs at an eighth of its defaults in the :func:`scaled` server (as in
tests/server/daily/test_daily_fair.py), so a person's game takes about 20 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import signal
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from server.daily.deal import today
from server.records.replays import replay_id
from tests.helpers.cli import run_seahaven
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_pace import PACE_ENV, human, play, reveal
from tests.helpers.daily_server import get, line_of
from tests.helpers.serverproc import (
    FAST,
    ServerProc,
    WsClient,
    drop_keys,
    http_request,
    metrics,
    redis_url,
    running_server,
)
from tests.helpers.solver_procs import paused_solver
from tests.helpers.waits import API_STEP, until

TOKEN = "admin-" + secrets.token_hex(12)


@dataclass
class Deployment:
    """A server with keys of its own, today's deal and the solver's line of it."""

    server: ServerProc
    prefix: str
    date: str
    line: tuple[str, ...]


def _deployment(env: dict[str, str], args: list[str]) -> Iterator[Deployment]:
    prefix = f"test:review:{secrets.token_hex(6)}:"
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    with running_server(
        redis_url(),
        args=[*FAST, "--provisional-games", "0", *args],
        env={**env, "SEAHAVEN_KEY_PREFIX": prefix},
    ) as srv:
        yield Deployment(srv, prefix, date, line)
    drop_keys(prefix)


@pytest.fixture
def scaled() -> Iterator[Deployment]:
    """The model at an eighth, the review's agreement at its default, an admin token."""
    env = {k: v for k, v in PACE_ENV.items() if k != "SEAHAVEN_REVIEW_HOLD_AGREEMENT"}
    yield from _deployment(env, ["--admin-token", TOKEN])


def admin(srv: ServerProc, method: str, path: str, token: str | None = TOKEN) -> tuple[int, Any]:
    """An operator's request; (status, JSON body or text)."""
    return http_request(srv.http_url + path, method, token, timeout=5)


async def cli(dep: Deployment, *args: str) -> tuple[int, Any]:
    """``seahaven admin ARGS --json`` on the deployment's Redis: (exit status, JSON).

    Run in a thread: on a busy machine a few of these take tens of seconds, and a test's
    event loop blocked that long answers no ping, so the server closes its sockets."""
    out = await asyncio.to_thread(
        run_seahaven,
        "admin",
        *args,
        "--json",
        "--redis-url",
        redis_url(),
        "--key-prefix",
        dep.prefix,
        "--by",
        "tester",
    )
    assert out.stdout, out.stderr
    return out.returncode, json.loads(out.stdout)


async def until_held(srv: ServerProc, pid: str) -> dict[str, Any]:

    def held() -> list[dict[str, Any]]:
        status, body = admin(srv, "GET", "/api/admin/held")
        assert status == 200, body
        return [h for h in body["held"] if h["player_id"] == pid]

    # The review runs at the lowest priority: a loaded host delays it.
    return (await until(held, 60, what=f"a held finish of {pid}", step=API_STEP))[0]


@pytest.mark.slow
async def test_the_old_rules_timing_attack_is_held_at_the_defaults() -> None:
    # Before: this timing ranked #1 in 12.9 s. The model's defaults, no admin token.
    for dep in _deployment({}, []):
        bot = await WsClient.connect(dep.server.ws_url, "bot")
        snap = await reveal(bot)
        rng = random.Random(2)
        pauses = [0.6] + [rng.choice((0.005, 0.1, 0.3, 0.3)) for _ in dep.line[1:]]
        await play(bot, dep.line, pauses)
        result = await bot.expect("daily_result", timeout=60)
        assert (result["ranked"], result["unranked_reason"]) == (False, "pending_review")
        assert result["replay_id"] == replay_id(snap["room_id"], 1, bot.player_id)
        status, board = get(dep.server, f"/api/daily/{dep.date}/leaderboard")
        assert status == 200 and board["finishers"] == 0 and board["entries"] == []
        # Without --admin-token there is no operator's route at all, whatever the token (a
        # POST answers as on any path: 405).
        for token in (None, TOKEN, "x" * 20):
            assert admin(dep.server, "GET", "/api/admin/held", token)[0] == 404
            assert (
                admin(dep.server, "POST", f"/api/admin/clear/{result['replay_id']}", token)[0]
                == 405
            )
        await bot.close()


@pytest.mark.slow
async def test_a_solver_line_at_a_persons_pace_is_held_until_an_operator_acts(
    scaled: Deployment,
) -> None:
    srv, date = scaled.server, scaled.date
    watcher = await WsClient.connect(srv.ws_url, "watcher")
    await watcher.send({"type": "watch_leaderboard", "date": date, "kind": "daily"})
    await watcher.expect("leaderboard", finishers=0)
    ann = await WsClient.connect(srv.ws_url, "ann")
    snap = await reveal(ann)
    await play(ann, scaled.line, human(len(scaled.line), seed=4))
    fin = await ann.expect("finished", player_id=ann.player_id)
    result = await ann.expect("daily_result", timeout=60)
    rid = replay_id(snap["room_id"], 1, ann.player_id)
    assert result == {
        "type": "daily_result",
        "date": date,
        "kind": "daily",
        "ranked": False,
        "rank": None,
        "unranked_reason": "pending_review",
        "message": result["message"],
        "replay_id": rid,
    }
    # Nobody else sees it: not on the board, in no push, not on the player's page.
    await asyncio.sleep(0.5)
    assert watcher.find("leaderboard", finishers=1) is None
    status, board = get(srv, f"/api/daily/{date}/leaderboard?around={ann.player_id}")
    assert board["finishers"] == 0 and board["player"]["rank"] is None
    status, page = get(srv, f"/api/player/{ann.player_id}")
    assert status == 200 and page["daily"]["results"] == [] and page["streak"] == 0
    # Its player sees their time and "pending review", after a reload too.
    await ann.close()
    back = await WsClient.connect(srv.ws_url, "ann", token=ann.token)
    await back.send(
        {"type": "resume", "room": snap["room_id"], "token": ann.token, "last_seq": 10**15}
    )
    again = await back.expect("snapshot")
    assert again["daily"]["unranked_reason"] == "pending_review"
    me = next(p for p in again["players"] if p["player_id"] == ann.player_id)
    assert me["time_ms"] == fin["time_ms"]

    # The operator's routes answer the token alone: anyone else gets what any path answers
    # (GET: 404; POST: 405).
    for token in (None, "x" * 24, TOKEN + "x", TOKEN[:-1]):
        status, text = admin(srv, "GET", "/api/admin/held", token)
        assert status == 404 and "held" not in str(text)
        assert admin(srv, "POST", f"/api/admin/clear/{rid}", token)[0] == 405
    held = await until_held(srv, ann.player_id)
    assert held["result"] == rid and held["kind"] == "daily" and held["replay"].endswith(rid)
    score = held["score"]
    assert score["held"] and score["reason"] == "solver_like" and score["agreement"] >= 0.9
    assert board["finishers"] == 0  # still nobody else sees it

    # Cleared: it ranks, the watchers hear it; a second clear changes nothing.
    status, cleared = admin(srv, "POST", f"/api/admin/clear/{rid}")
    assert (status, cleared["status"], cleared["rank"]) == (200, "cleared", 1), cleared
    push = await watcher.expect("leaderboard", finishers=1, timeout=5)
    assert push["entries"][0]["player_id"] == ann.player_id
    # A reload of the game now says its rank.
    tab = await WsClient.connect(srv.ws_url, "ann", token=ann.token)
    await tab.send(
        {"type": "resume", "room": snap["room_id"], "token": ann.token, "last_seq": 10**15}
    )
    note = (await tab.expect("snapshot"))["daily"]
    assert (note["ranked"], note["rank"], note["unranked_reason"]) == (True, 1, None)
    await tab.close()
    status, again_ = admin(srv, "POST", f"/api/admin/clear/{rid}")
    assert (status, again_["status"]) == (200, "already_cleared")
    assert admin(srv, "GET", "/api/admin/held")[1]["held"] == []
    assert get(srv, f"/api/player/{ann.player_id}")[1]["streak"] == 1

    # Barred: hidden everywhere, and no ranked play; unbarred: back where it was.
    status, barred = admin(srv, "POST", f"/api/admin/bar/{ann.player_id}")
    assert (status, barred["status"], barred["entries"]) == (200, "barred", 1)
    assert admin(srv, "POST", f"/api/admin/bar/{ann.player_id}")[1]["status"] == "already_barred"
    assert get(srv, f"/api/daily/{date}/leaderboard")[1]["finishers"] == 0
    assert get(srv, f"/api/player/{ann.player_id}")[0] == 404
    await back.send({"type": "leave"})
    await back.expect("left")
    await back.send({"type": "daily", "hard": True})
    assert (await back.expect("error"))["code"] == "barred"
    await back.send({"type": "queue", "cells": 4})
    assert (await back.expect("error"))["code"] == "barred"
    await back.send({"type": "create_room", "public": True})
    assert (await back.expect("error"))["code"] == "barred"
    status, unbarred = admin(srv, "POST", f"/api/admin/unbar/{ann.player_id}")
    assert (status, unbarred["status"], unbarred["entries"]) == (200, "unbarred", 1)
    board = get(srv, f"/api/daily/{date}/leaderboard")[1]
    assert board["finishers"] == 1 and board["entries"][0]["player_id"] == ann.player_id
    assert get(srv, f"/api/player/{ann.player_id}")[1]["streak"] == 1

    # Voided: off the board and the streak, for good; idempotent too.
    status, voided = admin(srv, "POST", f"/api/admin/void/{rid}")
    assert (status, voided["status"]) == (200, "voided")
    assert admin(srv, "POST", f"/api/admin/void/{rid}")[1]["status"] == "already_voided"
    assert get(srv, f"/api/daily/{date}/leaderboard")[1]["finishers"] == 0
    assert get(srv, f"/api/player/{ann.player_id}")[1]["streak"] == 0
    assert admin(srv, "POST", f"/api/admin/clear/{rid}")[0] == 404  # nothing held

    # Every action is in the log, newest first, by the address that asked.
    status, log = admin(srv, "GET", "/api/admin/log")
    actions = [(e["action"], e["status"]) for e in log["log"]]
    assert actions[:3] == [("clear", "voided"), ("void", "already_voided"), ("void", "voided")]
    assert ("clear", "cleared") in actions and ("bar", "barred") in actions
    assert all(e["by"] == "http:127.0.0.1" for e in log["log"])
    status, found = admin(srv, "GET", f"/api/admin/identities/{ann.address}")
    assert status == 200 and ann.player_id in [i["player_id"] for i in found["identities"]]
    assert admin(srv, "GET", "/api/admin/identities/not-an-address")[0] == 404
    assert admin(srv, "GET", "/api/admin/identities/999.1.1.1")[0] == 400
    for c in (watcher, back):
        await c.close()


@pytest.mark.slow
async def test_the_command_line_operator(scaled: Deployment) -> None:
    srv = scaled.server
    bot = await WsClient.connect(srv.ws_url, "bot")
    snap = await reveal(bot)
    await play(bot, scaled.line, [0.5] + [0.03] * (len(scaled.line) - 1))  # a machine's pace
    result = await bot.expect("daily_result", timeout=60)
    assert result["unranked_reason"] == "pending_review"
    rid = replay_id(snap["room_id"], 1, bot.player_id)
    await until_held(srv, bot.player_id)

    status, held = await cli(scaled, "held", "--base-url", srv.http_url)
    assert status == 0 and [h["result"] for h in held["held"]] == [rid]
    link = held["held"][0]["replay"]
    assert link == f"{srv.http_url}/api/replay/{rid}"
    assert held["held"][0]["score"]["reason"] in ("too_fast", "fast_bursts", "fast_finish")
    out = await asyncio.to_thread(
        run_seahaven, "admin", "held", "--redis-url", redis_url(), "--key-prefix", scaled.prefix
    )
    assert out.returncode == 0 and rid in out.stdout and "agreement" in out.stdout

    assert (await cli(scaled, "void", rid))[1]["status"] == "voided"
    assert (await cli(scaled, "void", rid)) == (
        0,
        {"ok": True, "status": "already_voided", "message": "voided before", "result": rid},
    )
    assert (await cli(scaled, "clear", rid))[0] == 1  # voided: nothing to clear
    assert (await cli(scaled, "held"))[1] == {
        "held": [],
        "total": 0,
        "offset": 0,
        "limit": 50,
        "next_offset": None,
        "next_after": None,
    }
    assert get(srv, f"/api/daily/{scaled.date}/leaderboard")[1]["finishers"] == 0

    assert (await cli(scaled, "bar", bot.player_id))[1]["status"] == "barred"
    await bot.send({"type": "leave"})
    await bot.expect("left", timeout=60)  # a ceiling: it returns as soon as it comes
    await bot.send({"type": "queue", "cells": 2})
    assert (await bot.expect("error"))["code"] == "barred"
    status, who = await cli(scaled, "identities", bot.address)
    mine = [i for i in who["identities"] if i["player_id"] == bot.player_id]
    assert status == 0 and mine and mine[0]["barred"] is True
    assert (await cli(scaled, "unbar", bot.player_id))[1]["status"] == "unbarred"
    assert (await cli(scaled, "unbar", bot.player_id))[1]["status"] == "already_unbarred"
    await bot.send({"type": "queue", "cells": 2})
    await bot.expect("queued")

    status, log = await cli(scaled, "log")
    assert status == 0 and all(e["by"] == "tester" for e in log["log"])
    assert [e["action"] for e in log["log"]] == ["unbar", "unbar", "bar", "clear", "void", "void"]
    # Only the operator's paths take POST, without a body; a GET of an action is no route.
    assert admin(srv, "POST", "/api/admin/held")[0] == 404
    assert admin(srv, "GET", f"/api/admin/clear/{rid}")[0] == 404
    with_body = urllib.request.Request(
        srv.http_url + f"/api/admin/clear/{rid}", data=b"{}", method="POST"
    )
    with_body.add_header("Authorization", f"Bearer {TOKEN}")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(with_body, timeout=5)
    assert refused.value.code == 400
    assert admin(srv, "POST", "/api/daily")[0] == 405
    no_redis = {"REDIS_URL": "", "SEAHAVEN_REDIS_URL": ""}
    assert run_seahaven("admin", "held", env=no_redis).returncode == 2  # no Redis: usage
    await bot.close()


@pytest.mark.slow
async def test_a_replays_marks_say_busy_when_the_solver_dies_and_come_on_the_next_ask(
    scaled: Deployment,
) -> None:
    # A finish to mark: the solver's line at a machine's pace (held, which changes nothing
    # here: any kept finish has a replay).
    srv = scaled.server
    bot = await WsClient.connect(srv.ws_url, "bot")
    snap = await reveal(bot)
    await play(bot, scaled.line, [0.06] * len(scaled.line))
    await bot.expect("daily_result", timeout=120)
    rid = replay_id(snap["room_id"], 1, bot.player_id)
    await until_held(srv, bot.player_id)  # its review is out of the solver's way
    # The operator opens its replay while the solver process is stopped; it dies there.
    with paused_solver(srv) as pids:
        asked = asyncio.create_task(
            asyncio.to_thread(
                http_request, f"{srv.http_url}/api/admin/marks/{rid}", "GET", TOKEN, 120
            )
        )
        # Once the job is in the pool (a busy machine may take a while to get it there),
        # it waits for the stopped process, as a review does.
        await until(
            lambda: metrics(srv)["seahaven_solver_jobs"] >= 1 or None,
            60,
            what="the marks in the pool",
        )
        await asyncio.sleep(0.5)
        assert not asked.done()
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        status, body = await asked
    # Said, not an empty line: busy, and what to do.
    assert status == 503 and body["error"] == "busy" and "try again" in body["message"], body
    # The next ask runs in a new solver process, each decision marked.
    status, body = await asyncio.to_thread(
        http_request, f"{srv.http_url}/api/admin/marks/{rid}", "GET", TOKEN, 120
    )
    assert status == 200, body
    assert [a["action"] for a in body["actions"]] == list(scaled.line)
    assert sum(bool(a.get("solver")) for a in body["actions"]) > 10
    await bot.close()
