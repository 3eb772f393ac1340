"""What happens when a board is won or given up: its replay is kept, a daily finish is
verified and ranked, a race result goes into the player's history (a rated race's finish
once the race settles, after its review: :mod:`server.fairplay.race_review`), and a solo game
into the player's solo statistics (:mod:`.solo_stats`).

:func:`record_finish` is called once the winning action is committed. It builds the replay
from what Redis holds (the board's action log with server timestamps, and the result the
server announced), so what is ranked is exactly what was played; the leaderboard then
writes an entry only if the engine verifies that replay, and the outcome (ranked, or why
not) is written into the room's daily note for its player to see.

A finish that may rank is reviewed first, in the solver's processes, which can take a while
on a busy host. Its player is not left waiting for that: before the review starts, the note
says "won, pending review" (``pending_review``, the replay's id) and the ``pending`` callback
tells the player so (``daily_pending``); the review's decision then replaces it. Nothing
public changes before the decision: the leaderboard entry and the streak are written only
when the finish ranks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Protocol

from protocol.names import skeleton

from ..clock import now_ms
from ..daily.leaderboard import Submission, entry_of, utc_date
from ..daily.services import Daily
from ..engine import Board, parse_action, parse_code
from ..fairplay import evidence
from ..fairplay.standing import standing
from ..records.replays import KINDS, Replay, Result, parse_log, replay_id, verify
from ..records.solo_stats import Counted
from ..review.reviewer import unreviewed
from ..store import names
from ..store.store import Store
from .ratings import address_mark

log = logging.getLogger(__name__)

#: The reasons a player is shown as they are; any other refusal is ``not_verified``
#: (``too_fast`` is the code of the physical floor's refutation).
SHOWN_REASONS: Final = frozenset(
    {"practice", "after_day", "late_finish", "too_fast", "pending_review", "barred"}
)

#: What the player of a held finish is told.
HELD_MESSAGE: Final = "your time stands; its rank is pending review by an operator"
#: What the player of a finish that may rank is told while it is reviewed.
PENDING_MESSAGE: Final = "your time stands; its rank is pending review"


@dataclass(frozen=True, slots=True)
class DailyOutcome:
    """What a won daily game counts for (the ``daily_result`` message to its player).

    Attributes:
        date, kind: the day and kind of the challenge.
        rank: its rank on the leaderboard, or None when it is not ranked.
        unranked_reason: why not (``protocol.models.UNRANKED_REASONS``), or None.
        message: the reason in words (or the rank).
        replay_id: the game's replay.
    """

    date: str
    kind: str
    rank: int | None
    unranked_reason: str | None
    message: str
    replay_id: str


class Finishing(evidence.Weighing, Protocol):
    """What recording a finish needs of an instance: beside what weighing its evidence needs
    (:class:`server.fairplay.evidence.Weighing`), the rooms' store (the board, the daily
    note) and the daily challenge's stores. :class:`server.context.Context` has them; a
    test gives its own review and sees every decision without a server.
    """

    @property
    def store(self) -> Store:
        """The rooms' store."""

    @property
    def daily(self) -> Daily:
        """The days' deals and leaderboards."""


async def build_replay(store: Store, room: str, round_: int, pid: str) -> Replay | None:
    """The replay of one finished board, from Redis (None if the room or result is gone)."""
    meta, member, result, entries = await store.finished_board(room, round_, pid)
    if not meta or result is None or not entries or meta.get("round") != str(round_):
        return None  # gone, or already a new round (its start time is no longer this one's)
    actions, times = parse_log(entries)
    mode = meta.get("mode", "solo")
    kind = mode if mode in KINDS else "solo"
    # The clock: a race's start, a daily game's reveal (the room is made as it is shown),
    # a solo game's first action.
    started_at = int(meta.get("starts_at") or 0) if kind in ("race", "daily") else times[0]
    name = member.get("name", "") if member else result.get("name", "")
    board = Board.from_code(meta["code"])
    for text in actions:
        board.play(parse_action(text))
    daily = await store.daily_of(room) if kind == "daily" else None
    return Replay(
        id=replay_id(room, round_, pid),
        kind=kind,
        code=meta["code"],
        player_id=pid,
        name=name,
        started_at=started_at,
        actions=actions,
        times_ms=times,
        result=Result(
            won=result.get("status") == "finished",
            time_ms=result.get("time_ms"),
            moves=int(result.get("moves", len(actions))),
            score=board.score,
        ),
        room=room,
        round=round_,
        daily_date=daily[0] if daily else None,
        daily_kind=daily[1] if daily else None,
    )


async def record_finish(
    ctx: Finishing,
    room: str,
    round_: int,
    pid: str,
    rank: int,
    perfect: bool = False,
    address: str | None = None,
    pending: Callable[[DailyOutcome], None] | None = None,
) -> DailyOutcome | Counted | None:
    """Keep a won board's replay; rank a daily finish; count a race or solo finish, and a
    verified ``perfect`` one (a win in the deal's proven par, as the move path found it)
    among the player's perfect games (a daily's is counted when its entry is written).

    Args:
        address: the finisher's client address, when known: a daily line is noted as the
            address's practice of the deal (:func:`server.fairplay.evidence.note_practice`).
        pending: called with the "won, pending review" outcome of a daily finish that may
            rank, once its room's note says so and before its review starts.

    Returns:
        What a daily game counts for (also written into its room's note), what a solo win
        changed in the player's statistics, else None.
    """
    store, daily, records = ctx.store, ctx.daily, ctx.records
    replay = await build_replay(store, room, round_, pid)
    if replay is None:
        log.warning("no replay for %s round %s player %s", room, round_, pid)
        return None
    await records.replays.save(replay)
    outcome = None
    if replay.kind == "daily" and replay.daily_date and replay.daily_kind:
        mark = address_mark(address) if address else None
        submission = await daily.leaderboard.check(replay)
        if submission.status == "eligible":
            # Said at once: the review may wait for the solver a while, and until it decides
            # the player's own day is "won, pending review", never "over".
            early = DailyOutcome(
                replay.daily_date,
                replay.daily_kind,
                None,
                "pending_review",
                PENDING_MESSAGE,
                replay.id,
            )
            await _note(store, room, early)
            if pending is not None:
                pending(early)
            submission = await reviewed(ctx, replay, mark)
        # Every won daily board of the address (replays live for days: its line with it).
        await evidence.note_practice(ctx, replay.code, mark, pid, replay.id)
        if submission.status in ("ranked", "held"):
            await records.replays.keep(replay.id, daily.leaderboard.keep_s)
        elif submission.status == "refused":
            log.warning("daily finish of %s refused: %s", pid, submission.message)
        ranked = submission.status == "ranked"
        reason = None
        if not ranked:
            shown = submission.reason in SHOWN_REASONS
            reason = submission.reason if shown else "not_verified"
        outcome = DailyOutcome(
            replay.daily_date,
            replay.daily_kind,
            submission.rank if ranked else None,
            reason,
            f"ranked #{submission.rank}" if ranked else submission.message,
            replay.id,
        )
        await _note(store, room, outcome)
    elif replay.kind == "solo":
        if verify(replay, min_ms_per_action=0).ok:
            counted = await records.solo.record(
                pid,
                parse_code(replay.code).cells,
                f"{room}/{round_}",
                won=True,
                time_ms=replay.result.time_ms,
                moves=replay.result.moves,
            )
            if counted.counted and perfect:
                await records.perfect.add(pid, "solo")
            return counted
    elif replay.kind == "race":
        verdict = verify(replay, min_ms_per_action=0)
        if verdict.ok and (await store.room_fields(room)).get("rated") != "1":
            # A rated race's finishers are reviewed first: their races are counted when it
            # settles (server/fairplay/race_review.py), a held one's only once cleared.
            kept = await records.history.record(
                pid,
                room,
                round_,
                code=replay.code,
                cells=parse_code(replay.code).cells,
                rank=rank,
                time_ms=replay.result.time_ms,
                moves=replay.result.moves,
                replay_id=replay.id,
                at=replay.times_ms[-1],
                perfect=perfect,
            )
            if kept and perfect:  # never reviewed: the player's own count, not a public one
                await records.perfect.add(pid, "unrated")
    return outcome


async def _note(store: Store, room: str, outcome: DailyOutcome) -> None:
    """Write what a won daily game counts for into its room's note (the snapshot's
    ``daily``), with the replay's id: a reload still offers the player's replay."""
    note = await store.daily_note(room)
    if note is not None:
        note.update(
            ranked=outcome.rank is not None,
            rank=outcome.rank,
            unranked_reason=outcome.unranked_reason,
            replay_id=outcome.replay_id,
        )
        await store.set_daily(room, note)


async def reviewed(ctx: Finishing, replay: Replay, mark: str | None) -> Submission:
    """:func:`review_daily`, and a finish whose review failed or was cut short (an instance
    stopping) held for an operator instead: its player's day says "pending review" from the
    winning move on, so it must be on the operator's list, never left nowhere."""
    try:
        return await review_daily(ctx, replay, mark)
    except asyncio.CancelledError:
        why = unreviewed("the instance stopped during the review")
        await asyncio.shield(hold_daily(ctx, replay, why))
        raise
    except Exception:
        log.exception("the review of daily finish %s failed", replay.id)
        return await hold_daily(ctx, replay, unreviewed("the review failed"))


async def review_daily(ctx: Finishing, replay: Replay, mark: str | None = None) -> Submission:
    """Review a daily finish that may rank, with its evidence across games
    (:func:`server.fairplay.evidence.assess`), then rank it or hold it for an operator.

    The player of a held finish is told ``pending_review`` (not which feature held it, nor
    their score: a script would learn what to change); their time stands in their own game.
    A barred player's finish does not rank (``barred``).
    """
    assert replay.daily_date is not None and replay.daily_kind is not None
    if not (await standing(ctx, replay.player_id)).may_rank:
        return Submission(
            "not_ranked", reason="barred", message="this player is barred from ranked play"
        )

    async def leads() -> bool:
        return await _new_leader(ctx, replay)

    score = await evidence.assess(
        ctx,
        replay.player_id,
        replay.id,
        replay.code,
        replay.started_at,
        list(replay.actions),
        list(replay.times_ms),
        mark=mark,
        date=replay.daily_date,
        kind=replay.daily_kind,
        # A newcomer ranks from their first day; only one whose evidence is unusual is held
        # before taking the day's lead (a fresh identity is the cheapest way to a public #1).
        new_leader=leads,
    )
    if not score["held"]:
        await ctx.reviews.decide(replay.id, "passed", score=score)
        entered = await ctx.daily.leaderboard.enter(replay)
        if entered.status == "ranked":
            await keep_name(ctx, replay)
        return entered
    return await hold_daily(ctx, replay, score)


async def hold_daily(ctx: Finishing, replay: Replay, score: dict[str, Any]) -> Submission:
    """Hold a daily finish for an operator with its score (the operator's alone)."""
    assert replay.daily_date is not None and replay.daily_kind is not None
    log.warning("daily finish %s of %s held: %s", replay.id, replay.player_id, score["message"])
    await ctx.reviews.decide(replay.id, "held", score=score)
    await ctx.reviews.hold(
        {
            "result": replay.id,
            "kind": "daily",
            "room": replay.room,
            "player_id": replay.player_id,
            "name": replay.name,
            "date": replay.daily_date,
            "daily_kind": replay.daily_kind,
            "time_ms": replay.result.time_ms,
            "moves": replay.result.moves,
            "score": score,
            "entry": entry_of(replay),
            "streak": utc_date(replay.started_at) == replay.daily_date,
        }
    )
    return Submission("held", reason="pending_review", message=HELD_MESSAGE)


async def _new_leader(ctx: Finishing, replay: Replay) -> bool:
    """Whether the daily finish of a player still provisional with it (its day counted)
    would be first in the day's default (fastest) view."""
    board, date, kind = ctx.daily.leaderboard, replay.daily_date, replay.daily_kind
    assert date is not None and kind is not None and replay.result.time_ms is not None
    if not await board.would_lead(date, kind, replay.result.time_ms, replay.result.moves):
        return False
    return await board.new_with_this_day(kind, replay.player_id)


async def keep_name(ctx: Finishing, replay: Replay) -> None:
    """A ranked daily finisher who is established (on the public boards): nobody else may
    take a name that passes for theirs (:mod:`server.store.names`)."""
    assert replay.daily_kind is not None
    board = ctx.daily.leaderboard
    if replay.name and not await board.provisional(replay.daily_kind, [replay.player_id]):
        keep_s = ctx.settings.history_s
        await names.keep(ctx.store, skeleton(replay.name), replay.player_id, keep_s)


async def record_give_up(ctx: Finishing, room: str, round_: int, pid: str) -> None:
    """Count a race given up (or left mid-race) in the player's history and keep its
    replay; count a solo game given up or abandoned after its first move as a loss.

    Safe to call for any leave: it acts only when the round's result for the player says
    ``gave_up`` in a race or solo room (a solo game is counted once, however often this is
    called for it).
    """
    store, records = ctx.store, ctx.records
    meta, _member, result, entries = await store.finished_board(room, round_, pid)
    code = meta.get("code")
    if meta.get("mode") not in ("race", "solo") or not code or result is None:
        return
    if result.get("status") != "gave_up":
        return
    if meta.get("mode") == "solo":
        if entries:  # begun: a game left before its first move was never played
            await records.solo.record(
                pid,
                parse_code(code).cells,
                f"{room}/{round_}",
                won=False,
                time_ms=None,
                moves=int(result.get("moves", 0)),
            )
        return
    replay = await build_replay(store, room, round_, pid)
    if replay is not None:
        await records.replays.save(replay)
    await records.history.record(
        pid,
        room,
        round_,
        code=code,
        cells=parse_code(code).cells,
        rank=None,
        time_ms=None,
        moves=int(result.get("moves", 0)),
        replay_id=replay.id if replay is not None else None,
        at=replay.times_ms[-1] if replay is not None else now_ms(),
    )
