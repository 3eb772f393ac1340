"""The daily challenge over the websocket: ``daily`` starts a game, ``watch_leaderboard``
subscribes to a day's leaderboard, which is pushed again whenever someone is ranked.

A daily game is a solo room (mode ``daily``) on the day's deal, clocked from the first move;
its moves take the same validated, Redis-backed path as a race. Solver hints are refused in
it (this module wraps the race module's ``hint`` handler). When it is won,
:mod:`server.results` verifies the replay and ranks the player's first finish of the day.

Pushes work across instances: :meth:`server.leaderboard.Leaderboard.submit` publishes on
the day's channel, and every instance with watchers of that day sends them the new top.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import TYPE_CHECKING, Any

from protocol import models as m

from .daily import KIND_CELLS, DailyError, daily_deal, parse_date, today
from .race import on_hint as race_hint  # imported first: the registration below wins
from .registry import ws_handler
from .services import Services, services

if TYPE_CHECKING:
    from .app import App
    from .session import Conn

log = logging.getLogger(__name__)

#: Entries in a pushed leaderboard.
PUSH_LIMIT = 20


def _error_code(exc: DailyError) -> str:
    return "unavailable" if exc.reason == "unavailable" else "bad_date"


@ws_handler("daily")
async def on_daily(app: App, conn: Conn, msg: m.Daily) -> None:
    """Start a solo game on a day's deal (today's if no date), the hard one if asked."""
    from .race import start_solo

    if conn.room is not None:
        await conn.error("already_in_room")
        return
    kind = "hard" if msg.hard else "daily"
    try:
        deal = daily_deal(msg.date or today().isoformat(), kind)
    except DailyError as exc:
        await conn.error(_error_code(exc), str(exc))
        return
    svc = services(app)
    room = await start_solo(app, conn, deal.code, KIND_CELLS[kind], "daily")
    # No move can arrive before this is written: a socket's frames are handled in order.
    await app.redis.set(
        svc.daily_room_key(room),
        json.dumps({"date": deal.date, "kind": kind}),
        ex=max(app.config.room_ttl, 24 * 3600) * 2,
    )


@ws_handler("hint")
async def on_hint(app: App, conn: Conn, msg: m.HintReq) -> None:
    """No solver hints in a daily game (they would hand out the ranked line); else as before."""
    state = await app.room_state(conn.room) if conn.room else None
    if state is not None and state.mode == "daily":
        await conn.error("unavailable", "there are no hints in the daily challenge")
        return
    await race_hint(app, conn, msg)


@ws_handler("watch_leaderboard")
async def on_watch(app: App, conn: Conn, msg: m.WatchLeaderboard) -> None:
    """Send a day's leaderboard now and again on every change (until another watch)."""
    try:
        date = parse_date(msg.date).isoformat()
    except DailyError as exc:
        await conn.error("bad_date", str(exc))
        return
    svc = services(app)
    # One board per socket: a new watch replaces the previous one.
    for conns in svc.watchers.values():
        conns.discard(conn)
    svc.watchers.setdefault((date, msg.kind), set()).add(conn)
    _prune(svc)
    await _ensure_listener(app, svc)
    await conn.send(await push_json(svc, date, msg.kind))


async def push_json(svc: Services, date: str, kind: str) -> dict[str, Any]:
    """A ``leaderboard`` message: the top :data:`PUSH_LIMIT` entries."""
    board = await svc.leaderboard.board_json(date, kind, PUSH_LIMIT)
    return {"type": "leaderboard", **board}


async def _ensure_listener(app: App, svc: Services) -> None:
    """Start this instance's reader of leaderboard announcements (once)."""
    if svc.listener is not None:
        return
    pubsub = app.redis.pubsub()
    await pubsub.psubscribe(svc.leaderboard.channel_pattern())
    svc.listener = asyncio.create_task(_listen(app, svc, pubsub))


async def _listen(app: App, svc: Services, pubsub: Any) -> None:
    try:
        while True:
            try:
                msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis went away: retry; the next change pushes again
                log.exception("leaderboard listener failed")
                await asyncio.sleep(0.5)
                continue
            if msg is None or msg.get("type") != "pmessage":
                continue
            found = svc.leaderboard.parse_channel(str(msg["channel"]))
            if found is not None:
                await _push(svc, *found)
    finally:
        with contextlib.suppress(Exception):
            await pubsub.aclose()


def _closed(conn: Conn) -> bool:
    return conn.ws.close_code is not None


def _prune(svc: Services) -> None:
    """Forget sockets that closed (sockets keep no weak references; prune on each use)."""
    for key in list(svc.watchers):
        conns = svc.watchers[key]
        conns.difference_update([c for c in conns if _closed(c)])
        if not conns:
            del svc.watchers[key]


async def _push(svc: Services, date: str, kind: str) -> None:
    _prune(svc)
    conns = list(svc.watchers.get((date, kind), ()))
    if not conns:
        return
    text = json.dumps(await push_json(svc, date, kind), separators=(",", ":"))
    for conn in conns:
        await conn.send_text(text)
