"""The pace model: the fastest plausible person, on the server's own action timestamps.

A replay that verifies is legal and honestly timed, but a script that plays a line solved
elsewhere is legal and honestly timed too. What gives it away is its pace. The model below
is measured on the server's clock only (the reveal, ``started_at``, and the commit time of
each action), so a client cannot bend it, and it states what the fastest person who has
never seen the deal could do (``protocol/DAILY.md``, "The pace model", gives the figures):

- A **decision** is an action that is not forced. An action is **forced** when, in the
  position it was played from, it is the only useful legal action (RULES.md, "The end of a
  game"), or it is played while a send home is possible (the button would end the game in
  one press: sending the cards home by hand, in any order, and moving a card aside on the
  way are no choice). An undo is always a decision. The time of an action is the time since the
  action before it (for the first, since the reveal).
- ``fast_start``: the first action that needs reading comes at least ``read_ms`` after the
  reveal: a person must take in 52 cards before choosing a move. An ace sent home at once
  (:func:`aces_home`) or a forced action before it is not held to it (no honest player is held
  for a move that had no choice).
- ``fast_finish``: a won game takes ``game_ms`` or more from the reveal: a person needs
  time to find a win of a deal they have never seen (strong players take 2 to 4 minutes).
  A line whose end is one long send home has few decisions, and this floor holds it.
- ``too_fast``: a game's decisions take ``decision_ms`` or more each on average. Over a
  whole game a person's thinking shows: a strong player takes 1 to 2 s a decision on a
  deal they have never seen, and pauses cannot make up for a quick run (the bursts below
  bound those).
- ``fast_bursts``: for every burst bound ``(K, W)`` of ``bursts``, any ``K`` consecutive
  decisions take ``W`` ms or more together. A person plays a few moves in a quick run
  after a think, but over tens of decisions their thinking shows; a solver's line played
  at any pace this allows still takes its decisions times ``W / K``. A game with fewer
  than ``K`` decisions needs ``W`` scaled to its decisions, in total.
- A **planned run**: after a think of ``plan_ms`` or more, a person often plays the moves
  they saw in a quick run (a dozen or more at about 0.6 s a move). A think of ``T`` ms
  plans up to ``T / plan_move_ms`` of the decisions after it; a run of ``K`` decisions all
  planned needs only ``K * run_ms`` (when that is less than ``W``). A script with a fixed
  small delay and no thinks plans nothing, and the average (``too_fast``) still bounds a
  script that pauses now and then: its pauses count in its average.

Forced actions have no floor of their own: the physical floor of
``server.records.replays.verify`` (50 ms an action on average) bounds them.

A game the model calls implausible is **held for review**, not refused: its player is told
so, and an operator clears it (``seahaven admin``). :func:`fastest_ms` gives the quickest
time a line can be played in within the model (the bench and the tests use it).

Everything here is pure (the engine and the standard library only), so that the server's
review (in a solver process), ``bench/review.py`` and the tests run the same code.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..engine import Board, EngineError, parse_action

#: Why a game breaks the pace, with the rule in words.
PACE_REASONS: Final[dict[str, str]] = {
    "fast_start": "the first action came sooner after the reveal than a person can see and act",
    "fast_finish": "the game was won sooner after the reveal than a person can find a win",
    "too_fast": "the decisions came faster on average than a person can think them",
    "fast_bursts": "a run of decisions came faster than a person can think them",
}

#: The physical floor a forced action is timed at by :func:`fastest_ms` (the least average
#: per action of ``server.records.replays.verify``).
FORCED_MS: Final = 50

#: The default burst bounds: (decisions, ms they take together at least).
BURSTS: Final[tuple[tuple[int, int], ...]] = ((3, 600), (10, 4_000), (30, 18_000))


@dataclass(frozen=True, slots=True)
class Pace:
    """The model's settings (server settings ``pace_read_ms`` and ``pace_bursts``).

    Attributes:
        read_ms: the least time from the reveal to the first action (0: no floor).
        game_ms: the least time from the reveal to the last action of a win (0: none).
        decision_ms: the least average time of a game's decisions (0: no floor).
        bursts: ``(K, W)`` pairs: any ``K`` consecutive decisions take ``W`` ms or more
            (empty: no bound).
        plan_ms, plan_move_ms, run_ms: a think of ``plan_ms`` or more plans a run of up to
            its time over ``plan_move_ms`` decisions; such a run's decisions need ``run_ms``
            each (see the module docstring).
    """

    read_ms: int = 2_000
    game_ms: int = 25_000
    decision_ms: int = 750
    bursts: tuple[tuple[int, int], ...] = BURSTS
    plan_ms: int = 4_000
    plan_move_ms: int = 400
    run_ms: int = 350

    @classmethod
    def off(cls) -> Pace:
        """No pace rule at all (tools and tests that rank scripted games)."""
        return cls(read_ms=0, game_ms=0, decision_ms=0, bursts=())


def parse_bursts(text: str) -> tuple[tuple[int, int], ...]:
    """``K:W,K:W`` (decisions, then ms) as burst bounds; empty text is none.

    Raises:
        ValueError: not that form, or a K or W under 1.
    """
    out: list[tuple[int, int]] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        k, colon, w = part.partition(":")
        if not colon or not k.isdigit() or not w.isdigit() or int(k) < 1 or int(w) < 1:
            raise ValueError(f"a burst bound is DECISIONS:MS, both 1 or more, not {part!r}")
        out.append((int(k), int(w)))
    return tuple(sorted(out))


def format_bursts(bursts: Sequence[tuple[int, int]]) -> str:
    """The text :func:`parse_bursts` reads."""
    return ",".join(f"{k}:{w}" for k, w in bursts)


@dataclass(frozen=True, slots=True)
class PaceVerdict:
    """What :func:`judge` found.

    Attributes:
        ok: the pace is a person's.
        reason: ``ok`` or a code of :data:`PACE_REASONS`.
        message: the measured value against its bound, in words.
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
    one press, timed by the first of them (the physical floor of ``verify`` counts presses).

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


def forced(code: str, actions: Sequence[str]) -> list[bool]:
    """Whether each action of a line is forced (see the module docstring).

    An action the engine refuses ends the list there (the line is not a game: ``verify``
    refutes it); callers read ``len(result) < len(actions)`` as that.
    """
    board = Board.from_code(code)
    out: list[bool] = []
    for text in actions:
        if text == "undo":
            is_forced = False
        elif board.can_send_home():
            # The button finishes the game from here in one press: whatever is played
            # instead (the cards home in another order, a card moved aside on the way) is
            # no choice, and no evidence of how the game was found.
            is_forced = True
        else:
            is_forced = len(board.useful_moves()) <= 1
        try:
            board.play(parse_action(text))
        except EngineError:
            break
        out.append(is_forced)
    return out


def aces_home(code: str, actions: Sequence[str]) -> list[bool]:
    """Whether each action of a line sends an ace home: the one move nobody needs to read
    the table for: an ace on its foundation is never in the way."""
    board = Board.from_code(code)
    out: list[bool] = []
    for text in actions:
        before = list(board.foundations)
        try:
            board.play(parse_action(text))
        except EngineError:
            break
        out.append(
            text != "undo"
            and sum(board.foundations) == sum(before) + 1
            and any(b == 0 and a == 1 for b, a in zip(before, board.foundations, strict=True))
        )
    return out


def decision_times(started_at: int, times: Sequence[int], flags: Sequence[bool]) -> list[int]:
    """The time of each decision after the first action (ms since the action before it)."""
    return [
        b - a
        for i, (a, b) in enumerate(itertools.pairwise(times), start=1)
        if i < len(flags) and not flags[i]
    ]


def planned(decisions: Sequence[int], pace: Pace) -> list[bool]:
    """Whether each decision is part of a planned run: among the ``T // plan_move_ms``
    quick decisions after a think of ``T >= plan_ms`` (the think itself is not)."""
    out: list[bool] = []
    budget = 0
    for took in decisions:
        if pace.plan_ms and took >= pace.plan_ms:
            budget = took // max(1, pace.plan_move_ms)
            out.append(False)
        else:
            out.append(budget > 0)
            budget = max(0, budget - 1)
    return out


def _tightest(
    decisions: Sequence[int], bursts: Sequence[tuple[int, int]], pace: Pace | None = None
) -> str | None:
    """The first burst bound some run of decisions breaks, in words, or None (a run of
    planned decisions: :func:`planned`, held to ``run_ms`` each)."""
    n = len(decisions)
    prefix = [0, *itertools.accumulate(decisions)]
    plan = planned(decisions, pace) if pace is not None else [False] * n
    counted = [0, *itertools.accumulate(int(p) for p in plan)]
    for k, w in bursts:
        if n >= k:
            for i in range(n - k + 1):
                took = prefix[i + k] - prefix[i]
                need = w
                if pace is not None and counted[i + k] - counted[i] == k:
                    need = min(w, k * pace.run_ms)
                if took < need:
                    return f"{k} decisions in {took} ms (a person takes at least {need} ms)"
        elif n and prefix[n] * k < w * n:
            need = w * n // k
            return f"all {n} decisions in {prefix[n]} ms (a person takes at least {need} ms)"
    return None


def judge(
    started_at: int,
    times: Sequence[int],
    flags: Sequence[bool],
    pace: Pace,
    aces: Sequence[bool] = (),
) -> PaceVerdict:
    """Check a game's server timestamps against the model.

    Args:
        started_at: the reveal (the game clock's start), ms since the epoch.
        times: each action's commit time, ms since the epoch, never decreasing.
        flags: each action's :func:`forced`.
        pace: the model's settings.
        aces: each action's :func:`aces_home` (none given: no action is one).
    """
    if not times:
        return PaceVerdict(True, "ok", "no action")
    # The read floor times the first action that needs reading: a forced move, or an ace
    # tapped home at once, does not.
    obvious = [f or (i < len(aces) and aces[i]) for i, f in enumerate(flags)]
    at = next((i for i, f in enumerate(obvious) if not f and i < len(times)), None)
    first = times[at] - started_at if at is not None else pace.read_ms
    if first < pace.read_ms:
        return PaceVerdict(
            False,
            "fast_start",
            f"the first decision came {first} ms after the reveal (at least {pace.read_ms} ms)",
        )
    took = times[-1] - started_at
    if took < pace.game_ms:
        return PaceVerdict(
            False,
            "fast_finish",
            f"won {took} ms after the reveal (a person takes at least {pace.game_ms} ms)",
        )
    decisions = decision_times(started_at, times, flags)
    total, need = sum(decisions), pace.decision_ms * len(decisions)
    if total < need:
        return PaceVerdict(
            False,
            "too_fast",
            f"{len(decisions)} decisions in {total} ms: {total // len(decisions)} ms each on "
            f"average (a person takes at least {pace.decision_ms} ms)",
        )
    broken = _tightest(decisions, pace.bursts, pace)
    if broken is not None:
        return PaceVerdict(False, "fast_bursts", broken)
    return PaceVerdict(True, "ok", f"a person's pace: {len(decisions)} decisions")


def fastest_times(flags: Sequence[bool], pace: Pace, started_at: int = 0) -> list[int]:
    """The earliest commit time of each action that the model admits (a greedy schedule:
    each action as soon as every bound allows; a send home's taps after the first at once).

    Args:
        flags: each action's :func:`forced`.
        pace: the model's settings.
        started_at: the reveal.
    """
    times: list[int] = []
    decisions: list[int] = []
    now = started_at
    read = False
    for i, is_forced in enumerate(flags):
        if not is_forced and not read:  # the first decision: after the read floor
            read = True
            step = max(FORCED_MS, started_at + pace.read_ms - now)
            if i > 0:
                decisions.append(step)
        elif i == 0:
            step = FORCED_MS
        elif is_forced:
            step = 0 if i > 1 and flags[i - 1] and not decisions_left(flags, i) else FORCED_MS
        else:
            step = FORCED_MS
            for k, w in pace.bursts:
                if len(decisions) >= k - 1:
                    step = max(step, w - sum(decisions[len(decisions) - (k - 1) :]) if k > 1 else w)
            decisions.append(step)
        now += step
        times.append(now)
    # The average, and a game with fewer decisions than a bound's K (its W scaled), bound
    # the total: what is missing is spent at the end (when it is spent does not matter).
    n = len(decisions)
    need = [w * n // k for k, w in pace.bursts if 0 < n < k] + [pace.decision_ms * n]
    extra = max(need) - sum(decisions)
    if extra > 0:
        at = next(i for i, f in enumerate(flags) if i > 0 and not f)  # the first decision
        times = [t + extra if i >= at else t for i, t in enumerate(times)]
    if times and times[-1] - started_at < pace.game_ms:  # the last action waits for it
        times[-1] = started_at + pace.game_ms
    return times


def decisions_left(flags: Sequence[bool], i: int) -> bool:
    """Whether a decision follows action ``i`` (else the rest is one send home)."""
    return not all(flags[i:])


def fastest_ms(code: str, actions: Sequence[str], pace: Pace) -> int:
    """The quickest game time (reveal to last action) the model admits for a line.

    The forced actions that end it, a send home, are one press.
    """
    flags = forced(code, actions)
    times = fastest_times(flags, pace)
    return times[-1] if times else 0
