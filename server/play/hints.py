"""``hint``: the solver's next move for the player's own board, where hints are allowed.

Refused in a race room until its race is over, and for any board whose deal is being raced
in some room right now, whatever room asks (``reject hints_off``: a race where the server
hands out the winning line is not a race); on any board whose deal is a daily deal of a day
not yet over, whatever the room (``reject hints_off``: it would hand out the ranked line).
Both keep to the deal number, not the code: a line that wins a deal with fewer cells wins
its twin with more (the 2-cell twin of a raced 4-cell deal would hand out the race's line);
and in any other daily game (``error unavailable``). The solver runs in the instance's
solver processes (:mod:`server.solver_pool`), so that neither the event loop nor its GIL
waits for a search. A player asks one hint at a time: a second one while the first runs,
or one that finds the solver's queue full, is answered ``reject busy`` at once, before any
other check (it costs no Redis call, and reveals nothing of the board). A position on a
winning line a hint named before is answered from that line (:mod:`.hint_lines`), after the
same checks, without the solver.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, Protocol, TypeVar

from protocol import models as m

from ..cache import BoardCache, RoomCache
from ..clock import now_ms
from ..context import Kept
from ..daily.services import Daily
from ..engine import Board, format_code, parse_code
from ..engine.codes import CELL_COUNTS
from ..engine.solver import Hint
from ..metrics import Metrics
from ..net import wire
from ..net.registry import Routes
from ..rooms.records import Mode, Role, RoomPhase
from ..settings import Settings
from ..solver_pool import SolverFailed
from ..store.store import Store
from .hint_lines import LINES

log = logging.getLogger(__name__)

routes = Routes()

T = TypeVar("T")


class Asker(Protocol):
    """A socket as a hint sees it: who asks, in which room, and how to answer
    (:class:`server.net.session.Conn`)."""

    @property
    def pid(self) -> str | None:
        """The player, once identified."""

    @property
    def room(self) -> str | None:
        """The room the socket is in."""

    @property
    def role(self) -> str:
        """Its role there."""

    def error(self, code: str, message: str | None = None) -> None:
        """Send ``error``."""

    def reject(self, action_id: int, reason: str, message: str | None = None) -> None:
        """Send ``reject``."""

    def queue(self, text: str) -> None:
        """Send a frame."""


class Searcher(Protocol):
    """The solver's processes as a hint uses them (:class:`server.solver_pool.SolverPool`)."""

    def has_room(self, player: str) -> bool:
        """Whether a job of ``player``'s would be taken now."""

    def submit_hint(
        self, player: str, board: Board, timeout: float = ...
    ) -> asyncio.Future[Hint] | None:
        """Queue a hint for the board, or refuse it (None)."""


class Hinting(Protocol):
    """What a hint needs of an instance: the solver, the room and its boards, the days'
    deals (none for a running day's), the store (deals raced now, who was hinted), the
    lines hints named, the counters. :class:`server.context.Context` has them."""

    @property
    def settings(self) -> Settings:
        """The instance's settings (a hint's time)."""

    @property
    def metrics(self) -> Metrics:
        """The counters."""

    @property
    def solver(self) -> Searcher:
        """The solver's processes."""

    @property
    def rooms(self) -> RoomCache:
        """The rooms' records."""

    @property
    def boards(self) -> BoardCache:
        """The players' boards."""

    @property
    def daily(self) -> Daily:
        """The days' deals."""

    @property
    def store(self) -> Store:
        """The rooms' store."""

    def kept(self, key: Kept[T]) -> T:
        """What a concern keeps on the instance (the lines hints named)."""

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a coroutine in the background."""


@routes.ws("hint")
async def on_hint(ctx: Hinting, conn: Asker, msg: m.HintReq) -> None:
    """Queue a hint for the player's board, or refuse it."""
    room = conn.room
    if room is None or conn.role != Role.PLAYER:
        conn.error("not_racing")
        return
    pid = conn.pid or ""
    if not ctx.solver.has_room(pid):
        # First, before any Redis call: in a storm of hints most are refused here.
        ctx.metrics.hints.labels("busy").inc()
        conn.reject(msg.id, "busy")
        return
    state = await ctx.rooms.get(room)
    if state is None:
        conn.error("not_racing")
        return
    if await ctx.daily.deals.is_running(state.code):
        conn.reject(msg.id, "hints_off", "no hints on a daily deal before its day is over")
        return
    if state.mode == Mode.DAILY:
        conn.error("unavailable", "there are no hints in the daily challenge")
        return
    if (state.mode == Mode.RACE and state.phase != RoomPhase.DONE) or await raced(ctx, state.code):
        conn.reject(msg.id, "hints_off")
        return
    entry = await ctx.boards.get(room, state.round, pid, state.code)
    known = ctx.kept(LINES).hint(entry.board)
    if known is not None:  # on a line a hint named before: no search
        await ctx.store.mark_hinted(room, state.round, pid)
        ctx.metrics.hints.labels("answered").inc()
        conn.queue(wire.hint(msg.id, known.status, known.move, known.remaining, known.source))
        return
    asked = entry.board.copy()
    answer = ctx.solver.submit_hint(pid, asked, ctx.settings.hint_seconds)
    if answer is None:
        ctx.metrics.hints.labels("busy").inc()
        conn.reject(msg.id, "busy")
        return
    ctx.spawn(send_hint(ctx, conn, msg.id, answer, room, state.round, asked))


async def raced(ctx: Hinting, code: str) -> bool:
    """Whether the deal of ``code`` is being raced in some room now, with any cell count (a
    solo game on a race's code or on its twin with fewer cells, whose line wins the race too,
    or a finished racer's board while another room still races that deal)."""
    number, now = parse_code(code).deal, now_ms()
    marks = await asyncio.gather(
        *(ctx.store.is_racing(format_code(number, cells), now) for cells in CELL_COUNTS)
    )
    return any(marks)


async def send_hint(
    ctx: Hinting,
    conn: Asker,
    hint_id: int,
    answer: asyncio.Future[Hint],
    room: str,
    round_: int,
    asked: Board,
) -> None:
    """Wait for the solver's answer and send it (``reject busy`` if its process died); the
    line it names is kept (:mod:`.hint_lines`) for the hints along it.

    The player is noted as hinted in the round before the answer leaves: a hint names a
    move of a shortest line, so a win played with one is not a perfect game, and every move
    it could inform comes after the note."""
    try:
        found = await answer
    except SolverFailed:
        ctx.metrics.hints.labels("failed").inc()
        conn.reject(hint_id, "busy", "the solver restarted before answering; retry")
        return
    except Exception:
        ctx.metrics.hints.labels("failed").inc()
        log.exception("the solver failed on a hint")
        conn.error("internal")
        return
    ctx.kept(LINES).learn(asked, found)
    await ctx.store.mark_hinted(room, round_, conn.pid or "")
    ctx.metrics.hints.labels("answered").inc()
    conn.queue(wire.hint(hint_id, found.status, found.move, found.remaining, found.source))
