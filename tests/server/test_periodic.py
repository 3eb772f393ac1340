"""The one background loop (server/periodic.py): a failing pass is logged quietly and the
loop goes on; a pass's answer sets the next wait; a cancellation that comes out of a pass
as a Redis error still ends the loop (the shutdown hazard of server/context.py); a step that
says it is done ends it."""

from __future__ import annotations

import asyncio
import logging

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from server.periodic import DONE, Done, periodic
from server.quiet import Quiet
from tests.helpers.waits import until

LOG = logging.getLogger("tests.periodic")


async def test_a_failing_pass_is_logged_once_and_the_loop_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    passes: list[int] = []

    async def step() -> None:
        passes.append(len(passes))
        raise ValueError("a bad pass")

    with caplog.at_level(logging.ERROR, logger=LOG.name):
        task = asyncio.create_task(periodic(step, 0.01, Quiet(LOG), "t", "the pass failed"))
        await until(lambda: len(passes) >= 5, what="five passes despite the failures")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    failed = [r for r in caplog.records if r.getMessage().startswith("the pass failed")]
    assert len(failed) == 1 and failed[0].exc_info is not None  # once, with its traceback


async def test_a_pass_sets_the_next_wait_and_the_first_may_come_at_once() -> None:
    loop = asyncio.get_running_loop()
    times: list[float] = []

    async def step() -> float:
        times.append(loop.time())
        return 0.0  # the next pass at once, whatever the period

    task = asyncio.create_task(periodic(step, 3600, Quiet(LOG), "t", "failed", at_once=True))
    await until(lambda: len(times) >= 3, what="passes at once, not an hour apart")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_after_a_fault_the_loop_waits_its_own_retry() -> None:
    passes: list[int] = []

    async def step() -> None:
        passes.append(1)
        raise RedisConnectionError("Redis away")

    task = asyncio.create_task(
        periodic(step, 3600, Quiet(LOG), "t", "failed", at_once=True, after_fault=0.01)
    )
    await until(lambda: len(passes) >= 3, what="retries a moment apart, not an hour")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_cancellation_that_comes_out_as_a_redis_error_still_ends_the_loop() -> None:
    inside = asyncio.Event()

    async def step() -> None:
        inside.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            # As redis-py may, waiting for a connection: the cancellation becomes an error.
            raise RedisConnectionError("cancelled while connecting") from None

    task = asyncio.create_task(periodic(step, 0.01, Quiet(LOG), "t", "failed", at_once=True))
    await inside.wait()
    task.cancel()  # once, as asyncio.run's end does
    done, _ = await asyncio.wait({task}, timeout=5)
    assert done, "the loop caught its own cancellation and slept on"
    assert task.cancelled()


async def test_a_step_that_says_done_ends_its_loop_and_a_fault_does_not() -> None:
    passes: list[str] = []

    async def step() -> Done | None:
        # A lease's renewal: one failed renewal is tried again, a lost lease ends it.
        passes.append("pass")
        if len(passes) == 2:
            raise RedisConnectionError("Redis away for a moment")
        return DONE if len(passes) == 4 else None

    await asyncio.wait_for(periodic(step, 0.01, Quiet(LOG), "t", "failed"), timeout=5)
    assert len(passes) == 4
