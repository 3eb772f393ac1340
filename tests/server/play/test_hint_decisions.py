"""When a hint is refused and how it is answered, without a server: the rooms, the days'
deals and the race marks real on Redis, the socket and the solver small fakes
(:mod:`tests.helpers.fakes_play`). Refused to a spectator; ``busy`` before any Redis call;
``hints_off`` on a running day's deal in any room and any cell count, in a race until it is
over, and on a deal raced elsewhere now (its twins too); ``unavailable`` in a daily game;
answered from a line named before without the solver."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from protocol import models as m
from server.clock import now_ms
from server.daily.deal import today
from server.engine import format_code, parse_action, parse_code
from server.engine.solver import Hint
from server.play.hints import on_hint
from server.solver_pool import SolverFailed
from server.transport.clients import Client
from tests.helpers.dailies import daily_deal
from tests.helpers.fakes_play import Instance, Socket, instance, room
from tests.helpers.replay_support import solution

#: A deal of no day (the race tests' own).
CODE = "SH1-C4-AAAAAAF"
PAST = "2026-03-14"


@pytest.fixture
async def ctx(redis_client: Client, key_prefix: str) -> AsyncIterator[Instance]:
    yield await instance(redis_client, key_prefix, today().isoformat(), PAST)


async def ask(ctx: Instance, conn: Socket, hint_id: int = 1) -> list[str]:
    """Ask a hint and wait for its answer: what the socket was sent."""
    await on_hint(ctx, conn, m.HintReq(type="hint", id=hint_id))
    await ctx.settle()
    return conn.kinds()


def a_move(code: str = CODE) -> Hint:
    line = solution(code)
    return Hint("move", line[0], None, tuple(line))


async def test_only_a_player_in_a_room_asks(ctx: Instance) -> None:
    assert await ask(ctx, Socket(room=None)) == ["error:not_racing"]
    name = await room(ctx, "RSPEC", CODE)
    assert await ask(ctx, Socket(room=name, role="spectator")) == ["error:not_racing"]
    assert await ask(ctx, Socket(room="RGONE")) == ["error:not_racing"]  # no such room
    assert ctx.solver.asked == []


async def test_a_player_whose_hint_runs_hears_busy_before_any_redis_call(ctx: Instance) -> None:
    ctx.solver.free = False
    assert await ask(ctx, Socket(room="RNOWHERE")) == ["reject:busy"]
    assert ctx.rooms.rooms == {} and ctx.solver.asked == []  # the room was never read


async def test_a_full_queue_is_busy(ctx: Instance) -> None:
    ctx.solver.full = True
    name = await room(ctx, "RFULL", CODE)
    assert await ask(ctx, Socket(room=name)) == ["reject:busy"]


async def test_no_hints_on_a_running_days_deal_in_any_room_or_cell_count(ctx: Instance) -> None:
    code = daily_deal(today().isoformat()).code
    number = parse_code(code).deal
    for n, cells in enumerate((4, 2, 1)):
        name = await room(ctx, f"RDAY{n}", format_code(number, cells), mode="solo")
        conn = Socket(room=name)
        assert await ask(ctx, conn) == ["reject:hints_off"], cells
        assert "daily" in str(conn.sent[0]["message"])
    # The ranked game of the day itself: refused the same way, whichever kind.
    for kind in ("daily", "hard"):
        name = await room(
            ctx, f"RRANKED-{kind}", daily_deal(today().isoformat(), kind).code, "daily"
        )
        assert await ask(ctx, Socket(room=name)) == ["reject:hints_off"], kind
    assert ctx.solver.asked == []
    # A deal whose day is over is an ordinary deal again.
    ctx.solver.answer = a_move(daily_deal(PAST).code)
    name = await room(ctx, "RPASTSOLO", daily_deal(PAST).code, mode="solo")
    assert await ask(ctx, Socket(room=name)) == ["hint:move"]


async def test_no_hints_in_a_daily_game_of_a_past_day(ctx: Instance) -> None:
    name = await room(ctx, "RPAST", daily_deal(PAST, "hard").code, mode="daily")
    conn = Socket(room=name)
    assert await ask(ctx, conn) == ["error:unavailable"]
    assert "daily" in str(conn.sent[0]["message"])
    assert ctx.solver.asked == []


async def test_no_hints_in_a_race_until_it_is_over(ctx: Instance) -> None:
    ctx.solver.answer = a_move()
    name = await room(ctx, "RRACE", CODE, mode="race", phase="racing")
    assert await ask(ctx, Socket(room=name)) == ["reject:hints_off"]
    assert ctx.solver.asked == []
    over = await room(ctx, "RDONE", CODE, mode="race", phase="done")
    assert await ask(ctx, Socket(room=over)) == ["hint:move"]


async def test_no_hints_on_a_deal_raced_elsewhere_now_nor_its_twins(ctx: Instance) -> None:
    ctx.solver.answer = a_move(format_code(parse_code(CODE).deal, 2))
    number = parse_code(CODE).deal
    race = await room(ctx, "RELSE", CODE, mode="race", phase="racing")
    await ctx.store.mark_racing(CODE, race, now_ms(), 60_000)
    for n, cells in enumerate((4, 2)):  # the raced code itself, and its twin
        solo = await room(ctx, f"RSOLO{n}", format_code(number, cells))
        assert await ask(ctx, Socket(room=solo)) == ["reject:hints_off"], cells
    assert ctx.solver.asked == []
    # Once that race is over, its deal is everyone's again.
    await room(ctx, race, CODE, mode="race", phase="done")
    solo = await room(ctx, "RSOLO9", format_code(number, 2))
    assert await ask(ctx, Socket(room=solo)) == ["hint:move"]


async def test_a_hint_is_the_solvers_move_and_marks_the_player_hinted(ctx: Instance) -> None:
    hint = a_move()
    ctx.solver.answer = hint
    name = await room(ctx, "RHINT", CODE)
    conn = Socket(room=name)
    assert await ask(ctx, conn, 7) == ["hint:move"]
    assert (conn.sent[0]["id"], conn.sent[0]["move"], conn.sent[0]["source"]) == (
        7,
        hint.move,
        "solver",
    )
    assert await ctx.store.was_hinted(name, 1, "pann")
    # The search had the instance's time to prove a shortest line (``--hint-seconds``).
    assert ctx.solver.seconds == [ctx.settings.hint_seconds]
    assert ctx.solver.asked[0] == (await ctx.boards.get(name, 1, "pann", CODE)).board


async def test_hints_along_a_named_line_need_no_solver(ctx: Instance) -> None:
    hint = a_move()
    ctx.solver.answer = hint
    ann = Socket(room=await room(ctx, "RLINE", CODE))
    assert await ask(ctx, ann, 1) == ["hint:move"]
    assert len(ctx.solver.asked) == 1
    # The solver is gone: hints along the line it named still come, each the line's move.
    ctx.solver.answer = SolverFailed("stopped")
    board = (await ctx.boards.get("RLINE", 1, "pann", CODE)).board
    for step, move in enumerate(hint.line[:4], start=2):
        board.play(parse_action(move))
        ann.sent.clear()
        assert await ask(ctx, ann, step) == ["hint:move"]
        assert ann.sent[0]["move"] == hint.line[step - 1]
    # Another player on the same opening is answered from the line as well.
    bob = Socket(pid="pbob", room=await room(ctx, "RBOB", CODE))
    assert await ask(ctx, bob, 1) == ["hint:move"]
    assert bob.sent[0]["move"] == hint.move
    assert len(ctx.solver.asked) == 1
    assert await ctx.store.was_hinted("RBOB", 1, "pbob")


async def test_a_search_that_dies_is_busy_and_one_that_fails_is_internal(ctx: Instance) -> None:
    name = await room(ctx, "RFAIL", CODE)
    ctx.solver.answer = SolverFailed("the process died")
    conn = Socket(room=name)
    assert await ask(ctx, conn) == ["reject:busy"]
    assert "retry" in str(conn.sent[0]["message"])
    ctx.solver.answer = RuntimeError("a bug")
    conn = Socket(room=name)
    assert await ask(ctx, conn) == ["error:internal"]
    assert not await ctx.store.was_hinted(name, 1, "pann")
