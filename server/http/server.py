"""HTTP on the server's port: the websocket upgrade at ``/ws``, the routes, ``/healthz``,
``/metrics`` and the web client's static files; GET and HEAD only, ``/api/`` rate limited
per client address, ``/metrics`` for the allowed networks only."""

from __future__ import annotations

import http
import json
import logging
import math
import mimetypes
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, Protocol
from urllib.parse import parse_qsl, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from .. import health
from ..metrics import CONTENT_TYPE, Metrics
from ..net.limits import Address, TokenBuckets, bucket_key, client_address, peer_of, within
from ..net.registry import HttpRequest, HttpResponse, Registry, Routes
from ..settings import Settings
from . import admin
from .connection import has_body

log = logging.getLogger(__name__)

routes = Routes()

#: The methods of HTTP routes and files (HEAD answers as GET, without the body).
METHODS: Final = ("GET", "HEAD")

#: The method of the websocket's opening handshake.
WS_METHODS: Final = ("GET",)

#: The operator's routes (``server/http/admin.py``) also take POST, without a body.
ADMIN_PREFIX: Final = "/api/admin/"
ADMIN_METHODS: Final = ("GET", "HEAD", "POST")

#: The headers of a 200 that its 304 repeats (RFC 9110, section 15.4.5).
NOT_MODIFIED_KEEPS: Final = frozenset({"cache-control", "etag", "expires", "vary"})

CONTENT_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".woff2": "font/woff2",
}


#: What the static server serves: the client's own files, by folder and extension. Anything
#: else under the client's folder (its tests, its README, a stray file) answers 404, as does
#: anything outside it: a folder holds only what the page loads.
STATIC_ALLOWED: Final[dict[str, frozenset[str]]] = {
    "": frozenset({".html"}),  # index.html
    "css": frozenset({".css"}),
    "i18n": frozenset({".json"}),
    "img": frozenset({".svg", ".png", ".ico"}),
    "js": frozenset({".js", ".mjs"}),
    "rules": frozenset({".html"}),
}


#: The headers that keep every page and file of ours out of another site's frames.
FRAMING: Final = {
    "Content-Security-Policy": "frame-ancestors 'self'",
    "X-Frame-Options": "SAMEORIGIN",
}


class Front(Protocol):
    """What the HTTP front needs of the instance that serves it: its settings (the API's
    rate, the trusted proxies, the admin token, the allowed origins, the client's folder).
    The full context (:class:`server.context.Context`) has this and more; the front hands
    it on to the routes without knowing the rest, as the socket layer does
    (:class:`server.net.session.Instance`), so its decisions are tested with a fake."""

    settings: Settings


class Scraped(Protocol):
    """What ``/metrics`` reads: who may scrape (the settings) and the counters."""

    settings: Settings
    metrics: Metrics


def allowed_static(rel: Path) -> bool:
    """Whether a path under the client's folder (relative) is one of the client's files:
    its first folder is one of :data:`STATIC_ALLOWED` (``js`` also holds ``js/views``) and
    its extension one that folder serves; nothing hidden."""
    parts = rel.parts
    if not parts or any(part.startswith(".") for part in parts):
        return False
    folder = parts[0] if len(parts) > 1 else ""
    if len(parts) > 2 and folder != "js":
        return False
    return rel.suffix.lower() in STATIC_ALLOWED.get(folder, frozenset())


@routes.get("/healthz")
async def healthz(ctx: health.Probed, request: HttpRequest) -> HttpResponse:
    """200 with ``{"ok": true, ...}`` while the store answers, takes writes and has room;
    else 503 saying why (``reason``: :func:`server.health.check`)."""
    healthy, report = await health.check(ctx)
    data = {
        "ok": healthy,
        **report,
        "instance": ctx.instance_id,
        "connections": ctx.metrics.open_connections,
        "embedded_redis": ctx.embedded,
    }
    return HttpResponse(200 if healthy else 503, json.dumps(data).encode())


@routes.get("/metrics")
async def metrics(ctx: Scraped, request: HttpRequest) -> HttpResponse:
    """The Prometheus text exposition (no Redis call: a scrape costs the same always), for
    clients in ``metrics_allow`` only; others get 403."""
    if not within(request.client, ctx.settings.metrics_allow):
        body = {"error": "forbidden", "message": "/metrics is not open to this address"}
        return HttpResponse(403, json.dumps(body).encode())
    return HttpResponse(200, ctx.metrics.render(), CONTENT_TYPE)


class HttpFront:
    """Answers every request on the port that is not the websocket.

    Only GET and HEAD are answered (HEAD as GET, without the body); the websocket opens
    with GET alone. Requests under ``/api/`` are rate limited per client address.

    Every decision is :meth:`respond`'s, from the request and the peer's address: the
    socket (:meth:`process_request`) only tells it who the peer is.
    """

    def __init__(
        self, ctx: Front, registry: Registry, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """The front of ``ctx``'s routes in ``registry``; ``clock`` (seconds, monotonic)
        paces the API's rate limit (a test moves its own)."""
        self.ctx = ctx
        self.registry = registry
        settings = ctx.settings
        self.api_buckets = TokenBuckets(settings.api_rate_per_s, settings.api_burst, clock=clock)

    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        """The answer to a request on a connection (:meth:`respond`, from its peer)."""
        return await self.respond(request, peer_of(connection.remote_address))

    async def respond(self, request: Request, peer: Address | None) -> Response | None:
        """Websocket upgrades on ``/ws`` go through (None: origin allowing); the rest is
        HTTP, answered here.

        Another method than GET or HEAD (GET alone on ``/ws``) is a 405, a request with a
        body a 400, whatever the path; a HEAD is answered as a GET, without the body.

        Args:
            request: the request's head, as parsed.
            peer: the address of the connection's other end (a trusted proxy's, maybe).
        """
        parts = urlsplit(request.path)
        websocket = parts.path == "/ws"
        # Without the admin token an operator's path is one that does not exist, whatever
        # the method: it allows what any path allows (another method: the same 405), and a
        # GET is answered by :meth:`answer` with the static 404 (rate limited first).
        operator = parts.path.startswith(ADMIN_PREFIX) and self.operator(request.headers)
        allowed = WS_METHODS if websocket else ADMIN_METHODS if operator else METHODS
        if request.method not in allowed:
            return method_not_allowed(allowed)
        if has_body(request.headers):
            return json_response(
                400, {"error": "bad_request", "message": "a request here has no body"}
            )
        if websocket:
            if not self.origin_allowed(request.headers):
                return json_response(403, {"error": "forbidden_origin"})
            return None
        client = client_address(
            peer,
            request.headers.get_all("X-Forwarded-For"),
            self.ctx.settings.trusted_proxies,
        )
        response = await self.answer(request, parts.path, parts.query, client)
        # No page of ours inside another site's frame (a page that frames ours could have the
        # player click or sign in there): every answer says so, old browsers' way too.
        for name, value in FRAMING.items():
            response.headers[name] = value
        if request.method == "HEAD":
            return Response(response.status_code, response.reason_phrase, response.headers, b"")
        return response

    async def answer(
        self, request: Request, path: str, query: str, client: Address | None
    ) -> Response:
        """The response to a GET of ``path`` (rate limited under ``/api/``).

        Args:
            request: the request (its headers: ``If-None-Match``, for the route).
            path: the path, without the query.
            query: the query string.
            client: the client's address (see :func:`.limits.client_address`).

        Returns:
            A 429 past the client's rate limit; else the route's answer (a 304 if it has an
            ``ETag`` that ``If-None-Match`` names), or the static file.
        """
        if path.startswith("/api/"):
            wait = self.api_buckets.take(bucket_key(client))
            if wait > 0:
                return rate_limited(wait)
        if path.startswith(ADMIN_PREFIX) and not self.operator(request.headers):
            return not_found()  # no operator's path exists for anyone else, whatever it is
        method = "POST" if request.method == "POST" else "GET"
        found = self.registry.find_route(method, path)
        if found is None:
            if method == "POST":
                return json_response(404, {"error": "not_found"})
            return static_file(self.ctx.settings.static_dir, path)
        handler, params = found
        req = HttpRequest(
            request.method,
            path,
            params,
            dict(parse_qsl(query)),
            {k.lower(): v for k, v in request.headers.raw_items()},
            client,
        )
        try:
            res = await handler(self.ctx, req)
        except Exception:
            log.exception("route %s failed", path)
            return json_response(500, {"error": "internal"})
        headers = Headers([("Content-Type", res.content_type), *res.headers.items()])
        etag = headers.get("ETag")
        if (
            res.status == 200
            and etag is not None
            and etag_matches(request.headers.get("If-None-Match"), etag)
        ):
            return not_modified(headers)
        headers["Content-Length"] = str(len(res.body))
        return Response(res.status, http.HTTPStatus(res.status).phrase, headers, res.body)

    def operator(self, headers: Headers) -> bool:
        """Whether a request carries the admin token (and the server has one), once."""
        given = headers.get_all("Authorization")
        return len(given) == 1 and admin.token_ok(self.ctx.settings, given[0])

    def origin_allowed(self, headers: Headers) -> bool:
        """No Origin (not a browser), the server's own host, or one on the allow-list."""
        origin = headers.get("Origin")
        if origin is None:
            return True
        allowed = self.ctx.settings.allowed_origins
        if origin in allowed or "*" in allowed:
            return True
        host = headers.get("Host", "")
        return urlsplit(origin).netloc == host


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` names ``etag`` (weak comparison, as RFC 9110 asks)."""
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True

    def opaque(tag: str) -> str:
        tag = tag.strip()
        return tag[2:] if tag.startswith("W/") else tag

    return any(opaque(tag) == opaque(etag) for tag in if_none_match.split(","))


def not_modified(headers: Headers) -> Response:
    """A 304: the validator and caching headers of the 200 it stands for, no body."""
    kept = Headers([(k, v) for k, v in headers.raw_items() if k.lower() in NOT_MODIFIED_KEEPS])
    return Response(304, "Not Modified", kept, b"")


def method_not_allowed(allowed: tuple[str, ...]) -> Response:
    """A 405 naming the methods allowed."""
    names = ", ".join(allowed)
    response = json_response(
        405, {"error": "method_not_allowed", "message": f"the methods allowed here: {names}"}
    )
    response.headers["Allow"] = names
    return response


def rate_limited(wait: float) -> Response:
    """A 429 with ``Retry-After``: the whole seconds until the next request is allowed."""
    seconds = max(1, math.ceil(wait))
    response = json_response(
        429, {"error": "rate_limited", "message": f"too many requests; retry in {seconds} s"}
    )
    response.headers["Retry-After"] = str(seconds)
    return response


def json_response(status: int, data: object) -> Response:
    """A JSON HTTP response."""
    payload = json.dumps(data).encode()
    headers = Headers([("Content-Type", "application/json"), ("Content-Length", str(len(payload)))])
    return Response(status, http.HTTPStatus(status).phrase, headers, payload)


def static_file(static_dir: str, path: str) -> Response:
    """A file of the web client: ``/`` is ``index.html``; only the client's own files
    (:func:`allowed_static`), nothing outside the folder."""
    root = Path(static_dir).resolve()
    rel = path.lstrip("/") or "index.html"
    target = (root / rel).resolve()
    if not target.is_relative_to(root) or "\x00" in rel:
        return not_found()
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file() or not allowed_static(target.relative_to(root)):
        return not_found()
    data = target.read_bytes()
    ctype = CONTENT_TYPES.get(target.suffix.lower()) or (
        mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    )
    headers = Headers(
        [("Content-Type", ctype), ("Content-Length", str(len(data))), ("Cache-Control", "no-cache")]
    )
    return Response(200, "OK", headers, data)


def not_found() -> Response:
    """The 404 of a path that does not exist (the operator's paths, to anyone without the
    token, answer exactly this too)."""
    return _plain(404, "not found")


def _plain(status: int, text: str) -> Response:
    data = text.encode()
    headers = Headers(
        [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(data)))]
    )
    return Response(status, http.HTTPStatus(status).phrase, headers, data)
