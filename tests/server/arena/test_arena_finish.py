"""Arenas that finish and explain, on real server processes, a real Redis and real sockets:
a race is recorded and its racers are back in the pool at once, while the review of its
finishers cannot run (the solver process stopped); the last race ends by the arena's own
rule (its grace after the end), so the podium comes with a racer who never moves; a racer
whose socket was replaced mid-race joins again into their own race; a household's racers
are told why their races score nothing."""

from __future__ import annotations

import functools
import signal
from collections.abc import AsyncIterator, Iterator
from typing import Any

import psutil
import pytest

from tests.helpers.arenas import ARGS, line_of, next_race, play, private_arena
from tests.helpers.serverproc import (
    REVIEW_OFF,
    ServerProc,
    WsClient,
    redis_url,
    running_server,
)
from tests.helpers.waits import API_STEP, until

pytestmark = pytest.mark.slow  # arenas of seconds, played to their end

#: The grace after an arena's end for its last races, here (ms).
GRACE_MS = 2_000


#: The arena's settings with the review of finishes on (its pace checks off, so that a
#: scripted finish is scored by its line alone, against the solver's reference).
def _without(args: list[str], block: list[str]) -> list[str]:
    """``args`` with the run of ``block`` in it taken out."""
    at = next(i for i in range(len(args)) if args[i : i + len(block)] == block)
    return args[:at] + args[at + len(block) :]


REVIEW_ON = [
    *_without(ARGS, REVIEW_OFF),
    *("--pace-read-ms", "0", "--pace-game-ms", "0", "--pace-decision-ms", "0"),
    *("--pace-bursts", ""),
]


@pytest.fixture
def stalled_server(key_prefix: str) -> Iterator[ServerProc]:
    """An arena server whose last races get 2 s past the arena's end."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*ARGS, "--arena-grace-ms", str(GRACE_MS)]
    with running_server(redis_url(), args=args, env=env) as srv:
        yield srv


@pytest.fixture
async def stopped_solver(key_prefix: str) -> AsyncIterator[ServerProc]:
    """An arena server, reviews on, one solver process, and that process stopped
    (SIGSTOP): a review waits for it for as long as the test runs, as on a host too busy
    to give an idle-priority solver any CPU. It goes on again at the end."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*REVIEW_ON, "--solver-workers", "1", "--arena-grace-ms", str(GRACE_MS)]
    with running_server(redis_url(), args=args, env=env) as srv:
        workers = solver_processes(srv)
        assert workers, "the server should have a solver process"
        for worker in workers:
            worker.send_signal(signal.SIGSTOP)
        try:
            yield srv
        finally:
            for worker in workers:
                worker.send_signal(signal.SIGCONT)


def solver_processes(srv: ServerProc) -> list[psutil.Process]:
    """The server's live solver processes."""
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


def table_of(srv: ServerProc, arena: str) -> dict[str, Any]:
    """``GET /api/arena/ID``."""
    status, table = srv.get_json(f"/api/arena/{arena}")
    assert status == 200, table
    assert isinstance(table, dict)
    return table


async def test_a_race_counts_and_frees_its_racers_while_its_review_cannot_run(
    stopped_solver: ServerProc,
) -> None:
    srv = stopped_solver
    ann = await WsClient.connect(srv.ws_url, "Ann")
    bob = await WsClient.connect(srv.ws_url, "Bob")
    arena = await private_arena(ann, [bob], minutes=25)

    # Race 1: Ann wins, Bob gives up. Its review would need the stopped solver.
    code = await next_race([ann, bob])
    await play(ann, await line_of(code))
    await bob.send({"type": "give_up"})
    for c in (ann, bob):
        await c.expect("race_over", timeout=15)
    # Back in the pool at once, and the race counted as it stands.
    for c in (ann, bob):
        await c.expect("arena", seat="pool", timeout=15)
    table = table_of(srv, arena)
    assert table["races"] == 1
    lines = {x["player_id"]: x["points"] for x in table["standings"]}
    assert lines == {ann.player_id: 2, bob.player_id: 0}
    # Still undecided: the solver has not run.
    assert all(p.status() == psutil.STATUS_STOPPED for p in solver_processes(srv))

    # They are paired into the next race; nobody moves in it. The arena's end, then its
    # grace: the race is ended by the arena's rule and the podium comes, the review still
    # waiting.
    await next_race([ann, bob])
    for c in (ann, bob):
        over = await c.expect("arena_over", timeout=60)
        assert [(x["player_id"], x["points"]) for x in over["podium"]] == [(ann.player_id, 2)]
    assert table_of(srv, arena)["arena"]["phase"] == "over"
    for c in (ann, bob):
        await c.close()


async def test_a_racer_who_never_moves_does_not_hold_the_podium(
    stalled_server: ServerProc,
) -> None:
    srv = stalled_server
    ann = await WsClient.connect(srv.ws_url, "Ann")
    bob = await WsClient.connect(srv.ws_url, "Bob")
    arena = await private_arena(ann, [bob], minutes=8)
    made = next(m for m in ann.messages if m["type"] == "arena")["arena"]
    assert made["closes_at"] == made["ends_at"] + GRACE_MS  # the rule, told to the page

    # Ann finishes; Bob never moves (the race's own limit is minutes away).
    code = await next_race([ann, bob])
    await play(ann, await line_of(code))
    over = await ann.expect("arena_over", timeout=60)
    assert [(x["player_id"], x["points"]) for x in over["podium"]] == [(ann.player_id, 2)]
    race_over = await bob.expect("race_over", timeout=5)
    places = {r["player_id"]: r["status"] for r in race_over["results"]}
    assert places == {ann.player_id: "finished", bob.player_id: "gave_up"}
    await bob.expect("arena_over", timeout=5)
    table = table_of(srv, arena)
    assert table["races"] == 1 and table["arena"]["phase"] == "over"
    for c in (ann, bob):
        await c.close()


async def test_a_racer_whose_socket_was_replaced_joins_again_into_their_race(
    stalled_server: ServerProc,
) -> None:
    srv = stalled_server
    ann = await WsClient.connect(srv.ws_url, "Ann")
    bob = await WsClient.connect(srv.ws_url, "Bob")
    arena = await private_arena(ann, [bob], minutes=40)
    code = await next_race([ann, bob])
    room = next(m for m in bob.messages if m["type"] == "snapshot")["room_id"]
    # Bob's page reloads mid-race: a new socket resumes the race, then joins the arena again
    # (what the page does on its welcome).
    await bob.close()
    again = await WsClient.connect(srv.ws_url)
    await again.send({"type": "resume", "room": room, "token": bob.token, "last_seq": 0})
    await again.expect("started")  # the events it missed, replayed
    await again.send({"type": "arena_join", "arena": arena})
    seat = await again.expect("arena")
    assert (seat["seat"], seat["room"]) == ("racing", room)
    assert again.find("error") is None
    # The race ends: Bob is back in the pool from it, then in the next race with Ann.
    await play(ann, await line_of(code))
    await again.send({"type": "give_up"})
    await again.expect("arena", seat="pool", timeout=15)
    snaps = [await c.expect("snapshot", timeout=15, state="lobby") for c in (ann, again)]
    assert snaps[0]["room_id"] == snaps[1]["room_id"] != room
    for c in (ann, again):
        await c.close()


async def test_a_household_is_told_why_its_races_score_nothing(
    stalled_server: ServerProc,
) -> None:
    srv = stalled_server
    home = {"X-Forwarded-For": "198.18.250.7"}
    mum = await WsClient.connect(srv.ws_url, "Mum", additional_headers=home)
    kid = await WsClient.connect(srv.ws_url, "Kid", additional_headers=home)
    arena = await private_arena(mum, [kid], minutes=40)
    code = await next_race([mum, kid])
    assert next(m for m in mum.messages if m["type"] == "snapshot").get("household") is True
    await play(mum, await line_of(code))
    await kid.send({"type": "give_up"})
    for c in (mum, kid):
        await c.expect("arena", seat="pool", timeout=15)

    def told(client: WsClient) -> dict[str, Any] | None:
        pushes = [m for m in client.messages if m["type"] == "arena_standings"]
        you = pushes[-1]["you"] if pushes else None
        return you if you and you.get("household") == 1 else None

    for c in (mum, kid):
        you: dict[str, Any] = await until(functools.partial(told, c), timeout=15, step=API_STEP)
        assert you["points"] == 0 and you["races"] == 1
    # The public table says nothing of it: only each racer hears of their own races.
    lines: list[dict[str, Any]] = table_of(srv, arena)["standings"]
    assert all("household" not in x for x in lines)
    for c in (mum, kid):
        await c.close()
