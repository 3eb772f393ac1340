"""``seahaven serve --workers N``: N server processes on one port, supervised by the parent.

Each worker is a full instance (its own event loop, instance id, caches, hub, solver pool
and Redis connections) that shares nothing with its siblings but Redis, exactly like
instances on different machines: a room's racers may sit on different workers, and a
player resumes on whichever worker takes the new socket. Every worker binds the port with
``SO_REUSEPORT`` (Linux), so the kernel spreads new connections over them (by a hash of the
connection's addresses and ports). ``/healthz`` and ``/metrics`` answer for the worker that
took the connection (``/healthz`` names its ``instance``).

The parent serves nothing itself. It

- binds the port once, without listening (``--port 0``: a free port, the same for every
  worker), and keeps it while it runs, so the port stays this server's while a worker
  restarts; a port that something listens on already is refused; it prints the one
  ``seahaven serving on ...`` line once every worker serves;
- starts the embedded Redis once when there is neither ``--redis-url`` nor
  ``--redis-cluster``, hands its URL to every worker, and stops everything if it dies, as
  a single instance does;
- starts a worker that dies again, after a pause that doubles (0.5 s up to 30 s) while it
  keeps dying within 30 s of its start, so a crash loop does not spin; one log line says
  which worker died, how, and when it comes back. A worker that fails before it ever served
  during the first start stops the whole server (exit status 1): a bad setting or an
  unreachable Redis is reported, not retried forever;
- on SIGTERM or SIGINT sends SIGTERM to every worker (each closes its sockets as a single
  instance does), waits for them, and exits 0.

Workers are started with the ``spawn`` method: a fresh interpreter each, which inherits no
event loop, Redis connection or embedded-Redis handle from the parent. On Linux a worker
asks the kernel for SIGTERM when the parent dies, so a killed parent leaves none behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import importlib.util
import logging
import multiprocessing
import os
import signal
import socket
import sys
from collections.abc import Coroutine
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Final

from ...app import run, with_embedded_secret
from ...settings import Settings
from ...transport.embedded import (
    end_embedded_redis,
    start_embedded_redis,
    supervise,
)

log = logging.getLogger(__name__)

#: The first pause before a dead worker is started again; it doubles while the worker keeps
#: dying within :data:`STABLE_S` of its start, up to :data:`BACKOFF_MAX_S`.
BACKOFF_FIRST_S: Final = 0.5
BACKOFF_MAX_S: Final = 30.0
#: A worker that ran this long before dying is restarted after the first pause again.
STABLE_S: Final = 30.0
#: How long the workers have to stop after SIGTERM before they are killed.
STOP_GRACE_S: Final = 20.0
#: The parent's exit status when a worker failed before it ever served.
STARTUP_FAILED: Final = 1
#: ``prctl`` option: the signal this process gets when its parent dies (Linux).
PR_SET_PDEATHSIG: Final = 1


def run_loop(main: Coroutine[Any, Any, int], loop: str) -> int:
    """Run ``main`` to its end on the event loop named (``uvloop`` when it is installed)."""
    if loop == "uvloop" and importlib.util.find_spec("uvloop") is not None:
        import uvloop  # a faster event loop; plain asyncio works too

        return uvloop.run(main)
    return asyncio.run(main)


def can_share_ports() -> bool:
    """Whether this system lets several processes listen on one port (``SO_REUSEPORT``)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def reserve_port(host: str, port: int) -> tuple[int, list[socket.socket]]:
    """Bind, without listening, the port the workers will share, on every address of
    ``host`` (as the workers' servers will).

    ``port`` 0 picks a free port, the same on every address. Bound but not listening, the
    sockets take no connection; they keep the port this server's while workers restart.

    Returns:
        (the port, the sockets to keep open while serving).

    Raises:
        OSError: the port is taken, or served already (by another server that shares it).
    """
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    addresses = list(dict.fromkeys((info[0], str(info[4][0])) for info in infos))
    for attempt in range(20):
        chosen, held = port, []
        try:
            for family, address in addresses:
                sock = socket.socket(family, socket.SOCK_STREAM)
                held.append(sock)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                if family == socket.AF_INET6:  # as asyncio binds IPv6: v6 only
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind((address, chosen))
                chosen = sock.getsockname()[1]
                if port and _listened(family, address, port):
                    raise OSError(errno.EADDRINUSE, "another server already listens there")
            return chosen, held
        except OSError:
            for sock in held:
                sock.close()
            if port or attempt == 19:  # a free port of one address may be taken on another
                raise
    raise AssertionError("unreachable")


def _listened(family: int, address: str, port: int) -> bool:
    """Whether something listens on ``address:port`` already (a wildcard address is tried
    on loopback). ``SO_REUSEPORT`` would let this server join the listening sockets of
    another one of the same user on that port, silently: an accidental second start must
    fail as a single instance's does."""
    if address in ("0.0.0.0", "::"):
        address = "127.0.0.1" if family == socket.AF_INET else "::1"
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex((address, port)) == 0


def _die_with(parent: int) -> None:
    """Have the kernel send this worker SIGTERM when its parent dies (Linux)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the line above
        sys.exit(0)


def worker_main(
    settings: Settings, index: int, parent: int, ready: Connection, shared_embedded: bool
) -> None:
    """A worker process: serve ``settings`` on the shared port until SIGTERM/SIGINT.

    Args:
        settings: the instance's settings, with the port and Redis URL the parent chose.
        index: the worker's number (1..N), for its log lines.
        parent: the parent's pid.
        ready: the pipe on which the worker sends its pid once it serves.
        shared_embedded: the Redis is the parent's embedded one.
    """
    _die_with(parent)
    logging.basicConfig(
        level=settings.log.upper(), format=f"%(levelname)s:worker {index}:%(name)s:%(message)s"
    )

    async def main() -> int:
        bound = asyncio.Event()

        async def tell() -> None:
            await bound.wait()
            ready.send(os.getpid())
            ready.close()

        telling = asyncio.create_task(tell())
        try:
            return await run(settings, bound, worker=True, shared_embedded=shared_embedded)
        finally:
            telling.cancel()

    sys.exit(run_loop(main(), settings.loop))


async def _readable(fd: int) -> None:
    """Wait until ``fd`` can be read (data, end of file, or a process sentinel's end)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not done.done():
            done.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await done
    finally:
        loop.remove_reader(fd)


def how_it_ended(exitcode: int | None) -> str:
    """``exited with status N`` or ``was killed by SIGNAME``."""
    if exitcode is not None and exitcode < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-exitcode).name}"
    return f"exited with status {exitcode}"


def _finish(stop: asyncio.Future[int], status: int) -> None:
    if not stop.done():
        stop.set_result(status)


@dataclass
class Worker:
    """One worker's place: its current process and how long its next restart waits."""

    index: int
    process: BaseProcess | None = None
    served: bool = False
    pause: float = BACKOFF_FIRST_S
    restarts: int = 0


class Supervisor:
    """Starts the workers, starts again the ones that die, and stops them all."""

    def __init__(self, settings: Settings, shared_embedded: bool, stop: asyncio.Future[int]):
        self.settings = settings
        self.shared_embedded = shared_embedded
        self.stop = stop
        self.workers = [Worker(i + 1) for i in range(settings.workers)]
        self.all_served: asyncio.Future[None] = stop.get_loop().create_future()
        self.spawn = multiprocessing.get_context("spawn")

    def _start(self, worker: Worker) -> Connection:
        reader, writer = self.spawn.Pipe(duplex=False)
        process = self.spawn.Process(
            target=worker_main,
            args=(self.settings, worker.index, os.getpid(), writer, self.shared_embedded),
            name=f"seahaven-worker-{worker.index}",
        )
        process.start()
        writer.close()  # the worker's copy is the only one: its end shows as end of file
        worker.process = process
        return reader

    async def keep(self, worker: Worker) -> None:
        """Keep ``worker`` running until cancelled (at the stop)."""
        loop = asyncio.get_running_loop()
        while True:
            reader = self._start(worker)
            process = worker.process
            assert process is not None and process.pid is not None
            started = loop.time()
            try:
                await _readable(reader.fileno())
                with contextlib.suppress(EOFError, OSError):
                    reader.recv()
                    worker.served = True
                    log.info("worker %d serving (pid %d)", worker.index, process.pid)
                    if all(w.served for w in self.workers) and not self.all_served.done():
                        self.all_served.set_result(None)
            finally:
                reader.close()
            await _readable(process.sentinel)
            process.join()
            # A SIGINT from the terminal reaches the workers too: give the parent's own
            # signal handler a moment before calling this a death.
            await asyncio.wait([self.stop], timeout=0.2)
            if self.stop.done():
                return
            lived = loop.time() - started
            if not worker.served and not self.all_served.done():
                log.error(
                    "worker %d (pid %d) %s before it served: stopping every worker",
                    worker.index,
                    process.pid,
                    how_it_ended(process.exitcode),
                )
                _finish(self.stop, STARTUP_FAILED)
                return
            if lived >= STABLE_S:
                worker.pause = BACKOFF_FIRST_S
            pause, worker.pause = worker.pause, min(worker.pause * 2, BACKOFF_MAX_S)
            worker.restarts += 1
            log.error(
                "worker %d (pid %d) %s after %.1f s; starting it again in %.1f s (restart %d)",
                worker.index,
                process.pid,
                how_it_ended(process.exitcode),
                lived,
                pause,
                worker.restarts,
            )
            await asyncio.sleep(pause)

    async def stop_all(self) -> None:
        """SIGTERM every running worker, wait for them, SIGKILL any still running after
        :data:`STOP_GRACE_S`."""
        running = [
            w.process for w in self.workers if w.process is not None and w.process.is_alive()
        ]
        for process in running:
            process.terminate()
        waits = {asyncio.ensure_future(_readable(p.sentinel)): p for p in running}
        late: set[asyncio.Task[None]] = set()
        if waits:
            _, late = await asyncio.wait(waits, timeout=STOP_GRACE_S)
        for task in late:
            task.cancel()
            log.error("worker (pid %s) did not stop in time: killed", waits[task].pid)
            waits[task].kill()
        for process in running:
            process.join()  # its sentinel shows its end a moment before it can be reaped


async def serve_workers(settings: Settings) -> int:
    """Serve ``settings.port`` with ``settings.workers`` worker processes until SIGINT or
    SIGTERM (or the embedded Redis dies, or a worker fails at the first start).

    Returns:
        The exit status: 0; :data:`STARTUP_FAILED`; or the embedded Redis's
        :data:`~server.transport.embedded.EMBEDDED_DIED`.
    """
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[int] = loop.create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, _finish, stop, 0)
    try:
        port, held = reserve_port(settings.host, settings.port)
    except OSError as exc:
        log.error("cannot bind %s:%d: %s", settings.host, settings.port, exc)
        return STARTUP_FAILED
    lite: Any = None
    url = settings.redis_url or ""
    watch: asyncio.Task[None] | None = None
    if not url and not settings.redis_cluster:
        lite, url = await asyncio.to_thread(
            start_embedded_redis,
            settings.data_dir,
            settings.embedded_fsync,
            settings.embedded_maxmemory,
        )
        log.info("embedded redis at %s, shared by %d workers", url, settings.workers)
        settings = with_embedded_secret(settings)
        watch = asyncio.create_task(supervise(lite, stop))
    shared = settings.model_copy(update={"port": port, "redis_url": url or None})
    supervisor = Supervisor(shared, lite is not None, stop)
    keeping = [asyncio.create_task(supervisor.keep(w)) for w in supervisor.workers]
    waits: list[asyncio.Future[Any]] = [supervisor.all_served, stop]
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    if not stop.done():
        print(
            f"seahaven serving on http://{settings.host}:{port}/ (ws at /ws), "
            f"{settings.workers} workers",
            flush=True,
        )
    status = await stop
    for task in keeping:
        task.cancel()
    await asyncio.gather(*keeping, return_exceptions=True)
    await supervisor.stop_all()
    for sock in held:
        sock.close()
    if watch is not None:
        watch.cancel()
    if lite is not None:
        await asyncio.to_thread(end_embedded_redis, lite, status)
    return status
