"""HTTP on the server's port: the websocket upgrade at ``/ws``, the routes, ``/healthz``,
``/metrics`` and the web client's static files."""

from __future__ import annotations

import asyncio
import http
import json
import logging
import mimetypes
from pathlib import Path
from typing import Final
from urllib.parse import parse_qsl, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from ..context import Context
from ..metrics import CONTENT_TYPE
from ..registry import HttpRequest, HttpResponse, Registry, Routes

log = logging.getLogger(__name__)

routes = Routes()

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


@routes.get("/healthz")
async def healthz(ctx: Context, request: HttpRequest) -> HttpResponse:
    """200 with ``{"ok": true, "redis": true}`` while Redis answers, else 503."""
    try:
        # A hung Redis is as good as none: the answer comes within the Redis timeout.
        redis_ok = bool(await asyncio.wait_for(ctx.redis.ping(), ctx.settings.redis_timeout))
    except Exception:
        ctx.metrics.redis_errors.inc()
        redis_ok = False
    data = {
        "ok": redis_ok,
        "redis": redis_ok,
        "instance": ctx.instance_id,
        "connections": ctx.metrics.open_connections,
        "embedded_redis": ctx.embedded,
    }
    return HttpResponse(200 if redis_ok else 503, json.dumps(data).encode())


@routes.get("/metrics")
async def metrics(ctx: Context, request: HttpRequest) -> HttpResponse:
    """The Prometheus text exposition (no Redis call: a scrape costs the same always)."""
    return HttpResponse(200, ctx.metrics.render(), CONTENT_TYPE)


class HttpFront:
    """Answers every request on the port that is not the websocket."""

    def __init__(self, ctx: Context, registry: Registry) -> None:
        self.ctx = ctx
        self.registry = registry

    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        """Websocket upgrades on ``/ws`` go through (origin allowing); the rest is HTTP."""
        parts = urlsplit(request.path)
        if parts.path == "/ws":
            if not self.origin_allowed(request.headers):
                return json_response(403, {"error": "forbidden_origin"})
            return None
        found = self.registry.find_route("GET", parts.path)
        if found is None:
            return static_file(self.ctx.settings.static_dir, parts.path)
        handler, params = found
        req = HttpRequest(
            "GET",
            parts.path,
            params,
            dict(parse_qsl(parts.query)),
            {k.lower(): v for k, v in request.headers.raw_items()},
        )
        try:
            res = await handler(self.ctx, req)
        except Exception:
            log.exception("route %s failed", parts.path)
            return json_response(500, {"error": "internal"})
        headers = Headers([("Content-Type", res.content_type), *res.headers.items()])
        headers["Content-Length"] = str(len(res.body))
        return Response(res.status, http.HTTPStatus(res.status).phrase, headers, res.body)

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


def json_response(status: int, data: object) -> Response:
    """A JSON HTTP response."""
    payload = json.dumps(data).encode()
    headers = Headers([("Content-Type", "application/json"), ("Content-Length", str(len(payload)))])
    return Response(status, http.HTTPStatus(status).phrase, headers, payload)


def static_file(static_dir: str, path: str) -> Response:
    """A file of the web client: ``/`` is ``index.html``; nothing outside the folder."""
    root = Path(static_dir).resolve()
    rel = path.lstrip("/") or "index.html"
    target = (root / rel).resolve()
    if not target.is_relative_to(root) or "\x00" in rel:
        return _plain(404, "not found")
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        return _plain(404, "not found")
    data = target.read_bytes()
    ctype = CONTENT_TYPES.get(target.suffix.lower()) or (
        mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    )
    headers = Headers(
        [("Content-Type", ctype), ("Content-Length", str(len(data))), ("Cache-Control", "no-cache")]
    )
    return Response(200, "OK", headers, data)


def _plain(status: int, text: str) -> Response:
    data = text.encode()
    headers = Headers(
        [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(data)))]
    )
    return Response(status, http.HTTPStatus(status).phrase, headers, data)
