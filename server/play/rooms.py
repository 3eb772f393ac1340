"""The room messages: create, join, resume, leave, the host's watch mode, start and rematch,
and a racer's give-up. The rules of membership and rounds are :mod:`server.rooms`'s."""

from __future__ import annotations

from typing import Protocol

from protocol import models as m
from protocol.models import DEFAULT_DELAY_S

from ..clock import now_ms
from ..context import Context
from ..daily.deal import draw_open
from ..daily.deals import DAILY_ONLY
from ..engine import CodeError, format_code, parse_code
from ..fairplay.standing import standing
from ..metrics import Metrics
from ..net import wire
from ..net.registry import Routes
from ..net.session import Conn
from ..ranked.ratings import address_mark
from ..rooms import membership, rounds
from ..rooms.records import Mode, Role
from ..settings import Settings
from ..store import listing, quotas
from ..store.status import Status
from ..store.store import Store
from .devices import seen

routes = Routes()


class Counted(Protocol):
    """What the room allowance needs of an instance: the allowances, the store that counts
    them, the counters. :class:`server.context.Context` has them."""

    @property
    def settings(self) -> Settings:
        """The allowances (``rooms_per_hour``, ``rooms_per_hour_per_address``)."""

    @property
    def store(self) -> Store:
        """The store that counts the rooms made."""

    @property
    def metrics(self) -> Metrics:
        """The counters."""


class Maker(Protocol):
    """A socket about to make a room: who, from which address, and how to tell it
    (:class:`server.net.session.Conn`)."""

    @property
    def pid(self) -> str | None:
        """The player, once identified."""

    @property
    def address(self) -> str:
        """The client's address as the limits count it."""

    def queue(self, text: str) -> None:
        """Send a frame."""


async def deal_for(
    ctx: Context, conn: Conn, code: str | None, cells: int
) -> tuple[str, int] | None:
    """The game code and cell count of a new game: a typed code in its canonical form, or
    a certified deal with ``cells`` cells; None when the typed code is refused (the client
    was told why).

    A typed code whose deal number (any cell count) is a daily deal of a day not over is
    refused (``daily_only``): that deal is played in the daily alone until its day ends, or
    a player could practise it with undos and hints, and publish its line at once.
    """
    running = await ctx.daily.deals.running()
    if code is None:
        return draw_open(cells, running).code, cells
    try:
        parsed = parse_code(code)
    except CodeError as exc:
        conn.error("bad_code", str(exc)[:200])
        return None
    if parsed.deal in running:
        conn.error("daily_only", DAILY_ONLY)
        return None
    return format_code(parsed.deal, parsed.cells), parsed.cells


async def may_make_room(ctx: Counted, conn: Maker) -> bool:
    """Whether the player (and their address) may make one more room this hour; if not,
    they hear ``slow_down`` with when they may again (:mod:`server.store.quotas`)."""
    settings = ctx.settings
    wait = await quotas.take_room(
        ctx.store,
        conn.pid or "",
        address_mark(conn.address),
        settings.rooms_per_hour,
        settings.rooms_per_hour_per_address,
    )
    if wait:
        ctx.metrics.errors.inc()
        conn.queue(wire.identities_refused(wait, "slow_down"))
    return not wait


@routes.ws("create_room")
async def on_create_room(ctx: Context, conn: Conn, msg: m.CreateRoom) -> None:
    """A new race room on a certified deal (or a typed code); the creator is its host."""
    if conn.room is not None:
        conn.error("already_in_room")
        return
    if msg.public and msg.code is not None:
        # Strangers race in a public room: a deal its host chose may be one they studied.
        conn.error("public_room", "a public room races a drawn deal, not a typed code")
        return
    if msg.public and not (await standing(ctx, conn.pid or "")).may_rank:
        conn.error("barred", "this player is barred from ranked play: no public race")
        return
    pid, mark = conn.pid or "", address_mark(conn.address)
    # Rooms are cheap to make and each is kept for hours: one open lobby per identity, a
    # few public ones per address, so that spam cannot fill Redis or the Watch list.
    if await listing.open_lobby(ctx.store, pid) is not None:
        conn.error("lobby_open")
        return
    since = now_ms() - ctx.settings.lobby_ttl_s * 1000
    if msg.public and (
        await listing.public_lobbies(ctx.store, mark, since)
        >= ctx.settings.public_lobbies_per_address
    ):
        conn.error("too_many_lobbies")
        return
    found = await deal_for(ctx, conn, msg.code, msg.cells)
    if found is None:
        return
    code, cells = found
    if not await may_make_room(ctx, conn):
        return
    typed = msg.code is not None
    room = await membership.new_room(ctx, Mode.RACE, code, cells, typed=typed, public=msg.public)
    ttl_s = ctx.settings.lobby_ttl_s
    await listing.opened(ctx.store, pid, mark, room, msg.public, now_ms(), ttl_s)
    status = await membership.join(ctx, conn, room, Role.PLAYER)
    if status is not Status.OK:
        conn.error(status)
    elif msg.public:
        await listing.list_room(ctx.store, room, now_ms())  # on the Watch list from now on
        await rounds.close_later(ctx, room)


@routes.ws("watch_mode")
async def on_watch_mode(ctx: Context, conn: Conn, msg: m.WatchMode) -> None:
    """The host picks, in the lobby, what spectators see during the race."""
    if conn.room is None:
        conn.error("not_in_room")
        return
    delay_s = msg.delay_s or DEFAULT_DELAY_S
    conn.error_unless_ok(await rounds.set_watch(ctx, conn.room, conn.pid or "", msg.mode, delay_s))


@routes.ws("join")
async def on_join(ctx: Context, conn: Conn, msg: m.Join) -> None:
    """Join a room as a racer (before the start) or a spectator."""
    if conn.room is not None:
        conn.error("already_in_room")
        return
    conn.error_unless_ok(await membership.join(ctx, conn, msg.room.upper(), msg.role))


@routes.ws("resume")
async def on_resume(ctx: Context, conn: Conn, msg: m.Resume) -> None:
    """Come back after a dropped connection, on any instance."""
    session = await ctx.store.load_session(msg.token)
    if session is None:
        conn.error("bad_token")
        return
    if conn.pid is not None and conn.pid != session[0]:
        conn.error("bad_token", "this connection is already someone else")
        return
    conn.pid, conn.name, conn.token = session[0], session[1], msg.token
    seen(ctx, conn)  # it hears at once if its player signs out everywhere
    conn.error_unless_ok(await membership.resume(ctx, conn, msg.room.upper(), msg.last_seq))


@routes.ws("leave")
async def on_leave(ctx: Context, conn: Conn, msg: m.Leave) -> None:
    """Leave the room; a racer in a running race gives up."""
    room = conn.room
    if room is None:
        conn.error("not_in_room")
        return
    await membership.leave(ctx, conn, room)
    conn.queue(wire.left(room))


@routes.ws("start")
async def on_start(ctx: Context, conn: Conn, msg: m.Start) -> None:
    """The host starts the countdown."""
    if conn.room is None:
        conn.error("not_in_room")
        return
    conn.error_unless_ok(await rounds.start(ctx, conn.room, conn.pid or ""))


@routes.ws("give_up")
async def on_give_up(ctx: Context, conn: Conn, msg: m.GiveUp) -> None:
    """Give up this round; the result is kept."""
    room = conn.room
    state = await ctx.rooms.get(room) if room else None
    if room is None or state is None or conn.role != Role.PLAYER:
        conn.error("not_racing")
        return
    conn.error_unless_ok(
        await rounds.give_up(ctx, room, state.round, state.code, conn.pid or "", conn.name)
    )


@routes.ws("rematch")
async def on_rematch(ctx: Context, conn: Conn, msg: m.Rematch) -> None:
    """The host, once the race is over: a new deal in the same room."""
    room = conn.room
    state = await ctx.rooms.get(room) if room else None
    if room is None or state is None:
        conn.error("not_in_room")
        return
    conn.error_unless_ok(await rounds.rematch(ctx, room, conn.pid or "", state.cells))
