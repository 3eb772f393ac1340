"""Arenas on real server processes, a real Redis and real sockets, the wiring end to end:
three players on two instances play a private arena of seconds to its end, race after race,
back to the pool after each; the points, the fire, the pledge (kept and broken), a race
running at the arena's end that finishes and counts, the standings pushed at most once a
second to a watcher, the podium, and the table of ``GET /api/arena/ID`` equal to the one
recomputed from the races Redis recorded. A race that counts and frees its racers at once
while the review of its finishers cannot run (the solver process stopped), and the last
race ended by the arena's own rule so that the podium still comes. Refusals through the
sockets and HTTP; an arena's race on the Watch list. The arena's decisions one by one,
without a server: test_arena_life.py."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
import redis.asyncio as aioredis

from server.store.keys import Keys
from tests.helpers.arenas import (
    ARGS,
    line_of,
    next_race,
    play,
    private_arena,
    race_over,
    recomputed,
)
from tests.helpers.quick_race import action
from tests.helpers.serverproc import (
    REVIEW_OFF,
    ServerProc,
    WsClient,
    redis_url,
    running_server,
)
from tests.helpers.solver_procs import paused_solver, solver_processes
from tests.helpers.waits import API_STEP, until

#: The grace after an arena's end for its last races, here (ms).
GRACE_MS = 2_000


def _without(args: list[str], block: list[str]) -> list[str]:
    """``args`` with the run of ``block`` in it taken out."""
    at = next(i for i in range(len(args)) if args[i : i + len(block)] == block)
    return args[:at] + args[at + len(block) :]


#: The arena's settings with the review of finishes on (its pace checks off, so that a
#: scripted finish is scored by its line alone, against the solver's reference).
REVIEW_ON = [
    *_without(ARGS, REVIEW_OFF),
    *("--pace-read-ms", "0", "--pace-game-ms", "0", "--pace-decision-ms", "0"),
    *("--pace-bursts", ""),
]


@pytest.fixture
def pair(key_prefix: str) -> Iterator[tuple[ServerProc, ServerProc]]:
    """Two instances on one Redis under the test's prefix."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    with (
        running_server(redis_url(), args=ARGS, env=env) as one,
        running_server(redis_url(), args=ARGS, env=env) as two,
    ):
        yield one, two


@pytest.fixture
def stopped_solver(key_prefix: str) -> Iterator[ServerProc]:
    """An arena server, reviews on, one solver process, and that process stopped
    (SIGSTOP): a review waits for it for as long as the test runs, as on a host too busy
    to give an idle-priority solver any CPU. It goes on again at the end."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*REVIEW_ON, "--solver-workers", "1", "--arena-grace-ms", str(GRACE_MS)]
    with running_server(redis_url(), args=args, env=env) as srv, paused_solver(srv):
        yield srv


def table_of(srv: ServerProc, arena: str) -> dict[str, Any]:
    """``GET /api/arena/ID``."""
    status, table = srv.get_json(f"/api/arena/{arena}")
    assert status == 200, table
    assert isinstance(table, dict)
    return table


@pytest.mark.slow
async def test_three_players_on_two_instances_play_an_arena_to_its_podium(
    pair: tuple[ServerProc, ServerProc], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    one, two = pair
    ann = await WsClient.connect(one.ws_url, "Ann")
    bob = await WsClient.connect(two.ws_url, "Bob")
    cy = await WsClient.connect(one.ws_url, "Cy")
    dee = await WsClient.connect(two.ws_url, "Dee")  # watches only
    racers = [ann, bob, cy]

    await ann.send({"type": "create_arena", "cells": 4, "minutes": 30, "starts_in_s": 3})
    made = await ann.expect("arena")
    loop = asyncio.get_running_loop()
    t0 = loop.time()

    def elapsed() -> float:
        return loop.time() - t0

    arena = made["arena"]["arena_id"]
    assert made["invite"] == f"/#/arena/{arena}" and made["arena"]["private"]
    assert made["arena"]["phase"] == "soon" and made["seat"] == "pool"
    ends_at = made["arena"]["ends_at"]
    for c in (bob, cy):
        await c.send({"type": "arena_join", "arena": arena})
        assert (await c.expect("arena"))["arena"]["arena_id"] == arena
    await dee.send({"type": "arena_watch", "arena": arena})
    assert (await dee.expect("arena"))["seat"] == "out"
    # A private arena is listed nowhere.
    status, listed = one.get_json("/api/arenas")
    assert status == 200 and arena not in json.dumps(listed)

    # A player of an arena is in no quick race and no second arena at once.
    await bob.send({"type": "queue", "cells": 4})
    assert (await bob.expect("error"))["code"] == "in_arena"
    await bob.send({"type": "arena_join", "arena": arena})
    assert (await bob.expect("error"))["code"] == "already_in_arena"

    # Race 1: Ann wins with her pledge kept (3 + 1), Bob second (1), Cy gives up (0).
    code = await next_race(racers, pledgers=(ann,))
    line = await line_of(code)
    await play(ann, line)
    await play(bob, line)
    await cy.send({"type": "give_up"})
    await race_over(racers, ann)

    # Race 2: Ann wins again (3): two wins in a row, she is on fire.
    code = await next_race(racers)
    line = await line_of(code)
    await play(ann, line)
    await play(bob, line)
    await cy.send({"type": "give_up"})
    await race_over(racers, ann)

    # Race 3: on fire, Ann pledges but takes a move back: 3 x 2, no extra point.
    code = await next_race(racers, pledgers=(ann,))
    line = await line_of(code)
    await ann.send(action(line[0], 0))
    await ann.expect("ack", id=0)
    await ann.send({"type": "undo", "id": 1})
    await ann.expect("ack", id=1)
    await play(ann, line, first_id=2)
    await play(bob, line)
    await cy.send({"type": "give_up"})
    await race_over(racers, ann)

    # Race 4 runs past the arena's end: it finishes and counts. Bob wins it (3); Ann,
    # second on fire, gets 1 x 2 and her fire goes out.
    code = await next_race(racers)
    line = await line_of(code)
    # Wait for the arena's end (by the server's clock, as the arena message gave it).
    await asyncio.sleep(max(0.0, (ends_at - made["now"]) / 1000 - elapsed()) + 0.5)
    await play(bob, line)
    await play(ann, line)
    await cy.send({"type": "give_up"})

    expected = [(ann.player_id, 15, 0, 4), (bob.player_id, 6, 1, 4), (cy.player_id, 0, 0, 4)]
    for c in (*racers, dee):
        over = await c.expect("arena_over", timeout=20)
        assert [(x["player_id"], x["points"]) for x in over["podium"]] == [
            (p, pts)
            for p, pts, _s, _r in expected
            if pts  # no podium without a point
        ]
    for c in racers:
        assert (await c.expect("arena_left", timeout=5))["reason"] == "over"

    # The table of the API, the one recomputed from Redis's records, and the expected one.
    status, table = one.get_json(f"/api/arena/{arena}")
    assert status == 200 and table["arena"]["phase"] == "over" and table["races"] == 4
    api = [(x["player_id"], x["points"], x["streak"], x["races"]) for x in table["standings"]]
    raw = await redis_client.lrange(Keys(key_prefix).arena_results(arena), 0, -1)
    records = [json.loads(x) for x in raw]
    assert api == recomputed(records) == expected
    assert [x["player_id"] for x in table["podium"]] == [p for p, pts, *_ in expected if pts]
    pledges = {(r["race"], x["pid"]): x for r in records for x in r["racers"] if x["pledged"]}
    assert sorted((x["kept"]) for x in pledges.values()) == [False, True]
    assert table["standings"][0]["fire"] is False and table["standings"][1]["streak"] == 1
    # The Watch page's read, the first lines only; a count out of bounds is refused.
    status, first = two.get_json(f"/api/arena/{arena}?top=2")
    assert status == 200 and first["standings"] == table["standings"][:2] and first["races"] == 4
    for bad in ("0", "1001", "x"):
        status, refused = one.get_json(f"/api/arena/{arena}?top={bad}")
        assert status == 400 and refused["error"] == "bad_top"

    # The watcher's pushes: never two within a second (server time), the last one final.
    pushes = [m for m in dee.messages if m["type"] == "arena_standings"]
    assert len(pushes) >= 3
    for a, b in itertools.pairwise(pushes[1:]):  # the first answers the watch
        assert b["now"] - a["now"] >= 900, (a["now"], b["now"])
    assert [(x["player_id"], x["points"]) for x in pushes[-1]["top"]] == [
        (p, pts) for p, pts, _s, _r in expected
    ]
    # The player page names no arena once it is over; joining an arena that is over fails.
    status, page = two.get_json(f"/api/player/{ann.player_id}")
    assert status == 200 and page["arena"] is None
    await dee.send({"type": "arena_join", "arena": arena})
    assert (await dee.expect("error"))["code"] == "arena_over"
    for c in (*racers, dee):
        await c.close()


async def test_bad_arena_requests_are_refused(
    pair: tuple[ServerProc, ServerProc], key_prefix: str, redis_client: aioredis.Redis
) -> None:
    one, two = pair
    ann = await WsClient.connect(one.ws_url, "Ann")
    await ann.send({"type": "arena_join", "arena": "ANOSUCHONE"})
    assert (await ann.expect("error"))["code"] == "arena_not_found"
    await ann.send({"type": "arena_leave"})
    assert (await ann.expect("error"))["code"] == "not_in_arena"
    await ann.send({"type": "arena_pledge"})
    assert (await ann.expect("error"))["code"] == "no_pledge"
    await ann.send({"type": "arena_join", "arena": "../../x"})
    assert (await ann.expect("error"))["code"] == "invalid_message"
    status, _ = one.get_json("/api/arena/ANOSUCHONE")
    assert status == 404
    # One private arena at a time per player, whichever instance it asks (the limits
    # themselves: test_arena_life.py).
    await ann.send({"type": "create_arena", "cells": 1, "minutes": 5, "starts_in_s": 60})
    arena = (await ann.expect("arena"))["arena"]["arena_id"]
    await ann.send({"type": "arena_leave"})
    await ann.expect("arena_left", reason="asked")
    again = await WsClient.connect(two.ws_url, "Ann", token=ann.token)
    await again.send({"type": "create_arena", "cells": 1, "minutes": 5, "starts_in_s": 60})
    assert (await again.expect("error"))["code"] == "arena_limit"
    await again.close()
    # Queued for a quick race: no arena; in an arena: entering a room leaves it.
    await ann.send({"type": "queue", "cells": 4})
    await ann.expect("queued")
    await ann.send({"type": "arena_join", "arena": arena})
    assert (await ann.expect("error"))["code"] == "already_queued"
    await ann.send({"type": "unqueue"})
    await ann.expect("unqueued")
    await ann.send({"type": "arena_join", "arena": arena})
    await ann.expect("arena")
    await ann.send({"type": "create_room", "cells": 4})
    await ann.expect("arena_left", reason="room")
    await ann.expect("snapshot")
    await ann.close()


async def test_an_arena_race_is_listed_with_its_arenas_length(
    pair: tuple[ServerProc, ServerProc],
) -> None:
    # Watch names an arena's race by its arena (so a watcher knows it): ``GET
    # /api/rooms/live`` gives each arena race its arena's id and length, as the arena's page
    # titles it; any other room has neither. Nothing more of the arena.
    server, _two = pair
    ann = await WsClient.connect(server.ws_url, "Ann")
    bob = await WsClient.connect(server.ws_url, "Bob")
    arena = await private_arena(ann, [bob], minutes=25)
    await next_race([ann, bob])
    # A public room that is no arena's race, in the list beside it.
    cy = await WsClient.connect(server.ws_url, "Cy")
    await cy.send({"type": "create_room", "cells": 2, "public": True})
    other = (await cy.expect("snapshot"))["room_id"]

    def both() -> list[dict[str, Any]] | None:
        status, body = server.get_json("/api/rooms/live")
        assert status == 200
        rooms = list(body["rooms"])
        return rooms if len(rooms) == 2 else None

    rooms = await until(both, step=API_STEP)
    race = next(r for r in rooms if r["room_id"] != other)
    assert race["arena"] == arena and race["arena_minutes"] == 25
    assert race["cells"] == 4
    plain = next(r for r in rooms if r["room_id"] == other)
    assert plain["arena"] is None and plain["arena_minutes"] is None
    assert not {"standings", "pool", "code", "players"} & set(race)
    for c in (ann, bob, cy):
        await c.close()


@pytest.mark.slow
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
    stopped = [psutil.Process(pid).status() for pid in solver_processes(srv)]
    assert stopped and all(s == psutil.STATUS_STOPPED for s in stopped), stopped

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
