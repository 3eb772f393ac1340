"""What the solver pool takes and refuses, on a real pool of solver processes in the test's
own process (no server): one job per player at a time, a bounded queue, a dead process
replaced, and the processes' scheduling.

A handler refuses a hint ``reject busy`` when the pool says so (``has_room``, or
``submit_hint`` returning None): ``tests/server/test_hint_pool.py`` sees those answers on a
real server's sockets.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest

from server.engine import Board, parse_action
from server.engine.solver import solve
from server.pools import load_pool
from server.solver_pool import WORKER_NICE, SolverFailed, SolverPool

#: How long a job holds its process: long enough to ask the pool again while it runs.
HOLD_S = 0.6


@pytest.fixture
async def pool() -> AsyncIterator[SolverPool]:
    """One solver process and room for one waiting job, at the server's own priority (under
    its default, idle, a machine busy with other work may not run it for seconds)."""
    started = SolverPool(1, 1, policy="normal", nice=0)
    await started.start()
    yield started
    await started.close()


def solver_processes() -> list[psutil.Process]:
    """This process's live solver processes (not the resource tracker)."""
    found = []
    for child in psutil.Process().children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE and any(
                "spawn_main" in part for part in child.cmdline()
            ):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def scheduling(pid: int) -> set[tuple[int, int]]:
    """The (policy, nice) of each thread of process ``pid``, read from ``/proc``."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        # The fields after the command's closing parenthesis: nice is the 19th field of
        # the line, the policy the 41st (proc(5)).
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # a thread that ended since the listing
            continue
        found.add((int(fields[38]), int(fields[16])))
    return found


async def test_a_second_job_of_a_player_while_one_runs_is_refused(pool: SolverPool) -> None:
    first = pool.submit("ann", time.sleep, HOLD_S)
    assert first is not None
    assert not pool.has_room("ann")
    assert pool.submit("ann", time.sleep, 0) is None  # refused, not queued
    assert pool.submit_hint("ann", Board.deal(1, 4)) is None
    # Another player is not held back by Ann's job: the queue has room for theirs.
    assert pool.has_room("bob")
    other = pool.submit("bob", time.sleep, 0)
    assert other is not None
    await asyncio.wait_for(asyncio.gather(first, other), 30)
    # Once the first is answered, the player may ask again.
    assert pool.has_room("ann") and pool.jobs == 0
    again = pool.submit("ann", time.sleep, 0)
    assert again is not None
    await asyncio.wait_for(again, 30)


async def test_a_full_queue_refuses(pool: SolverPool) -> None:
    running = pool.submit("ann", time.sleep, HOLD_S)  # runs in the one solver process
    waiting = pool.submit("bob", time.sleep, 0)  # waits in the queue of one
    assert running is not None and waiting is not None and pool.jobs == 2
    assert not pool.has_room("cat")
    assert pool.submit("cat", time.sleep, 0) is None  # finds the queue full
    assert pool.submit_hint("cat", Board.deal(1, 4)) is None
    await asyncio.wait_for(asyncio.gather(running, waiting), 30)
    # With the queue empty again, Cat is served.
    served = pool.submit("cat", time.sleep, 0)
    assert served is not None
    await asyncio.wait_for(served, 30)


async def test_a_hint_is_the_first_action_of_a_win(pool: SolverPool) -> None:
    deal = load_pool(1)[1].deal
    board = Board.deal(deal, 1)
    answer = pool.submit_hint("eve", board)
    assert answer is not None
    hint = await asyncio.wait_for(answer, 60)
    assert hint.status == "move" and hint.move is not None
    board.play(parse_action(hint.move))  # the engine refuses an illegal action
    assert solve(board, timeout=30).result == "solved"


async def test_a_dead_solver_process_fails_its_job_and_is_replaced(pool: SolverPool) -> None:
    [worker] = solver_processes()
    answer = pool.submit("ann", time.sleep, 30)
    assert answer is not None
    await asyncio.sleep(0.3)  # handed to the process
    worker.send_signal(signal.SIGKILL)
    with pytest.raises(SolverFailed):
        await asyncio.wait_for(answer, 30)
    assert pool.has_room("ann") and pool.jobs == 0
    served = pool.submit("ann", os.getpid)
    assert served is not None
    fresh = await asyncio.wait_for(served, 30)
    assert fresh != worker.pid and psutil.Process(fresh).is_running()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads Linux's /proc")
async def test_the_solver_processes_run_at_idle_priority() -> None:
    # The solver may only take CPU that the event loop does not want: every thread of its
    # process is under SCHED_IDLE, and niced, while the server runs as it was started.
    pool = SolverPool(1, 0, policy="idle", nice=WORKER_NICE)
    ours = scheduling(os.getpid())
    await pool.start()
    try:
        [worker] = solver_processes()
        expected = {(os.SCHED_IDLE, min(19, os.getpriority(0, 0) + WORKER_NICE))}
        assert scheduling(worker.pid) == expected
        assert scheduling(os.getpid()) == ours
        # Its own session, so where Linux groups processes by session its CPU does not
        # count against the server's group, whose weight it takes the lowest of.
        assert os.getsid(worker.pid) == worker.pid != os.getsid(0)
        # Linux prints a session's autogroup only when it has one of its own: a server
        # started in the first session of a container (as CI starts it) shows nothing, the
        # worker still shows the group its setsid() made.
        switch = Path("/proc/sys/kernel/sched_autogroup_enabled")
        if switch.exists() and switch.read_text().strip() == "1":
            group = Path(f"/proc/{worker.pid}/autogroup").read_text().split()
            server_group = Path("/proc/self/autogroup").read_text().split()
            assert group, "the solver process has no autogroup of its own"
            assert group[:1] != server_group[:1]
            assert group[-1] == "19"
    finally:
        await pool.close()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads Linux's /proc")
@pytest.mark.parametrize(
    ("policy", "nice", "expected"),
    [("batch", 5, os.SCHED_BATCH), ("normal", 0, os.SCHED_OTHER), ("idle", 3, os.SCHED_IDLE)],
)
async def test_the_solver_policy_and_niceness_are_settings(
    policy: str, nice: int, expected: int
) -> None:
    pool = SolverPool(1, 0, policy=policy, nice=nice)
    await pool.start()
    try:
        [worker] = solver_processes()
        assert scheduling(worker.pid) == {(expected, min(19, os.getpriority(0, 0) + nice))}
    finally:
        await pool.close()
    with pytest.raises(ValueError, match="scheduling policy"):
        SolverPool(1, 0, policy="fifo")
