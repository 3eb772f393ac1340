"""Evidence across games: each ranked finish's record, the player's earlier records, the
field it is weighed against, and :func:`server.fairplay.decide.decide` on them (docs/fairplay.md).

:func:`assess` is what a ranked finish (a daily's, a rated race's finisher's) goes through
instead of the one-game review alone. It gathers what the server knows beyond the line:

- the lines of the same deal that other identities of the finisher's **address** finished
  (``review:practice:ID:{A}``, noted by :func:`note_practice` for every won daily
  board), so a line practised on identity A and replayed on identity B shows as known;
- which few identities' won lines of the deal reached each table (``review:tables:ID``,
  from any address): a line that largely repeats **one** other identity's line is
  ``borrowed`` (a table many identities reached is common, no evidence);
- the **field**: the times and solver agreements of the day's other reviewed finishers of
  the same daily kind that passed (``review:field:D:K``), once ``evidence_field_min`` of
  them finished; a rated race's field is its rivals' times;

then has the line reviewed and its record made in the solver pool
(:mod:`server.review.evidence`), decides (:func:`server.fairplay.decide.decide`), keeps the
record (a few hundred bytes, the newest :data:`server.store.evidence.KEPT`), the player's
score, and their flag when the decision flags them.

Nothing here reaches a player: a held finish's player is told ``pending_review`` as before,
never the reason, the score or the record; the operator reads them (``/api/admin/suspects``).
"""

from __future__ import annotations

import asyncio
import statistics
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from ..clock import now_ms
from ..records.replays import ReplayFormatError
from ..records.services import Records
from ..review.evidence import line_digests
from ..settings import Settings
from ..store.evidence import COMMON, EvidenceStore
from ..store.keys import Keys
from ..transport.clients import Client
from .decide import decide
from .policy import Policy
from .standing import Reviewed, standing
from .values import Assessment


class Scorer(Protocol):
    """The one-game review of a line (:class:`server.review.reviewer.Reviewer`)."""

    async def score(
        self,
        player: str,
        code: str,
        started_at: int,
        actions: list[str],
        times: list[int],
        practised: list[list[str]] | None = None,
        field_ms: int | None = None,
    ) -> dict[str, Any]:
        """The review's score of one line with its evidence record (``evidence``)."""


class Weighing(Reviewed, Protocol):
    """What weighing a ranked finish's evidence needs of an instance: the settings (the
    policy), the evidence's Redis and keys, the replays (lines practised, tables reached), the
    reviews (the player's standing) and the one-game review. :class:`server.context.Context`
    has them; a test gives its own review."""

    @property
    def settings(self) -> Settings:
        """The instance's settings."""

    @property
    def redis(self) -> Client:
        """The Redis the evidence lives on."""

    @property
    def keys(self) -> Keys:
        """The instance's key names."""

    @property
    def records(self) -> Records:
        """Replays, history, solo statistics."""

    @property
    def reviewer(self) -> Scorer:
        """The one-game review."""


def evidence_store(ctx: Weighing) -> EvidenceStore:
    """The evidence on the instance's Redis."""
    return EvidenceStore(ctx.redis, ctx.keys, ctx.reviews.keep_s)


async def note_practice(ctx: Weighing, code: str, mark: str | None, pid: str, rid: str) -> None:
    """Note a won board of a deal by an identity of an address (its replay is its line),
    and index the tables its line reached (the deal's index, from any address)."""
    store = evidence_store(ctx)
    if mark:
        await store.note_practice(code, mark, pid, rid)
    try:
        replay = await ctx.records.replays.load(rid)
    except ReplayFormatError:
        return
    if replay is None or replay.code != code:
        return
    kept, _decided = await asyncio.to_thread(line_digests, code, list(replay.actions))
    cap = ctx.settings.evidence_borrowed_common
    await store.note_tables(code, pid, kept, cap)


async def practised(ctx: Weighing, code: str, mark: str | None, pid: str) -> list[list[str]]:
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


def borrowed_share(
    pid: str, decided: Sequence[str], entries: Sequence[str | None], least: int
) -> float:
    """The share of a line's decisions whose tables ONE other identity's line reached (the
    best-matching one) and few others did (a common table is no evidence), over all its
    decisions (at least ``least``). Over all of them, not only the uncommon ones: on a day
    many play, two people's own lines share a stretch that nobody else took, and that
    stretch must not count as the whole of a line whose opening everyone shared."""
    counts: Counter[str] = Counter()
    for entry in entries[: len(decided)]:
        if entry == COMMON:
            continue
        for other in entry.split(",") if entry else ():
            if other != pid:
                counts[other] += 1
    best = max(counts.values(), default=0)
    return round(best / max(len(entries[: len(decided)]), least, 1), 3)


def _median(values: Sequence[float], least: int) -> float | None:
    return float(statistics.median(values)) if len(values) >= max(1, least) else None


async def assess(
    ctx: Weighing,
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
    rivals_ms: Sequence[int] = (),
    new_leader: Callable[[], Awaitable[bool]] | None = None,
) -> dict[str, Any]:
    """Review a ranked finish with its evidence and decide it (see the module docstring).

    Args:
        date, kind: a daily finish's day and kind (its field, and the deal's index).
        rivals_ms: a rated race's other finishers' times (its field).
        new_leader: whether the finish is a new player's that would lead the day (asked
            once the review is done).

    Returns:
        The review's score with ``held``, ``reason``, ``message`` as decided, ``evidence``
        (the record, its suspicion), ``player_score`` and ``decision``.
    """
    policy = Policy.from_settings(ctx.settings)
    store = evidence_store(ctx)
    lines = await practised(ctx, code, mark, pid)
    field_ms: int | None = None
    crowd: float | None = None
    if date and kind:
        others = [v for p, v in (await store.field(date, kind)).items() if p != pid]
        median_ms = _median([t for t, _ in others], policy.field_min)
        field_ms = None if median_ms is None else int(median_ms)
        crowd = _median([a for _, a in others if a is not None], policy.field_min)
    elif rivals_ms:
        median_ms = _median([float(t) for t in rivals_ms], policy.race_field_min)
        field_ms = None if median_ms is None else int(median_ms)
    job = dict(await ctx.reviewer.score(pid, code, started_at, actions, times, lines, field_ms))
    tables = job.pop("tables", None) or {}
    record = job.get("evidence")
    if record is not None:
        record = {**record, "field_agreement": None if crowd is None else round(crowd, 3)}
        if date and kind:
            decided = list(tables.get("decided") or [])
            entries = await store.tables(code, decided)
            record["borrowed"] = borrowed_share(pid, decided, entries, policy.min_scored)
        job["evidence"] = record
    this = Assessment.from_job(job)
    earlier = await store.records(pid, policy.window)
    mine = await standing(ctx, pid)
    lead = not this.held and not mine.flagged and new_leader is not None and await new_leader()
    decision = decide(this, earlier, policy, flagged=mine.flagged, new_leader=lead)
    score: dict[str, Any] = {
        **job,
        "held": decision.held,
        "reason": decision.reason,
        "message": decision.message,
        "player_score": decision.score,
        "decision": decision.to_json(),
        # The one-game review's own verdict, beside the decision (the operator's).
        "review": {"held": this.held, "reason": this.reason, "message": this.message},
    }
    if record is not None:
        record = {**record, "suspicion": decision.suspicion, "result": rid, "at": now_ms()}
        record["held"] = decision.held
        await store.add(pid, record)
        await store.set_score(pid, decision.score)
        score["evidence"] = record
        if date and kind and not decision.held:
            await store.note_field(date, kind, pid, int(record["time_ms"]), record.get("solver"))
    if decision.flag:
        await store.flag(pid, decision.score, decision.message)
    return score
