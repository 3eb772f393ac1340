"""Evidence across games: each ranked finish's record, a player's score over their recent
finishes, and the flag that holds their next ranked results (docs/fairplay.md).

:func:`assess` is what a ranked finish (a daily's, a rated race's finisher's) goes through
instead of the one-game review alone. It gathers what the server knows beyond the line:

- the lines of the same deal that other identities of the finisher's **address** finished
  (``review:practice:ID:{A}``, noted by :func:`note_practice` for every won daily
  board), so a line practised on identity A and replayed on identity B shows as known;
- the day's **field**: the median time of the day's established finishers on the
  leaderboard, once there are ``evidence_field_min`` of them;

then scores the line and its record in the solver pool (:mod:`server.review.evidence`), keeps
the record (a few hundred bytes, the newest :data:`server.store.evidence.KEPT`), and takes the
player's **score**: the mean suspicion of their newest ``evidence_window`` records. A score at
``evidence_flag_score`` or above flags the player: this finish and every later ranked one is
held (reason ``flagged``) until an operator lifts the flag (``unflag``) or bars them.

Nothing here reaches a player: a held finish's player is told ``pending_review`` as before,
never the reason, the score or the record; the operator reads them (``/api/admin/suspects``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from ..clock import now_ms
from ..context import Context
from ..records.replays import ReplayFormatError
from ..review.evidence import Weights, suspicion
from ..store.evidence import EvidenceStore

#: Why a finish is held when its player is flagged.
FLAGGED = "flagged"


def player_score(records: Sequence[dict[str, Any]], min_finishes: int = 1) -> float:
    """A player's score: the mean suspicion of their recent records, the newest first (0
    with fewer than ``min_finishes``)."""
    if len(records) < max(1, min_finishes):
        return 0.0
    return round(sum(float(r.get("suspicion") or 0.0) for r in records) / len(records), 3)


def flags(score: float, finishes: int, flag_score: float, min_finishes: int) -> bool:
    """Whether a player's score flags them: at ``flag_score`` or more over at least
    ``min_finishes`` finishes; over fewer, only a full score (1: every finish a reference's,
    or known from practice) does, so that one unlucky game of a person's never does."""
    if score < flag_score:
        return False
    return finishes >= min_finishes or score >= 1.0


def weights(ctx: Context) -> Weights:
    """The suspicion's settings."""
    s = ctx.settings
    return Weights(
        agreement_low=s.evidence_agreement_low,
        agreement_high=s.evidence_agreement_high,
        known_high=s.evidence_known_high,
        field_low=s.evidence_field_low,
        field_weight=s.evidence_field_weight,
        min_scored=s.review_min_scored,
    )


def evidence_store(ctx: Context) -> EvidenceStore:
    """The evidence on the instance's Redis."""
    return EvidenceStore(ctx.redis, ctx.keys, ctx.reviews.keep_s)


async def note_practice(ctx: Context, code: str, mark: str | None, pid: str, rid: str) -> None:
    """Note a won board of a deal by an identity of an address (its replay is its line)."""
    if mark:
        await evidence_store(ctx).note_practice(code, mark, pid, rid)


async def practised(ctx: Context, code: str, mark: str | None, pid: str) -> list[list[str]]:
    """The lines of this deal that other identities of the address finished."""
    if not mark:
        return []
    lines: list[list[str]] = []
    for other, rid in (await evidence_store(ctx).practice(code, mark)).items():
        if other == pid:
            continue
        try:
            replay = await ctx.records.replays.load(rid)
        except ReplayFormatError:
            continue
        if replay is not None and replay.code == code:
            lines.append(list(replay.actions))
    return lines


async def field_ms(ctx: Context, date: str | None, kind: str | None) -> int | None:
    """The median time of the day's established finishers (None: too few, or no day)."""
    if not date or not kind:
        return None
    top = await ctx.daily.leaderboard.top(date, kind, 100)
    times = [int(e["time_ms"]) for e in top if e.get("time_ms")]
    if len(times) < ctx.settings.evidence_field_min:
        return None
    return int(statistics.median(times))


async def assess(
    ctx: Context,
    pid: str,
    rid: str,
    code: str,
    started_at: int,
    actions: list[str],
    times: list[int],
    *,
    mark: str | None,
    date: str | None = None,
    kind: str | None = None,
) -> dict[str, Any]:
    """Review a ranked finish with its evidence (see the module docstring).

    Returns:
        The review's score (``held``, ``reason``, ``message``, ...) with ``evidence`` (the
        record, its suspicion) and ``player_score``; held when the review holds it or the
        player is flagged.
    """
    lines = await practised(ctx, code, mark, pid)
    field = await field_ms(ctx, date, kind)
    score = await ctx.reviewer.score(pid, code, started_at, actions, times, lines, field)
    store = evidence_store(ctx)
    record = score.get("evidence")
    value = 0.0
    if record is not None:
        record = {**record, "suspicion": suspicion(record, weights(ctx)), "result": rid}
        record["at"] = now_ms()
        record["held"] = bool(score["held"])
        recent = await store.add(pid, record)
        value = player_score(recent[: ctx.settings.evidence_window])
        await store.set_score(pid, value)
        score = {**score, "evidence": record}
        if value >= ctx.settings.evidence_flag_score:
            why = (
                f"score {value:.2f} over {min(len(recent), ctx.settings.evidence_window)} finishes"
            )
            await store.flag(pid, value, why)
    score["player_score"] = value
    flag = await store.flagged(pid)
    if flag is not None and not score["held"]:
        score = {
            **score,
            "held": True,
            "reason": FLAGGED,
            "message": f"the player is flagged ({flag['why']}): their ranked results wait",
        }
    return score
