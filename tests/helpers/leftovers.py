"""The processes a test run started that outlive it.

``scripts/test`` gives pytest a mark of its own in the environment (``SEAHAVEN_TEST_RUN``),
which every process the suite starts inherits: the xdist workers, the servers' zygote and
the servers it forks, their solver processes and embedded Redis, Redis clusters, Chromium.
A process's first environment stays readable in ``/proc`` whatever it does to its own later
(a forked test server clears it), so the mark names every one of them. When pytest has
ended, ``python -m tests.helpers.leftovers MARK`` gives them a moment to finish ending, then
names each one still running, stops it and fails::

    SEAHAVEN_TEST_RUN=$mark pytest ...; python -m tests.helpers.leftovers "$mark"
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

import psutil

#: The environment variable that marks a test run's processes.
MARK = "SEAHAVEN_TEST_RUN"


def marked(mark: str) -> list[psutil.Process]:
    """This user's running processes whose first environment carries ``MARK=mark`` (not this
    process, nor its ancestors: the script that asks)."""
    mine = os.getuid()
    skip = {os.getpid(), *(p.pid for p in psutil.Process().parents())}
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.pid in skip or proc.uids().real != mine:
                continue
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue  # ended; its parent has yet to read how
            if proc.environ().get(MARK) == mark:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def describe(proc: psutil.Process) -> str:
    """``pid N (parent P, A s old): COMMAND``, for the report."""
    try:
        age = time.time() - proc.create_time()
        command = " ".join(proc.cmdline()) or proc.name()
        return f"pid {proc.pid} (parent {proc.ppid()}, {age:.0f} s old): {command}"
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return f"pid {proc.pid} (ended while being named)"


def stop(procs: list[psutil.Process], grace: float = 5.0) -> None:
    """SIGTERM each, then SIGKILL the ones still running after ``grace`` seconds."""
    for proc in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=grace)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    psutil.wait_procs(alive, timeout=grace)


def check(mark: str, grace: float) -> list[str]:
    """Wait up to ``grace`` seconds for the run's processes to end; returns the description
    of each that did not (after stopping it), or nothing."""
    deadline = time.monotonic() + grace
    while (left := marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    named = [describe(proc) for proc in left]
    if left:
        stop(left)
    return named


def main(argv: list[str] | None = None) -> int:
    """The command: 0 when nothing of the run is left, 1 (each one named) when something is."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mark", help=f"the run's {MARK} value")
    parser.add_argument(
        "--grace",
        type=float,
        default=20.0,
        help="seconds the run's processes have to end after pytest (a server stops within 10)",
    )
    args = parser.parse_args(argv)
    if not args.mark:
        parser.error("an empty mark would match nothing")
    left = check(args.mark, args.grace)
    if not left:
        return 0
    print(
        f"== LEFTOVER PROCESSES: {len(left)} process(es) the tests started outlived them "
        f"by {args.grace:.0f} s (now stopped):",
        file=sys.stderr,
    )
    for line in left:
        print(f"   {line}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
