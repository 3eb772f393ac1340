"""A test server's solver processes, found and paused: a review that cannot run until the
test lets it, as on a host whose spare CPU is all taken (the solver runs at idle priority).

Usage::

    with paused_solver(srv):
        ...  # the server's reviews and hints wait in its solver pool
    # running again
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

from tests.helpers.serverproc import ServerProc


def _parents() -> dict[int, int]:
    """Every process's parent, from /proc (Linux)."""
    out: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                # The fields after the name (which may hold spaces) start with state, ppid.
                rest = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                out[int(entry.name)] = int(rest[1])
    return out


def solver_processes(srv: ServerProc) -> list[int]:
    """The process ids of a running test server's solver processes (its spawned pool
    workers, at any depth below it)."""
    parents = _parents()
    below: set[int] = set()
    frontier = {srv.proc.pid}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - below
        below |= frontier
    found = []
    for pid in sorted(below):
        with contextlib.suppress(OSError):
            line = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            if "multiprocessing" in line and "resource_tracker" not in line:
                found.append(pid)
    return found


@contextlib.contextmanager
def paused_solver(srv: ServerProc) -> Iterator[list[int]]:
    """Stop every solver process of ``srv`` (SIGSTOP) for the block; continue them after,
    whatever happens. Yields their process ids.

    Raises:
        AssertionError: the server has no solver process to pause.
    """
    pids = solver_processes(srv)
    assert pids, "the server has no solver process"
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield pids
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
