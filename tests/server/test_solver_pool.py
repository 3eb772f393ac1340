"""Closing the solver pool does not wait for a running job: past its grace the job is
abandoned and its process ended (a shutdown must fit a container's 10 s). A job a person
waits on runs niced, not only on spare CPU."""

from __future__ import annotations

import asyncio
import os
import time

import psutil
import pytest

from server.solver_pool import SolverFailed, SolverPool


async def test_closing_abandons_a_running_job_and_ends_its_process() -> None:
    pool = SolverPool(1, 0, policy="normal", nice=0)
    await pool.start()
    process = psutil.Process(await pool.run(os.getpid))
    job = asyncio.ensure_future(pool.run(time.sleep, 600))  # a job that would hold it long
    await asyncio.sleep(0.3)  # handed to the process
    # A bound, not a measurement: the close must be done well within a 10 s grace.
    await asyncio.wait_for(pool.close(grace=1.0), timeout=8)
    with pytest.raises((SolverFailed, asyncio.CancelledError)):
        await asyncio.wait_for(job, timeout=5)
    assert not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    assert not pool.started


async def test_closing_an_idle_pool_ends_its_processes() -> None:
    pool = SolverPool(2, 0, policy="normal", nice=0)
    await pool.start()
    processes = [psutil.Process(pid) for pid in set(await solver_pids(pool, 2))]
    await asyncio.wait_for(pool.close(), timeout=8)
    _, alive = psutil.wait_procs(processes, timeout=5)
    assert alive == []


async def solver_pids(pool: SolverPool, jobs: int) -> list[int]:
    """The pids of the processes that ran ``jobs`` jobs at once."""
    return list(await asyncio.gather(*(pool.run(_pid_after, 0.3) for _ in range(jobs))))


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)  # so that each job of a batch holds a process of its own
    return os.getpid()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="scheduling policies are Linux's")
async def test_a_job_someone_waits_for_runs_niced_not_only_on_spare_cpu() -> None:
    # Under the idle policy a review beside two busy loops waited minutes for spare CPU: a
    # job submitted as waited for runs under batch, and the process goes back to idle after.
    pool = SolverPool(1, 1, policy="idle")
    await pool.start()
    try:
        waited = pool.submit("review:p", os.sched_getscheduler, 0, waited_for=True)
        assert waited is not None
        assert await waited == os.SCHED_BATCH
        plain = pool.submit("review:p", os.sched_getscheduler, 0)
        assert plain is not None
        assert await plain == os.SCHED_IDLE
    finally:
        await pool.close()
