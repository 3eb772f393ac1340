"""The zygote that forks the test servers (tests/helpers/zygote.py): a forked server is a process
of its own, as one started by executing ``seahaven serve`` would be."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import psutil
import pytest

from tests import ROOT
from tests.helpers.serverproc import FAST, redis_url, running_server
from tests.helpers.zygote import enabled, zygote

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
