"""The server clock: every time the server stamps or compares is this one."""

from __future__ import annotations

import time


def now_ms() -> int:
    """Milliseconds since the epoch."""
    return time.time_ns() // 1_000_000
