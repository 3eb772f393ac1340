"""The daily challenge played on real server processes: a server on the daily tests' own key
prefix, the day's line, the moves played at a human pace, the waits on the public pages."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable, Iterator
from typing import Any

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from tests.helpers.dailies import plant, wait_daily
from tests.helpers.serverproc import (
    FAST,
    REVIEW_OFF_ENV,
    ServerProc,
    WsClient,
    drop_keys,
    http_request,
    redis_url,
    running_server,
)
from tests.helpers.waits import API_STEP, until

PAST = "2026-03-14"
PACE = 0.025
PREFIX = f"test:daily:{secrets.token_hex(6)}:"
ENV = {
    "SEAHAVEN_KEY_PREFIX": PREFIX,
    "SEAHAVEN_MIN_MS_PER_ACTION": "20",
    **REVIEW_OFF_ENV,
}


#: Every finisher established at once (provisional ones have tests of their own:
#: tests/server/daily/test_daily_server.py's newcomers).
ESTABLISHED = ["--provisional-games", "0"]


@contextlib.contextmanager
def daily_server(
    prefix: str, args: list[str] | None = None, env: dict[str, str] | None = None
) -> Iterator[tuple[ServerProc, dict[str, str]]]:
    """A server whose Redis keys all start with ``prefix``; they are deleted afterwards.
    ``env`` adds to (or overrides) :data:`ENV`."""
    env = {**ENV, **(env or {}), "SEAHAVEN_KEY_PREFIX": prefix}
    plant(prefix, PAST)
    args = [*FAST, *ESTABLISHED] if args is None else args
    with running_server(redis_url(), args=args, env=env) as srv:
        wait_daily(srv)
        yield srv, env
    drop_keys(prefix)


def get(srv: ServerProc, path: str, token: str | None = None) -> tuple[int, Any]:
    """GET a JSON body; with ``token``, as its player (``Authorization: Bearer``)."""
    return http_request(srv.http_url + path, token=token or None, timeout=5)


def wire(text: str, action_id: int) -> dict[str, Any]:
    if text == "undo":
        return {"type": "undo", "id": action_id}
    action = parse_action(text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


async def play(client: WsClient, line: tuple[str, ...], pace: float = PACE) -> None:
    """Send each action, wait for its ack, then pause ``pace`` seconds."""
    for i, text in enumerate(line):
        await client.send(wire(text, i + 1))
        await client.expect("ack", id=i + 1)
        if pace:
            await asyncio.sleep(pace)


async def start_daily(client: WsClient, **fields: Any) -> dict[str, Any]:
    await client.send({"type": "daily", **fields})
    snap = await client.expect("snapshot")
    assert snap["mode"] == "daily" and snap["state"] == "racing"
    return snap


async def wait_for(
    srv: ServerProc,
    path: str,
    check: Callable[[Any], bool],
    timeout: float = 5,
    token: str | None = None,
) -> Any:
    """Poll a GET until ``check(body)`` holds; the body."""

    def matched() -> tuple[Any, ...]:
        status, body = get(srv, path, token)
        return (body,) if status == 200 and check(body) else ()  # a match may be falsy

    return (await until(matched, timeout, what=f"GET {path} matching", step=API_STEP))[0]


def line_of(code: str) -> tuple[str, ...]:
    found = solve(Board.from_code(code), timeout=20)
    assert found.result == "solved"
    return found.moves
