"""A human pace: rules on the server's own action timestamps that a ranked daily must keep.

A replay that verifies is legal and honestly timed, but a script that plays a line solved
elsewhere is legal and honestly timed too. What gives it away is its pace. The rules below
are measured on the server's clock only (the reveal, ``started_at``, and the commit time of
each action), so a client cannot bend them, and each rests on a figure of human reaction
and pointing times (``protocol/DAILY.md``, "Fair play", gives the sources):

- ``fast_start``: the first action comes at least ``read_ms`` after the reveal. A person
  must see the new table, pick a card and reach it: a choice reaction (Hick-Hyman) plus
  one aimed movement (Fitts), well over the 500 ms default.
- ``too_fast``: the median time between two actions is at least ``median_ms``. Each action
  is a reaction (a simple one alone takes about 190-240 ms) plus a movement between cards;
  300 ms is below that even for a player whose every move is planned.
- ``fast_bursts``: at most ``fast_share`` of the gaps are under ``fast_ms``. Under 100 ms
  no response to what the screen shows is possible (the false-start limit of sprint
  starts); a few such gaps come from packets bunched by the network, many from a script.

A game that breaks a rule is kept and still verifies; it is not ranked, and its player is
told which rule (``unranked_reason``). A threshold of 0 turns its rule off.

A send home (RULES.md) is one press that the server commits as the taps it stands for, all
at one server time: the rules judge it as one action (:func:`presses`), as does the physical
floor of ``server.daily.replays.verify``.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

#: Why a game breaks the pace, with the rule in words.
PACE_REASONS: Final[dict[str, str]] = {
    "fast_start": "the first action came sooner after the reveal than a person can see and act",
    "too_fast": "the median time between actions is faster than a person's",
    "fast_bursts": "too many actions followed the one before faster than a person can react",
}


@dataclass(frozen=True, slots=True)
class Pace:
    """The thresholds (server settings ``pace_*``; 0 turns a rule off).

    Attributes:
        read_ms: the least time from the reveal to the first action.
        median_ms: the floor on the median gap between consecutive actions.
        fast_ms: a gap under this is very fast.
        fast_share: the largest share of very fast gaps (0 to 1).
    """

    read_ms: int = 500
    median_ms: int = 300
    fast_ms: int = 100
    fast_share: float = 0.25

    @classmethod
    def off(cls) -> Pace:
        """No pace rule at all (tools and tests that rank scripted games)."""
        return cls(read_ms=0, median_ms=0, fast_ms=0, fast_share=1.0)


@dataclass(frozen=True, slots=True)
class PaceVerdict:
    """What :func:`judge` found.

    Attributes:
        ok: every rule holds.
        reason: ``ok`` or a code of :data:`PACE_REASONS`.
        message: the measured value against its threshold, in words.
    """

    ok: bool
    reason: str
    message: str


def gaps(times: Sequence[int]) -> list[int]:
    """The ms between each action and the one before it."""
    return [b - a for a, b in itertools.pairwise(times)]


def presses(actions: Sequence[str], times: Sequence[int]) -> list[int]:
    """The times of a won game's presses: its actions' times, a send home counted once.

    A send home commits the taps it stands for in one request, at one server time, and they
    win the game. So the taps that end a won game at the timestamp of its last action are
    one press, timed by the first of them. Taps that win the game could each go home by a
    foundation move alone, so such a run is exactly what the send home button gives
    anyone: counting it once lends no speed that a person does not have.

    Args:
        actions: a won game's actions in RULES.md notation.
        times: each action's commit time, never decreasing.
    """
    k = len(times)
    while k > 0 and times[k - 1] == times[-1] and actions[k - 1].startswith("tap "):
        k -= 1
    if len(times) - k < 2:
        return list(times)
    return [*times[:k], times[-1]]


def judge(started_at: int, times: Sequence[int], pace: Pace) -> PaceVerdict:
    """Check a game's server timestamps against the pace rules, first broken rule first.

    Args:
        started_at: the reveal (the game clock's start), ms since the epoch.
        times: each action's commit time, ms since the epoch, never decreasing.
        pace: the thresholds.
    """
    if not times:
        return PaceVerdict(True, "ok", "no action")
    first = times[0] - started_at
    if first < pace.read_ms:
        return PaceVerdict(
            False,
            "fast_start",
            f"the first action came {first} ms after the reveal (at least {pace.read_ms} ms)",
        )
    between = gaps(times)
    if not between:
        return PaceVerdict(True, "ok", "one action")
    median = statistics.median(between)
    if median < pace.median_ms:
        return PaceVerdict(
            False,
            "too_fast",
            f"the median time between actions is {median:.0f} ms (at least {pace.median_ms} ms)",
        )
    fast = sum(1 for g in between if g < pace.fast_ms)
    if fast > pace.fast_share * len(between):
        return PaceVerdict(
            False,
            "fast_bursts",
            f"{fast} of {len(between)} actions came under {pace.fast_ms} ms after the one "
            f"before (at most {pace.fast_share:.0%})",
        )
    return PaceVerdict(
        True, "ok", f"a human pace: median {median:.0f} ms, {fast} very fast of {len(between)}"
    )
