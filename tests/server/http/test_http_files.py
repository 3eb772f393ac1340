"""The server's own routes and the web client's files, through the server's front and routes
on a context over the machine's Redis (no socket): ``/healthz`` and ``/metrics`` answer,
a path out of the client's tree is a 404, and of the client's tree only the files the page
loads are served (an allow-list of its folders and extensions decides)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.http.server import HttpFront
from tests import ROOT
from tests.helpers.fakes_http import ask, body_json, on_redis, real_front
from tests.helpers.inproc import settings


@pytest.fixture
async def front(key_prefix: str) -> AsyncIterator[HttpFront]:
    """The server's front with room for many requests, on a context of the test's own."""
    given = settings(
        ["--api-rate", "1000", "--api-burst", "1000"], {"SEAHAVEN_KEY_PREFIX": key_prefix}
    )
    async with on_redis(given) as ctx:
        yield real_front(ctx)


async def status_of(front: HttpFront, path: str) -> int:
    return (await ask(front, "GET", path)).status_code


async def test_the_servers_own_routes(front: HttpFront) -> None:
    health = await ask(front, "GET", "/healthz")
    assert health.status_code == 200 and body_json(health)["redis"] is True
    metrics = await ask(front, "GET", "/metrics")
    text = metrics.body.decode()
    assert "seahaven_connections " in text and "seahaven_move_latency_seconds_bucket" in text
    for bad in ("/../pyproject.toml", "/%2e%2e/pyproject.toml", "/nope.html"):
        assert await status_of(front, bad) == 404, bad


async def test_the_static_server_serves_only_the_clients_own_files(front: HttpFront) -> None:
    """Route 6: ``/tests/measure_latency.py`` and ``/README.md`` of ``client_web/`` were
    served. An allow-list of the client's folders and extensions decides."""
    client = ROOT / "client_web"
    served = [
        "/",
        "/index.html",
        "/css/app.css",
        "/js/app.js",
        "/js/views/daily.js",
        "/i18n/en.json",
        "/rules/en.html",
        "/img/icon.svg",
    ]
    for path in served:
        assert await status_of(front, path) == 200, path
    refused = [
        "/tests/measure_latency.py",
        "/tests/apply_deltas.mjs",
        "/README.md",
        "/js/../README.md",
        "/css/app.js",  # a folder serves its own kind of file only
        "/i18n/../tests/measure_latency.py",
        "/../pyproject.toml",
        "/%2e%2e/server/settings.py",
    ]
    assert (client / "tests" / "measure_latency.py").is_file() and (client / "README.md").is_file()
    for path in refused:
        assert await status_of(front, path) == 404, path
    # Every file the page loads is served: each one the client's tree holds outside its
    # tests and README.
    for file in client.rglob("*"):
        rel = file.relative_to(client).as_posix()
        if file.is_file() and not rel.startswith("tests/") and rel != "README.md":
            assert await status_of(front, f"/{rel}") == 200, rel
