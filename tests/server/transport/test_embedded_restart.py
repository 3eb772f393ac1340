"""The embedded default's Redis (``seahaven serve`` without ``--redis-url``): when it dies the
server starts it again on its append-only file, the acknowledged moves still there; when it
cannot, or it keeps dying, the server exits within 10 s (status 3) with one line saying why."""

from __future__ import annotations

import functools
import os
import re
import signal
from pathlib import Path

import pytest

from server.transport.embedded import RESTARTS
from tests.helpers.private_redis import embedded_redis
from tests.helpers.serverproc import ServerProc, WsClient, start_server
from tests.helpers.waits import until

CODE = "SH1-C4-AAAAAAB"

pytestmark = pytest.mark.slow


def _other_redis(data: Path, old: int) -> int | None:
    try:
        pid = embedded_redis(data)
    except AssertionError:
        return None
    return pid if pid != old else None


def _back(srv: ServerProc, n: int) -> int | None:
    """The pid of the embedded Redis the server says is back, once it has said so ``n``
    times."""
    found = re.findall(r"the embedded Redis is back \(pid (\d+)\)", srv.log())
    return int(found[n - 1]) if len(found) >= n else None


def _healthy(srv: ServerProc) -> bool:
    try:
        return bool(srv.health().get("ok"))
    except OSError:
        return False


async def test_a_dead_embedded_redis_is_started_again_on_its_data(tmp_path: Path) -> None:
    data = tmp_path / "data"
    srv = start_server(None, data_dir=data)
    try:
        ann = await WsClient.connect(srv.ws_url, "Ann")
        await ann.send({"type": "solo", "code": CODE})
        room = (await ann.expect("snapshot"))["room_id"]
        await ann.send({"type": "move", "id": 1, "src": "col1", "dst": "cell3"})
        await ann.expect("ack", id=1)
        await ann.close()
        first = embedded_redis(data)
        os.kill(first, signal.SIGKILL)
        await until(lambda: _other_redis(data, first), timeout=30, what="a new redis-server")
        await until(lambda: _healthy(srv), timeout=30, what="the server healthy again")
        # The same server serves on, the acknowledged move kept (its append-only file).
        again = await WsClient.connect(srv.ws_url)
        await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 10**9})
        assert (await again.expect("snapshot"))["players"][0]["moves"] == 1
        await again.send({"type": "move", "id": 2, "src": "col2", "dst": "cell4"})
        await again.expect("ack", id=2)
        assert srv.proc.poll() is None
        log = srv.log()
        assert "the embedded Redis (pid" in log and "starting it again" in log
        await again.close()
    finally:
        srv.stop()


def test_an_embedded_redis_that_cannot_start_again_stops_the_server_saying_why(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    srv = start_server(None, data_dir=data)
    try:
        pid = embedded_redis(data)
        # Its append-only file spoiled under it: read again at a restart, it stops Redis.
        for aof in data.rglob("*.aof*"):
            aof.write_bytes(b"*1\r\nnot a command\r\n")
        os.kill(pid, signal.SIGKILL)
        # Within a container's 10 s grace of the death (the supervisor looks twice a second,
        # the restart waits up to 5 s for an answer): a bound, not a measurement.
        assert srv.proc.wait(10) == 3, srv.log()
        log = srv.log()
        assert "could not be started again" in log, log
        assert log.count("Traceback") <= 4 and len(log) < 8000, log  # no flood
    finally:
        if srv.proc.poll() is None:
            srv.kill()


async def test_a_redis_that_keeps_dying_stops_the_server_saying_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    srv = start_server(None, data_dir=data)
    try:
        pid = embedded_redis(data)
        for n in range(1, RESTARTS + 1):  # each death within the window is met by a restart
            os.kill(pid, signal.SIGKILL)
            # Killed again only once the server has it back (not mid-restart, which is the
            # other way to stop: "could not be started again").
            back = functools.partial(_back, srv, n)
            pid = await until(back, timeout=30, what=f"restart {n} done")
        assert srv.proc.poll() is None
        os.kill(pid, signal.SIGKILL)  # one more within the minute: serving on would be in vain
        assert srv.proc.wait(10) == 3, srv.log()
        log = srv.log()
        assert f"it died {RESTARTS + 1} times within 60 s: stopping" in log, log
    finally:
        if srv.proc.poll() is None:
            srv.kill()
