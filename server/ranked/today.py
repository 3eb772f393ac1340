"""A player's own ranked attempt of a day, for the Daily page's "done for today" card
(``GET /api/daily/DATE/mine``: the returning player's card).

Read from what the day already keeps: the attempt's room (``daily:{DATE:KIND}:attempts``),
the player's entry on the board, the room's daily note (ranked, held or why not, and the
replay) and the replay's result. Fair play: only the token's own player is answered, with
their own time and moves, never a code or a line; a held finish says only
``pending_review`` (not what held it), as ``daily_result`` does.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from protocol.vocabulary import RoomPhase

from ..daily.services import Daily
from ..records.replays import ReplayFormatError
from ..records.services import Records
from ..store.store import Store

#: What an attempt can be: not begun, still being played, ranked, held for review (also
#: while its review runs: a win is "pending review" from its last move until the review
#: decides), won but not ranked (voided, barred, too fast: ``reason`` says), or over
#: without a win.
STATES: Final = ("none", "playing", "ranked", "held", "unranked", "over")


class Days(Protocol):
    """What a player's own day needs of an instance: the day's board, the rooms' store
    (the attempt's note and result) and the replays. :class:`server.context.Context` has
    them."""

    @property
    def daily(self) -> Daily:
        """The days' deals and leaderboards."""

    @property
    def store(self) -> Store:
        """The rooms' store."""

    @property
    def records(self) -> Records:
        """The replays."""


async def my_day(ctx: Days, date: str, kind: str, pid: str) -> dict[str, Any]:
    """``{date, kind, state, streak}`` and, once won, ``time_ms``, ``moves``, ``replay_id``;
    ranked: ``rank``, ``finishers``, ``perfect``; won but not ranked: ``reason``."""
    board = ctx.daily.leaderboard
    out: dict[str, Any] = {
        "date": date,
        "kind": kind,
        "state": "none",
        "streak": await board.streak(pid, date),
    }
    room = await board.attempt(date, kind, pid)
    if room is None:
        return out
    entry = await board.entry(date, kind, pid)
    if entry is not None:
        out.update(
            state="ranked",
            time_ms=entry["time_ms"],
            moves=entry["moves"],
            perfect=entry.get("perfect") is True,
            rank=await board.rank(date, kind, pid),
            finishers=await board.finishers(date, kind),
            replay_id=entry["replay_id"],
        )
        return out
    note = await ctx.store.daily_note(room) or {}
    replay_id = note.get("replay_id")
    if replay_id:  # won, and not on the board (held, voided, barred or refused)
        try:
            replay = await ctx.records.replays.load(str(replay_id))
        except ReplayFormatError:
            replay = None
        reason = note.get("unranked_reason")
        out.update(
            state="held" if reason == "pending_review" else "unranked",
            reason=reason,
            replay_id=replay_id,
        )
        if replay is not None:
            out.update(time_ms=replay.result.time_ms, moves=replay.result.moves)
        return out
    fields = await ctx.store.room_fields(room)
    status = fields.get(f"st:{pid}")
    if status == "finished" and fields.get("round"):
        # Won a moment ago: its note is being written. A win is never "over": pending.
        result = await ctx.store.result_of(room, int(fields["round"]), pid) or {}
        out.update(state="held", reason="pending_review")
        if result.get("time_ms") is not None:
            out.update(time_ms=result["time_ms"], moves=result.get("moves"))
        return out
    playing = fields.get("state") == RoomPhase.RACING and status == "playing"
    out["state"] = "playing" if playing else "over"
    return out
