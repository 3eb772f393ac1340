"""What a won daily game counts for, decided without a server: the stores real (Redis, a
prefix of the test's own), the one-game review a fake that says what the test tells it
(:mod:`tests.helpers.fakes_ranked`). Ranked; "won, pending review" before the review and
nothing public until it decides; held for an operator; a review that fails or is cut short
held as unreviewed, never left nowhere; a barred player's, or a second game's, unranked."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from protocol.names import skeleton
from server.daily.deal import today
from server.fairplay.evidence import evidence_store
from server.ranked.finish import HELD_MESSAGE, PENDING_MESSAGE, DailyOutcome, record_finish
from server.records.replays import Replay, replay_id, verify
from server.store import names
from server.transport.clients import Client
from tests.helpers.fakes_ranked import HELD, Instance, instance, won_daily_board, won_today
from tests.helpers.replay_support import edit

ADDRESS = "198.51.100.23"
#: A day long over.
PAST = "2026-03-14"


@pytest.fixture
async def ctx(redis_client: Client, key_prefix: str) -> AsyncIterator[Instance]:
    yield await instance(redis_client, key_prefix, today().isoformat())


async def finish(
    ctx: Instance, replay: Replay, heard: list[DailyOutcome] | None = None
) -> DailyOutcome:
    """Record the won board as the move path does after the winning move."""
    assert replay.room is not None
    outcome = await record_finish(
        ctx,
        replay.room,
        1,
        replay.player_id,
        rank=1,
        address=ADDRESS,
        pending=None if heard is None else heard.append,
    )
    assert isinstance(outcome, DailyOutcome)
    return outcome


async def held_entry(ctx: Instance, rid: str) -> dict[str, Any] | None:
    text = await ctx.redis.hget(ctx.keys.held(), rid)
    return None if text is None else dict(json.loads(text))


async def test_a_finish_the_review_passes_ranks_and_its_note_says_so(ctx: Instance) -> None:
    replay = won_today("pann")
    await won_daily_board(ctx, replay)
    heard: list[DailyOutcome] = []
    outcome = await finish(ctx, replay, heard)
    rid = replay_id(str(replay.room), 1, "pann")
    assert (outcome.rank, outcome.unranked_reason, outcome.message) == (1, None, "ranked #1")
    assert outcome.replay_id == rid
    # The player heard "pending review" first, from the same replay.
    assert [(o.rank, o.unranked_reason, o.message) for o in heard] == [
        (None, "pending_review", PENDING_MESSAGE)
    ]
    assert heard[0].replay_id == rid
    note = await ctx.store.daily_note(str(replay.room))
    assert note is not None
    assert (note["ranked"], note["rank"], note["unranked_reason"]) == (True, 1, None)
    assert note["replay_id"] == rid
    board, date = ctx.daily.leaderboard, str(replay.daily_date)
    assert await board.rank(date, "daily", "pann") == 1
    assert await board.streak("pann", date) == 1
    assert (await ctx.reviews.decided(rid) or {}).get("status") == "passed"
    assert ctx.reviewer.asked == ["pann"]
    assert await held_entry(ctx, rid) is None


async def test_pending_review_is_said_before_the_review_and_nothing_public_changes(
    ctx: Instance,
) -> None:
    ctx.reviewer.gate = asyncio.Event()  # the solver is busy elsewhere
    replay = won_today("pbea")
    await won_daily_board(ctx, replay)
    heard: list[DailyOutcome] = []
    task = asyncio.create_task(finish(ctx, replay, heard))
    await asyncio.wait_for(ctx.reviewer.started.wait(), 10)
    # The review has begun, not ended: the player's day says "won, pending review".
    assert [o.unranked_reason for o in heard] == ["pending_review"]
    note = await ctx.store.daily_note(str(replay.room))
    assert note is not None
    assert (note["ranked"], note["rank"], note["unranked_reason"]) == (
        False,
        None,
        "pending_review",
    )
    assert note["replay_id"] == heard[0].replay_id
    board, date = ctx.daily.leaderboard, str(replay.daily_date)
    assert await board.finishers(date, "daily") == 0
    assert await board.streak("pbea", date) == 0
    # The review decides: the decision replaces "pending".
    ctx.reviewer.gate.set()
    outcome = await asyncio.wait_for(task, 10)
    assert (outcome.rank, outcome.unranked_reason) == (1, None)
    note = await ctx.store.daily_note(str(replay.room))
    assert note is not None and (note["ranked"], note["unranked_reason"]) == (True, None)


async def test_a_finish_the_review_holds_waits_for_an_operator(ctx: Instance) -> None:
    ctx.reviewer.says = dict(HELD)
    replay = won_today("pcy")
    await won_daily_board(ctx, replay)
    outcome = await finish(ctx, replay)
    rid = outcome.replay_id
    # Its player hears pending review, never which feature held it.
    assert (outcome.rank, outcome.unranked_reason, outcome.message) == (
        None,
        "pending_review",
        HELD_MESSAGE,
    )
    held = await held_entry(ctx, rid)
    assert held is not None
    assert (held["player_id"], held["kind"], held["daily_kind"]) == ("pcy", "daily", "daily")
    assert held["score"]["reason"] == "solver_like" and held["streak"] is True
    assert held["entry"]["time_ms"] == replay.result.time_ms
    assert (await ctx.reviews.decided(rid) or {}).get("status") == "held"
    assert await ctx.daily.leaderboard.finishers(str(replay.daily_date), "daily") == 0
    note = await ctx.store.daily_note(str(replay.room))
    assert note is not None and note["unranked_reason"] == "pending_review"
    # The replay lives as long as the day's boards: an operator may clear it.
    assert await ctx.redis.ttl(ctx.keys.replay(rid)) > ctx.settings.replay_ttl


async def test_a_review_that_fails_holds_the_finish_as_unreviewed(ctx: Instance) -> None:
    ctx.reviewer.fails = RuntimeError("the solver's process died")
    replay = won_today("pdee")
    await won_daily_board(ctx, replay)
    outcome = await finish(ctx, replay)
    assert (outcome.rank, outcome.unranked_reason) == (None, "pending_review")
    held = await held_entry(ctx, outcome.replay_id)
    assert held is not None and held["player_id"] == "pdee"
    assert held["score"]["reason"] == "unreviewed"
    assert held["score"]["message"] == "the review failed"


async def test_a_review_cut_short_by_a_stop_leaves_the_finish_on_the_operators_list(
    ctx: Instance,
) -> None:
    # The player's day said "pending review" from the winning move on: a review that never
    # ended (the instance stopped meanwhile) leaves the finish held, never nowhere.
    ctx.reviewer.gate = asyncio.Event()  # never opened
    replay = won_today("peve")
    await won_daily_board(ctx, replay)
    heard: list[DailyOutcome] = []
    task = asyncio.create_task(finish(ctx, replay, heard))
    await asyncio.wait_for(ctx.reviewer.started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    held = await held_entry(ctx, heard[0].replay_id)
    assert held is not None, "the finish is on no operator's list"
    assert held["player_id"] == "peve" and held["kind"] == "daily"
    assert held["score"]["reason"] == "unreviewed"
    assert "stopped" in held["score"]["message"]


async def test_a_barred_players_finish_does_not_rank_and_is_not_reviewed(ctx: Instance) -> None:
    await ctx.reviews.bar("pfay")
    replay = won_today("pfay")
    await won_daily_board(ctx, replay)
    outcome = await finish(ctx, replay)
    assert (outcome.rank, outcome.unranked_reason) == (None, "barred")
    assert ctx.reviewer.asked == []
    assert await held_entry(ctx, outcome.replay_id) is None
    assert await ctx.daily.leaderboard.finishers(str(replay.daily_date), "daily") == 0


async def test_a_second_game_of_the_day_is_practice_and_never_reviewed(ctx: Instance) -> None:
    first = won_today("pgus")
    await won_daily_board(ctx, first)
    assert (await finish(ctx, first)).rank == 1
    again = edit(won_today("pgus"), room=f"{first.room}-2")
    await won_daily_board(ctx, again)
    # The second room's claim does not replace the first (one ranked attempt a day).
    outcome = await finish(ctx, again)
    assert (outcome.rank, outcome.unranked_reason) == (None, "practice")
    assert ctx.reviewer.asked == ["pgus"]


async def test_a_flagged_players_finish_waits_for_an_operator_though_its_review_passes(
    ctx: Instance,
) -> None:
    # A flagged player's finish waits for an operator even when its review passes.
    await evidence_store(ctx).flag("phal", 0.9, "score 0.90 over 3")
    replay = won_today("phal")
    await won_daily_board(ctx, replay)
    outcome = await finish(ctx, replay)
    assert outcome.unranked_reason == "pending_review"
    held = await held_entry(ctx, outcome.replay_id)
    assert held is not None and held["score"]["reason"] == "flagged"


async def test_a_finish_under_the_physical_floor_is_kept_but_not_ranked(
    redis_client: Client, key_prefix: str
) -> None:
    # The floor is a setting: here an hour a move, so any line is under it.
    floor = 3_600_000
    ctx = await instance(redis_client, key_prefix, today().isoformat(), floor_ms=floor)
    replay = won_today("pivy")
    await won_daily_board(ctx, replay)
    outcome = await finish(ctx, replay)
    assert (outcome.rank, outcome.unranked_reason) == (None, "too_fast")
    assert ctx.reviewer.asked == []
    assert await ctx.daily.leaderboard.finishers(str(replay.daily_date), "daily") == 0
    # The game is played and kept: its replay is there, and the floor refutes it.
    kept = await ctx.records.replays.load(outcome.replay_id)
    assert kept is not None and kept.actions == replay.actions
    assert verify(kept, min_ms_per_action=floor).reason == "too_fast"


async def test_a_past_days_deal_played_now_is_kept_and_verifies_but_does_not_rank(
    redis_client: Client, key_prefix: str
) -> None:
    # Played now, a past day's deal could have been studied (or its published replays
    # copied) at leisure: only games begun on the day rank.
    ctx = await instance(redis_client, key_prefix, PAST)
    replay = won_today("pjo", PAST)
    await won_daily_board(ctx, replay)
    outcome = await finish(ctx, replay)
    assert (outcome.date, outcome.rank, outcome.unranked_reason) == (PAST, None, "after_day")
    assert ctx.reviewer.asked == []
    assert await ctx.daily.leaderboard.finishers(PAST, "daily") == 0
    kept = await ctx.records.replays.load(outcome.replay_id)
    assert kept is not None and verify(kept, min_ms_per_action=0).ok


#: Established by ranked dailies on 2 days (rated races never, here).
BAR = {"SEAHAVEN_PROVISIONAL_GAMES": "1000", "SEAHAVEN_PROVISIONAL_DAYS": "2"}
#: Any new leader's evidence is unusual enough to hold it.
STRICT = {**BAR, "SEAHAVEN_EVIDENCE_NEW_LEADER_SUSPICION": "0"}


async def test_a_newcomer_ranks_from_the_first_day_but_never_leads_it_unreviewed(
    redis_client: Client, key_prefix: str
) -> None:
    date = today().isoformat()
    ctx = await instance(redis_client, key_prefix, date, env=STRICT)
    board = ctx.daily.leaderboard
    # A fresh identity first on an empty board would lead the day: held for review.
    first = won_today("pfirst", step=30)
    await won_daily_board(ctx, first)
    held = await finish(ctx, first)
    assert (held.rank, held.unranked_reason) == (None, "pending_review")
    entry = await held_entry(ctx, held.replay_id)
    assert entry is not None and entry["score"]["reason"] == "new_leader"
    # Old ranked a daily yesterday: today's finish makes it 2 days, established: it leads.
    yesterday = dt.date.fromisoformat(date) - dt.timedelta(days=1)
    await redis_client.zadd(
        ctx.keys.player_days("pold"), {yesterday.isoformat(): yesterday.toordinal()}
    )
    old = won_today("pold", step=40)
    await won_daily_board(ctx, old)
    assert (await finish(ctx, old)).rank == 1
    # Fresh is slower than the established leader: ranked at once, marked new.
    fresh = won_today("pfresh", step=60)
    await won_daily_board(ctx, fresh)
    assert (await finish(ctx, fresh)).rank == 2
    assert await board.provisional("daily", ["pold", "pfresh"]) == {"pfresh"}
    assert await board.finishers(date, "daily") == 2


async def test_a_newcomers_usual_finish_leads_the_day(
    redis_client: Client, key_prefix: str
) -> None:
    # At the shipped threshold a new community's first finishes rank: only unusual evidence
    # holds a new leader.
    ctx = await instance(redis_client, key_prefix, today().isoformat(), env=BAR)
    first = won_today("pnew")
    await won_daily_board(ctx, first)
    assert (await finish(ctx, first)).rank == 1
    assert await ctx.daily.leaderboard.provisional("daily", ["pnew"]) == {"pnew"}


async def test_a_ranked_established_finisher_keeps_their_name_and_a_newcomer_does_not(
    redis_client: Client, key_prefix: str
) -> None:
    ctx = await instance(redis_client, key_prefix, today().isoformat(), env=BAR)
    date = today().isoformat()
    yesterday = dt.date.fromisoformat(date) - dt.timedelta(days=1)
    await redis_client.zadd(
        ctx.keys.player_days("pold"), {yesterday.isoformat(): yesterday.toordinal()}
    )
    for pid in ("pold", "pnew"):
        replay = won_today(pid)
        await won_daily_board(ctx, replay)
        assert (await finish(ctx, replay)).rank is not None
    # Established by this day: nobody else may take a name that passes for theirs.
    assert await names.holder(ctx.store, skeleton("POLD")) == "pold"
    assert await names.holder(ctx.store, skeleton("PNEW")) is None  # provisional still
