"""The server's one clock: a test's shift reaches every stamp, and time never goes back."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from server import clock
from server.daily.deal import today


def test_a_shifted_clock_moves_every_stamp_and_never_goes_back() -> None:
    shifted = clock.ShiftedClock()
    real_day = dt.datetime.now(dt.UTC).date()
    with clock.use(shifted):
        before = clock.now_ms()
        shifted.advance(86_400_000)  # a day ahead: the calendar follows
        assert clock.now_ms() - before >= 86_400_000
        assert today() - real_day in (dt.timedelta(days=1), dt.timedelta(days=2))
        with pytest.raises(ValueError):
            shifted.advance(-1)
        assert shifted.offset_ms == 86_400_000
    # The block over, the process is on the machine's time again.
    assert abs(clock.now_ms() - time.time_ns() // 1_000_000) < 1000
    assert today() - real_day in (dt.timedelta(0), dt.timedelta(days=1))
