"""The finisher always knows, on a real server, Redis and sockets: right after the winning
move of a ranked daily, while its review still waits for the solver (paused here, as on a
host whose spare CPU is taken), the player's own day says "won, pending review" everywhere
they may look (``daily_pending``, ``GET /api/daily/DATE/mine``, the room's snapshot) and
nothing public has changed; once the review runs, its decision replaces it."""

from __future__ import annotations

import json
import secrets
import signal
from typing import Any

import pytest
import redis

from server.daily.deal import today
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_server import daily_server, get, line_of, play, start_daily, wire
from tests.helpers.serverproc import WsClient, redis_url
from tests.helpers.solver_procs import paused_solver


async def _snapshot(url: str, room: str, token: str) -> dict[str, Any]:
    """The room as a reload sees it: another socket of the player resumes it."""
    back = await WsClient.connect(url)
    try:
        await back.send({"type": "resume", "room": room, "token": token, "last_seq": 10**15})
        return await back.expect("snapshot", timeout=10)
    finally:
        await back.close()


@pytest.mark.slow
async def test_a_ranked_daily_win_is_pending_review_at_once_then_ranked() -> None:
    prefix = f"test:dpend:{secrets.token_hex(6)}:"
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    mine_of = f"/api/daily/{date}/mine?kind=daily"
    board_of = f"/api/daily/{date}/leaderboard?kind=daily"
    with daily_server(prefix) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        room = str((await start_daily(ann, date=date))["room_id"])
        await play(ann, line[:-1])
        with paused_solver(srv):
            last = len(line)
            await ann.send(wire(line[-1], last))
            await ann.expect("ack", id=last)
            # From the winning move's ack on, the player's own day is never "over".
            _, mine = get(srv, mine_of, ann.token)
            assert (mine["state"], mine.get("reason")) == ("held", "pending_review"), mine
            won = await ann.expect("finished", player_id=ann.player_id)
            assert (mine["time_ms"], mine["moves"]) == (won["time_ms"], won["moves"])
            pending = await ann.expect("daily_pending", timeout=10)
            assert (pending["date"], pending["kind"]) == (date, "daily")
            assert "pending review" in pending["message"]
            # The review cannot have run: its solver is stopped.
            assert ann.find("daily_result") is None
            _, mine = get(srv, mine_of, ann.token)
            assert mine["state"] == "held" and mine["replay_id"] == pending["replay_id"]
            assert mine["time_ms"] == won["time_ms"] and "rank" not in mine
            snap = await _snapshot(srv.ws_url, room, ann.token)
            assert snap["daily"] == {
                "date": date,
                "kind": "daily",
                "attempt": "ranked",
                "ranked": False,
                "rank": None,
                "unranked_reason": "pending_review",
                "replay_id": pending["replay_id"],
            }
            # Nothing public before the decision: no entry, no streak.
            _, board = get(srv, board_of)
            assert board["finishers"] == 0 and board["entries"] == []
            assert mine["streak"] == 0
        # The solver runs again: the review decides, and the decision replaces "pending".
        result = await ann.expect("daily_result", timeout=120)
        assert (result["ranked"], result["rank"]) == (True, 1)
        assert result["replay_id"] == pending["replay_id"]
        _, mine = get(srv, mine_of, ann.token)
        assert (mine["state"], mine["rank"], mine["streak"]) == ("ranked", 1, 1)
        snap = await _snapshot(srv.ws_url, room, ann.token)
        assert (snap["daily"]["ranked"], snap["daily"]["rank"]) == (True, 1)
        assert snap["daily"]["unranked_reason"] is None
        await ann.close()


@pytest.mark.slow
async def test_a_review_cut_short_by_a_stop_leaves_the_finish_on_the_operators_list() -> None:
    # The player's day said "pending review" from the winning move on: a review that never
    # ran (the instance stopped meanwhile) must leave the finish held for an operator,
    # never nowhere.
    prefix = f"test:dstop:{secrets.token_hex(6)}:"
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    with daily_server(prefix) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        await start_daily(ann, date=date)
        await play(ann, line[:-1])
        with paused_solver(srv):
            last = len(line)
            await ann.send(wire(line[-1], last))
            await ann.expect("ack", id=last)
            pending = await ann.expect("daily_pending", timeout=10)
            srv.proc.send_signal(signal.SIGTERM)
            srv.proc.wait(timeout=30)
        client = redis.Redis.from_url(redis_url(), decode_responses=True)
        try:
            held = client.hget(Keys(prefix).held(), pending["replay_id"])
        finally:
            client.close()
        assert held is not None, "the finish is on no operator's list"
        entry = json.loads(held)
        assert entry["player_id"] == ann.player_id and entry["kind"] == "daily"
        assert entry["score"]["reason"] == "unreviewed", entry["score"]
