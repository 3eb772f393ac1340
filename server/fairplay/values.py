"""What fair play decides on and what it decides, as frozen values.

:class:`Assessment` is one ranked finish as reviewed: the one-game review's result
(:class:`server.review.scoring.Score`) and the finish's evidence record
(:class:`server.review.evidence.Evidence`), as the solver pool's job returns them.
:class:`Decision` is what :func:`server.fairplay.decide.decide` makes of it. Both are the
operator's: a player whose finish is held hears only "pending review".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

#: Why a finish is held beyond the one-game review's reasons.
FLAGGED: Final = "flagged"
NEW_LEADER: Final = "new_leader"


@dataclass(frozen=True, slots=True)
class Assessment:
    """One ranked finish as reviewed.

    Attributes:
        held: the one-game review holds it (pace, solver agreement, or not reviewed).
        reason: ``ok``, ``solver_like``, a pace reason or ``unreviewed``.
        message: the review's reason in words (the operator's).
        agreement: the share of scored decisions that were the solver's (None: none).
        scored: the decisions scored.
        record: the evidence record (``Evidence.to_json()``), or None (not reviewed).
    """

    held: bool
    reason: str
    message: str
    agreement: float | None
    scored: int
    record: Mapping[str, Any] | None

    @classmethod
    def from_job(cls, job_result: Mapping[str, Any]) -> Assessment:
        """From what the solver pool's review job returns (``Score.to_json()`` with
        ``evidence``), or :func:`server.review.reviewer.unreviewed`."""
        record = job_result.get("evidence")
        agreement = job_result.get("agreement")
        return cls(
            held=bool(job_result.get("held")),
            reason=str(job_result.get("reason") or "ok"),
            message=str(job_result.get("message") or ""),
            agreement=None if agreement is None else float(agreement),
            scored=int(job_result.get("scored") or 0),
            record=None if record is None else MappingProxyType(dict(record)),
        )


@dataclass(frozen=True, slots=True)
class Decision:
    """What fair play decides of a ranked finish.

    Attributes:
        held: the finish waits for an operator (its player hears "pending review").
        reason: ``ok``, the review's reason (a pace reason, ``solver_like``,
            ``unreviewed``), ``flagged`` or ``new_leader``.
        flag: flag the player from now on (this finish's evidence flagged them).
        suspicion: this finish's record's suspicion (0 without a record).
        score: the player's score after this finish.
        finishes: the records the score is over.
        message: the operator's words.
    """

    held: bool
    reason: str
    flag: bool
    suspicion: float
    score: float
    finishes: int
    message: str

    def to_json(self) -> dict[str, Any]:
        """The decision as JSON (the operator's)."""
        return {
            "held": self.held,
            "reason": self.reason,
            "flag": self.flag,
            "suspicion": self.suspicion,
            "score": self.score,
            "finishes": self.finishes,
            "message": self.message,
        }
