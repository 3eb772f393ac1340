"""The ``/api/`` rate limit per client address, on real server processes over real sockets.

The test server allows a request every 2 seconds, with bursts of 3. Tests come from 127.0.0.1, which
the test server trusts as a proxy (no proxy is trusted by default), so each test names its
own client in ``X-Forwarded-For`` (documentation addresses, RFC 5737 and RFC 3849) and has
buckets of its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.helpers.rawhttp import Reply, request
from tests.helpers.serverproc import ServerProc, redis_url, running_server

LIMIT = ["--api-rate", "0.5", "--api-burst", "3"]


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    env = {
        "SEAHAVEN_API_RATE_PER_S": "0.5",
        "SEAHAVEN_API_BURST": "3",
        "SEAHAVEN_TRUSTED_PROXIES": "127.0.0.1/32",
    }
    with running_server(redis_url(), env=env) as srv:
        yield srv


def api(srv: ServerProc, forwarded: str | None = None, path: str = "/api/daily") -> Reply:
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return request(srv.port, "GET", path, headers)


def test_beyond_the_burst_429_with_retry_after(server: ServerProc) -> None:
    client = "203.0.113.10"
    assert [api(server, client).status for _ in range(3)] == [200, 200, 200]
    refused = api(server, client)
    assert refused.status == 429
    assert refused.json()["error"] == "rate_limited"
    assert refused.header("retry-after") == "2"
    # Every /api/ path counts, known or not; other paths are not limited.
    assert api(server, client, "/api/daily/2026-03-14/leaderboard").status == 429
    assert api(server, client, "/api/nope").status == 429
    for path in ("/healthz", "/", "/index.html"):
        assert api(server, client, path).status == 200
    # Another client is not held back by this one.
    assert api(server, "203.0.113.11").status == 200
    # The bucket refills at the rate: after Retry-After, one more request goes through.
    time.sleep(2.1)
    assert api(server, client).status == 200
    assert api(server, client).status == 429


def test_head_requests_count_too(server: ServerProc) -> None:
    client = "203.0.113.20"
    head = [request(server.port, "HEAD", "/api/daily", {"X-Forwarded-For": client}) for _ in "abcd"]
    assert [r.status for r in head] == [200, 200, 200, 429]
    assert head[-1].header("retry-after") == "2" and head[-1].body == b""


def test_what_a_client_writes_before_its_proxy_is_not_believed(server: ServerProc) -> None:
    client = "203.0.113.30"
    for _ in range(3):
        assert api(server, client).status == 200
    # The proxy appends the address it saw; what the client put before it is ignored, and
    # so are trusted proxies (loopback) after it.
    for forwarded in (f"198.51.100.7, {client}", f"198.51.100.8,{client}, 127.0.0.1"):
        assert api(server, forwarded).status == 429, forwarded
    assert api(server, "198.51.100.7").status == 200


def test_an_ipv6_client_is_counted_by_its_64(server: ServerProc) -> None:
    for i in range(3):
        assert api(server, f"2001:db8:1:2::{i + 1:x}").status == 200
    assert api(server, "2001:db8:1:2:ffff::9").status == 429
    assert api(server, "2001:db8:1:3::1").status == 200


def test_forwarded_addresses_are_ignored_from_an_untrusted_peer() -> None:
    with running_server(redis_url(), args=[*LIMIT, "--trusted-proxy", "10.0.0.0/8"]) as srv:
        statuses = [api(srv, f"203.0.113.{40 + i}").status for i in range(4)]
        assert statuses == [200, 200, 200, 429]
        assert api(srv).status == 429


def test_no_proxy_is_trusted_by_default() -> None:
    """A process on the server's own machine is no proxy unless configured: its
    ``X-Forwarded-For`` cannot give it a fresh bucket (a forged header buys no requests)."""
    with running_server(redis_url(), args=LIMIT) as srv:
        statuses = [api(srv, f"203.0.113.{60 + i}").status for i in range(4)]
        assert statuses == [200, 200, 200, 429]
        assert api(srv, "198.51.100.99").status == 429
