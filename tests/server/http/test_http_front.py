"""The HTTP front's decisions, without a socket: a request's head handed to
:meth:`HttpFront.respond` with the peer's address, as the listening server hands it, on a
:class:`~tests.helpers.fakes_http.FakeInstance` (settings and counters, no store) and a
clock the test moves.

- Only GET and HEAD (GET alone on ``/ws``): another method is a 405 naming the allowed
  ones, a request announcing a body a 400; HEAD answers as GET, without the body.
- Every answer keeps our pages out of other sites' frames.
- ``/api/`` is rate limited per client address (the one a trusted proxy forwards; an IPv6
  client by its /64); ``/metrics`` is for ``--metrics-allow`` alone.
- A route's ``ETag`` named by ``If-None-Match`` is answered 304 with the 200's validators.
- Without the admin token an operator's path answers what a path that does not exist does.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from server.http import admin
from server.http import server as http_server
from server.http.server import HttpFront
from server.net.registry import HttpRequest, HttpResponse, Registry, Routes
from tests.helpers.fakes_http import Clock, FakeInstance, ask, body_json, head
from tests.helpers.inproc import settings

TOKEN = "admin-0123456789abcdef01234567"
ETAG = '"0f1e2d3c4b5a69788796a5b4c3d2e1f0"'
IMMUTABLE = "public, max-age=31536000, immutable"
PATHS = ("/", "/index.html", "/healthz", "/metrics", "/api/daily", "/nope.html")

seen: list[HttpRequest] = []
fake = Routes()


@fake.get("/api/daily")
async def fake_daily(ctx: object, request: HttpRequest) -> HttpResponse:
    """A route that answers, never cached."""
    seen.append(request)
    return HttpResponse(200, b'{"date":"2026-03-14"}', headers={"Cache-Control": "no-cache"})


@fake.get("/healthz")
async def fake_health(ctx: object, request: HttpRequest) -> HttpResponse:
    """A health route without a store to ask (``/healthz`` itself is tested on Redis)."""
    return HttpResponse(200, b'{"ok":true}')


@fake.get(r"/api/replay/(?P<id>[a-z0-9]+)")
async def fake_replay(ctx: object, request: HttpRequest) -> HttpResponse:
    """A route whose answer never changes (as a replay's): a strong ``ETag``."""
    seen.append(request)
    headers = {"Cache-Control": IMMUTABLE, "ETag": ETAG, "Vary": "Authorization", "X-Row": "1"}
    return HttpResponse(200, b'{"id":"' + request.params["id"].encode() + b'"}', headers=headers)


@fake.get("/api/boom")
async def fake_boom(ctx: object, request: HttpRequest) -> HttpResponse:
    """A route that fails."""
    raise RuntimeError("the route broke")


def registry() -> Registry:
    """The fake routes, the real ``/metrics`` and the operator's real routes."""
    found = Registry()
    found.include(fake)
    scrape = Routes()
    scrape.get("/metrics")(http_server.metrics)
    found.include(scrape)
    found.include(admin.routes)
    return found


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make(clock: Clock) -> Iterator[Any]:
    """Fronts on fake instances of ``seahaven serve ARGS`` (closed after the test)."""
    made: list[FakeInstance] = []

    def build(args: Sequence[str] = (), env: dict[str, str] | None = None) -> HttpFront:
        instance = FakeInstance(settings(args, env))
        made.append(instance)
        return HttpFront(instance, registry(), clock)

    yield build
    for instance in made:
        instance.close()


@pytest.fixture
def front(make: Any) -> HttpFront:
    """A front with room for many requests a client."""
    built: HttpFront = make(["--api-rate", "1000", "--api-burst", "1000"])
    return built


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"])
async def test_other_methods_get_405_with_allow(front: HttpFront, method: str) -> None:
    for path in PATHS:
        for body in (None, 8, 2_000_000):
            answer = await ask(front, method, path, body=body)
            assert answer.status_code == 405, (method, path, body)
            assert answer.headers["Allow"] == "GET, HEAD"
            assert answer.headers["Content-Type"] == "application/json"
            assert body_json(answer)["error"] == "method_not_allowed"
        chunked = await ask(front, method, path, chunked=True)
        assert chunked.status_code == 405 and chunked.headers["Allow"] == "GET, HEAD"


async def test_the_websocket_path_allows_get_only(front: HttpFront) -> None:
    for method in ("POST", "HEAD", "PUT"):
        answer = await ask(front, method, "/ws")
        assert answer.status_code == 405 and answer.headers["Allow"] == "GET"
    assert (await ask(front, "POST", "/ws", body=5)).status_code == 405
    # A GET goes on to the handshake: from a script, the server's own page, or an allowed
    # site; another site's page is refused.
    assert await front.respond(head("GET", "/ws"), None) is None
    own = {"Origin": "http://127.0.0.1:8000"}
    assert await front.respond(head("GET", "/ws", own), None) is None
    other = await ask(front, "GET", "/ws", {"Origin": "https://elsewhere.example"})
    assert other.status_code == 403 and body_json(other)["error"] == "forbidden_origin"


async def test_an_allowed_origin_may_open_the_websocket(make: Any) -> None:
    listed: HttpFront = make(env={"SEAHAVEN_ALLOWED_ORIGINS": "https://friend.example"})
    friend = head("GET", "/ws", {"Origin": "https://friend.example"})
    assert await listed.respond(friend, None) is None
    stranger = await ask(listed, "GET", "/ws", {"Origin": "https://elsewhere.example"})
    assert stranger.status_code == 403


async def test_a_get_with_a_body_is_refused(front: HttpFront) -> None:
    for path in ("/api/daily", "/", "/ws"):
        for answer in (
            await ask(front, "GET", path, body=3),
            await ask(front, "GET", path, chunked=True),
        ):
            assert answer.status_code == 400, path
            assert body_json(answer)["error"] == "bad_request"
    # A length of nothing announces no body.
    assert (await ask(front, "GET", "/api/daily", body=0)).status_code == 200


@pytest.mark.parametrize("path", ["/", "/metrics", "/api/daily", "/api/replay/r1", "/nope.html"])
async def test_head_answers_as_get_without_the_body(front: HttpFront, path: str) -> None:
    got = await ask(front, "GET", path)
    also = await ask(front, "HEAD", path)
    assert also.status_code == got.status_code
    assert also.body == b"" and got.body != b""
    length = int(also.headers["Content-Length"])
    if path == "/metrics":
        # Its counters and CPU times move between the two requests: the same page, not
        # the same bytes.
        assert abs(length - len(got.body)) < len(got.body) // 10
    else:
        assert length == len(got.body)
    for name in ("Content-Type", "Cache-Control", "ETag"):
        assert also.headers.get(name) == got.headers.get(name), name


async def test_every_answer_refuses_other_sites_frames(make: Any) -> None:
    front: HttpFront = make(["--api-rate", "1", "--api-burst", "1"])
    paths = (*PATHS, "/js/app.js", "/css/app.css", "/api/replay/r1", "/api/nope", "/api/boom")
    for method in ("GET", "HEAD"):
        for path in paths:
            answer = await ask(front, method, path)
            headers = answer.headers
            assert headers["Content-Security-Policy"] == "frame-ancestors 'self'", (method, path)
            assert headers["X-Frame-Options"] == "SAMEORIGIN", (method, path)
    assert (await ask(front, "GET", "/api/daily")).status_code == 429  # a refusal says it too
    assert (await ask(front, "GET", "/api/daily")).headers["X-Frame-Options"] == "SAMEORIGIN"


async def test_the_client_files_alone_are_served(front: HttpFront) -> None:
    page = await ask(front, "GET", "/")
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert page.body == (await ask(front, "GET", "/index.html")).body
    script = await ask(front, "GET", "/js/app.js")
    assert script.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert script.headers["Cache-Control"] == "no-cache"
    missing = await ask(front, "GET", "/nope.html")
    for path in ("/README.md", "/tests/", "/../pyproject.toml", "/js/../../server/app.py"):
        answer = await ask(front, "GET", path)
        assert (answer.status_code, answer.body) == (404, missing.body), path


async def test_a_route_gets_its_params_query_headers_and_client(make: Any) -> None:
    front: HttpFront = make(["--trusted-proxy", "127.0.0.1/32"])
    seen.clear()
    headers = {"X-Forwarded-For": "203.0.113.9", "Authorization": "Bearer abc"}
    await ask(front, "GET", "/api/replay/r7?kind=hard&x=1", headers)
    [request] = seen
    assert request.params == {"id": "r7"} and request.query == {"kind": "hard", "x": "1"}
    assert request.headers["authorization"] == "Bearer abc"
    assert str(request.client) == "203.0.113.9"
    assert request.method == "GET" and request.path == "/api/replay/r7"


async def test_a_failing_route_is_a_500_and_the_front_goes_on(
    front: HttpFront, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="server.http.server"):
        answer = await ask(front, "GET", "/api/boom")
    assert answer.status_code == 500 and body_json(answer) == {"error": "internal"}
    assert "route /api/boom failed" in caplog.text
    assert (await ask(front, "GET", "/api/daily")).status_code == 200


# The rate limit: a request every 2 seconds, bursts of 3.
LIMIT = ["--api-rate", "0.5", "--api-burst", "3"]
PROXY = ["--trusted-proxy", "127.0.0.1/32"]


async def api(front: HttpFront, forwarded: str | None = None, path: str = "/api/daily") -> int:
    """The status of a GET through a proxy on this machine that forwards ``forwarded``."""
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return (await ask(front, "GET", path, headers)).status_code


async def test_beyond_the_burst_429_with_retry_after(make: Any, clock: Clock) -> None:
    front: HttpFront = make([*LIMIT, *PROXY])
    client = "203.0.113.10"
    assert [await api(front, client) for _ in range(3)] == [200, 200, 200]
    refused = await ask(front, "GET", "/api/daily", {"X-Forwarded-For": client})
    assert refused.status_code == 429
    assert body_json(refused)["error"] == "rate_limited"
    assert refused.headers["Retry-After"] == "2"
    # Every /api/ path counts, known or not; other paths are not limited.
    assert await api(front, client, "/api/daily/2026-03-14/leaderboard") == 429
    assert await api(front, client, "/api/nope") == 429
    for path in ("/healthz", "/", "/index.html"):
        assert await api(front, client, path) == 200
    # Another client is not held back by this one.
    assert await api(front, "203.0.113.11") == 200
    # The bucket refills at the rate: after Retry-After, one more request goes through.
    clock.advance(1.9)
    assert await api(front, client) == 429
    clock.advance(0.2)
    assert await api(front, client) == 200
    assert await api(front, client) == 429


async def test_retry_after_is_the_whole_seconds_to_wait(make: Any, clock: Clock) -> None:
    front: HttpFront = make(["--api-rate", "0.25", "--api-burst", "1", *PROXY])
    client = {"X-Forwarded-For": "203.0.113.12"}
    await ask(front, "GET", "/api/daily", client)
    assert (await ask(front, "GET", "/api/daily", client)).headers["Retry-After"] == "4"
    clock.advance(2.75)  # 1.25 s left: said as 2
    assert (await ask(front, "GET", "/api/daily", client)).headers["Retry-After"] == "2"


async def test_head_requests_count_too(make: Any) -> None:
    front: HttpFront = make([*LIMIT, *PROXY])
    client = {"X-Forwarded-For": "203.0.113.20"}
    answers = [await ask(front, "HEAD", "/api/daily", client) for _ in "abcd"]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[-1].headers["Retry-After"] == "2" and answers[-1].body == b""


async def test_what_a_client_writes_before_its_proxy_is_not_believed(make: Any) -> None:
    front: HttpFront = make([*LIMIT, *PROXY])
    client = "203.0.113.30"
    for _ in range(3):
        assert await api(front, client) == 200
    # The proxy appends the address it saw; what the client put before it is ignored, and
    # so are trusted proxies (loopback) after it.
    for forwarded in (f"198.51.100.7, {client}", f"198.51.100.8,{client}, 127.0.0.1"):
        assert await api(front, forwarded) == 429, forwarded
    assert await api(front, "198.51.100.7") == 200


async def test_an_ipv6_client_is_counted_by_its_64(make: Any) -> None:
    front: HttpFront = make([*LIMIT, *PROXY])
    for i in range(3):
        assert await api(front, f"2001:db8:1:2::{i + 1:x}") == 200
    assert await api(front, "2001:db8:1:2:ffff::9") == 429
    assert await api(front, "2001:db8:1:3::1") == 200


async def test_forwarded_addresses_are_ignored_from_an_untrusted_peer(make: Any) -> None:
    front: HttpFront = make([*LIMIT, "--trusted-proxy", "10.0.0.0/8"])
    assert [await api(front, f"203.0.113.{40 + i}") for i in range(4)] == [200, 200, 200, 429]
    assert await api(front) == 429


async def test_no_proxy_is_trusted_by_default(make: Any) -> None:
    """A process on the server's own machine is no proxy unless configured: its
    ``X-Forwarded-For`` cannot give it a fresh bucket (a forged header buys no requests)."""
    front: HttpFront = make(LIMIT)
    assert [await api(front, f"203.0.113.{60 + i}") for i in range(4)] == [200, 200, 200, 429]
    assert await api(front, "198.51.100.99") == 429


async def metrics(front: HttpFront, forwarded: str | None = None, method: str = "GET") -> Any:
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return await ask(front, method, "/metrics", headers)


async def test_metrics_are_for_loopback_only_by_default(make: Any) -> None:
    front: HttpFront = make(PROXY)
    local = await metrics(front)
    assert local.status_code == 200 and b"seahaven_connections " in local.body
    # A remote client through a proxy on this machine (loopback trusted as a proxy).
    for remote in ("203.0.113.5", "2001:db8::5", "10.1.2.3"):
        refused = await metrics(front, remote)
        assert refused.status_code == 403, remote
        assert body_json(refused)["error"] == "forbidden"
        assert b"seahaven" not in refused.body
    also = await metrics(front, "203.0.113.5", "HEAD")
    assert also.status_code == 403 and also.body == b""
    # Without a proxy, the peer itself is the client.
    assert (await ask(front, "GET", "/metrics", peer="203.0.113.5")).status_code == 403
    assert (await ask(front, "GET", "/metrics", peer="::1")).status_code == 200
    assert (await ask(front, "GET", "/metrics", peer=None)).status_code == 403


async def test_metrics_opened_to_a_network_and_to_everyone(make: Any) -> None:
    network: HttpFront = make(["--metrics-allow", "203.0.113.0/24", *PROXY])
    assert (await metrics(network, "203.0.113.5")).status_code == 200
    assert (await metrics(network, "198.51.100.5")).status_code == 403
    assert (await metrics(network)).status_code == 403  # the flag replaces the default
    everyone: HttpFront = make(PROXY, {"SEAHAVEN_METRICS_ALLOW": "0.0.0.0/0,::/0"})
    for client in (None, "198.51.100.5", "2001:db8::5"):
        assert (await metrics(everyone, client)).status_code == 200


async def test_a_tagged_answer_named_by_if_none_match_is_a_304(front: HttpFront) -> None:
    first = await ask(front, "GET", "/api/replay/r1")
    assert first.status_code == 200 and first.headers["ETag"] == ETAG
    for condition in (ETAG, f"W/{ETAG}", f'"x", {ETAG}', f' "x" ,W/{ETAG} ', "*"):
        for method in ("GET", "HEAD"):
            answer = await ask(front, method, "/api/replay/r1", {"If-None-Match": condition})
            assert answer.status_code == 304, condition
            assert answer.body == b""
            # The 200's validator and caching headers, and nothing else of it.
            assert answer.headers["ETag"] == ETAG
            assert answer.headers["Cache-Control"] == IMMUTABLE
            assert answer.headers["Vary"] == "Authorization"
            for gone in ("Content-Length", "Content-Type", "X-Row"):
                assert gone not in answer.headers, (condition, gone)
    for condition in ('"nope"', f'W/{ETAG[:-2]}"', ""):
        answer = await ask(front, "GET", "/api/replay/r1", {"If-None-Match": condition})
        assert answer.status_code == 200 and answer.body == first.body, condition
    # What carries no tag is never answered 304.
    untagged = await ask(front, "GET", "/api/daily", {"If-None-Match": "*"})
    assert untagged.status_code == 200 and "ETag" not in untagged.headers


def test_if_none_match_compares_weakly() -> None:
    assert http_server.etag_matches('W/"a"', '"a"')
    assert http_server.etag_matches('"a"', 'W/"a"')
    assert http_server.etag_matches('"b", "a"', '"a"')
    assert not http_server.etag_matches('"ab"', '"a"')
    assert not http_server.etag_matches(None, '"a"')


async def raw(front: HttpFront, method: str, path: str, token: str | None = None) -> bytes:
    """The whole answer to one request, as it would be sent."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return (await ask(front, method, path, headers)).serialize()


ADMIN = (
    ("GET", "/api/admin/held"),
    ("GET", "/api/admin/held?limit=2&offset=1"),
    ("GET", "/api/admin/log?limit=5"),
    ("GET", "/api/admin/identities/127.0.0.1"),
    ("GET", "/api/admin/suspects"),
    ("GET", "/api/admin/marks/R1-1-abc"),
    ("GET", "/api/admin/nothing"),
    ("POST", "/api/admin/clear/R1-1-abc"),
    ("POST", "/api/admin/void/R1-1-abc"),
    ("POST", "/api/admin/bar/someone"),
    ("POST", "/api/admin/unbar/someone"),
    ("POST", "/api/admin/unflag/someone"),
    ("POST", "/api/admin/held"),
    ("POST", "/api/admin/nothing"),
    ("PUT", "/api/admin/held"),
    ("DELETE", "/api/admin/clear/R1-1-abc"),
    ("PATCH", "/api/admin/held"),
    ("OPTIONS", "/api/admin/log"),
    ("TRACE", "/api/admin/"),
    ("HEAD", "/api/admin/held"),
)


async def test_without_the_token_an_admin_path_is_a_path_that_does_not_exist(make: Any) -> None:
    many = ["--api-rate", "1000", "--api-burst", "1000"]
    on: HttpFront = make([*many, "--admin-token", TOKEN])
    off: HttpFront = make(many)
    for front in (on, off):
        missing = await raw(front, "GET", "/api/no-such-path")
        assert missing.startswith(b"HTTP/1.1 404 ")
        assert await raw(front, "GET", "/no/such/file.html") == missing
        for token in (None, "x" * 24, TOKEN + "x", TOKEN[:-1]):
            for method, path in ADMIN:
                # Whatever the method, as the same method on a path that does not exist.
                absent = await raw(front, method, "/api/no-such-path")
                assert await raw(front, method, path, token) == absent, (method, path, token)
    # The token on a server without admin opens nothing either.
    for method, path in ADMIN:
        absent = await raw(off, method, "/api/no-such-path")
        assert await raw(off, method, path, TOKEN) == absent, (method, path)


async def test_the_token_opens_the_operators_methods_and_routes(make: Any) -> None:
    on: HttpFront = make(["--admin-token", TOKEN])
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    put = await ask(on, "PUT", "/api/admin/held", bearer)
    assert put.status_code == 405 and put.headers["Allow"] == "GET, HEAD, POST"
    nothing = await ask(on, "POST", "/api/admin/nothing", bearer)
    assert nothing.status_code == 404 and body_json(nothing) == {"error": "not_found"}
    # Twice is not once: a request that carries two Authorization lines is nobody's.
    twice = head("PUT", "/api/admin/held")
    twice.headers["Authorization"] = f"Bearer {TOKEN}"
    twice.headers["Authorization"] = f"Bearer {TOKEN}"
    refused = await on.respond(twice, None)
    assert refused is not None and refused.headers["Allow"] == "GET, HEAD"
    # Bad queries are refused by the route itself, before any store is read.
    for path, error in (
        ("/api/admin/held?limit=0", "bad_limit"),
        ("/api/admin/held?limit=501", "bad_limit"),
        ("/api/admin/held?limit=x", "bad_limit"),
        ("/api/admin/held?offset=-1", "bad_offset"),
        ("/api/admin/held?offset=y", "bad_offset"),
        ("/api/admin/log?limit=1001", "bad_limit"),
        ("/api/admin/suspects?limit=0", "bad_limit"),
        ("/api/admin/suspects?after=a%20b", "bad_after"),
        ("/api/admin/identities/::::::::1", "bad_address"),
    ):
        answer = await ask(on, "GET", path, bearer)
        assert answer.status_code == 400 and body_json(answer)["error"] == error, path
        assert answer.headers["Cache-Control"] == "no-store"
