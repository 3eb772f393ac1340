"""Fair play through a real server (in-process, on a clock the test moves; the machine's
Redis): the bench's path and the server's decide alike; no flag from fewer finishes than
the setting says; a new community ranks by itself; a line borrowed from another identity,
from any address, is practice.

The operator alone sees the evidence: a held player hears ``pending_review``."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from bench.fairplay import decisions, weigh_finish
from server.daily.deal import today
from server.fairplay.decide import outright, suspicion
from server.fairplay.evidence import evidence_store
from server.fairplay.policy import Policy
from server.fairplay.standing import standing
from server.records.replays import replay_id
from server.store.evidence import EvidenceStore
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_pace import human, play_on, reveal
from tests.helpers.fairplay_lines import own_line
from tests.helpers.fairplay_suspects import suspicious_lines
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import FAST, WsClient
from tests.helpers.waits import until

TOKEN = "admin-" + secrets.token_hex(12)


@dataclass
class Day:
    server: Served
    date: str
    code: str


async def _serve(args: list[str]) -> AsyncIterator[Day]:
    prefix = f"test:fairplay:{secrets.token_hex(6)}:"
    date = today().isoformat()
    env = {"SEAHAVEN_KEY_PREFIX": prefix}
    async with serving(settings([*FAST, "--admin-token", TOKEN, *args], env)) as srv:
        yield Day(srv, date, daily_deal(date).code)


@pytest.fixture
async def day() -> AsyncIterator[Day]:
    """Every player established (no newcomer rule in the way)."""
    async for d in _serve(["--provisional-games", "0"]):
        yield d


@pytest.fixture
async def fresh() -> AsyncIterator[Day]:
    """A fresh deployment: nobody established, the newcomer rule at its default."""
    async for d in _serve([]):
        yield d


async def finish(
    day: Day, client: WsClient, line: tuple[str, ...], seed: int, later_s: float = 0
) -> dict[str, Any]:
    """Play a line at a person's pace (``later_s`` more before the first action); the
    player's daily result."""
    snap = await reveal(client)
    pauses = human(len(line), seed=seed, scale=1)
    pauses[0] += later_s
    await play_on(day.server, client, line, pauses)
    result: dict[str, Any] = await client.expect("daily_result", timeout=180)
    assert result["replay_id"] == replay_id(snap["room_id"], 1, client.player_id)
    return result


async def decided(day: Day, rid: str) -> dict[str, Any]:
    """The review's outcome the server kept for a finish (the operator's)."""

    async def read() -> dict[str, Any] | None:
        return await day.server.ctx.reviews.decided(rid)

    found = await until(read, timeout=60, what=f"the review of {rid}")
    assert isinstance(found, dict)
    return found


def nothing_told(result: dict[str, Any]) -> None:
    """The player hears "pending review" and nothing of the evidence."""
    text = json.dumps(result)
    for word in ("evidence", "suspicion", "score", "agreement", "known", "borrowed", "flag"):
        assert word not in text, result


def earlier_finish(solver: float) -> dict[str, Any]:
    """An earlier ranked finish's job result: passed by its review, its record agreeing
    with the solver on ``solver`` of 40 decisions."""
    record = {"solver": solver, "solver_scored": 40}
    return {"held": False, "reason": "ok", "agreement": solver, "scored": 40, "evidence": record}


async def keep_earlier(
    store: EvidenceStore, pid: str, jobs: list[dict[str, Any]], policy: Policy
) -> None:
    """Keep earlier finishes' records as the server keeps them (with their suspicion), the
    oldest first: the newest ends on top."""
    for i, job in enumerate(jobs):
        record = job["evidence"]
        await store.add(
            pid, {**record, "suspicion": suspicion(record, policy), "result": f"old{i}"}
        )


def as_job(score: dict[str, Any]) -> dict[str, Any]:
    """A finish's job result as the server kept it in its decided score: the one-game
    review's own verdict is under ``review``, the score's top level is the decision's."""
    return {**score, **score["review"], "evidence": score["evidence"]}


async def test_the_bench_and_the_server_decide_alike(day: Day) -> None:
    ctx = day.server.ctx
    policy = Policy.from_settings(ctx.settings)
    store = evidence_store(ctx)
    # The earlier finishes' solver agreements: 0.91 is a suspicion of 0.9, 0.59 of 0.1.
    histories = {"leaning": [0.91, 0.91], "clean": [0.59, 0.5], "first": []}
    verdicts = {}
    for seed, (name, past) in enumerate(histories.items(), start=31):
        client = await WsClient.connect(day.server.ws_url, name)
        earlier = [earlier_finish(a) for a in past]
        await keep_earlier(store, client.player_id, earlier, policy)
        result = await finish(day, client, own_line(day.code, seed), seed)
        outcome = await decided(day, result["replay_id"])
        score = outcome["score"]
        # The bench's path: the same finishes folded by bench/fairplay.py, oldest first.
        bench = decisions([*earlier, as_job(score)], policy)
        assert not any(d.flag for d in bench[:-1])  # as the server: nobody flagged before
        assert bench[-1].to_json() == score["decision"], (name, bench[-1], score["decision"])
        assert outcome["status"] == ("held" if bench[-1].held else "passed")
        assert result["ranked"] is (not bench[-1].held)
        verdicts[name] = bench[-1]
        if name == "leaning":
            # The bench weighs the line itself as the server's solver pool did: the day's
            # first finish, so no field, no practice and no other line of the deal to weigh.
            replay = await ctx.records.replays.load(result["replay_id"])
            assert replay is not None
            mine = score["evidence"]
            assert mine["field"] is None and mine["known"] == 0 and mine["borrowed"] == 0
            game = {
                "code": replay.code,
                "started_at": replay.started_at,
                "actions": replay.actions,
                "times": replay.times_ms,
                "lines": [],
            }
            job = await asyncio.to_thread(weigh_finish, game, None, ctx.reviewer.settings)
            assert {k: mine[k] for k in job["evidence"]} == job["evidence"]
            assert (job["agreement"], job["scored"]) == (score["agreement"], score["scored"])
            assert (job["held"], job["reason"]) == (
                score["review"]["held"],
                score["review"]["reason"],
            )
            weighed = decisions([*earlier, job], policy)[-1]
            assert weighed.to_json() == score["decision"]
        await client.close()
    # Three finishes leaning the same way flag; a clean player's and a first finish rank.
    assert verdicts["leaning"].flag and verdicts["leaning"].reason == "flagged"
    assert verdicts["leaning"].finishes == 3
    assert not verdicts["clean"].held and not verdicts["first"].held
    assert verdicts["first"].finishes == 1 and not verdicts["first"].flag


@pytest.mark.slow
async def test_no_flag_from_fewer_finishes_than_the_setting_says(day: Day) -> None:
    ctx = day.server.ctx
    policy = Policy.from_settings(ctx.settings)
    assert policy.min_finishes == 3  # the default: one player after each count below it
    store = evidence_store(ctx)
    # Each finish suspicious enough to flag on its own score, yet no reference's line
    # outright: only the number of finishes may keep it from flagging.
    lines = await asyncio.to_thread(
        suspicious_lines, day.code, policy.min_finishes, ctx.reviewer.settings, policy
    )
    for count, line in enumerate(lines):
        client = await WsClient.connect(day.server.ws_url, f"leaning{count}")
        earlier = [earlier_finish(0.91)] * count  # a suspicion of 0.9 each
        await keep_earlier(store, client.player_id, earlier, policy)
        result = await finish(day, client, line, seed=61 + count)
        score = (await decided(day, result["replay_id"]))["score"]
        record, decision = score["evidence"], score["decision"]
        assert not outright(record, policy), record
        assert score["review"]["held"] is False, score["review"]
        assert decision["suspicion"] >= policy.flag_score, decision
        assert decision["score"] >= policy.flag_score, decision
        assert decision["finishes"] == count + 1
        flagged = count + 1 >= policy.min_finishes
        assert decision["flag"] is flagged, decision
        assert decision["held"] is flagged and result["ranked"] is (not flagged), result
        if flagged:
            assert decision["reason"] == "flagged"
        assert (await standing(ctx, client.player_id)).flagged is flagged
        await client.close()


async def test_a_new_community_ranks_by_itself(fresh: Day) -> None:
    # Before: every newcomer's finish "would lead the day" while nobody was established, so
    # all were held and nobody ever ranked without an operator.
    ranked = []
    for seed in range(41, 45):
        home = {"X-Forwarded-For": f"198.51.100.{seed}"}
        client = await WsClient.connect(fresh.server.ws_url, f"new{seed}", additional_headers=home)
        result = await finish(fresh, client, own_line(fresh.code, seed), seed)
        assert result["ranked"] is True and result["rank"] is not None, result
        ranked.append(client.player_id)
        await client.close()
    status, board = await fresh.server.get(f"/api/daily/{fresh.date}/leaderboard")
    assert status == 200 and board["finishers"] == len(ranked)
    rows = {e["player_id"]: e for e in board["entries"]}
    assert set(rows) == set(ranked)
    assert all(rows[p].get("new") is True for p in ranked), rows  # marked new, shown
    status, held = await fresh.server.get("/api/admin/held", TOKEN)
    assert status == 200 and held["held"] == []


async def test_a_line_borrowed_from_another_address_is_practice(fresh: Day) -> None:
    day = fresh
    line = own_line(day.code, 51)
    ann = await WsClient.connect(
        day.server.ws_url, "ann", additional_headers={"X-Forwarded-For": "198.51.100.7"}
    )
    first = await finish(day, ann, line, seed=1)
    assert first["ranked"] is True, first  # her own line, a newcomer leading: it ranks
    # Before: B on another network replayed A's exact line 20 s slower and ranked, unheld.
    bob = await WsClient.connect(
        day.server.ws_url, "bob", additional_headers={"X-Forwarded-For": "203.0.113.9"}
    )
    copied = await finish(day, bob, line, seed=2, later_s=20)
    assert copied["ranked"] is False and copied["unranked_reason"] == "pending_review", copied
    nothing_told(copied)
    score = (await decided(day, copied["replay_id"]))["score"]
    assert score["evidence"]["borrowed"] >= 0.9 and score["evidence"]["known"] == 0.0
    assert score["reason"] == "flagged" and score["decision"]["flag"] is True
    # An honest second player's own line on yet another network is nobody's: it ranks.
    cat = await WsClient.connect(
        day.server.ws_url, "cat", additional_headers={"X-Forwarded-For": "192.0.2.44"}
    )
    other = await finish(day, cat, own_line(day.code, 52), seed=3)
    assert other["ranked"] is True, other
    mine = (await decided(day, other["replay_id"]))["score"]["evidence"]
    assert mine["borrowed"] < 0.2, mine
    status, held = await day.server.get("/api/admin/held", TOKEN)
    assert status == 200
    assert [h["player_id"] for h in held["held"]] == [bob.player_id]
    for c in (ann, bob, cat):
        await c.close()
