"""The HTTP front on a real server process's port, over real sockets: what the socket
changes. A request that sends a body (however long, chunked or not) is answered, not
dropped, and the websocket still opens; the front's answers reach the wire as decided (a
HEAD's without a body byte, the frame headers), for the peer the connection has.

The front's decisions themselves (methods, HEAD, frames, rate limit, ``/metrics``, the
operator's paths, 304) are tested without a socket: ``test_http_front.py``.
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


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    with running_server(redis_url()) as srv:
        yield srv


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


def test_the_front_answers_on_the_port(server: ServerProc) -> None:
    got = request(server.port, "GET", "/")
    head = request(server.port, "HEAD", "/")
    assert got.status == head.status == 200 and got.body != b""
    assert head.body == b"" and int(head.header("content-length") or 0) == len(got.body)
    for reply in (got, head):
        assert reply.header("content-security-policy") == "frame-ancestors 'self'"
        assert reply.header("x-frame-options") == "SAMEORIGIN"
    refused = request(server.port, "PUT", "/healthz")
    assert refused.status == 405 and refused.header("allow") == "GET, HEAD"
    assert request(server.port, "POST", "/ws").header("allow") == "GET"
    # The connection's peer is the client: loopback may read /metrics.
    scraped = request(server.port, "GET", "/metrics")
    assert scraped.status == 200 and b"seahaven_connections " in scraped.body


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
