"""A player on several devices: a transfer code signs another device in, "sign out
everywhere" ends every other session, and a player may delete themself.

Fair play. Signing in (here or by passkey, :mod:`server.play.passkeys`) makes this socket
the player the code or passkey proves: the identity it was before keeps its own results,
and nothing of the two is ever merged (no rating moves from one to the other). A code is
its player's alone: it is sent to their socket only, and a sign-in with it answers only the
``welcome`` any device of theirs gets. A claim that fails says the same for a code nobody
has and for a real code's wrong second half, so trying first halves finds no live code.
Nothing here touches a rating, provisional status, a review or a bar.

**Identity changes from any screen.** A sign-in or a deletion may come from a socket that
plays (the first visit deals a solo game): once the code or passkey proved itself, the
socket leaves what it was in as its old player, by the rules of ``leave`` (a running race
or a begun game is given up), and hears ``game_left`` saying what became of the game.

**Signed out means out.** "Sign out everywhere" ends the player's sessions and announces it
on ``signout:PID`` (:mod:`server.transport.announcements`); each instance then finds that
player's open sockets whose session is gone, takes them out of their game as a closed tab
would be, and tells them ``signed_out``. From then on such a socket may only sign in
again (:data:`server.net.session.AFTER_SIGN_OUT`): every game it could start is refused.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeVar

import segno

from protocol import models as m

from ..clock import now_ms
from ..context import Context, Kept
from ..net import wire
from ..net.member import Member
from ..net.registry import Routes
from ..net.session import Conn, Handler
from ..net.wire import devices as out
from ..periodic import DONE, Done, periodic
from ..quiet import Quiet
from ..rooms import membership
from ..rooms.records import Mode, Role, RoomPhase
from ..store import accounts
from .erase import erase_player

log = logging.getLogger(__name__)
QUIET = Quiet(log)
routes = Routes()

T = TypeVar("T")


class Player(Member, Protocol):
    """A socket that said who it is (:class:`server.net.session.Conn`): a room's member,
    and whether its player signed out everywhere while it was open."""

    signed_out: bool


class Keeping(Protocol):
    """An instance as far as what its concerns keep on it
    (:meth:`server.context.Context.kept`)."""

    def kept(self, key: Kept[T]) -> T:
        """What the concern of ``key`` keeps on this instance (made on first use)."""


#: Sockets noted before the closed ones are swept out of :class:`Players` (then twice as
#: many as were left, and so on).
SWEEP_AT: Final = 512


@dataclass(slots=True)
class Players:
    """This instance's sockets that said who they are (closed ones swept out now and
    then): where a sign-out announcement looks for the sockets to tell."""

    sockets: set[Player] = field(default_factory=set)
    sweep_at: int = SWEEP_AT


#: The sockets of this instance that are (or were) a player.
PLAYERS: Final[Kept[Players]] = Kept("players' sockets", Players)


def seen(ctx: Keeping, conn: Player) -> None:
    """Note a socket that now is a player (``hello``, ``resume`` or a sign-in), so that it
    hears at once when that player signs out everywhere."""
    players = ctx.kept(PLAYERS)
    conn.signed_out = False
    if len(players.sockets) >= players.sweep_at:
        players.sockets = {c for c in players.sockets if c.is_open()}
        players.sweep_at = max(SWEEP_AT, 2 * len(players.sockets))
    players.sockets.add(conn)


async def follow_sign_outs(ctx: Context) -> None:
    """Follow every instance's sign-out announcements until cancelled (a background task
    of the instance; a failed subscription is tried again every half second: Redis away at
    start; once started, the announcements' reader retries by itself)."""
    feed = accounts.sign_out_announcements(ctx.store, functools.partial(_signed_out, ctx))

    async def subscribe() -> Done:
        await feed.start()
        return DONE

    await periodic(subscribe, 0.5, QUIET, "sign-outs", "following sign-outs failed", at_once=True)
    try:
        await asyncio.Event().wait()
    finally:
        await feed.close()


async def _signed_out(ctx: Context, channel: str) -> None:
    """A player signed out everywhere: each open socket of theirs here whose session is
    gone leaves its game as a closed one would, and hears ``signed_out``."""
    pid = ctx.store.keys.parse_sign_out_channel(channel)
    if pid is None:
        return
    for conn in [c for c in ctx.kept(PLAYERS).sockets if c.pid == pid]:
        if conn.signed_out or not conn.is_open():
            continue
        if conn.token and await ctx.store.load_session(conn.token) is not None:
            continue  # the device that signed the others out (it has a new session)
        conn.signed_out = True
        await membership.on_close(ctx, conn)
        conn.queue(out.signed_out())


#: The messages that start a game, join one or enter a queue or an arena: each asks first
#: whether the socket's session still works (:func:`gated`).
STARTS: Final = frozenset(
    {
        "create_room",
        "join",
        "start",
        "rematch",
        "solo",
        "daily",
        "queue",
        "accept_bot",
        "create_arena",
        "arena_join",
    }
)


def gated(handler: Handler) -> Handler:
    """``handler`` run only while the socket's session still works. The announcement of a
    sign-out everywhere tells open sockets at once, but pub/sub is at most once: a socket
    whose announcement was lost (its instance's subscription dropped a moment) is caught
    here, at the next game it would start, and told ``signed_out`` as the announcement
    would have."""

    async def run(ctx: Context, conn: Conn, msg: Any) -> None:
        if conn.token and not conn.signed_out:
            session = await ctx.store.load_session(conn.token)
            if session is None or session[0] != conn.pid:
                conn.signed_out = True
                await membership.on_close(ctx, conn)
                conn.queue(out.signed_out())
                return
        await handler(ctx, conn, msg)

    return run


async def signed_in(ctx: Context, conn: Conn) -> bool:
    """Whether the socket's session still works (else it hears ``bad_token``): a device
    signed out everywhere, whose socket is still open, may not make a transfer code or a
    passkey to come back with, nor see or change the player's devices."""
    session = await ctx.store.load_session(conn.token) if conn.token else None
    if session is None or session[0] != conn.pid:
        conn.error("bad_token", "this device was signed out: sign in again")
        return False
    return True


async def step_out(ctx: Context, conn: Conn) -> None:
    """Before this socket becomes another player (or nobody): out of the quick race's
    queue and its arena, and out of its room by the rules of ``leave`` (a running race,
    or a game alone that was begun, is given up); ``game_left`` says what became of it."""
    where = ctx.whereabouts
    await where.leave_queue(ctx.store, conn, "asked")
    await where.leave_arena(ctx.store, conn, "asked")
    room = conn.room
    if room is None:
        return
    state = await ctx.rooms.get(room)
    mode, given_up = "race", False
    if state is not None:
        mode = str(state.mode)
        if conn.role == Role.PLAYER and state.phase == RoomPhase.RACING:
            fields = await ctx.store.room_fields(room)
            if fields.get(f"st:{conn.pid}") == "playing":
                entry = await ctx.boards.get(room, state.round, conn.pid or "", state.code)
                # A game alone not begun counts nothing (as the statistics say).
                given_up = state.mode != Mode.SOLO or entry.board.moves > 0
    await membership.leave(ctx, conn, room)
    conn.queue(out.game_left(room, mode, given_up))


async def become(ctx: Context, conn: Conn, pid: str, name: str) -> None:
    """Make this socket player ``pid`` with a new session of theirs, and say ``welcome``."""
    token = accounts.new_token()
    name = name or conn.name or "player"
    await ctx.store.save_session(token, pid, name)
    conn.pid, conn.name, conn.token = pid, name, token
    seen(ctx, conn)
    conn.queue(wire.welcome(pid, token, name, now_ms()))


def qr_svg(text: str) -> str:
    """``text`` as a QR code, an SVG document (made by ``segno``)."""
    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="svg", scale=4, border=2, xmldecl=False)
    return buffer.getvalue().decode()


@routes.ws("transfer_new")
async def on_transfer_new(ctx: Context, conn: Conn, msg: m.TransferNew) -> None:
    """Make a transfer code for this player (replacing their previous one)."""
    assert conn.pid is not None
    if not await signed_in(ctx, conn):
        return
    code, expires = await accounts.new_transfer(ctx.store, conn.pid, conn.name)
    # The link's code is in the fragment: a browser never sends it to a server, so no log
    # of a request (a proxy's, say) ever holds it.
    link = f"{msg.origin}/#/claim/{code}" if msg.origin else None
    conn.queue(out.transfer_code(code, link, qr_svg(link or code), expires))


@routes.ws("transfer_claim")
async def on_transfer_claim(ctx: Context, conn: Conn, msg: m.TransferClaim) -> None:
    """Sign this socket in as the player whose transfer code it typed (leaving what it was
    doing as its old player once the code proved itself)."""
    claim = await accounts.claim_transfer(ctx.store, msg.code, conn.address)
    if claim.status != "ok":
        ctx.metrics.errors.inc()
        retry = claim.retry_s if claim.status == "transfer_limited" else None
        conn.queue(out.refused(claim.status, retry))
        return
    await step_out(ctx, conn)
    await become(ctx, conn, claim.pid, claim.name)


@routes.ws("sign_out_everywhere")
async def on_sign_out_everywhere(ctx: Context, conn: Conn, msg: m.SignOutEverywhere) -> None:
    """End every session of this player, then give this socket a new one."""
    assert conn.pid is not None
    if not await signed_in(ctx, conn):
        return
    await accounts.end_sessions(ctx.store, conn.pid)
    await accounts.drop_transfer(ctx.store, conn.pid)
    await become(ctx, conn, conn.pid, conn.name)
    # After the new session is saved: every instance's check finds this socket still in.
    await accounts.announce_sign_out(ctx.store, conn.pid)


@routes.ws("delete_player")
async def on_delete_player(ctx: Context, conn: Conn, msg: m.DeletePlayer) -> None:
    """Delete this player for good (see :mod:`server.play.erase`), leaving what the socket
    was doing first; the socket is nobody's until it says ``hello`` again, and the
    player's other sockets are signed out."""
    assert conn.pid is not None
    if not await signed_in(ctx, conn):
        return
    if msg.player_id != conn.pid:
        conn.queue(out.refused("confirm_mismatch"))
        return
    pid = conn.pid
    await step_out(ctx, conn)
    await erase_player(ctx, pid)
    conn.pid, conn.token = None, ""
    conn.queue(out.player_deleted())
    await accounts.announce_sign_out(ctx.store, pid)
