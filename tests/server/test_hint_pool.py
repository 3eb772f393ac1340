"""Hints in the solver's processes, on a real server's sockets: ``reject busy`` while the
player's hint runs (from any of their sockets) or past the queue, correct answers, a dead
solver process's hint refused and the next one answered, and sockets that keep flowing while
hints are worked out.

A real server process on the machine's Redis, with one solver process and room for one
waiting hint, so that the bounds are reached with a handful of clients. What the pool
itself takes and refuses, and its processes' scheduling: ``test_solver_pool_bounds.py``.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import psutil
import pytest

from server.engine import Board, format_code, parse_action
from server.engine.optimal import optimal_par
from server.engine.solver import solve
from server.pools import load_pool
from server.solver_pool import WORKER_NICE
from tests.helpers.serverproc import (
    FAST,
    ServerProc,
    WsClient,
    metrics,
    redis_url,
    running_server,
)

#: A 4-cell game five actions in: lost, but its proof takes the solver about 380,000
#: tables (8.6 s here), so a hint on it works through the fast solver's whole budget of
#: 100,000 tables (about 2 s) and answers ``unknown``.
SLOW_CODE = "SH1-C4-AAAAAV2"
SLOW_ACTIONS = ("col3 cell3", "col9 cell4", "col6 col3", "col6 col2", "col7 col6")

#: One solver process and one hint waiting: the third hint at once finds the queue full.
POOL = ["--solver-workers", "1", "--solver-queue", "1"]


@pytest.fixture(scope="module")
def pool_server() -> Iterator[ServerProc]:
    """A server with a one-process solver pool and a queue of one, the solver at the
    server's own priority: a test of what the pool takes and refuses needs the solver to
    run, which under its default (idle) it may not do in seconds on a machine busy with
    other work."""
    with running_server(redis_url(), args=[*FAST, *POOL]) as srv:
        yield srv


@pytest.fixture(scope="module")
def hint_server() -> Iterator[ServerProc]:
    """A server with a one-process solver pool and a queue of one, at the solver's default
    scheduling (idle, niced)."""
    env = {"SEAHAVEN_SOLVER_POLICY": "idle", "SEAHAVEN_SOLVER_NICE": str(WORKER_NICE)}
    with running_server(redis_url(), args=[*FAST, *POOL], env=env) as srv:
        yield srv


async def slow_player(url: str, name: str) -> WsClient:
    """A player alone on the slow position."""
    client = await WsClient.connect(url, name)
    await client.send({"type": "solo", "code": SLOW_CODE})
    await client.expect("snapshot")
    for i, text in enumerate(SLOW_ACTIONS, start=1):
        src, dst = text.split()
        await client.send({"type": "move", "id": i, "src": src, "dst": dst})
        await client.expect("ack", id=i)
    return client


async def certified_player(url: str, name: str, deal: int) -> tuple[WsClient, Board]:
    """A player alone on a certified 1-cell deal, and the board as it stands."""
    client = await WsClient.connect(url, name)
    await client.send({"type": "solo", "code": format_code(deal, 1)})
    await client.expect("snapshot")
    return client, Board.deal(deal, 1)


async def ask_hint(client: WsClient, hint_id: int) -> None:
    """Send ``hint`` and wait until the server has taken it in (queued or refused).

    A socket's frames are handled one after the other, so the ``pong`` to a ``ping`` sent
    after the ``hint`` means the hint's handler has returned.
    """
    await client.send({"type": "hint", "id": hint_id})
    await client.send({"type": "ping"})
    await client.expect("pong")


def solver_processes(srv: ServerProc) -> list[psutil.Process]:
    """The server's live solver processes (not the resource tracker)."""
    found = []
    for child in psutil.Process(srv.proc.pid).children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE and any(
                "spawn_main" in part for part in child.cmdline()
            ):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


async def close_all(*clients: WsClient) -> None:
    """Close every socket."""
    for client in clients:
        await client.close()


@pytest.mark.slow
async def test_two_sockets_of_one_token_count_as_one_player(pool_server: ServerProc) -> None:
    ann = await slow_player(pool_server.ws_url, "ann")
    room = ann.messages[1]["room_id"]
    phone = await WsClient.connect(pool_server.ws_url)
    await phone.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 0})
    await phone.expect("welcome", player_id=ann.player_id)
    await ask_hint(ann, 1)
    await ask_hint(phone, 2)
    assert (await phone.expect("reject", id=2))["reason"] == "busy"
    # Another player is not held back by Ann's hint: the queue has room for theirs.
    bob = await slow_player(pool_server.ws_url, "bob")
    await ask_hint(bob, 1)
    # Each works through the fast solver's whole budget (about 2 CPU-s), one after the
    # other in the one process: on a machine busy with other work, well past 15 s.
    assert (await ann.expect("hint", id=1, timeout=90))["status"] == "unknown"
    assert (await bob.expect("hint", id=1, timeout=90))["status"] == "unknown"
    assert bob.find("reject") is None
    await close_all(ann, phone, bob)


async def test_hints_are_right_and_a_dead_solver_process_is_replaced(
    pool_server: ServerProc,
) -> None:
    # A hint is the first action of a win: legal, and the game stays winnable after it.
    # When it says how many actions remain at best, that is the optimum from the board,
    # and the move is on a shortest line: one fewer remains after it.
    deal = load_pool(1)[0].deal
    dan, board = await certified_player(pool_server.ws_url, "dan", deal)
    for step in range(1, 6):
        await ask_hint(dan, 100 + step)
        answer = await dan.expect("hint", id=100 + step)
        assert answer["status"] == "move"
        if "remaining" in answer:
            assert answer["remaining"] == len(optimal_par(board, timeout=60).moves)
        board.play(parse_action(answer["move"]))  # the engine refuses an illegal action
        assert solve(board, timeout=30).result == "solved"
        if "remaining" in answer:
            best = optimal_par(board, timeout=60)
            assert best.optimal and len(best.moves) == answer["remaining"] - 1
        src, dst = answer["move"].split()
        await dan.send({"type": "move", "id": step, "src": src, "dst": dst})
        await dan.expect("ack", id=step)

    # The process working on a hint dies: that hint is refused busy, the next is answered.
    ann = await slow_player(pool_server.ws_url, "ann")
    workers = solver_processes(pool_server)
    assert len(workers) == 1, "the server should have one solver process"
    worker = workers[0]
    await ask_hint(ann, 1)
    worker.send_signal(signal.SIGKILL)
    lost = await ann.expect("reject", id=1)
    assert lost["reason"] == "busy" and "restarted" in lost["message"]
    assert ann.find("hint") is None
    # (Dan's position is on the line his hints named, answered without a search: Eve, on
    # another deal, needs the solver.)
    eve, board = await certified_player(pool_server.ws_url, "eve", load_pool(1)[1].deal)
    await ask_hint(eve, 200)
    answer = await eve.expect("hint", id=200)
    assert answer["status"] == "move"
    board.play(parse_action(answer["move"]))
    assert solve(board, timeout=30).result == "solved"
    [fresh] = solver_processes(pool_server)
    assert fresh.pid != worker.pid
    counted = metrics(pool_server)
    assert counted['seahaven_hints_total{outcome="failed"}'] >= 1
    assert counted["seahaven_solver_jobs"] == 0
    await close_all(dan, ann, eve)


@pytest.mark.slow
async def test_a_ping_is_answered_while_a_burst_of_hints_is_worked_out(
    hint_server: ServerProc,
) -> None:
    # The case: one socket sends 12 hints at once on a position that takes the
    # solver its whole budget; another socket pings, each ping after the last one's pong.
    ann = await slow_player(hint_server.ws_url, "ann")
    eve = await WsClient.connect(hint_server.ws_url, "eve")
    for i in range(1, 13):
        await ann.send({"type": "hint", "id": i})
    for _ in range(20):
        await eve.send({"type": "ping"})
        await eve.expect("pong")
    # Twenty round trips went by before the first hint came: the solver did not hold up
    # the server's event loop.
    assert ann.find("hint") is None
    # The fast solver gives up on this table after its budget of tables (about 2 CPU-s),
    # which under the idle policy on a machine busy with other work comes late.
    assert (await ann.expect("hint", id=1, timeout=90))["status"] == "unknown"
    refused = [m for m in ann.messages if m["type"] == "reject"]
    assert sorted(m["id"] for m in refused) == list(range(2, 13))
    assert {m["reason"] for m in refused} == {"busy"}
    await close_all(ann, eve)
