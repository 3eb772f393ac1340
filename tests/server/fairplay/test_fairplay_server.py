"""Fair play through a real server (in-process, on a clock the test moves; the machine's
Redis): the bench's path and the server's decide alike; a new community ranks by itself;
a line borrowed from another identity, from any address, is practice.

The operator alone sees the evidence: a held player hears ``pending_review``."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from server.daily.deal import today
from server.fairplay.decide import decide
from server.fairplay.evidence import evidence_store
from server.fairplay.policy import Policy
from server.fairplay.values import Assessment
from server.records.replays import replay_id
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_pace import human, play_on, reveal
from tests.helpers.fairplay_lines import own_line
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


async def test_the_bench_and_the_server_decide_alike(day: Day) -> None:
    ctx = day.server.ctx
    policy = Policy.from_settings(ctx.settings)
    store = evidence_store(ctx)
    histories = {"leaning": [0.9, 0.9], "clean": [0.1, 0.0], "first": []}
    verdicts = {}
    for seed, (name, past) in enumerate(histories.items(), start=31):
        client = await WsClient.connect(day.server.ws_url, name)
        earlier = [{"suspicion": s, "solver": 0.9, "result": f"old{i}"} for i, s in enumerate(past)]
        for record in reversed(earlier):  # the oldest first: the newest ends on top
            await store.add(client.player_id, record)
        result = await finish(day, client, own_line(day.code, seed), seed)
        outcome = await decided(day, result["replay_id"])
        score = outcome["score"]
        # The bench's path: the same job's result and the same earlier records, decided.
        job = {**score, **score["review"], "evidence": score["evidence"]}
        bench = decide(Assessment.from_job(job), earlier, policy)
        assert bench.to_json() == score["decision"], (name, bench, score["decision"])
        assert outcome["status"] == ("held" if bench.held else "passed")
        assert result["ranked"] is (not bench.held)
        verdicts[name] = bench
        await client.close()
    # Three finishes leaning the same way flag; a clean player's and a first finish rank.
    assert verdicts["leaning"].flag and verdicts["leaning"].reason == "flagged"
    assert verdicts["leaning"].finishes == 3
    assert not verdicts["clean"].held and not verdicts["first"].held
    assert verdicts["first"].finishes == 1 and not verdicts["first"].flag


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
