"""Redis faults: a hung Redis gets the client ``busy`` (and ``/healthz`` 503) instead of
silence, and everything works again when it comes back; the move pipeline speaks TLS
(an embedded Redis that dies: tests/server/transport/test_embedded_restart.py). Each test
runs a Redis of its own (``redis-server`` on a free loopback port), so pausing it disturbs
nobody else."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest

from server.clients.bot import action_message
from server.engine import Board
from server.engine.solver import solve
from tests.helpers.private_redis import REDIS_SERVER, needs_redis_server, private_redis, redis_pid
from tests.helpers.rediscluster import make_certificate
from tests.helpers.serverproc import (
    QUICK,
    ServerProc,
    WsClient,
    free_port,
    running_server,
    start_server,
)
from tests.helpers.waits import until

CODE = "SH1-C4-AAAAAAB"

pytestmark = needs_redis_server


def health(srv: ServerProc, timeout: float = 3.0) -> int:
    """The status of ``/healthz`` (an answer must come within ``timeout``)."""
    try:
        with urllib.request.urlopen(srv.http_url + "/healthz", timeout=timeout) as res:
            return int(res.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def exited(pid: int) -> bool:
    """Whether process ``pid`` has ended (a child of ours not yet waited for included)."""
    try:
        return bool(psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return True


@pytest.mark.slow
async def test_a_hung_redis_answers_busy_and_recovers() -> None:
    line = solve(Board.from_code(CODE)).moves
    with private_redis() as port:
        url = f"redis://127.0.0.1:{port}/0"
        for _ in range(100):
            with contextlib.suppress(Exception):
                redis_pid(port)
                break
            await asyncio.sleep(0.05)
        with running_server(url, args=["--redis-timeout", "0.5"]) as srv:
            ann = await WsClient.connect(srv.ws_url, "Ann")
            await ann.send({"type": "solo", "code": CODE})
            await ann.expect("snapshot")
            await ann.send(action_message(line[0], 1))
            await ann.expect("ack", id=1)

            pid = redis_pid(port)
            os.kill(pid, signal.SIGSTOP)
            try:
                # The socket itself stays responsive; what needs Redis says busy.
                await ann.send({"type": "ping"})
                await ann.expect("pong", timeout=3)
                await ann.send(action_message(line[1], 2))
                assert (await ann.expect("error", timeout=3))["code"] == "busy"
                assert await asyncio.to_thread(health, srv) == 503
                bob = await WsClient.connect(srv.ws_url)
                await bob.send({"type": "hello", "name": "Bob"})
                assert (await bob.expect("error", timeout=3))["code"] == "busy"
            finally:
                os.kill(pid, signal.SIGCONT)

            # Back without a restart: the action refused as busy is taken once (it may have
            # been committed while Redis was paused: the same id is never applied twice).
            assert await asyncio.to_thread(health, srv) == 200
            await ann.send(action_message(line[1], 2))
            again = await ann.expect("ack", id=2, timeout=5)
            # Its delta comes too: the first answer never left (the mover heard busy).
            await ann.expect("delta", seq=again["seq"], timeout=5)
            await ann.send(action_message(line[2], 3))
            ack = await ann.expect("ack", id=3, timeout=5)
            await bob.send({"type": "hello", "name": "Bob"})
            await bob.expect("welcome", timeout=5)
            await ann.close()
            await bob.close()
    # Three actions, each once: the third's seq is the room's third event after the opening.
    assert ack["seq"] == 3


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make a certificate")
async def test_moves_over_tls(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)
    port = free_port()
    tls = ["--port", "0", "--tls-port", str(port), "--tls-cert-file", str(cert)]
    tls += ["--tls-key-file", str(key), "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no"]
    line = solve(Board.from_code(CODE)).moves
    with private_redis(*tls):
        url = f"rediss://127.0.0.1:{port}/0?ssl_ca_certs={cert}&ssl_cert_reqs=required"
        deadline = time.monotonic() + 10
        while True:  # the TLS port takes a moment to open
            try:
                srv = start_server(url, args=QUICK)
                break
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
        try:
            ann = await WsClient.connect(srv.ws_url, "Ann")
            await ann.send({"type": "solo", "code": CODE})
            await ann.expect("snapshot")
            for i, text in enumerate(line, 1):
                await ann.send(action_message(text, i))
                await ann.expect("ack", id=i)
            assert (await ann.expect("finished"))["moves"] == len(line)
            await ann.close()
        finally:
            srv.stop()


async def acked_or_busy(client: WsClient, action_id: int) -> bool:
    """True for the ``ack`` of an action, False for an ``error`` (busy) instead."""
    for _ in range(500):
        if client.find("ack", id=action_id) is not None:
            return True
        error = client.find("error")
        if error is not None:
            assert error["code"] == "busy", error
            return False
        await asyncio.sleep(0.01)
    raise AssertionError(f"no answer to action {action_id}")


async def test_events_during_a_redis_restart_reach_every_socket(tmp_path: Path) -> None:
    line = solve(Board.from_code(CODE)).moves
    port = free_port()
    durable = ["--port", str(port), "--appendonly", "yes", "--appendfsync", "always"]
    durable += ["--dir", str(tmp_path)]
    with private_redis(*durable):
        url = f"redis://127.0.0.1:{port}/0"
        for _ in range(100):
            with contextlib.suppress(Exception):
                redis_pid(port)
                break
            await asyncio.sleep(0.05)
        with running_server(url, args=[*QUICK, "--redis-timeout", "0.5"]) as srv:
            ann = await WsClient.connect(srv.ws_url, "Ann")
            await ann.send({"type": "solo", "code": CODE})
            room = (await ann.expect("snapshot"))["room_id"]
            eve = await WsClient.connect(srv.ws_url, "Eve")
            await eve.send({"type": "join", "room": room, "role": "spectator"})
            await eve.expect("snapshot")
            await ann.send(action_message(line[0], 1))
            first = (await eve.expect("delta"))["seq"]

            # Redis stops (writing its append-only file) and starts again on the same data.
            pid = redis_pid(port)
            os.kill(pid, signal.SIGTERM)
            await until(lambda: exited(pid), what="the old Redis exited")
            restarted = subprocess.Popen(
                [str(REDIS_SERVER), "--bind", "127.0.0.1", "--save", "", *durable],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                for i, text in enumerate(line[1:4], 2):  # at once, while the server reconnects
                    for _ in range(100):
                        await ann.send(action_message(text, i))
                        if await acked_or_busy(ann, i):
                            break
                        await asyncio.sleep(0.05)  # busy: Redis is not back yet
                # Every event reaches the spectator, the ones published before this
                # instance had subscribed again included.
                for seq in (first + 1, first + 2, first + 3):
                    await eve.expect("delta", seq=seq, timeout=5)
            finally:
                restarted.terminate()
                restarted.wait(10)
            await ann.close()
            await eve.close()
