"""The solver's processes: hints run there, off the event loop and off its GIL.

A search holds the interpreter for its whole budget, so in a thread of the server's process
it would slow every socket of the instance. :class:`SolverPool` runs it in a small
:class:`~concurrent.futures.ProcessPoolExecutor` instead, with two bounds that keep one
client from filling it:

- one job in flight per player (all of that player's sockets on this instance), and
- at most ``queue`` jobs waiting for a free process.

A job past either bound is refused at once (:meth:`SolverPool.submit_hint` returns None;
the handler answers ``reject busy``). A board crosses to the process as its JSON position
(:meth:`~server.engine.board.Board.to_json`, well under a kilobyte) and comes back as a
:class:`~server.engine.solver.Hint`.

The processes are spawned (not forked from the running event loop), ignore SIGINT (the
server shuts them down itself), end when the server does, even killed, and run at a lower
priority, so that when cores are short the event loops and Redis on the host win them. On
Linux that is the ``idle`` scheduling policy by default (:data:`POLICIES`): a solver
process then only gets a core that nothing else wants, and the kernel counts a core that
runs only such work as free, so an event loop that wakes up takes it at once instead of
waiting for its turn (a niced process still holds the core for a while); and it leaves
the server's session, so that its CPU is not counted against the server's share where
Linux groups processes by session (:func:`own_autogroup`). Elsewhere, or
with ``normal``, the processes are only niced (:data:`WORKER_NICE` by default). A process
that dies (killed, out of memory) breaks the executor: the jobs it held fail with
:class:`SolverFailed` and a fresh executor takes the next ones.

A hint's own job moves between priorities: under ``idle`` its fast solver (bounded, and
what decides whether the hint names a move) runs under ``batch`` with the autogroup at the
process's niceness, its proof of a shortest line back under ``idle`` (:func:`_hint_job`).

In the server's process the executor keeps two helper threads (its manager and the job
queue's feeder); each takes the GIL briefly per job, to pass a position or an answer on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Final, ParamSpec, TypeVar

from .engine import Board
from .engine.optimal import optimal_hint
from .engine.solver import Hint

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

#: The solver's budget for one hint, in seconds (counted in the process, once it starts).
HINT_SECONDS: Final = 1.0

#: How much nicer than the server the solver processes run (0: the same priority).
WORKER_NICE: Final = 10

#: The scheduling policies a solver process may run under, by name (Linux); ``normal`` is
#: the server's own (then only :data:`WORKER_NICE` lowers the priority).
POLICIES: Final = {
    "idle": getattr(os, "SCHED_IDLE", None),
    "batch": getattr(os, "SCHED_BATCH", None),
    "normal": None,
}

#: How often a solver process checks that the server that started it is still there.
PARENT_CHECK_SECONDS: Final = 0.5

#: Seconds the running jobs have to end when the pool closes; then their processes are
#: killed and the jobs abandoned (every job is pure: a hint, a review's score or a candidate
#: deal, which an instance asks for again). A daily certification held a shutdown past a
#: container's 10 s grace.
CLOSE_GRACE_S: Final = 2.0


class SolverFailed(Exception):
    """The process running a job died before answering (the job may be asked again)."""


#: The scheduling policy and niceness this solver process was started under (set in each
#: process).
_policy = "normal"
_nice = WORKER_NICE


def _init_worker(policy: str, nice: int, parent: int) -> None:
    """Set up a solver process: leave SIGINT to the server, yield the CPU to it and end
    with it.

    A server killed outright (SIGKILL, out of memory) cannot shut its pool down, and a
    spawned process holds both ends of its job queue, so it would wait for jobs forever: a
    thread ends the process once ``parent`` is no longer its parent.
    """
    global _policy, _nice
    _policy, _nice = policy, nice
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lower_priority(policy, nice)
    threading.Thread(target=_end_with, args=(parent,), name="parent-watch", daemon=True).start()


def lower_priority(policy: str, nice: int) -> None:
    """Run the calling thread (and the threads it starts) nicer by ``nice`` and, where the
    system has it, under the scheduling policy named ``policy`` (a key of
    :data:`POLICIES`). What the system refuses is left as it is: a solver at the server's
    priority is slower for the others, not wrong."""
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    chosen = POLICIES.get(policy)
    if chosen is not None:
        with contextlib.suppress(OSError, AttributeError):
            os.sched_setscheduler(0, chosen, os.sched_param(0))
        own_autogroup()


def own_autogroup() -> None:
    """Leave the server's session, and so its autogroup, for one of the process's own at
    the lowest weight.

    Where Linux groups processes by session (``sched_autogroup_enabled``, the default of
    many distributions) the groups share the CPU evenly and priorities only count inside a
    group: in the server's group the solver's CPU would count against the server's share
    when other groups (other services, other instances) want the cores too. Nothing else
    changes: the process still ends with the server (:func:`_end_with`) and ignores SIGINT.
    """
    with contextlib.suppress(OSError):
        os.setsid()
        Path("/proc/self/autogroup").write_text("19")


def _end_with(parent: int) -> None:
    """Exit the process as soon as ``parent`` has gone (it is then no longer the parent)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)


def _ready() -> int:
    """A job that only shows the process is up (its id)."""
    return os.getpid()


def _hint_job(position: dict[str, object], timeout: float) -> Hint:
    """Rebuild the board from its JSON position and run the solver's hint on it: the first
    move of a shortest win, with the actions left at best, when one is proven in time, else
    the fast solver's winning move.

    Under ``idle`` a host with no spare CPU starves the process (a hint of a few
    milliseconds took over 20 s on a 2-core host at a load of 12), so the fast solver, a
    bounded job that decides whether the hint names a move at all, runs under ``batch``
    with its autogroup at the process's niceness (still niced: the event loops win most of
    a contested core); the proof of a shortest line, which fills its budget, goes back to
    ``idle`` at the lowest autogroup weight."""
    if _policy != "idle":
        return optimal_hint(Board.from_json(position), timeout=timeout)
    _searching(True)
    try:
        return optimal_hint(
            Board.from_json(position), timeout=timeout, proving=lambda: _searching(False)
        )
    finally:
        _searching(False)


def _waited_for(job: Callable[..., T], *args: Any) -> T:
    """Run a bounded job that a player is waiting on (a review of their finish) as a hint's
    fast solver runs: under ``batch`` with the autogroup at the process's niceness, then
    back to ``idle``.

    Under ``idle`` beside two busy loops on a 2-core host a review waited over three
    minutes for a core nothing else wanted; niced, the event loops still win most of a
    contested core and the finisher hears their result in seconds."""
    if _policy != "idle":
        return job(*args)
    _searching(True)
    try:
        return job(*args)
    finally:
        _searching(False)


def _searching(fast: bool) -> None:
    """An ``idle`` solver process's priority for the fast solver (``batch``, its autogroup
    at the process's niceness) or for the rest (``idle``, the autogroup at 19), where the
    system lets it be set (a process may move between these at its own nice)."""
    chosen = POLICIES["batch" if fast else "idle"]
    with contextlib.suppress(OSError, AttributeError, TypeError):
        os.sched_setscheduler(0, chosen, os.sched_param(0))  # type: ignore[arg-type]
    with contextlib.suppress(OSError):
        Path("/proc/self/autogroup").write_text(str(_nice if fast else 19))


class SolverPool:
    """Solver processes behind a bounded queue, with one job per player at a time.

    Args:
        workers: solver processes (each a core while it works).
        queue: jobs that may wait for a free process; past it, jobs are refused.
        policy: the processes' scheduling policy (a key of :data:`POLICIES`).
        nice: added to the processes' niceness (see :data:`WORKER_NICE`).

    Call :meth:`start` before the first job and :meth:`close` at the end, on the event
    loop that submits the jobs.
    """

    def __init__(
        self, workers: int, queue: int, *, policy: str = "idle", nice: int = WORKER_NICE
    ) -> None:
        if workers < 1 or queue < 0:
            raise ValueError("a solver pool needs 1 or more workers and a queue of 0 or more")
        if policy not in POLICIES:
            raise ValueError(f"unknown scheduling policy {policy!r}")
        self.workers = workers
        self.queue = queue
        self.policy = policy
        self.nice = nice
        self._executor: ProcessPoolExecutor | None = None
        self._closing: ProcessPoolExecutor | None = None
        self._players: set[str] = set()
        self._jobs = 0

    @property
    def started(self) -> bool:
        """Whether :meth:`start` ran and :meth:`close` did not."""
        return self._executor is not None

    @property
    def jobs(self) -> int:
        """Jobs accepted and not finished: running or waiting."""
        return self._jobs

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(self.policy, self.nice, os.getpid()),
        )

    async def start(self) -> None:
        """Start the processes and wait until each has answered once.

        Raises:
            RuntimeError: the pool is already started.
        """
        if self._executor is not None:
            raise RuntimeError("the solver pool is already started")
        executor = self._executor = self._new_executor()
        # Jobs submitted while no process is idle each spawn one, up to ``workers``.
        await asyncio.gather(
            *(asyncio.wrap_future(executor.submit(_ready)) for _ in range(self.workers))
        )

    async def close(self, grace: float = CLOSE_GRACE_S) -> None:
        """Refuse new jobs, drop the waiting ones and give the running ones ``grace``
        seconds to end; then kill their processes (the jobs fail, abandoned)."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        self._closing = executor
        closing = asyncio.ensure_future(
            asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
        )
        done, _ = await asyncio.wait({closing}, timeout=grace)
        if not done:
            killed = self.abandon()
            log.warning(
                "%d solver process(es) still busy %.1f s into the shutdown: their jobs are "
                "abandoned",
                killed,
                grace,
            )
            await asyncio.wait({closing}, timeout=grace)
        self._closing = None

    def abandon(self) -> int:
        """Kill every solver process of the pool at once, running jobs and all (the end of a
        shutdown out of time; safe from any thread). Returns how many were running."""
        killed = 0
        for executor in (self._executor, self._closing):
            # The executor's own table of its processes: ProcessPoolExecutor has no public
            # way to end a running job before Python 3.14's terminate_workers.
            processes = dict(getattr(executor, "_processes", None) or {})
            for process in processes.values():
                if process.is_alive():
                    with contextlib.suppress(OSError, ValueError, AttributeError):
                        process.kill()
                        killed += 1
        return killed

    def has_room(self, player: str) -> bool:
        """Whether a job of ``player``'s would be taken now: a check that costs nothing, so
        that a handler can refuse a hint before any other work for it (in a storm of hints,
        most are refused)."""
        return player not in self._players and self._jobs < self.workers + self.queue

    def submit_hint(
        self, player: str, board: Board, timeout: float = HINT_SECONDS
    ) -> asyncio.Future[Hint] | None:
        """Queue a hint for ``player``'s board, or refuse it.

        Args:
            player: the player id; one job per player at a time.
            board: the position; only its table is sent, so it may change meanwhile.
            timeout: the solver's budget in seconds.

        Returns:
            The answer to come, or None (busy): ``player`` has a job in flight or the queue
            is full. The answer raises :class:`SolverFailed` when the process running it
            died, and is cancelled when the pool closes first.

        Raises:
            RuntimeError: the pool is not started (or closed).
        """
        if self._executor is None:
            raise RuntimeError("the solver pool is not started")
        if not self.has_room(player):
            return None
        return self.submit(player, _hint_job, board.to_json(), timeout)

    def submit(
        self, key: str, job: Callable[..., T], *args: Any, waited_for: bool = False
    ) -> asyncio.Future[T] | None:
        """Queue any pure job (a module-level function and picklable arguments), or refuse
        it; the bounds of :meth:`submit_hint`, ``key`` standing for the player (a review
        of a player's finish is keyed apart from their hints: ``review:PID``).

        ``waited_for``: a person waits on the answer (a review of their finish), so the job
        runs niced rather than only on spare CPU (:func:`_waited_for`); it must be bounded.

        Raises:
            RuntimeError: the pool is not started (or closed).
        """
        if self._executor is None:
            raise RuntimeError("the solver pool is not started")
        if not self.has_room(key):
            return None
        call: tuple[Any, ...] = (_waited_for, job, *args) if waited_for else (job, *args)
        try:
            work = self._executor.submit(*call)
        except BrokenProcessPool:
            self._replace(self._executor)
            work = self._executor.submit(*call)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[T] = loop.create_future()
        executor = self._executor
        self._players.add(key)
        self._jobs += 1

        def finished(done: Future[T]) -> None:  # on the executor's thread
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(self._settle, key, executor, done, answer)

        work.add_done_callback(finished)
        return answer

    async def run(self, job: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run one of the server's own jobs (a module-level function, its arguments
        picklable) in a solver process and wait for its answer.

        Not bounded per player or by the queue, nor counted in :attr:`jobs`: only the
        server submits these (the daily certifier, one candidate of a few milliseconds at a
        time), so the hints' bounds stay as they are; a hint waits for one such job at most.

        Raises:
            SolverFailed: the process running it died.
            RuntimeError: the pool is not started (or closed).
        """
        if self._executor is None:
            raise RuntimeError("the solver pool is not started")
        executor = self._executor
        try:
            work = executor.submit(job, *args, **kwargs)
        except BrokenProcessPool:
            self._replace(executor)
            executor = self._executor
            work = executor.submit(job, *args, **kwargs)
        try:
            return await asyncio.wrap_future(work)
        except BrokenProcessPool:
            self._replace(executor)
            raise SolverFailed("the solver process stopped before answering") from None

    async def run_waited_for(self, job: Callable[..., T], *args: Any) -> T:
        """:meth:`run` for a bounded job that people wait on, themselves or through the jobs
        queued behind it (a daily's candidate deal): niced rather than only on spare CPU
        (:func:`_waited_for`)."""
        return await self.run(_waited_for, job, *args)

    def _settle(
        self,
        player: str,
        executor: ProcessPoolExecutor,
        done: Future[Any],
        answer: asyncio.Future[Any],
    ) -> None:
        """On the event loop: free the player's slot and pass the outcome on."""
        self._players.discard(player)
        self._jobs -= 1
        if done.cancelled():
            answer.cancel()
            return
        failure = done.exception()
        if isinstance(failure, BrokenProcessPool):
            self._replace(executor)
            failure = SolverFailed("the solver process stopped before answering")
        if answer.done():
            return
        if failure is not None:
            answer.set_exception(failure)
        else:
            answer.set_result(done.result())

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """A fresh executor in place of a broken one (once, however many jobs it failed)."""
        if self._executor is not broken:
            return
        log.error("a solver process died; starting a new pool")
        broken.shutdown(wait=False, cancel_futures=True)
        self._executor = self._new_executor()
