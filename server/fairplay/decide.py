"""The one decision of fair play: what a ranked finish counts for, given its review, its
evidence and the player's earlier evidence (docs/fairplay.md, "The rule").

Pure: no I/O. The server (a daily's ranked finish, a rated race's finisher:
:func:`server.fairplay.evidence.assess`) and ``bench/fairplay.py`` call the same
:func:`decide`; nothing else decides.

- A record's **suspicion** (:func:`suspicion`) is its reference agreement mapped to 0..1:
  the solver's from ``agreement_low`` (raised to the field's own median agreement where
  the field is known) to ``agreement_high``, counted in full only when the line's
  deviations from the solver are followed at once by its move again (``recovery``, from
  ``recovery_low`` to ``recovery_high``; down to ``recovery_floor`` of itself); the optimal
  search's only near-perfect (``optimal_low`` to ``optimal_high``), over ``min_scored``
  decisions or more. A line played before is 1: known from the address's practice
  (``known_high`` of its decisions), or borrowed from one other identity's line of the deal
  (``borrowed_high``). A
  game faster than ``field_low`` of its field's median amplifies that evidence by
  ``1 + field_weight``: speed alone adds nothing.
- A player's **score** is the mean suspicion of their newest ``window`` records.
- A score of ``flag_score`` or more over ``min_finishes`` records or more **flags** the
  player; over fewer, only a finish that is a reference's line outright does
  (:func:`outright`). A flagged player's ranked finishes are held.
- A daily finish of a new player that would lead the day is held only when its suspicion
  is ``new_leader_suspicion`` or more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .policy import Policy
from .values import FLAGGED, NEW_LEADER, Assessment, Decision


def _ramp(value: float, low: float, high: float) -> float:
    """0 at ``low`` or below, 1 at ``high`` or above, linear between."""
    return min(1.0, max(0.0, (value - low) / max(1e-9, high - low)))


def practised(record: Mapping[str, Any], policy: Policy) -> bool:
    """Whether a line is one played before: known from the address's practice
    (``known_high`` of its decisions), or borrowed from one other identity's line of the
    deal (``borrowed_high``: two people's own lines of one deal may share a stretch, a
    replayed line shares nearly all)."""
    known = float(record.get("known") or 0.0)
    borrowed = float(record.get("borrowed") or 0.0)
    return known >= policy.known_high or borrowed >= policy.borrowed_high


def _optimal(record: Mapping[str, Any], policy: Policy) -> float | None:
    """The optimal search's agreement when it counts (enough decisions scored)."""
    value = record.get("optimal")
    if value is None or int(record.get("optimal_scored") or 0) < policy.min_scored:
        return None
    return float(value)


def outright(record: Mapping[str, Any], policy: Policy) -> bool:
    """Whether a finish is a reference's line outright: known from practice, or agreeing
    with a reference (over ``min_scored`` decisions or more) ``outright`` or more."""
    if practised(record, policy):
        return True
    optimal = _optimal(record, policy)
    if optimal is not None and optimal >= policy.outright:
        return True
    solver = record.get("solver")
    scored = int(record.get("solver_scored") or 0)
    return solver is not None and scored >= policy.min_scored and solver >= policy.outright


def suspicion(record: Mapping[str, Any], policy: Policy) -> float:
    """A record's suspicion, 0 (a person's) to 1 (a reference's): see the module docstring."""
    if practised(record, policy):
        return 1.0
    low = policy.agreement_low
    crowd = record.get("field_agreement")
    if crowd is not None:
        low = max(low, min(float(crowd) + policy.field_margin, policy.field_cap))
    value = 0.0
    solver = record.get("solver")
    if solver is not None:
        value = _ramp(float(solver), low, policy.agreement_high)
        back = record.get("recovery")
        if back is not None:
            # Deviations a person makes stray for a while; a solver re-asked is back at once.
            like = _ramp(float(back), policy.recovery_low, policy.recovery_high)
            value *= policy.recovery_floor + (1 - policy.recovery_floor) * like
    optimal = _optimal(record, policy)
    if optimal is not None:
        value = max(value, _ramp(optimal, policy.optimal_low, policy.optimal_high))
    field = record.get("field")
    if field is not None and float(field) < policy.field_low:
        value *= 1 + policy.field_weight  # amplifies agreement evidence; never adds its own
    return round(min(1.0, value), 3)


def player_score(suspicions: Sequence[float]) -> float:
    """A player's score: the mean of their newest records' suspicions (0 with none)."""
    return round(sum(suspicions) / len(suspicions), 3) if suspicions else 0.0


def flags(score: float, finishes: int, policy: Policy, *, is_outright: bool = False) -> bool:
    """Whether a score flags its player: ``flag_score`` or more over ``min_finishes``
    records or more, or a reference's line outright (never when ``flag_score`` is above 1)."""
    if policy.flag_score > 1:
        return False
    return is_outright or (finishes >= policy.min_finishes and score >= policy.flag_score)


def decide(
    this: Assessment,
    earlier: Sequence[Mapping[str, Any]],
    policy: Policy,
    *,
    flagged: bool = False,
    new_leader: bool = False,
) -> Decision:
    """What a ranked finish counts for.

    Args:
        this: the finish as reviewed.
        earlier: the player's earlier evidence records, newest first, each with its
            ``suspicion``.
        policy: the thresholds.
        flagged: the player is flagged already.
        new_leader: the finish is a new player's that would lead the day (a daily's).
    """
    record = this.record
    mine = suspicion(record, policy) if record is not None else 0.0
    past = [float(r.get("suspicion") or 0.0) for r in earlier]
    values = ([mine, *past] if record is not None else past)[: max(1, policy.window)]
    score = player_score(values)
    is_outright = record is not None and outright(record, policy)
    flag = (
        not flagged
        and record is not None
        and flags(score, len(values), policy, is_outright=is_outright)
    )

    def made(held: bool, reason: str, message: str) -> Decision:
        return Decision(held, reason, flag, mine, score, len(values), message)

    if flag:
        why = "a reference's line outright" if is_outright else "the score"
        words = f"flagged: {why} (score {score:.2f} over {len(values)} finishes)"
    else:
        words = f"score {score:.2f} over {len(values)} finishes"
    if this.held:
        return made(True, this.reason, f"{this.message}; {words}")
    if flagged or flag:
        return made(
            True,
            FLAGGED,
            f"the player is {words if flag else 'flagged'}: their ranked results wait",
        )
    if new_leader and mine >= policy.new_leader_suspicion:
        return made(
            True,
            NEW_LEADER,
            f"a new player's finish with unusual evidence (suspicion {mine:.2f}) would "
            "lead the day",
        )
    return made(False, "ok", f"passed: suspicion {mine:.2f}, {words}")
