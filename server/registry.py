"""Extension points: HTTP routes and websocket message handlers, added by any module.

Another module (the daily challenge, for example) adds an HTTP route with
:func:`http_route` and a websocket message handler with :func:`ws_handler`, without
editing the server's dispatch code. Registrations are module-level; a module registers when
it is imported, and :func:`server.app.build_app` imports the modules named in
``EXTENSIONS`` (and any listed in the ``SEAHAVEN_EXTENSIONS`` environment variable).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import App
    from .session import Conn


@dataclass(slots=True)
class HttpRequest:
    """What a route handler gets: the method, the path, its match groups and the query."""

    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    headers: dict[str, str]


@dataclass(slots=True)
class HttpResponse:
    """What a route handler returns."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


HttpHandler = Callable[["App", HttpRequest], Awaitable[HttpResponse]]
#: A websocket handler gets the app, the connection and the validated pydantic message.
WsHandler = Callable[["App", "Conn", Any], Awaitable[None]]

_ROUTES: list[tuple[str, re.Pattern[str], HttpHandler]] = []
WS_HANDLERS: dict[str, WsHandler] = {}


def http_route(method: str, pattern: str) -> Callable[[HttpHandler], HttpHandler]:
    """Register an async HTTP handler for ``method`` and a path regex (fully matched).

    Named groups of the pattern arrive in ``request.params``. Example::

        @http_route("GET", r"/api/daily/(?P<date>\\d{4}-\\d{2}-\\d{2})")
        async def daily(app: App, request: HttpRequest) -> HttpResponse: ...
    """

    def register(handler: HttpHandler) -> HttpHandler:
        _ROUTES.append((method.upper(), re.compile(pattern), handler))
        return handler

    return register


def find_route(method: str, path: str) -> tuple[HttpHandler, dict[str, str]] | None:
    """The handler and path parameters of a request, or None."""
    for m, pattern, handler in _ROUTES:
        if m == method:
            found = pattern.fullmatch(path)
            if found:
                return handler, found.groupdict()
    return None


def ws_handler(kind: str) -> Callable[[WsHandler], WsHandler]:
    """Register the handler of a client message ``type`` (a later registration wins)."""

    def register(handler: WsHandler) -> WsHandler:
        WS_HANDLERS[kind] = handler
        return handler

    return register
