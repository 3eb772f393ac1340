"""HTTP on the server's port: ``/healthz``, ``/metrics`` and the web client's static files."""

from __future__ import annotations

import http
import json
import mimetypes
from pathlib import Path
from typing import TYPE_CHECKING

from websockets.datastructures import Headers
from websockets.http11 import Response

from .registry import HttpRequest, HttpResponse, http_route

if TYPE_CHECKING:
    from .app import App

CONTENT_TYPES = {
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


@http_route("GET", "/healthz")
async def healthz(app: App, request: HttpRequest) -> HttpResponse:
    """200 with ``{"ok": true, "redis": true}`` while Redis answers, else 503."""
    try:
        redis_ok = bool(await app.redis.ping())
    except Exception:
        app.metrics.redis_errors += 1
        redis_ok = False
    data = {
        "ok": redis_ok,
        "redis": redis_ok,
        "instance": app.instance_id,
        "connections": app.metrics.connections,
        "embedded_redis": app.embedded is not None,
    }
    return HttpResponse(200 if redis_ok else 503, json.dumps(data).encode())


@http_route("GET", "/metrics")
async def metrics(app: App, request: HttpRequest) -> HttpResponse:
    """Prometheus text exposition."""
    rooms: int | None
    try:
        rooms = 0
        async for _ in app.redis.scan_iter(match="room:{*}", count=1000, _type="HASH"):
            rooms += 1
    except Exception:
        app.metrics.redis_errors += 1
        rooms = None
    text = app.metrics.render(rooms)
    return HttpResponse(200, text.encode(), "text/plain; version=0.0.4; charset=utf-8")


async def static_file(app: App, path: str) -> Response:
    """A file of the web client: ``/`` is ``index.html``; nothing outside the folder."""
    root = Path(app.config.static_dir).resolve()
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
