"""What one server instance counts, exposed in the Prometheus text format at ``/metrics``.

Each instance has a registry of its own (several instances may share a process in tests).
Nothing here reads Redis: a scrape costs the same whatever the number of rooms.
"""

from __future__ import annotations

import gc
import time
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

#: Bounds of the move histograms, in seconds.
BUCKETS: Final = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0)

#: The content type of the exposition.
CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"


class Metrics:
    """The counters, gauges and histograms of one instance."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.connections = Gauge("seahaven_connections", "Open websocket connections.", registry=r)
        self.connections_total = Counter(
            "seahaven_connections_accepted", "Websocket connections accepted.", registry=r
        )
        self.rooms_local = Gauge(
            "seahaven_rooms_local", "Rooms with a connection on this instance.", registry=r
        )
        self.move_latency = Histogram(
            "seahaven_move_latency_seconds",
            "Time from an action's frame to its acknowledgement.",
            buckets=BUCKETS,
            registry=r,
        )
        self.move_script = Histogram(
            "seahaven_move_script_seconds",
            "Time of the move script's round trip to Redis, client side.",
            buckets=BUCKETS,
            registry=r,
        )
        self.rejects = Counter("seahaven_rejects", "Actions refused.", registry=r)
        self.errors = Counter("seahaven_errors", "Error messages sent.", registry=r)
        self.redis_errors = Counter("seahaven_redis_errors", "Redis calls that failed.", registry=r)
        self.hints = Counter(
            "seahaven_hints",
            "Hints asked, by outcome: answered, busy (refused at once) or failed.",
            ["outcome"],
            registry=r,
        )
        self.solver_jobs = Gauge(
            "seahaven_solver_jobs", "Hints running or waiting in the solver processes.", registry=r
        )
        self.board_rebuilds = Counter(
            "seahaven_board_rebuilds",
            "Boards rebuilt from their log in Redis (not dealt here at the start, or stale).",
            registry=r,
        )
        self.late_begins = Counter(
            "seahaven_late_begins", "Races started by a move after the countdown.", registry=r
        )
        self.loop_lag_max = Gauge(
            "seahaven_loop_lag_seconds_max", "Longest event loop lag seen.", registry=r
        )
        self.loop_lag_mean = Gauge(
            "seahaven_loop_lag_seconds_mean", "Mean event loop lag.", registry=r
        )
        self.gc_seconds = Counter(
            "seahaven_gc_seconds", "Time in Python's cyclic garbage collector.", registry=r
        )
        self.gc_max = Gauge(
            "seahaven_gc_seconds_max", "Longest garbage collection seen.", registry=r
        )
        self.store_used = Gauge(
            "seahaven_store_memory_used_bytes", "Memory the store (Redis) uses.", registry=r
        )
        self.store_max = Gauge(
            "seahaven_store_memory_max_bytes",
            "The store's memory cap (maxmemory; 0: none): full, it refuses writes.",
            registry=r,
        )
        #: Open connections, as a number (the gauge's value is not public).
        self.open_connections = 0
        self._lag_sum = 0.0
        self._lag_n = 0
        self._lag_max = 0.0
        self._gc_start = 0.0
        self._gc_longest = 0.0
        gc.callbacks.append(self._gc)

    def close(self) -> None:
        """Stop timing the garbage collector for this instance."""
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
            return
        spent = time.perf_counter() - self._gc_start
        self.gc_seconds.inc(spent)
        if spent > self._gc_longest:
            self._gc_longest = spent
            self.gc_max.set(spent)

    def connection_opened(self) -> None:
        """Count a websocket accepted."""
        self.open_connections += 1
        self.connections.inc()
        self.connections_total.inc()

    def connection_closed(self) -> None:
        """Count a websocket gone."""
        self.open_connections -= 1
        self.connections.dec()

    def observe_lag(self, seconds: float) -> None:
        """Count one measure of how late the event loop woke a sleep."""
        self._lag_sum += seconds
        self._lag_n += 1
        self.loop_lag_mean.set(self._lag_sum / self._lag_n)
        if seconds > self._lag_max:
            self._lag_max = seconds
            self.loop_lag_max.set(seconds)

    def store_memory(self, used: int, most: int) -> None:
        """Note the store's memory in use and its cap (read by :mod:`server.health`)."""
        self.store_used.set(used)
        self.store_max.set(most)

    def render(self) -> bytes:
        """The exposition text."""
        return generate_latest(self.registry)
