"""The zygote that forks the test servers (tests/helpers/zygote.py): a forked server is a process
of its own, as one started by executing ``seahaven serve`` would be."""

from __future__ import annotations

import os
import signal
import urllib.request
from pathlib import Path

import psutil
import pytest

from tests import ROOT
from tests.helpers.serverproc import FAST, TEST_ENV, free_port, redis_url, running_server
from tests.helpers.waits import until_sync
from tests.helpers.zygote import Zygote, enabled, zygote

pytestmark = pytest.mark.skipif(not enabled(), reason="test servers are not forked here")


def test_a_forked_command_reads_its_own_environment_and_exit_status(tmp_path: Path) -> None:
    log = tmp_path / "log"
    env = {**os.environ, "SEAHAVEN_SOLVER_WORKERS": "0"}  # not the zygote's environment
    proc = zygote().spawn(["serve", "--port", "0"], env, tmp_path, log)
    assert proc.wait(30) == 2
    assert proc.poll() == 2  # asked again, answered again
    text = log.read_text()
    assert "seahaven serve: bad settings" in text and "solver_workers" in text


def test_a_forked_server_runs_apart_and_its_signal_comes_back(key_prefix: str) -> None:
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    with (
        running_server(redis_url(), args=FAST, env=env) as srv,
        running_server(redis_url(), args=FAST, env=env) as other,
    ):
        assert srv.health()["ok"] and other.health()["ok"]
        assert srv.health()["instance"] != other.health()["instance"]
        me = psutil.Process(srv.proc.pid)
        assert me.cwd() == str(ROOT)
        # Its solver process (multiprocessing's spawn, an executed one) has the server's
        # environment, not the zygote's (/proc shows a forked process's first one).
        (solver,) = [p for p in me.children() if "spawn_main" in " ".join(p.cmdline())]
        assert solver.environ()["SEAHAVEN_KEY_PREFIX"] == key_prefix
        srv.proc.send_signal(signal.SIGKILL)
        assert srv.proc.wait(10) == -signal.SIGKILL
        assert other.health()["ok"]  # its sibling runs on


def test_a_zygote_whose_worker_ended_stops_the_servers_left(
    key_prefix: str, tmp_path: Path
) -> None:
    # A worker that crashed or was stopped mid-module never stopped its servers: its end
    # (the zygote's standard input closing) is the last word they get.
    own = Zygote()  # not the worker's: this one's end is the test's
    port = free_port()
    argv = ["serve", "--host", "127.0.0.1", "--port", str(port), "--redis-url", redis_url()]
    env = {**os.environ, **TEST_ENV, "SEAHAVEN_KEY_PREFIX": key_prefix}
    server = own.spawn([*argv, *FAST], env, ROOT, tmp_path / "log")
    try:
        until_sync(lambda: _healthy(port), timeout=60, what="the forked server answers")
        assert own._proc.stdin is not None
        own._proc.stdin.close()  # as the worker's end closes it
        assert own._proc.wait(30) == 0
        until_sync(lambda: not _running(server.pid), timeout=30, what="the server stops too")
    finally:
        if _running(server.pid):
            os.kill(server.pid, signal.SIGKILL)


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as res:
            return bool(res.status == 200)
    except OSError:
        return False


def _running(pid: int) -> bool:
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False
