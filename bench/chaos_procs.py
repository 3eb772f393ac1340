"""The chaos benchmark's processes: a private ``redis-server`` that keeps every acknowledged
write across a restart, and the server instances a racer moves between."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import redis

from tests.helpers.serverproc import ServerProc, start_server


class RedisProc:
    """A private ``redis-server`` on 127.0.0.1 whose acknowledged writes survive a restart.

    Args:
        folder: its data folder (the append-only file) and its log.
        port: the port it listens on, the same after every restart.
    """

    def __init__(self, folder: Path, port: int) -> None:
        self.folder = folder
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        """A blocking client that decodes replies to text."""
        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True)

    def start(self, timeout: float = 30.0) -> None:
        """Start it (loading its append-only file, if any) and wait until it answers PING.

        Raises:
            RuntimeError: it exited or did not answer in time.
        """
        cmd = [
            "redis-server",
            *("--port", str(self.port), "--bind", "127.0.0.1"),
            *("--dir", str(self.folder), "--logfile", str(self.folder / "redis.log")),
            *("--appendonly", "yes", "--appendfsync", "always", "--save", ""),
            *("--daemonize", "no"),
        ]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        with self.client() as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
                with contextlib.suppress(redis.RedisError):
                    if client.ping():
                        return
                time.sleep(0.02)
        raise RuntimeError(f"redis-server did not answer within {timeout} s")

    def send(self, sig: signal.Signals) -> None:
        """Send a signal (SIGSTOP, SIGCONT, ...)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def stop(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 15.0) -> None:
        """Stop it with ``sig`` and wait for the process to end (SIGKILL after ``timeout``)."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGCONT)  # a stopped process would not act on SIGTERM
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Cluster:
    """The server instances, one per slot; a racer moves to the next slot's instance.

    Args:
        redis_url: the Redis every instance shares.
        flags: the ``seahaven serve`` flags of every instance.
    """

    def __init__(self, redis_url: str, flags: Sequence[str], slots: int = 2) -> None:
        self.redis_url = redis_url
        self.flags = list(flags)
        self.slots: list[ServerProc | None] = [None] * slots
        self.every: list[ServerProc] = []  # every process ever started, for the clean-up

    def start(self, slot: int) -> ServerProc:
        """Start an instance in ``slot`` and wait until it is healthy (blocking)."""
        srv = start_server(self.redis_url, args=self.flags)
        self.every.append(srv)
        self.slots[slot] = srv
        return srv

    def kill(self, slot: int) -> ServerProc:
        """SIGKILL the instance in ``slot`` (a crash); the slot stays empty until refilled."""
        srv = self.slots[slot]
        assert srv is not None, f"slot {slot} is empty"
        self.slots[slot] = None
        srv.kill()
        return srv

    def url(self, slot: int) -> str | None:
        """The websocket URL of the instance in ``slot``, if one runs there."""
        srv = self.slots[slot % len(self.slots)]
        return srv.ws_url if srv is not None else None

    def close(self, keep_logs: bool) -> None:
        """Stop every instance; remove their logs unless ``keep_logs``."""
        for srv in self.every:
            srv.stop()
            if keep_logs:
                print(f"kept the log of the instance on port {srv.port}: {srv.log_path}")
            else:
                srv.log_path.unlink(missing_ok=True)
