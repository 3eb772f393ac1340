"""Test servers forked from a process that has the server imported already.

A test run starts about two hundred ``seahaven serve`` processes. Each one spent most of
its start importing the server (pydantic's models, redis-py, websockets: about 0.7 CPU-s of
a 0.9 CPU-s start on a 2-core machine), the same work every time. A zygote imports it once
for each pytest worker; :func:`tests.helpers.serverproc.start_server` asks it for a server, and it
forks one that runs ``seahaven serve ARGS`` from there, in a process of its own: its own
environment, working folder, log file, signals and exit status.

What the fork shares is only what the imports made; nothing in them starts a thread, an
event loop or a connection. The child draws fresh random numbers, puts back the signal
handlers the zygote changed and exits like any ``python -m server.cli`` (``atexit`` runs).
``SEAHAVEN_TEST_FORK=0`` starts every test server by executing the command instead.

The zygote is the servers' parent, so it alone learns how they ended: it reaps them on
SIGCHLD and answers a :class:`Forked`'s ``poll``. Requests and answers are JSON lines on its
standard input and output.

When its worker ends, however it ends (its standard input closes), the zygote stops the
servers still running before it goes: SIGTERM, then SIGKILL after :data:`STOP_S`. A worker
that crashed or was stopped mid-module never tore down its servers, and a forked server's
command line reads ``python -m tests.helpers.zygote``: such orphans ran on after the suite.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests import ROOT


def enabled() -> bool:
    """Whether test servers are forked from a zygote (``SEAHAVEN_TEST_FORK`` is not ``0``;
    Linux only: forking needs ``os.fork``)."""
    return os.environ.get("SEAHAVEN_TEST_FORK", "1") != "0" and hasattr(os, "fork")


class Forked:
    """A server forked by the zygote, used as a :class:`subprocess.Popen` is by the tests."""

    def __init__(self, zygote: Zygote, pid: int, args: list[str]) -> None:
        self.zygote = zygote
        self.pid = pid
        self.args = args
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit status (minus the signal's number when killed), or None while it runs."""
        if self.returncode is None:
            self.returncode = self.zygote.status(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the end and return the exit status.

        Raises:
            subprocess.TimeoutExpired: still running after ``timeout`` seconds.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            time.sleep(0.02)
        return code

    def send_signal(self, sig: int) -> None:
        """Signal the process, unless it has ended (its pid may be another's by then)."""
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        """SIGTERM."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)


class Zygote:
    """The client of one zygote process (one for each pytest worker, started when first
    asked for a server). The zygote ends with its worker, whose end closes its standard
    input; its children run until their test stops them, or until that end, when the
    zygote stops the ones left."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.helpers.zygote"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._lock = threading.Lock()  # a request and its answer, one at a time
        self._ask({"do": "ready"})

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        with self._lock:
            self._proc.stdin.write(json.dumps(request).encode() + b"\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the test servers' zygote ended ({self._proc.poll()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def spawn(self, argv: list[str], env: dict[str, str], cwd: Path, log: Path) -> Forked:
        """Fork a process that runs ``seahaven ARGV`` (``argv`` without the command)."""
        answer = self._ask(
            {"do": "fork", "argv": argv, "env": env, "cwd": str(cwd), "log": str(log)}
        )
        return Forked(self, int(answer["pid"]), ["seahaven", *argv])

    def status(self, pid: int) -> int | None:
        """How the zygote's child ``pid`` ended, or None while it runs."""
        code = self._ask({"do": "status", "pid": pid})["code"]
        return None if code is None else int(code)


_zygote: list[Zygote] = []


def zygote() -> Zygote:
    """This process's zygote, started at the first call."""
    if not _zygote:
        _zygote.append(Zygote())
    return _zygote[0]


# -- the zygote process ----------------------------------------------------------------------

#: Exit statuses of the children that ended, by pid (filled on SIGCHLD).
_ended: dict[int, int] = {}
#: Every child forked, by pid (those not in :data:`_ended` still run).
_forked: set[int] = set()
#: Seconds the servers left running at the zygote's end have to stop before SIGKILL (a
#: server stops within 10 s of SIGTERM).
STOP_S = 12.0
#: True in a forked child (which must not stop its siblings on its way out).
_in_child = False


def _reap(signum: int, frame: object) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _ended[pid] = os.waitstatus_to_exitcode(status)


def _become(request: dict[str, Any]) -> list[str]:
    """In the forked child: take the request's environment, folder and log; returns the
    command's arguments."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    random.seed()  # not the zygote's sequence, which every sibling shares
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(log, 1)  # and the zygote's answers' pipe is no longer this process's
    os.dup2(log, 2)
    os.close(log)
    os.close(devnull)
    # As ``python -m server.cli``: its solver processes (multiprocessing's spawn) import
    # the main module again, and should find that one, not this.
    import server.cli

    sys.modules["__main__"] = server.cli
    sys.argv = [str(Path(server.cli.__file__)), *request["argv"]]
    return list(request["argv"])


def _running() -> list[int]:
    _reap(signal.SIGCHLD, None)
    return sorted(_forked - _ended.keys())


def _stop_children() -> None:
    """SIGTERM the children still running, then SIGKILL those left after :data:`STOP_S`."""
    for sig, wait in ((signal.SIGTERM, STOP_S), (signal.SIGKILL, 5.0)):
        for pid in _running():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while _running() and time.monotonic() < deadline:
            time.sleep(0.05)
        if not _running():
            return


def _serve() -> list[str] | None:
    """The zygote's loop: returns in a forked child (the command's arguments), or None when
    the tests are done with it."""
    import server.app  # noqa: F401  (what every server imports: the point of the zygote)
    from server.cli import build_parser

    build_parser()  # and every subcommand's module
    requests, out = sys.stdin.buffer, sys.stdout.buffer
    signal.signal(signal.SIGCHLD, _reap)
    # Stopped by a signal (a run cut short), it still stops its servers on the way out.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        return _answer(requests, out)
    finally:
        if not _in_child:  # the worker is gone (or its pipe broke): nobody else stops them
            _stop_children()


def _answer(requests: Any, out: Any) -> list[str] | None:
    """Answer the requests until the worker closes the pipe."""
    global _in_child
    while line := requests.readline():
        request = json.loads(line)
        if request["do"] == "fork":
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _in_child = True
                return _become(request)
            _forked.add(pid)
            answer: dict[str, Any] = {"pid": pid}
        elif request["do"] == "status":
            _reap(signal.SIGCHLD, None)  # a signal that came between two requests
            answer = {"code": _ended.get(int(request["pid"]))}
        else:
            answer = {}
        out.write(json.dumps(answer).encode() + b"\n")
        out.flush()
    return None


if __name__ == "__main__":
    argv = _serve()
    if argv is not None:
        from server.cli import main

        sys.exit(main(argv))
