"""Counters of one server instance, rendered as Prometheus text for ``GET /metrics``."""

from __future__ import annotations

import gc
import time
from bisect import bisect_left
from typing import Final

#: Move latency histogram bounds, in seconds.
BUCKETS: Final = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0)


class Metrics:
    """Connections, rooms, moves, rejects, Redis errors and the move latency histogram."""

    def __init__(self) -> None:
        self.connections = 0
        self.connections_total = 0
        self.moves = 0
        self.rejects = 0
        self.errors = 0
        self.redis_errors = 0
        self.buckets = [0] * (len(BUCKETS) + 1)
        self.latency_sum = 0.0
        self.started = time.monotonic()
        self._rate_mark = (time.monotonic(), 0)
        self.rooms_local = 0
        self.redis_move_seconds = 0.0
        self.redis_moves = 0
        self.late_begins = 0
        self.loop_lag_max = 0.0
        self.loop_lag_sum = 0.0
        self.loop_lag_n = 0
        self.gc_seconds = 0.0
        self.gc_max = 0.0
        self._gc_start = 0.0
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            spent = time.perf_counter() - self._gc_start
            self.gc_seconds += spent
            self.gc_max = max(self.gc_max, spent)

    def observe_move(self, seconds: float) -> None:
        """Count an acknowledged move and its handling time."""
        self.moves += 1
        self.latency_sum += seconds
        self.buckets[bisect_left(BUCKETS, seconds)] += 1

    def moves_per_second(self) -> float:
        """Moves per second since the previous call (or the start)."""
        now = time.monotonic()
        then, count = self._rate_mark
        self._rate_mark = (now, self.moves)
        return (self.moves - count) / max(now - then, 1e-9)

    def render(self, rooms_total: int | None) -> str:
        """The Prometheus text exposition."""
        lines = [
            "# HELP seahaven_connections Open websocket connections on this instance.",
            "# TYPE seahaven_connections gauge",
            f"seahaven_connections {self.connections}",
            "# TYPE seahaven_connections_total counter",
            f"seahaven_connections_total {self.connections_total}",
            "# HELP seahaven_rooms_local Rooms with a connection on this instance.",
            "# TYPE seahaven_rooms_local gauge",
            f"seahaven_rooms_local {self.rooms_local}",
        ]
        if rooms_total is not None:
            lines += [
                "# HELP seahaven_rooms Rooms in Redis.",
                "# TYPE seahaven_rooms gauge",
                f"seahaven_rooms {rooms_total}",
            ]
        lines += [
            "# HELP seahaven_moves_total Acknowledged actions.",
            "# TYPE seahaven_moves_total counter",
            f"seahaven_moves_total {self.moves}",
            "# HELP seahaven_moves_per_second Acknowledged actions per second since last scrape.",
            "# TYPE seahaven_moves_per_second gauge",
            f"seahaven_moves_per_second {self.moves_per_second():.3f}",
            "# HELP seahaven_redis_move_seconds_total Time spent in the move script, client side.",
            "# TYPE seahaven_redis_move_seconds_total counter",
            f"seahaven_redis_move_seconds_total {self.redis_move_seconds:.6f}",
            "# TYPE seahaven_redis_moves_total counter",
            f"seahaven_redis_moves_total {self.redis_moves}",
            "# HELP seahaven_late_begins_total Races started by a move after the countdown.",
            "# TYPE seahaven_late_begins_total counter",
            f"seahaven_late_begins_total {self.late_begins}",
            "# HELP seahaven_loop_lag_seconds_max Longest event loop lag seen.",
            "# TYPE seahaven_loop_lag_seconds_max gauge",
            f"seahaven_loop_lag_seconds_max {self.loop_lag_max:.6f}",
            "# TYPE seahaven_loop_lag_seconds_mean gauge",
            f"seahaven_loop_lag_seconds_mean {self.loop_lag_sum / max(self.loop_lag_n, 1):.6f}",
            "# HELP seahaven_gc_seconds_total Time in Python's cyclic garbage collector.",
            "# TYPE seahaven_gc_seconds_total counter",
            f"seahaven_gc_seconds_total {self.gc_seconds:.6f}",
            "# TYPE seahaven_gc_seconds_max gauge",
            f"seahaven_gc_seconds_max {self.gc_max:.6f}",
            "# TYPE seahaven_rejects_total counter",
            f"seahaven_rejects_total {self.rejects}",
            "# TYPE seahaven_errors_total counter",
            f"seahaven_errors_total {self.errors}",
            "# TYPE seahaven_redis_errors_total counter",
            f"seahaven_redis_errors_total {self.redis_errors}",
            "# HELP seahaven_move_latency_seconds Time from a move frame to its ack.",
            "# TYPE seahaven_move_latency_seconds histogram",
        ]
        total = 0
        for bound, count in zip(BUCKETS, self.buckets, strict=False):
            total += count
            lines.append(f'seahaven_move_latency_seconds_bucket{{le="{bound}"}} {total}')
        total += self.buckets[-1]
        lines.append(f'seahaven_move_latency_seconds_bucket{{le="+Inf"}} {total}')
        lines.append(f"seahaven_move_latency_seconds_sum {self.latency_sum:.6f}")
        lines.append(f"seahaven_move_latency_seconds_count {total}")
        return "\n".join(lines) + "\n"
