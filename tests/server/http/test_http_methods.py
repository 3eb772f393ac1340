"""Only GET and HEAD, on a real server process over real sockets: every other method gets
a 405 naming the allowed ones, with or without a body; HEAD answers as GET without the body.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from websockets.asyncio.client import connect

from tests.helpers.rawhttp import request
from tests.helpers.serverproc import ServerProc, redis_url, running_server

PATHS = ("/", "/index.html", "/healthz", "/metrics", "/api/daily", "/nope.html")


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    with running_server(redis_url()) as srv:
        yield srv


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"])
def test_other_methods_get_405_with_allow(server: ServerProc, method: str) -> None:
    for path in PATHS:
        reply = request(server.port, method, path)
        assert reply.status == 405, (method, path, reply)
        assert reply.header("allow") == "GET, HEAD"
        assert reply.header("content-type") == "application/json"
        assert reply.json()["error"] == "method_not_allowed"


def test_a_request_with_a_body_gets_405_not_a_dropped_connection(server: ServerProc) -> None:
    small = request(server.port, "POST", "/api/daily", body=b'{"a": 1}')
    chunked = request(server.port, "PUT", "/healthz", body=b"abc", chunked=True)
    large = request(server.port, "POST", "/api/daily", body=b"x" * 2_000_000)
    for reply in (small, chunked, large):
        assert reply.status == 405 and reply.header("allow") == "GET, HEAD"
        assert reply.json()["error"] == "method_not_allowed"
    # As a browser's form or a script would send it.
    req = urllib.request.Request(server.http_url + "/api/daily", data=b"a=b", method="POST")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=5)
    assert info.value.code == 405 and info.value.headers["Allow"] == "GET, HEAD"
    assert json.loads(info.value.read())["error"] == "method_not_allowed"
    info.value.close()
    assert server.health()["ok"] is True


def test_the_websocket_path_allows_get_only(server: ServerProc) -> None:
    for method in ("POST", "HEAD", "PUT"):
        reply = request(server.port, method, "/ws")
        assert reply.status == 405 and reply.header("allow") == "GET"
    assert request(server.port, "POST", "/ws", body=b"hello").status == 405


@pytest.mark.parametrize("path", ["/", "/healthz", "/metrics", "/api/daily", "/nope.html"])
def test_head_answers_as_get_without_the_body(server: ServerProc, path: str) -> None:
    got = request(server.port, "GET", path)
    head = request(server.port, "HEAD", path)
    assert head.status == got.status
    assert head.body == b""
    assert got.body != b""
    length = int(head.header("content-length") or 0)
    if path == "/metrics":
        # Its counters and CPU times move between the two requests: the same page, not
        # the same bytes.
        assert abs(length - len(got.body)) < len(got.body) // 10
    else:
        assert length == len(got.body)
    for name in ("content-type", "cache-control"):
        assert head.header(name) == got.header(name)


async def test_a_get_with_a_body_is_refused_and_the_websocket_still_opens(
    server: ServerProc,
) -> None:
    for chunked in (False, True):
        reply = request(server.port, "GET", "/api/daily", body=b"abc", chunked=chunked)
        assert reply.status == 400 and reply.json()["error"] == "bad_request"
    ws = await connect(server.ws_url)
    await ws.send(json.dumps({"type": "ping"}))
    assert json.loads(await ws.recv())["type"] == "pong"
    await ws.close()
