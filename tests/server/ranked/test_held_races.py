"""A rated race's held finishers and what an operator's clear or void does to the ratings,
decided without a server: the room as the race ended made by hand, the reviews, ratings
and histories real on Redis, the one-game review a fake that holds whom the test says
(:mod:`tests.helpers.fakes_ranked`).

While a finisher is held nobody's rating moves; the round's standing is kept, so that once
every finisher is decided (whatever the room did since: here it is gone) the ratings change
exactly as if decided at once: a cleared finisher takes their place, a voided one keeps
their rating and shows nowhere. The journeys through a real server are in
:mod:`tests.server.ranked.test_race_held`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
from openskill.models import PlackettLuce

from server.fairplay.holds import Holds
from server.ranked import ratings
from server.records.replays import replay_id
from server.store.store import RoomRead
from server.transport.clients import Client
from tests.helpers.fakes_ranked import HELD, Instance, Racer, Review, instance, race_read

CODE = "SH1-C4-AAAAAAF"
ROOM = "RHELD"
#: Every racer established at once (one rated race is enough).
ESTABLISHED = {"SEAHAVEN_PROVISIONAL_GAMES": "0"}


@pytest.fixture
async def ctx(redis_client: Client, key_prefix: str) -> AsyncIterator[Instance]:
    ctx = await instance(redis_client, key_prefix, env=ESTABLISHED)
    ctx.reviewer.says_for = {"pann": dict(HELD), "pcy": dict(HELD)}  # a script's pace
    yield ctx


def race_over() -> RoomRead:
    """Ann won, Cy finished second, Bob gave up after a real share of the race."""
    racers = [Racer("pann", None, 50), Racer("pcy", None, 60, "198.51.100.2")]
    return race_read(CODE, [*racers, Racer("pbob", 12, 70, "198.51.100.3")])


async def rating(ctx: Instance, pid: str) -> dict[str, str]:
    found = await ctx.redis.hgetall(ctx.keys.rating(pid, 4))
    return {str(k): str(v) for k, v in found.items()}


async def resettle_due(ctx: Instance) -> list[str]:
    """What every instance's resettle loop does once: settle the rounds an operator
    decided a held finisher of."""
    done = []
    while (entry := await ctx.reviews.next_resettle()) is not None:
        room, _, round_ = entry.partition("/")
        await ratings.resettle(ctx, room, int(round_))
        done.append(entry)
    return done


def expected(ranks: list[int]) -> list[tuple[float, float]]:
    """The model's (mu, sigma) of fresh racers placed ``ranks``."""
    model = PlackettLuce()
    rated = model.rate([[model.rating()] for _ in ranks], ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in rated]


async def finished(ctx: Instance, pid: str) -> int:
    return int((await ctx.records.history.read(pid))["races"]["finished"])


@pytest.mark.parametrize("since", ["rematch", "expired"])
@pytest.mark.parametrize("decision", ["clear", "void"])
async def test_a_held_round_settles_as_if_decided_at_once(
    ctx: Instance, decision: str, since: str
) -> None:
    read = race_over()
    standing = ratings.standing_of(read, ROOM, 1, 4)
    assert await ratings.settle_round(ctx, standing, read) is None  # a finisher is held
    assert sorted(ctx.reviewer.asked) == ["pann", "pcy"]  # the finishers, each once
    held = {h["player_id"]: h for h in (await ctx.reviews.held_page(0, 50))["held"]}
    assert sorted(held) == ["pann", "pcy"] and held["pann"]["kind"] == "race"
    assert held["pann"]["result"] == replay_id(ROOM, 1, "pann")
    for pid in ("pann", "pbob", "pcy"):
        assert await rating(ctx, pid) == {}  # nobody's rating moves
        assert await finished(ctx, pid) == 0  # and no finisher's race counts yet
    # Settling again (another instance that saw the race end) reviews nobody twice.
    assert await ratings.settle_round(ctx, standing, read) is None
    assert sorted(ctx.reviewer.asked) == ["pann", "pcy"]

    # The room moved on (a rematch), or is gone (expired): the kept standing is enough.
    if since == "rematch":
        fields = {**read.meta, "round": "2", "state": "lobby"}
        await ctx.redis.hset(ctx.keys.room(ROOM), mapping=cast(Any, fields))
    holds = Holds(ctx.store, ctx.reviews, ctx.daily.leaderboard, ctx.records.replays)
    assert (await holds.clear(held["pcy"]["result"], "op")).status == "cleared"
    assert await resettle_due(ctx) == [f"{ROOM}/1"]
    for pid in ("pann", "pbob", "pcy"):  # Ann still held: nobody's rating moves
        assert await rating(ctx, pid) == {}
    outcome = await getattr(holds, decision)(held["pann"]["result"], "op")
    assert outcome.ok, outcome
    assert await resettle_due(ctx) == [f"{ROOM}/1"]

    if decision == "clear":  # as if cleared at once: Ann 1st, Cy 2nd, Bob 3rd
        want = dict(zip(("pann", "pcy", "pbob"), expected([1, 2, 3]), strict=True))
    else:  # Ann voided keeps her rating (none); Cy 1st of the counted, Bob after
        want = dict(zip(("pcy", "pbob"), expected([2, 3]), strict=True))
        assert await rating(ctx, "pann") == {}
    for pid, (mu, sigma) in want.items():
        got = await rating(ctx, pid)
        assert float(got["mu"]) == pytest.approx(mu), pid
        assert float(got["sigma"]) == pytest.approx(sigma), pid
        assert got["games"] == "1"
    # The finishers' races count in their histories now (the voided one's never).
    assert await finished(ctx, "pcy") == 1
    assert await finished(ctx, "pann") == (1 if decision == "clear" else 0)
    # Settled once: a second resettle changes nothing.
    before = {pid: await rating(ctx, pid) for pid in want}
    await ratings.resettle(ctx, ROOM, 1)
    assert {pid: await rating(ctx, pid) for pid in want} == before


async def test_two_instances_review_a_finisher_once(
    ctx: Instance, redis_client: Client, key_prefix: str
) -> None:
    # Both instances see the race end; the first to claim Ann's review scores it (slowly:
    # its solver is busy), the other waits for its decision instead of scoring it again.
    ctx.reviewer.gate = asyncio.Event()
    other = await instance(redis_client, key_prefix, env=ESTABLISHED)
    other.instance_id = "other"
    other.reviewer = Review(says_for=dict(ctx.reviewer.says_for))
    read = race_over()
    standing = ratings.standing_of(read, ROOM, 1, 4)
    first = asyncio.create_task(ratings.settle_round(ctx, standing, read))
    await asyncio.wait_for(ctx.reviewer.started.wait(), 10)
    second = asyncio.create_task(ratings.settle_round(other, standing, read))
    await asyncio.sleep(0.3)
    assert other.reviewer.asked == []  # Ann's review is the first instance's
    ctx.reviewer.gate.set()
    assert list(await asyncio.wait_for(asyncio.gather(first, second), 20)) == [None, None]
    asked = ctx.reviewer.asked + other.reviewer.asked
    assert sorted(asked) == ["pann", "pcy"], asked  # each finisher scored once, in all
    for pid in ("pann", "pcy"):
        assert await redis_client.exists(ctx.keys.review_claim(ROOM, 1, pid)) == 0


async def test_a_dead_instances_claim_is_taken_over_once_it_expires(
    ctx: Instance, redis_client: Client
) -> None:
    # An instance died while reviewing Ann's finish: its claim lapses, then it is reviewed.
    claim = ctx.keys.review_claim(ROOM, 1, "pann")
    await redis_client.set(claim, "dead:1", px=1000)
    lapsed = time.monotonic() + 1.0
    read = race_over()
    assert await ratings.settle_round(ctx, ratings.standing_of(read, ROOM, 1, 4), read) is None
    assert time.monotonic() >= lapsed - 0.05  # waited the dead claim out
    assert sorted(ctx.reviewer.asked) == ["pann", "pcy"]
    assert (await ctx.reviews.decided(replay_id(ROOM, 1, "pann")) or {}).get("status") == "held"
    assert await redis_client.exists(claim) == 0
