"""The one way to run a background loop: :func:`periodic`.

Every loop of an instance (the janitor, the quick race's pairing, the arenas, the resettling
of reviewed races, the held list's expiry, the daily certifier and its lease, a race
review's claim, the embedded Redis's keeper, the memory gauges, the loop-lag probe) is a
step run again and again: it owns no sleep, no ``try`` and no shutdown of its own. A loop
with an end (a lease kept until it is lost) returns :data:`DONE` from its step. A step that
fails is logged through :class:`~server.quiet.Quiet` (the first failure of the kind with its
traceback, then one line at most every 30 s while the fault lasts: Redis gone, every pass
fails the same way) and the loop goes on.

The shutdown: :meth:`server.context.Context.stop_tasks` cancels the tasks, and a
cancellation that arrives while redis-py waits for a connection can come out of the step as
a ``RedisError``. A loop that caught it as a fault and slept on would hold the shutdown for
good; :func:`periodic` sees that its task is being cancelled and ends instead.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Awaitable, Callable
from typing import Final

from .quiet import Quiet


class Done(enum.Enum):
    """The one value a step returns to end its loop."""

    DONE = "done"


#: What a step returns to end its loop (the lease it kept was lost, its work is over).
DONE: Final = Done.DONE

#: A loop's step: returns how long to wait before the next one (None: the loop's period;
#: :data:`DONE`: no next one).
Step = Callable[[], Awaitable[float | Done | None]]


async def periodic(
    step: Step,
    every: float,
    quiet: Quiet,
    kind: str,
    message: str,
    *,
    at_once: bool = False,
    after_fault: float | None = None,
) -> None:
    """Run ``step`` every ``every`` seconds, until it returns :data:`DONE` or the task is
    cancelled.

    Args:
        step: one pass; what it returns, if not None, is the wait before the next
            (:data:`DONE`: the loop ends).
        every: seconds between two passes (a wait, then the pass: a slow pass delays the
            next rather than piling up).
        quiet: the logger of the failures (its ``kind`` and ``message``).
        kind: the failure's kind for ``quiet`` (one report a period per kind).
        message: what failed, for the log.
        at_once: run the first pass at once instead of after the first wait.
        after_fault: the wait after a failed pass (None: ``every``).

    Raises:
        asyncio.CancelledError: the task was cancelled (also when the cancellation came
            out of the step as another exception).
    """
    wait = 0.0 if at_once else every
    while True:
        await asyncio.sleep(wait)  # 0 too: a loop always lets the others run
        try:
            again = await step()
        except Exception:
            if _cancelling():
                raise asyncio.CancelledError from None
            quiet.failure(kind, message)
            wait = every if after_fault is None else after_fault
        else:
            if again is DONE:
                return
            wait = every if again is None else again


def _cancelling() -> bool:
    """Whether this task is being cancelled (a request not yet delivered as such)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
