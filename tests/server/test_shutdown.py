"""SIGTERM ends an instance within a container's 10 s grace whatever it was doing: here its
solver process, in the middle of certifying the daily deals, gets no CPU at all (stopped,
as on a machine too busy to give it any), and a player's move was acknowledged just before;
that move is there for the next instance. A shutdown stuck on a blocked loop is ended by its
own deadline, saying what it still waited for."""

from __future__ import annotations

import subprocess
import sys

import psutil
import pytest

from tests import ROOT
from tests.helpers.serverproc import FAST, WsClient, redis_url, running_server, start_server

pytestmark = pytest.mark.slow

CODE = "SH1-C4-AAAAAAB"


def solver_processes(pid: int) -> list[psutil.Process]:
    """The server's solver processes (spawned: their command line says so)."""
    return [
        p
        for p in psutil.Process(pid).children(recursive=True)
        if "spawn_main" in " ".join(p.cmdline()) and "resource_tracker" not in " ".join(p.cmdline())
    ]


async def test_sigterm_ends_a_server_whose_solver_job_never_ends_within_10_s(
    key_prefix: str,
) -> None:
    # A daily secret of its own: nothing is planted, so the server certifies at its start.
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix, "SEAHAVEN_DAILY_SECRET": "not the test key"}
    srv = start_server(redis_url(), args=FAST, env=env)
    stopped: list[psutil.Process] = []
    try:
        ann = await WsClient.connect(srv.ws_url, "Ann")
        await ann.send({"type": "solo", "code": CODE})
        room = (await ann.expect("snapshot"))["room_id"]
        await ann.send({"type": "move", "id": 1, "src": "col1", "dst": "cell3"})
        await ann.expect("ack", id=1)
        stopped = solver_processes(srv.proc.pid)
        assert stopped
        for process in stopped:
            process.suspend()  # SIGSTOP: its job runs on, and never ends
        srv.proc.terminate()
        # The bound is the behaviour: the process is gone within the grace.
        srv.proc.wait(10)
        assert "abandoned" in srv.log(), srv.log()
        _, alive = psutil.wait_procs(stopped, timeout=5)
        assert alive == [], alive  # no solver process left behind either
    finally:
        for process in stopped:
            if process.is_running():
                process.kill()
        srv.kill()
    with running_server(redis_url(), args=FAST, env=env) as again:
        bob = await WsClient.connect(again.ws_url)
        await bob.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 10**9})
        assert (await bob.expect("snapshot"))["players"][0]["moves"] == 1
        await bob.close()


#: A process that orders its own end in 0.5 s (as the shutdown does), then blocks its only
#: thread that runs Python code for a minute: a shutdown stuck on a blocked loop.
STUCK = """
import logging, sys, time
from types import SimpleNamespace
from server.app import leave_by

logging.basicConfig(stream=sys.stderr)
abandoned = []
async def held(): pass
task = SimpleNamespace(get_coro=lambda: held())
ctx = SimpleNamespace(tasks=[task], solver=SimpleNamespace(abandon=lambda: abandoned.append(1)))
leave_by(0.5, 4, ctx)
time.sleep(60)
print("never here")
"""


def test_a_shutdown_stuck_on_a_blocked_loop_is_ended_by_its_deadline() -> None:
    done = subprocess.run(
        [sys.executable, "-c", STUCK],
        capture_output=True,
        text=True,
        timeout=30,  # a minute's sleep, were the deadline not kept
        cwd=ROOT,
    )
    assert done.returncode == 4  # the status the shutdown was for
    assert "never here" not in done.stdout
    assert "the shutdown was not done 0.5 s after it began" in done.stderr
    assert "still waiting: held" in done.stderr  # it says what it waited for
