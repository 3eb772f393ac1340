"""The thresholds of the evidence rule, as one frozen value (docs/fairplay.md).

:class:`Policy` holds every number :func:`server.fairplay.decide.decide` and
:func:`server.fairplay.decide.suspicion` read; each field is a server setting of the same
name with ``evidence_`` (or ``review_``) before it (:meth:`Policy.from_settings`), and its
default is that setting's. ``bench/fairplay.py`` builds its own to sweep them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

#: The setting behind each field that is not ``evidence_`` + its name.
SETTING_OF: Final[dict[str, str]] = {
    "min_scored": "review_min_scored",
    "hold_agreement": "review_hold_agreement",
}


@dataclass(frozen=True, slots=True)
class Policy:
    """The evidence rule's thresholds.

    Attributes:
        agreement_low, agreement_high: the solver's agreement (over the review's scored
            decisions) at or below ``low`` is no suspicion, at ``high`` or above a full one
            (linear between); ``low`` rises with the field's own agreement (below).
        recovery_low, recovery_high, recovery_floor: the solver's agreement counts in full
            only when the line's deviations from it look like a solver's re-asked after each
            (its ``recovery``: a deviation followed at once by the solver's move) at
            ``recovery_high`` or more; at ``recovery_low`` or less it counts
            ``recovery_floor`` of itself (a person's own plan strays for several moves);
            linear between. Unmeasured (too few deviations): in full.
        optimal_low, optimal_high: the same for the optimal search's agreement, counted only
            over ``min_scored`` decisions or more. A strong person's line agrees with it
            often (0.76-0.80): only a near-perfect agreement is evidence.
        outright: a reference agreement (solver or optimal, over ``min_scored`` decisions)
            at or above this is a reference's line outright: it flags from one finish.
        known_high: a share of a line's decisions known from the address's practice (another
            identity of the address finished the deal) at or above this is a full suspicion
            and a reference's line outright.
        borrowed_high: a share of a line's decisions on one other identity's line of the
            deal (from any address) at or above this is a full suspicion and a
            reference's line outright: honest strong players' lines of one deal shared up
            to about half of their decisions in the new-community run, a replay nearly all.
        borrowed_common: a table that more identities than this reached on a deal is
            common (a natural line's opening): it is no evidence of a borrowed line.
        field_low, field_weight: a game faster than ``field_low`` of its field's median
            time has its agreement evidence amplified by ``1 + field_weight``; speed alone
            (no agreement evidence) adds nothing.
        field_min: the day's reviewed finishers (of the deal) the daily field needs.
        race_field_min: the rivals' finishes a rated race's field needs.
        field_margin, field_cap: where the field's median solver agreement is known, the
            agreement that adds nothing is at least that median plus ``field_margin``
            (and at most ``field_cap``): a deal on which everyone agrees with the solver
            is no evidence against anyone.
        flag_score: a player's score (the mean suspicion of their newest ``window``
            records) at or above this flags them, over ``min_finishes`` records or more
            (above 1: nobody is ever flagged).
        window: the records a score is taken over.
        min_finishes: the fewest records a score flags over (a reference's line outright
            flags from one).
        new_leader_suspicion: a new player's daily finish that would lead the day is held
            for an operator only when its suspicion is this or more.
        min_scored: the optimal agreement counts from this many scored decisions.
        hold_agreement: the one-game review's hold on the solver's agreement (read for
            the operator's words; the review applies it).
    """

    agreement_low: float = 0.55
    agreement_high: float = 0.95
    recovery_low: float = 0.55
    recovery_high: float = 0.7
    recovery_floor: float = 0.0
    optimal_low: float = 0.88
    optimal_high: float = 0.97
    outright: float = 0.97
    known_high: float = 0.5
    borrowed_high: float = 0.8
    borrowed_common: int = 3
    field_low: float = 0.8
    field_weight: float = 0.15
    field_min: int = 5
    race_field_min: int = 2
    field_margin: float = 0.05
    field_cap: float = 0.8
    flag_score: float = 0.6
    window: int = 5
    min_finishes: int = 3
    new_leader_suspicion: float = 0.5
    min_scored: int = 20
    hold_agreement: float = 0.9

    @staticmethod
    def setting(name: str) -> str:
        """The server setting behind a field."""
        return SETTING_OF.get(name, f"evidence_{name}")

    @classmethod
    def from_settings(cls, settings: Any) -> Policy:
        """The policy of a server's settings (:class:`server.settings.Settings`)."""
        return cls(**{f.name: getattr(settings, cls.setting(f.name)) for f in fields(cls)})
