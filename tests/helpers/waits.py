"""Waits that poll for a condition instead of sleeping a guessed time.

Usage::

    from tests.helpers.waits import until, until_sync

    status = await until(lambda: srv.get_json(path)[0] == 200, what="the replay is kept")
    until_sync(lambda: proc.poll() is not None, timeout=5, what="the process exits")

A test that slept "long enough" for something to happen either waited longer than needed
(on a quiet machine) or not long enough (on a busy one); these return as soon as the
condition holds and fail with ``what`` when it does not hold in ``timeout`` seconds.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")

#: Seconds between two looks at the condition.
STEP = 0.02
#: Seconds between two looks through a test server's HTTP API: its rate limit (10 requests
#: a second per client address, bursts of 60) answers a poll at :data:`STEP` with 429s.
API_STEP = 0.2


@overload
async def until(
    check: Callable[[], Awaitable[T | None]],
    timeout: float = ...,
    what: str = ...,
    step: float = ...,
) -> T: ...
@overload
async def until(
    check: Callable[[], T | None],
    timeout: float = ...,
    what: str = ...,
    step: float = ...,
) -> T: ...
async def until(
    check: Callable[[], Any],
    timeout: float = 10.0,
    what: str = "the condition",
    step: float = STEP,
) -> Any:
    """Poll ``check`` (a function, or a coroutine function) until it returns something true;
    return that.

    Raises:
        AssertionError: it was still false after ``timeout`` seconds.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        got = check()
        if inspect.isawaitable(got):
            got = await got
        if got:
            return got
        if loop.time() >= deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s (last: {got!r})")
        await asyncio.sleep(step)


def until_sync(
    check: Callable[[], T | None],
    timeout: float = 10.0,
    what: str = "the condition",
    step: float = STEP,
    sleep: Callable[[float], object] = time.sleep,
) -> T:
    """:func:`until` for code without an event loop (blocking clients, processes); ``sleep``
    waits between two looks (a page's own wait, for instance, so that its events run).

    Raises:
        AssertionError: it was still false after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s (last: {got!r})")
        sleep(step)
