"""The server clock: every time the server stamps or compares is this one.

The server reads the time of day only through :func:`now_ms`: the reveal of a daily deal, a
race's start, each action's commit time (what the pace model and the review read), every
deadline (countdowns, time limits, lobbies, pairing). So the time can be moved without
waiting for it. A server run in the test's own process (``tests/helpers/inproc.py``) is given a
:class:`ShiftedClock` with :func:`use`, and plays a line at a person's pace, or lets a
race's time limit pass, by advancing it.

The clock is one per process, not a field of each context: the instances of one process
share one time, as instances on one machine do.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Clock(Protocol):
    """A source of the time of day."""

    def now_ms(self) -> int:
        """Milliseconds since the epoch."""
        ...


class SystemClock:
    """The machine's time of day: what every deployment runs on."""

    def now_ms(self) -> int:
        """Milliseconds since the epoch."""
        return time.time_ns() // 1_000_000


class ShiftedClock:
    """The machine's time plus an offset that only grows.

    Time still flows between two advances (the server's waits and Redis's expiries stay
    sane), and it never goes back: a stamp taken later is never earlier, as the action log
    and the pace model require.
    """

    def __init__(self) -> None:
        self.offset_ms = 0

    def advance(self, ms: float) -> None:
        """Move the time ``ms`` milliseconds ahead.

        Raises:
            ValueError: ``ms`` is negative (time never goes back).
        """
        if ms < 0:
            raise ValueError(f"a clock advances, it never goes back ({ms} ms)")
        self.offset_ms += round(ms)

    def now_ms(self) -> int:
        """Milliseconds since the epoch, shifted."""
        return time.time_ns() // 1_000_000 + self.offset_ms


_clock: Clock = SystemClock()


def now_ms() -> int:
    """Milliseconds since the epoch, on this process's clock."""
    return _clock.now_ms()


def utc_now() -> dt.datetime:
    """The moment :func:`now_ms` says, in UTC (which day it is)."""
    return dt.datetime.fromtimestamp(now_ms() / 1000, dt.UTC)


@contextmanager
def use(clock: Clock) -> Iterator[Clock]:
    """Run the process on ``clock`` until the block ends, then on the one before."""
    global _clock
    before, _clock = _clock, clock
    try:
        yield clock
    finally:
        _clock = before
