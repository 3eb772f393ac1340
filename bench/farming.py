"""Puppet farming benchmark (issue 34): can a patient cheater buy a public rating or an
arena podium with puppets?

Starts one real ``seahaven serve`` of this checkout (on the machine's Redis, under a key
prefix of the run's own) and plays the attack through real sockets from several loopback
addresses, each a network of its own (127.0.0.2 the farmer, 127.0.0.3-5 the puppets; no
proxy header: the server sees the sockets' own addresses):

1. **puppets, quick race**: a fresh identity queues ``--races`` times (10), each time with
   three fresh identities (of the three puppet addresses) that each make 14 moves of the
   deal and give up; the farmer plays the solver's line to the win;
2. **puppets, arena**: the farmer makes a private arena of ``--arena-s`` seconds (an arena
   minute is a second here), the puppets join, and race after race the puppets give up
   after 14 moves while the farmer wins.

``--patient N`` adds N quick races against puppets that contest (31 moves, the last one 61
s into the race, then give up): rated against, but provisional rivals, so the farmer gains
a quarter of a win each time and never has an established rival.

Printed per class: races played, whether the farmer ends provisional, on ``/api/ratings``,
in a featured race, on the arena's podium, their rating / points, wins and fire. The
rating and contest rules are the server's defaults; the review is off (the farmer's
finishes are a script's, which the review would hold: what the rating rules refuse is
measured here, not what the review holds). ``--control`` runs the same attack with the
contest and established-rivals rules off, as a check that the benchmark sees a farmer.

``run_farming()`` returns one row per class (``class``, ``players``, ``held_or_flagged``,
``on_ratings``, ``on_podium``, ``target_met`` and the figures above) for
``bench/fairplay.py``'s table. Run: ``.venv/bin/python bench/farming.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from server.engine import Board, Move, parse_action  # noqa: E402
from server.engine.solver import solve  # noqa: E402
from tests.helpers.serverproc import (  # noqa: E402
    REVIEW_OFF_ENV,
    ServerProc,
    WsClient,
    redis_url,
    start_server,
)

#: Serve flags: scripted clients (generous rates), a short countdown and arena minute.
ARGS = [
    *("--countdown-ms", "200", "--rate", "500", "--burst", "500"),
    *("--board-rate-per-s", "500", "--board-burst", "500"),
    *("--identities-per-address", "100000", "--pair-fourth-ms", "300"),
    *("--bot-offer-ms", "600000", "--arenas", "", "--arena-minute-ms", "1000"),
    *("--arena-pair-ms", "300"),
]
FARMER, PUPPETS = "127.0.0.2", ("127.0.0.3", "127.0.0.4", "127.0.0.5")
#: ``--control``: the rules of issue 34 off (every racer contests, races alone establish):
#: the attack as it was, to show the benchmark sees a farmer when there is one.
RULES_OFF = [
    *("--contest-min-tables", "0", "--contest-min-home", "0", "--contest-min-s", "0"),
    *("--established-rivals", "0"),
]
#: Moves each puppet makes before it gives up (the issue's pattern).
PUPPET_MOVES = 14


async def open_client(url: str, name: str, address: str) -> WsClient:
    """A new identity on a socket from ``address``."""
    return await WsClient.connect(url, name, additional_headers={}, local_addr=(address, 0))


def line_of(code: str) -> list[str]:
    """The solver's winning line of a deal."""
    found = solve(Board.from_code(code), timeout=30).moves
    if not found:
        raise RuntimeError(f"no line for {code}")
    return list(found)


async def play(client: WsClient, line: list[str]) -> None:
    """Play ``line``, each action acknowledged."""
    await play_from(client, line, 0)


async def play_from(client: WsClient, line: list[str], first: int) -> None:
    """Play ``line`` with action ids from ``first``, each action acknowledged."""
    for i, text in enumerate(line, first):
        parsed = parse_action(text)
        assert isinstance(parsed, Move)
        await client.send({"type": "move", "id": i, "src": str(parsed.src), "dst": str(parsed.dst)})
        await client.expect("ack", id=i, timeout=15)


async def one_race(
    farmer: WsClient, puppets: list[WsClient], srv: ServerProc, patient: bool = False
) -> bool:
    """Everyone into one race: the puppets play 14 moves and give up, the farmer wins
    (``patient``: the puppets contest, 31 moves over 61 s, while the farmer waits to win).
    Whether the race was featured on ``/api/rooms/live`` while it ran."""
    everyone = [farmer, *puppets]
    for c in everyone:
        await c.expect("snapshot", timeout=20)
    started = [await c.expect("started", timeout=15) for c in everyone]
    line = await asyncio.to_thread(line_of, str(started[0]["code"]))
    _status, live = await asyncio.to_thread(srv.get_json, "/api/rooms/live")
    featured = live.get("featured") is not None
    if patient:
        for p in puppets:
            await play(p, line[:30])
        await asyncio.sleep(61)  # past --contest-min-s (60 s by default)
        for p in puppets:
            await play_from(p, line[30:31], 30)
            await p.send({"type": "give_up"})
    else:
        for p in puppets:
            await play(p, line[:PUPPET_MOVES])
            await p.send({"type": "give_up"})
    await play(farmer, line)
    for c in everyone:
        await c.expect("race_over", timeout=20)
    return featured


async def provisional_now(client: WsClient) -> bool:
    """What the quick race says of the player: provisional or not."""
    await client.send({"type": "queue", "cells": 4})
    queued = await client.expect("queued")
    await client.send({"type": "unqueue"})
    await client.expect("unqueued")
    return bool(queued["provisional"])


async def quick_race(srv: ServerProc, races: int, patient: bool = False) -> dict[str, Any]:
    """The puppet pattern in the quick race (``patient``: puppets that contest)."""
    farmer = await open_client(srv.ws_url, "Farmer", FARMER)
    featured = 0
    for n in range(races):
        # Fresh puppets each race (a pair's result counts once in 6 hours otherwise).
        puppets = [await open_client(srv.ws_url, f"Pup{n}{i}", a) for i, a in enumerate(PUPPETS)]
        for c in (farmer, *puppets):
            await c.send({"type": "queue", "cells": 4})
            await c.expect("queued")
        featured += await one_race(farmer, puppets, srv, patient)
        for c in (farmer, *puppets):
            await c.send({"type": "leave"})
            await c.expect("left")
        for c in puppets:
            await c.close()
    await asyncio.sleep(0.5)  # each player's update is applied after the event
    _status, top = await asyncio.to_thread(srv.get_json, "/api/ratings?cells=4&limit=100")
    listed = [p for p in top["players"] if p["player_id"] == farmer.player_id]
    _status, page = await asyncio.to_thread(srv.get_json, f"/api/player/{farmer.player_id}")
    rating = (page["ratings"].get("4") or {}).get("rating")
    provisional = await provisional_now(farmer)
    await farmer.close()
    on_ratings = bool(listed)
    return {
        "class": "patient puppets, quick race" if patient else "puppets, quick race",
        "players": 1,
        "races": races,
        "held_or_flagged": 0,
        "provisional": provisional,
        "on_ratings": on_ratings,
        "rank": listed[0]["rank"] if listed else None,
        "rating": rating,
        "featured": featured,
        "on_podium": False,
        "target_met": not on_ratings and provisional and featured == 0,
    }


async def arena(srv: ServerProc, seconds: int) -> dict[str, Any]:
    """The puppet pattern in a private arena of ``seconds`` (arena minutes)."""
    farmer = await open_client(srv.ws_url, "Farmer", FARMER)
    puppets = [await open_client(srv.ws_url, f"Pup{i}", a) for i, a in enumerate(PUPPETS)]
    await farmer.send({"type": "create_arena", "cells": 4, "minutes": seconds, "starts_in_s": 1})
    arena_id = str((await farmer.expect("arena"))["arena"]["arena_id"])
    for p in puppets:
        await p.send({"type": "arena_join", "arena": arena_id})
        await p.expect("arena")
    races = 0
    over: dict[str, Any] | None = None
    while over is None:
        await one_race(farmer, puppets, srv)
        races += 1
        for _ in range(200):  # back in the pool, or the arena is over
            over = farmer.find("arena_over")
            if over is not None or farmer.find("arena", seat="pool") is not None:
                break
            await asyncio.sleep(0.05)
    _status, table = await asyncio.to_thread(srv.get_json, f"/api/arena/{arena_id}")
    mine: dict[str, Any] = next(
        (x for x in table["standings"] if x["player_id"] == farmer.player_id), {}
    )
    on_podium = any(x["player_id"] == farmer.player_id for x in over["podium"])
    for c in (farmer, *puppets):
        await c.close()
    return {
        "class": "puppets, arena",
        "players": 1,
        "races": races,
        "held_or_flagged": 0,
        "on_ratings": False,
        "on_podium": on_podium,
        "points": mine.get("points"),
        "wins": mine.get("wins"),
        "fire": mine.get("fire"),
        "podium": len(over["podium"]),
        "target_met": not on_podium,
    }


async def run_async(
    races: int = 10, arena_s: int = 30, control: bool = False, patient: int = 0
) -> list[dict[str, Any]]:
    """Both classes, each on a fresh server (its own key prefix); ``control``: with the
    rules of issue 34 off; ``patient``: that many quick races against patient puppets too
    (a minute each)."""
    rows = []
    args = [*ARGS, *(RULES_OFF if control else [])]
    for attack in ("quick", "arena", *(["patient"] if patient else [])):
        prefix = f"farming-{secrets.token_hex(4)}:"
        srv = start_server(
            redis_url(), args=args, env={"SEAHAVEN_KEY_PREFIX": prefix, **REVIEW_OFF_ENV}
        )
        try:
            if attack == "quick":
                rows.append(await quick_race(srv, races))
            elif attack == "patient":
                rows.append(await quick_race(srv, patient, patient=True))
            else:
                rows.append(await arena(srv, arena_s))
        finally:
            srv.stop()
            r = redis.Redis.from_url(redis_url(), decode_responses=True)
            for key in r.scan_iter(match=f"{prefix}*", count=1000):
                r.delete(key)
    return rows


def run_farming(
    races: int = 10, arena_s: int = 30, control: bool = False, patient: int = 0
) -> list[dict[str, Any]]:
    """One row per attack class (see the module), for ``bench/fairplay.py``."""
    return asyncio.run(run_async(races, arena_s, control, patient))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--races", type=int, default=10, help="quick races (default 10)")
    parser.add_argument("--arena-s", type=int, default=30, help="arena length, s (default 30)")
    parser.add_argument(
        "--control", action="store_true", help="the rules of issue 34 off (the attack as it was)"
    )
    parser.add_argument(
        "--patient",
        type=int,
        default=0,
        help="also N quick races against puppets that contest (31 moves over 61 s each)",
    )
    args = parser.parse_args()
    for row in run_farming(args.races, args.arena_s, args.control, args.patient):
        print(", ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
