"""Logging that does not flood: while a fault lasts (Redis gone, say), the first failure of a
kind is logged, then one line at most every :data:`EVERY` seconds saying how many more there
were.

A lost connection is logged in one line (what failed and the error): it is the fault of the
network or of Redis, not of the code, and its traceback (the same dozen redis-py frames for
every task that was waiting) would bury the one line that says what happened.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Final

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

#: Seconds between two lines about the same kind of failure.
EVERY: Final = 30.0

#: Failures of the connection, not of the code: logged without a traceback.
LOST: Final = (RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError)


class Quiet:
    """A logger's failures, by kind, each logged at most once a period."""

    def __init__(self, log: logging.Logger, every: float = EVERY) -> None:
        self.log = log
        self.every = every
        self._last: dict[str, float] = {}
        self._missed: dict[str, int] = {}

    def failure(
        self, kind: str, message: str, *args: object, exc: BaseException | None = None
    ) -> None:
        """Log a failure; the first of its kind gets the traceback (of ``exc``, or of the
        exception being handled), unless it is a lost connection (:data:`LOST`)."""
        now = time.monotonic()
        last = self._last.get(kind)
        if last is not None and now - last < self.every:
            self._missed[kind] = self._missed.get(kind, 0) + 1
            return
        missed = self._missed.pop(kind, 0)
        self._last[kind] = now
        if last is None:
            error = exc if exc is not None else sys.exception()
            if isinstance(error, LOST):
                self.log.error(message + ": %s: %s", *args, type(error).__name__, error)
            else:
                self.log.error(message, *args, exc_info=error if error is not None else True)
        else:
            self.log.error(message + " (%d more since the last report)", *args, missed)
