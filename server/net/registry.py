"""Which code answers which message: websocket handlers by message type, HTTP routes by
method and path.

A handler module collects its handlers in a :class:`Routes` (``@routes.ws("hello")``,
``@routes.get(r"/api/daily")``); :func:`server.app.build_registry` includes each such
module by name, so nothing depends on the order modules happen to be imported in, and a
second handler for the same message type (or the same route) is an error at start-up.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv6Address
from typing import Any, TypeVar

from .session import Handler


@dataclass(slots=True)
class HttpRequest:
    """What a route handler gets: the method, the path, its match groups, the query, the
    headers (names in lower case) and the client's address (the peer's, or the one a
    trusted proxy forwarded; None if unknown)."""

    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    headers: dict[str, str]
    client: IPv4Address | IPv6Address | None = None

    def query_int(self, name: str, default: int, low: int, high: int) -> int | None:
        """The query's ``name`` as a whole number from ``low`` to ``high``, ``default``
        when it is not given, or None when it is given but not such a number (the route
        answers 400, saying the bounds)."""
        text = self.query.get(name)
        if text is None:
            return default
        try:
            value = int(text)
        except ValueError:
            return None
        return value if low <= value <= high else None


@dataclass(slots=True)
class HttpResponse:
    """What a route handler returns."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


#: A route handler gets the context (typed by each handler, as a websocket handler's is)
#: and the request.
HttpHandler = Callable[[Any, HttpRequest], Awaitable[HttpResponse]]
_H = TypeVar("_H", bound=Callable[..., Awaitable[Any]])


class DuplicateHandler(RuntimeError):
    """Two handlers claim the same message type or route (a programming error)."""


@dataclass(slots=True)
class Routes:
    """The handlers one module offers, collected by its decorators."""

    ws_handlers: dict[str, Handler] = field(default_factory=dict)
    http_routes: list[tuple[str, str, HttpHandler]] = field(default_factory=list)

    def ws(self, *kinds: str) -> Callable[[_H], _H]:
        """Register the handler of one or more client message types."""

        def register(handler: _H) -> _H:
            for kind in kinds:
                if kind in self.ws_handlers:
                    raise DuplicateHandler(f"two handlers for {kind!r} in one module")
                self.ws_handlers[kind] = handler
            return handler

        return register

    def post(self, pattern: str) -> Callable[[_H], _H]:
        """Register a POST route for a path regex (fully matched; no request body)."""

        def register(handler: _H) -> _H:
            self.http_routes.append(("POST", pattern, handler))
            return handler

        return register

    def get(self, pattern: str) -> Callable[[_H], _H]:
        """Register a GET (and HEAD) route for a path regex (fully matched); its named
        groups arrive in ``request.params``."""

        def register(handler: _H) -> _H:
            self.http_routes.append(("GET", pattern, handler))
            return handler

        return register


class Registry:
    """Every websocket handler and HTTP route of the server."""

    def __init__(self) -> None:
        self.ws: dict[str, Handler] = {}
        self._routes: list[tuple[str, re.Pattern[str], HttpHandler]] = []

    def include(self, routes: Routes) -> None:
        """Add a module's handlers.

        Raises:
            DuplicateHandler: a message type or route already has a handler.
        """
        for kind, handler in routes.ws_handlers.items():
            if kind in self.ws:
                raise DuplicateHandler(f"a second handler for the message {kind!r}")
            self.ws[kind] = handler
        for method, pattern, route in routes.http_routes:
            if any(m == method and p.pattern == pattern for m, p, _ in self._routes):
                raise DuplicateHandler(f"a second route for {method} {pattern}")
            self._routes.append((method, re.compile(pattern), route))

    def guard(self, kinds: frozenset[str], wrap: Callable[[Handler], Handler]) -> None:
        """Put every handler of ``kinds`` behind ``wrap`` (a check made before it runs).

        Raises:
            KeyError: a kind has no handler (a guard would protect nothing).
        """
        for kind in sorted(kinds):
            self.ws[kind] = wrap(self.ws[kind])

    def find_route(self, method: str, path: str) -> tuple[HttpHandler, dict[str, str]] | None:
        """The handler and path parameters of a request, or None."""
        for m, pattern, handler in self._routes:
            if m == method:
                found = pattern.fullmatch(path)
                if found:
                    return handler, found.groupdict()
        return None

    def route_exists(self, path: str) -> bool:
        """Whether any method has a route for ``path``."""
        return any(p.fullmatch(path) for _, p, _ in self._routes)
