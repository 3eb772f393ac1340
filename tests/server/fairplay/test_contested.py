"""Contested results only, through a real server and real sockets from several loopback
addresses (127.0.0.x, each a network of its own; no proxy header):

- the puppet pattern: a fresh identity races quick races against three fresh identities of
  three other addresses that each make 14 moves and give up; the race rates nobody against
  them (the farmer's line says ``uncontested``, the puppets lose), and the farmer stays
  provisional, off ``/api/ratings`` and off the featured race, where the old rule (two
  rated races here) listed them;
- a rival who played a real share of the race and stayed rates as before;
- in an arena, the same puppets hand the farmer no point, no fire and no podium;
- contesting is progress, not actions: puppets that alternate a move and its undo 15 times,
  then act once just after the farmer's finish, contest nothing (no rating, no arena point),
  and a rival who made real progress (new tables, cards home) through the race contests;
- a win over the same rival again and again pays less (arena points), a rival's first win
  in full.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from server.settings import Settings
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import FAST, REVIEW_OFF_ENV, WsClient

#: The contest rule as shipped (its defaults; the test flags turn it off), the old bar of
#: games low enough that two races would have established the farmer, the rivals' bar on.
RULE = [
    *("--contest-min-tables", "20", "--contest-min-home", "8", "--contest-min-s", "60"),
    *("--provisional-games", "2", "--established-rivals", "3", "--rated-pair-window-s", "0"),
    *("--pair-fourth-ms", "300", "--bot-offer-ms", "600000"),
    *("--arenas", "", "--arena-minute-ms", "1000", "--arena-pair-ms", "300"),
]
#: The actions a racer plays at least to be rated at all (the server's default).
MIN_ACTIONS = Settings.model_fields["rated_min_actions"].default
#: The farmer's address and the puppets' (one each), and a household's.
FARMER, PUPPETS = "127.0.0.2", ("127.0.0.3", "127.0.0.4", "127.0.0.5")


@pytest.fixture
async def srv(key_prefix: str) -> AsyncIterator[Served]:
    """One instance under the test's prefix, the review off (scripted lines), the rule on."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix, **REVIEW_OFF_ENV}
    async with serving(settings([*FAST, *RULE], env)) as one:
        yield one


async def from_address(url: str, name: str, address: str) -> WsClient:
    """A client whose socket comes from ``address`` (a loopback address of its own)."""
    client = await WsClient.connect(url, name, additional_headers={}, local_addr=(address, 0))
    client.address = address
    return client


def line_of(code: str) -> list[str]:
    """The solver's winning line of ``code``."""
    found = solve(Board.from_code(code), timeout=20).moves
    assert found, code
    return list(found)


def action(text: str, action_id: int) -> dict[str, Any]:
    """The protocol message of a line's action."""
    parsed = parse_action(text)
    assert isinstance(parsed, Move)
    return {"type": "move", "id": action_id, "src": str(parsed.src), "dst": str(parsed.dst)}


async def play(client: WsClient, line: list[str], first: int = 0) -> None:
    """Play ``line`` (ids from ``first``), each action acknowledged."""
    for i, text in enumerate(line):
        await client.send(action(text, first + i))
        await client.expect("ack", id=first + i, timeout=10)


def short_of_home(line: list[str]) -> list[str]:
    """The longest start of ``line`` that sends fewer cards home than the rule's
    ``contest_min_home`` (8): on some deals the solver's first 14 moves send 8 home, and a
    puppet that does so has contested the race by the rule (it is then no puppet)."""
    home = 0
    for i, text in enumerate(line):
        parsed = parse_action(text)
        home += isinstance(parsed, Move) and str(parsed.dst).startswith("found")
        if home >= 8:
            return line[:i]
    return line


async def puppet_play(puppet: WsClient, line: list[str]) -> None:
    """Up to 14 moves of ``line``, fewer than the rule's cards home, then a move taken back
    and made again until the puppet has played the rated minimum of actions (10): one who
    played fewer keeps their rating by another rule (``too_few_actions``), and on a deal
    whose first moves send 8 cards home a puppet would stop at 9."""
    moves = short_of_home(line[:14])
    await play(puppet, moves)
    done = len(moves)
    while done < MIN_ACTIONS:  # a move and its undo reach no new table
        await puppet.send({"type": "undo", "id": done})
        await puppet.expect("ack", id=done, timeout=10)
        await play(puppet, moves[-1:], first=done + 1)
        done += 2


async def puppet_race(
    farmer: WsClient, puppets: list[WsClient], started: list[dict[str, Any]]
) -> None:
    """The puppets make their moves (:func:`puppet_play`) and give up; the farmer plays
    the line to the win."""
    code = str(started[0]["code"])
    line = await asyncio.to_thread(line_of, code)
    for p in puppets:
        await puppet_play(p, line)
        await p.send({"type": "give_up"})
    await play(farmer, line)
    await farmer.expect("finished", player_id=farmer.player_id, timeout=10)


async def test_puppets_that_give_up_early_make_nobody_a_champion_in_the_quick_race(
    srv: Served,
) -> None:
    farmer = await from_address(srv.ws_url, "Farmer", FARMER)
    puppets = [await from_address(srv.ws_url, f"Pup{i}", a) for i, a in enumerate(PUPPETS)]
    everyone = [farmer, *puppets]
    for _ in range(3):
        for c in everyone:
            await c.send({"type": "queue", "cells": 4})
            assert (await c.expect("queued"))["provisional"] is True
        snaps = [await c.expect("snapshot", timeout=10) for c in everyone]
        assert len({s["room_id"] for s in snaps}) == 1
        assert not any(s.get("household") for s in snaps)  # four addresses
        started = [await c.expect("started", timeout=10) for c in everyone]
        # Meanwhile the race runs, it is never featured: its racers are provisional.
        _status, live = await srv.get("/api/rooms/live")
        assert live["featured"] is None
        await puppet_race(farmer, puppets, started)
        ratings = await farmer.expect("ratings", timeout=30)
        lines = {x["player_id"]: x for x in ratings["changes"]}
        assert lines[farmer.player_id]["unrated_reason"] == "uncontested"
        assert lines[farmer.player_id]["change"] == 0
        for p in puppets:  # giving up early is no way out of a loss
            assert lines[p.player_id]["unrated_reason"] is None
            assert lines[p.player_id]["change"] <= 0
        for c in everyone:
            await c.expect("race_over", timeout=10)
            await c.send({"type": "leave"})
            await c.expect("left")
    status, top = await srv.get("/api/ratings?cells=4&limit=10")
    assert status == 200 and top["players"] == []
    _status, profile = await srv.get(f"/api/player/{farmer.player_id}")
    assert "4" not in profile["ratings"]  # never rated: nothing bought
    await farmer.send({"type": "queue", "cells": 4})
    assert (await farmer.expect("queued"))["provisional"] is True
    for c in everyone:
        await c.close()


async def test_a_rival_who_played_a_real_share_of_the_race_is_rated_against(
    srv: Served,
) -> None:
    ann = await from_address(srv.ws_url, "Ann", FARMER)
    bob = await from_address(srv.ws_url, "Bob", PUPPETS[0])
    for c in (ann, bob):
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    for c in (ann, bob):
        await c.expect("snapshot", timeout=10)
    started = [await c.expect("started", timeout=10) for c in (ann, bob)]
    line = await asyncio.to_thread(line_of, str(started[0]["code"]))
    # Bob plays on past a minute of the race (his last action counts, not his give-up:
    # one who idles and gives up late was absent), then gives up.
    await play(bob, line[:15])
    srv.clock.advance(61_000)
    await play(bob, line[15:30], first=15)
    await bob.send({"type": "give_up"})
    await play(ann, line)
    lines = {x["player_id"]: x for x in (await ann.expect("ratings", timeout=30))["changes"]}
    assert lines[ann.player_id]["unrated_reason"] is None
    assert lines[ann.player_id]["change"] > 0
    assert lines[bob.player_id]["change"] < 0
    # Both provisional: the change is a quarter of the model's (provisional_weight).
    assert lines[ann.player_id]["provisional"] is True
    for c in (ann, bob):
        await c.close()


async def arena_race(srv: Served, farmer: WsClient, puppets: list[WsClient]) -> None:
    """One arena race of the farmer and the puppets, the puppets giving up early."""
    everyone = [farmer, *puppets]
    snaps = [await c.expect("snapshot", timeout=15) for c in everyone]
    assert len({s["room_id"] for s in snaps}) == 1
    started = [await c.expect("started", timeout=10) for c in everyone]
    await puppet_race(farmer, puppets, started)
    for c in everyone:
        await c.expect("race_over", timeout=10)
    for c in everyone:
        await c.expect("arena", seat="pool", timeout=10)


async def test_puppets_hand_an_arena_farmer_no_point_no_fire_and_no_podium(
    srv: Served,
) -> None:
    farmer = await from_address(srv.ws_url, "Farmer", FARMER)
    puppets = [await from_address(srv.ws_url, f"Pup{i}", a) for i, a in enumerate(PUPPETS)]
    await farmer.send({"type": "create_arena", "cells": 4, "minutes": 40, "starts_in_s": 1})
    arena = str((await farmer.expect("arena"))["arena"]["arena_id"])
    for p in puppets:
        await p.send({"type": "arena_join", "arena": arena})
        await p.expect("arena")
    for _ in range(3):
        await arena_race(srv, farmer, puppets)

    # Each race is recorded before its racers are back in the pool (arena_race waited
    # for that): a race against nobody counts as no race at all.
    _status, body = await srv.get(f"/api/arena/{arena}")
    line = next((x for x in body["standings"] if x["player_id"] == farmer.player_id), None)
    assert line is None or (line["points"], line["fire"], line["wins"]) == (0, False, 0)
    assert all(x["points"] == 0 for x in body["standings"])
    # Its end, in the middle of a fourth race (the four are paired again at once), which
    # everyone gives up: nobody scored, so nobody is on the podium.
    for c in (farmer, *puppets):
        await c.expect("started", timeout=15)
    srv.clock.advance(40 * 1000)
    for c in (farmer, *puppets):
        await c.send({"type": "give_up"})
    over = await farmer.expect("arena_over", timeout=15)
    assert over["podium"] == []
    for c in (farmer, *puppets):
        await c.close()


async def shuffle(client: WsClient, move: str, times: int = 15) -> int:
    """A move and its undo, ``times`` times: the next action id."""
    for i in range(times):
        await client.send(action(move, 2 * i))
        await client.expect("ack", id=2 * i, timeout=10)
        await client.send({"type": "undo", "id": 2 * i + 1})
        await client.expect("ack", id=2 * i + 1, timeout=10)
    return 2 * times


async def shuffled_race(srv: Served, farmer: WsClient, puppets: list[WsClient]) -> None:
    """The issue's pattern: the puppets shuffle a move and its undo 15 times through more
    than a minute of the race, the farmer wins, each puppet acts once just after the
    finish, then gives up."""
    everyone = [farmer, *puppets]
    snaps = [await c.expect("snapshot", timeout=15) for c in everyone]
    assert len({s["room_id"] for s in snaps}) == 1
    started = [await c.expect("started", timeout=10) for c in everyone]
    line = await asyncio.to_thread(line_of, str(started[0]["code"]))
    ids = {}
    for p in puppets:
        ids[p.player_id] = await shuffle(p, line[0])
    srv.clock.advance(61_000)  # past a minute: the old rule's bar of time
    await play(farmer, line)
    await farmer.expect("finished", player_id=farmer.player_id, timeout=10)
    for p in puppets:
        await play(p, line[:1], first=ids[p.player_id])
        await p.send({"type": "give_up"})


async def test_move_undo_puppets_contest_nothing_in_a_rated_race(srv: Served) -> None:
    farmer = await from_address(srv.ws_url, "Farmer", FARMER)
    puppets = [await from_address(srv.ws_url, f"Pup{i}", a) for i, a in enumerate(PUPPETS)]
    for c in (farmer, *puppets):
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    await shuffled_race(srv, farmer, puppets)
    lines = {x["player_id"]: x for x in (await farmer.expect("ratings", timeout=30))["changes"]}
    # 31 actions each, the last past the finish: no progress, so no rival.
    assert lines[farmer.player_id]["unrated_reason"] == "uncontested"
    assert lines[farmer.player_id]["change"] == 0
    _status, profile = await srv.get(f"/api/player/{farmer.player_id}")
    assert "4" not in profile["ratings"]
    for c in (farmer, *puppets):
        await c.close()


async def test_move_undo_puppets_hand_an_arena_farmer_no_point(srv: Served) -> None:
    farmer = await from_address(srv.ws_url, "Farmer", FARMER)
    puppets = [await from_address(srv.ws_url, f"Pup{i}", a) for i, a in enumerate(PUPPETS)]
    await farmer.send({"type": "create_arena", "cells": 4, "minutes": 180, "starts_in_s": 1})
    arena = str((await farmer.expect("arena"))["arena"]["arena_id"])
    for p in puppets:
        await p.send({"type": "arena_join", "arena": arena})
        await p.expect("arena")
    await shuffled_race(srv, farmer, puppets)
    for c in (farmer, *puppets):
        await c.expect("race_over", timeout=15)
        await c.expect("arena", seat="pool", timeout=15)
    _status, body = await srv.get(f"/api/arena/{arena}")
    assert body["races"] == 0  # a race against nobody is no race
    assert all(x["points"] == 0 and x["wins"] == 0 for x in body["standings"])
    for c in (farmer, *puppets):
        await c.close()


async def test_a_rival_who_made_progress_through_the_race_contests(srv: Served) -> None:
    ann = await from_address(srv.ws_url, "Ann", FARMER)
    bob = await from_address(srv.ws_url, "Bob", PUPPETS[0])
    for c in (ann, bob):
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    for c in (ann, bob):
        await c.expect("snapshot", timeout=10)
    started = [await c.expect("started", timeout=10) for c in (ann, bob)]
    line = await asyncio.to_thread(line_of, str(started[0]["code"]))
    # Bob plays 25 moves of a real line (fewer than 30 actions), the last of them well past
    # half of Ann's race, then gives up once she has won.
    await play(bob, line[:12])
    srv.clock.advance(30_000)
    await play(bob, line[12:25], first=12)
    await play(ann, line)
    await ann.expect("finished", player_id=ann.player_id, timeout=10)
    await bob.send({"type": "give_up"})
    lines = {x["player_id"]: x for x in (await ann.expect("ratings", timeout=30))["changes"]}
    assert lines[ann.player_id]["unrated_reason"] is None
    assert lines[ann.player_id]["change"] > 0
    assert lines[bob.player_id]["unrated_reason"] is None
    assert lines[bob.player_id]["change"] < 0
    for c in (ann, bob):
        await c.close()


async def two_finish(srv: Served, first: WsClient, second: WsClient) -> None:
    """One arena race of two: ``first`` wins, ``second`` finishes after (both contest)."""
    for c in (first, second):
        await c.expect("snapshot", timeout=15)
    started = [await c.expect("started", timeout=10) for c in (first, second)]
    line = await asyncio.to_thread(line_of, str(started[0]["code"]))
    await play(first, line)
    await first.expect("finished", player_id=first.player_id, timeout=10)
    await play(second, line)
    for c in (first, second):
        await c.expect("race_over", timeout=15)
        await c.expect("arena", seat="pool", timeout=15)


async def test_wins_over_the_same_rival_shrink_and_a_rivals_first_win_counts_in_full(
    srv: Served,
) -> None:
    ann = await from_address(srv.ws_url, "Ann", FARMER)
    bob = await from_address(srv.ws_url, "Bob", PUPPETS[0])
    await ann.send({"type": "create_arena", "cells": 4, "minutes": 180, "starts_in_s": 1})
    arena = str((await ann.expect("arena"))["arena"]["arena_id"])
    await bob.send({"type": "arena_join", "arena": arena})
    await bob.expect("arena")
    for _ in range(5):
        await two_finish(srv, ann, bob)
    _status, body = await srv.get(f"/api/arena/{arena}")
    mine = {x["player_id"]: x for x in body["standings"]}
    # 2, 2, then on fire 4; the 4th and 5th wins over Bob within the window are worth 3/4
    # and 3/5: 4 x 0.75 = 3, 4 x 0.6 = 2.4, so 2 (each win in full: 16).
    assert (mine[ann.player_id]["points"], mine[ann.player_id]["wins"]) == (13, 5)
    assert mine[ann.player_id]["fire"] is True
    # Bob's first win over Ann counts in full: 2 (and puts Ann's fire out).
    await two_finish(srv, bob, ann)
    _status, body = await srv.get(f"/api/arena/{arena}")
    mine = {x["player_id"]: x for x in body["standings"]}
    assert (mine[bob.player_id]["points"], mine[bob.player_id]["wins"]) == (2, 1)
    assert mine[ann.player_id]["points"] == 13 and mine[ann.player_id]["fire"] is False
    for c in (ann, bob):
        await c.close()
