"""The operator's HTTP routes and token on real servers and the machine's Redis.

- The admin token is a secret: never in a repr, a dump, the log or /metrics, compared in
  constant time.
- Without the token (missing, wrong, or no admin at all on the server) every admin path
  answers exactly what a path that does not exist answers, byte for byte.
- The held list is paged: ``limit`` (default 50, at most 500) and ``offset``, with the
  total, over HTTP and on the command line.
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import urllib.request
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from pydantic import SecretStr, ValidationError

from server.fairplay.holds import Holds
from server.http import admin
from server.settings import Settings
from server.store.keys import Keys
from tests.helpers.cli import run_seahaven
from tests.helpers.serverproc import FAST, ServerProc, redis_url, running_server

TOKEN = "admin-" + secrets.token_hex(12)


def test_the_admin_token_is_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(admin_token=SecretStr(TOKEN))
    assert isinstance(settings.admin_token, SecretStr)
    assert settings.admin_token.get_secret_value() == TOKEN
    for shown in (
        repr(settings),
        str(settings),
        settings.model_dump_json(),
        str(settings.model_dump()),
    ):
        assert TOKEN not in shown
    with pytest.raises(ValidationError) as refused:
        Settings(admin_token=SecretStr("short-" + "s3cr"))  # under 16: refused, without saying it
    assert "s3cr" not in str(refused.value)
    monkeypatch.setenv("SEAHAVEN_ADMIN_TOKEN", "short-s3cr")  # as a deployment gives it
    with pytest.raises(ValidationError) as refused:
        Settings()
    assert "s3cr" not in str(refused.value) and "admin_token" in str(refused.value)
    monkeypatch.setenv("SEAHAVEN_ADMIN_TOKEN", TOKEN)
    assert Settings().admin_token == SecretStr(TOKEN)
    monkeypatch.setenv("SEAHAVEN_ADMIN_TOKEN", "")  # empty: no admin
    assert Settings().admin_token is None


def test_the_token_is_compared_in_constant_time_and_refused_when_wrong() -> None:
    on = Settings(admin_token=SecretStr(TOKEN))
    assert admin.token_ok(on, f"Bearer {TOKEN}")
    assert admin.token_ok(on, f"bearer  {TOKEN} ")
    for given in (
        "",
        TOKEN,
        f"Bearer {TOKEN}x",
        f"Bearer {TOKEN[:-1]}",
        f"Basic {TOKEN}",
        "Bearer é" + TOKEN,
    ):
        assert not admin.token_ok(on, given), given
    assert not admin.token_ok(Settings(), f"Bearer {TOKEN}")


def raw(srv: ServerProc, method: str, path: str, token: str | None = None) -> bytes:
    """The whole response to one request, as sent, without its ``Date`` header."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{srv.port}", "Connection: close"]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return re.sub(rb"(?im)^date: [^\r\n]*\r\n", b"", data)


@pytest.fixture
def servers(key_prefix: str) -> Iterator[tuple[ServerProc, ServerProc]]:
    """A server with an admin token and one without, on one Redis."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*FAST, "--api-rate", "1000", "--api-burst", "1000"]  # many requests here
    with (
        running_server(redis_url(), args=[*args, "--admin-token", TOKEN], env=env) as on,
        running_server(redis_url(), args=args, env=env) as off,
    ):
        yield on, off


def test_without_the_token_an_admin_path_is_a_path_that_does_not_exist(
    servers: tuple[ServerProc, ServerProc],
) -> None:
    on, off = servers
    for srv in (on, off):
        missing = raw(srv, "GET", "/api/no-such-path")
        assert missing.startswith(b"HTTP/1.1 404 ")
        assert raw(srv, "GET", "/no/such/file.html") == missing
        for token in (None, "x" * 24, TOKEN + "x", TOKEN[:-1]):
            for method, path in (
                ("GET", "/api/admin/held"),
                ("GET", "/api/admin/held?limit=2&offset=1"),
                ("GET", "/api/admin/log?limit=5"),
                ("GET", "/api/admin/identities/127.0.0.1"),
                ("GET", "/api/admin/nothing"),
                ("POST", "/api/admin/clear/R1-1-abc"),
                ("POST", "/api/admin/void/R1-1-abc"),
                ("POST", "/api/admin/bar/someone"),
                ("POST", "/api/admin/unbar/someone"),
                ("POST", "/api/admin/held"),
                ("POST", "/api/admin/nothing"),
                ("PUT", "/api/admin/held"),
                ("DELETE", "/api/admin/clear/R1-1-abc"),
                ("PATCH", "/api/admin/held"),
                ("OPTIONS", "/api/admin/log"),
                ("TRACE", "/api/admin/"),
            ):
                # Whatever the method, as the same method on a path that does not exist.
                absent = raw(srv, method, "/api/no-such-path")
                got = raw(srv, method, path, token)
                assert got == absent, (srv.port, method, path, token)
            head = raw(srv, "HEAD", "/api/admin/held", token)
            assert head == raw(srv, "HEAD", "/api/no-such-path")
    # The token on a server without admin opens nothing either.
    assert raw(off, "GET", "/api/admin/held", TOKEN) == raw(off, "GET", "/api/no-such-path")
    assert raw(off, "POST", "/api/admin/clear/X", TOKEN) == raw(off, "POST", "/api/no-such-path")
    # With the token, the routes answer.
    assert raw(on, "GET", "/api/admin/held", TOKEN).startswith(b"HTTP/1.1 200 ")
    # The token is in no log and no /metrics.
    with urllib.request.urlopen(on.http_url + "/metrics", timeout=5) as res:
        assert TOKEN not in res.read().decode()
    assert TOKEN not in on.log()


@pytest.fixture
async def holds(key_prefix: str) -> AsyncIterator[Holds]:
    redis = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    keys = Keys(key_prefix)
    yield Holds.on(redis, keys, 3600)
    await redis.aclose()


def held_get(srv: ServerProc, query: str) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(srv.http_url + "/api/admin/held" + query)
    request.add_header("Authorization", f"Bearer {TOKEN}")
    try:
        with urllib.request.urlopen(request, timeout=5) as res:
            return res.status, json.load(res)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def test_the_held_list_is_paged_with_its_total(
    servers: tuple[ServerProc, ServerProc], holds: Holds, key_prefix: str
) -> None:
    on, _off = servers
    ids = [f"ROOM{i}-1-p{i}" for i in range(7)]
    for i, rid in enumerate(ids):
        await holds.reviews.hold(
            {
                "result": rid,
                "kind": "race",
                "player_id": f"p{i}",
                "score": {"held": True},
                "room": f"ROOM{i}",
                "round": 1,
            }
        )
    page = await holds.held_page(0, 3)
    assert page["total"] == 7 and [h["result"] for h in page["held"]] == ids[:3]
    assert page["next_offset"] == 3

    status, body = held_get(on, "")
    assert status == 200 and body["total"] == 7 and body["limit"] == 50
    assert [h["result"] for h in body["held"]] == ids
    assert body["offset"] == 0 and body["next_offset"] is None
    status, body = held_get(on, "?limit=3&offset=3")
    assert [h["result"] for h in body["held"]] == ids[3:6]
    assert (body["total"], body["next_offset"]) == (7, 6)
    status, body = held_get(on, "?limit=3&offset=6")
    assert [h["result"] for h in body["held"]] == ids[6:]
    assert body["next_offset"] is None
    status, body = held_get(on, "?offset=70")
    assert (status, body["held"], body["total"]) == (200, [], 7)
    for bad in ("?limit=0", "?limit=501", "?limit=x", "?offset=-1", "?offset=y"):
        status, body = held_get(on, bad)
        assert status == 400 and body["error"] in ("bad_limit", "bad_offset"), bad
    status, body = held_get(on, "?limit=500")
    assert status == 200 and body["total"] == 7

    # A decided finish leaves the list and its count.
    await holds.clear(ids[0], "tester")
    status, body = held_get(on, "?limit=2")
    assert body["total"] == 6 and [h["result"] for h in body["held"]] == ids[1:3]

    out = run_seahaven(
        "admin",
        "held",
        "--limit",
        "2",
        "--offset",
        "4",
        "--json",
        "--redis-url",
        redis_url(),
        "--key-prefix",
        key_prefix,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    listed = json.loads(out.stdout)
    assert [h["result"] for h in listed["held"]] == ids[5:7]
    assert (listed["total"], listed["offset"], listed["next_offset"]) == (6, 4, None)
    out = run_seahaven(
        "admin", "held", "--limit", "2", "--redis-url", redis_url(), "--key-prefix", key_prefix
    )
    assert out.returncode == 0 and "1-2 of 6" in out.stdout and "--offset 2" in out.stdout
