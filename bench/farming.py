"""Puppet farming benchmark: can a patient cheater buy an arena podium, a rating or a rank
with puppets or a borrowed line?

Starts one real ``seahaven serve`` of this checkout per scenario (on the machine's Redis,
under a key prefix of the run's own) and plays through real sockets from several loopback
addresses, each a network of its own (127.0.0.2 the farmer, 127.0.0.3-5 the puppets; no
proxy header: the server sees the sockets' own addresses):

a. **arena, move/undo puppets**: the farmer makes a private arena; three puppets of three
   other addresses join. Each race the farmer plays a noisy solver line (before each
   decision, with probability ``--deviation`` (0.35), a random useful move that is kept;
   one that loses the deal is taken back) at a person's pace (think times log-normal,
   median ``--pace-ms``), while each puppet alternates one move and its undo 15 times
   through the race, acts once just after the farmer's finish, and gives up. ``--races``
   (5) races. Target: no podium, no points worth one (0), no fire.
b. **rated quick race, move/undo puppets**: the same four queue for ``--races`` rated quick
   races, the same pattern. Target: the farmer's rating carries no gain (unrated, or at
   most the start) and they are off ``/api/ratings``.
c. **borrowed line**: identity A (127.0.0.2) plays today's ranked daily (a noisy line at the
   pace); identity B (127.0.0.3, another address) replays A's exact kept line 20 s slower
   in all. Target: B does not rank (its ``daily_result`` is not ranked). The review is on in
   this scenario only (its detection is the core's; a script's line may be held for other
   reasons too: A's own result is printed beside B's).

In (a) and (b) the review is off: the farmer's finishes are a script's, which the review
would hold; what the contest and rating rules refuse is measured here. ``--control`` turns
the contest rule and the repeated-rival decay off (every racer contests), as a check that
the benchmark sees a farmer when there is one.

Prints a table: each scenario's outcome and whether its target is met. ``run_farming()``
returns one row per scenario (``class``, ``players``, ``held_or_flagged``, ``on_ratings``,
``on_podium``, ``target_met`` and the figures) for ``bench/fairplay.py``'s table.
Run: ``.venv/bin/python bench/farming.py`` (``--pace-ms 150`` for a quicker run).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import secrets
import sys
import time
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
    *("--bot-offer-ms", "600000", "--arenas", ""),  # an arena of 180 real minutes
    *("--arena-pair-ms", "3000"),  # the four back in the pool race together
]
FARMER, PUPPETS = "127.0.0.2", ("127.0.0.3", "127.0.0.4", "127.0.0.5")
#: ``--control``: the contest rule and the repeated-rival decay off (every racer contests).
RULES_OFF = [
    *("--contest-min-tables", "0", "--contest-min-home", "0", "--contest-min-s", "0"),
    *("--contest-repeat-full", "0"),
]
#: Move/undo pairs each puppet plays (a patient farmer's puppets).
SHUFFLES = 15


async def open_client(url: str, name: str, address: str) -> WsClient:
    """A new identity on a socket from ``address``."""
    return await WsClient.connect(url, name, additional_headers={}, local_addr=(address, 0))


def noisy_line(code: str, rng: random.Random, rate: float) -> list[str]:
    """A solver line with kept deviations: before each decision, with probability ``rate``,
    a random useful move (taken back at once when it loses the deal); else the solver's
    next move from where the board stands."""
    board = Board.from_code(code)
    line = list(solve(board, max_states=200_000).moves)
    if not line:
        raise RuntimeError(f"no line for {code}")
    out: list[str] = []
    while line and len(out) < 1000 and not board.is_won():
        useful = board.useful_moves()
        if useful and rng.random() < rate:
            move = rng.choice(useful)
            board.play(move)
            fresh = solve(board, max_states=200_000)
            if fresh.result == "solved" and fresh.moves:
                out.append(str(move))
                line = list(fresh.moves)
                continue
            board.play(parse_action("undo"))
            out += [str(move), "undo"]
            continue
        text = line.pop(0)
        board.play(parse_action(text))
        out.append(text)
    return out


def think(rng: random.Random, median_ms: int) -> float:
    """A person's think time, s: log-normal around ``median_ms``."""
    return max(0.08, median_ms * math.exp(rng.gauss(0.0, 0.5)) / 1000)


def message(text: str, action_id: int) -> dict[str, Any]:
    """The protocol message of one action."""
    parsed = parse_action(text)
    if not isinstance(parsed, Move):
        return {"type": "undo", "id": action_id}
    return {"type": "move", "id": action_id, "src": str(parsed.src), "dst": str(parsed.dst)}


def won(client: WsClient) -> bool:
    """Whether the client heard its own ``finished`` (not taken: it is still expected)."""
    return any(
        m.get("type") == "finished" and m.get("player_id") == client.player_id
        for i, m in enumerate(client.messages)
        if i not in client.taken
    )


async def play(client: WsClient, line: list[str], first: int = 0, pause: Any = None) -> int:
    """Play ``line`` with action ids from ``first``, each acknowledged (``pause()`` seconds
    before each); the next id."""
    for i, text in enumerate(line, first):
        if pause is not None:
            await asyncio.sleep(pause())
        if won(client):
            return i  # the table was won (the rest of a line is moot)
        await client.send(message(text, i))
        await client.expect("ack", id=i, timeout=15)
    return first + len(line)


async def shuffler(puppet: WsClient, move: str, every_s: float, done: asyncio.Event) -> int:
    """One move and its undo, :data:`SHUFFLES` times, spread over the race; then wait for the
    farmer's finish. The next action id."""
    i = 0
    for _ in range(SHUFFLES):
        await asyncio.sleep(every_s)
        i = await play(puppet, [move, "undo"], i)
    await done.wait()
    return i


async def one_race(
    farmer: WsClient, puppets: list[WsClient], rng: random.Random, args: argparse.Namespace
) -> None:
    """Everyone into one race: the farmer's noisy line at the pace, the puppets' shuffles,
    one puppet action after the finish, then they give up."""
    everyone = [farmer, *puppets]
    for c in everyone:
        await c.expect("snapshot", timeout=30)
    started = [await c.expect("started", timeout=30) for c in everyone]
    code = str(started[0]["code"])
    line = await asyncio.to_thread(noisy_line, code, rng, args.deviation)
    first = line[0] if line[0] != "undo" else line[1]
    # The puppets' 30 actions spread over about the farmer's expected race.
    every_s = len(line) * args.pace_ms / 1000 / (SHUFFLES + 1)
    done = asyncio.Event()
    tasks = [asyncio.create_task(shuffler(p, first, every_s, done)) for p in puppets]
    await play(farmer, line, 0, lambda: think(rng, args.pace_ms))
    await farmer.expect("finished", player_id=farmer.player_id, timeout=15)
    done.set()
    for p, task in zip(puppets, tasks, strict=True):
        nxt = await task
        await play(p, [first], nxt)  # just after the farmer's finish
        await p.send({"type": "give_up"})
    for c in everyone:
        await c.expect("race_over", timeout=30)


async def arena(srv: ServerProc, args: argparse.Namespace) -> dict[str, Any]:
    """Scenario (a): the pattern in a private arena, ``args.races`` races."""
    rng = random.Random(args.seed)
    farmer = await open_client(srv.ws_url, "Farmer", FARMER)
    puppets = [await open_client(srv.ws_url, f"Pup{i}", a) for i, a in enumerate(PUPPETS)]
    await farmer.send({"type": "create_arena", "cells": 4, "minutes": 180, "starts_in_s": 1})
    arena_id = str((await farmer.expect("arena"))["arena"]["arena_id"])
    for p in puppets:
        await p.send({"type": "arena_join", "arena": arena_id})
        await p.expect("arena")
    for _ in range(args.races):
        await one_race(farmer, puppets, rng, args)
        for c in (farmer, *puppets):
            await c.expect("arena", seat="pool", timeout=30)
    _status, table = await asyncio.to_thread(srv.get_json, f"/api/arena/{arena_id}")
    mine: dict[str, Any] = next(
        (x for x in table["standings"] if x["player_id"] == farmer.player_id), {}
    )
    # The podium the arena would give at its end: the first three who scored.
    scored = [x for x in table["standings"] if x.get("points")][:3]
    on_podium = any(x["player_id"] == farmer.player_id for x in scored)
    for c in (farmer, *puppets):
        await c.close()
    points, fire = int(mine.get("points") or 0), bool(mine.get("fire"))
    return {
        "class": "a. arena, move/undo puppets",
        "players": 1,
        "races": args.races,
        "held_or_flagged": 0,
        "on_ratings": False,
        "on_podium": on_podium,
        "outcome": f"points {points}, wins {mine.get('wins') or 0}, fire {fire}, "
        f"recorded races {table.get('races')}, podium {[x['name'] for x in scored]}",
        "target_met": not on_podium and points == 0 and not fire,
    }


async def quick(srv: ServerProc, args: argparse.Namespace) -> dict[str, Any]:
    """Scenario (b): the pattern in ``args.races`` rated quick races."""
    rng = random.Random(args.seed + 1)
    farmer = await open_client(srv.ws_url, "Farmer", FARMER)
    puppets = [await open_client(srv.ws_url, f"Pup{i}", a) for i, a in enumerate(PUPPETS)]
    reasons: list[str] = []
    for _ in range(args.races):
        for c in (farmer, *puppets):
            await c.send({"type": "queue", "cells": 4})
            await c.expect("queued")
        await one_race(farmer, puppets, rng, args)
        try:  # no event when the race rated nobody (e.g. repeat_pair dropped every rival)
            ratings = await farmer.expect("ratings", timeout=10)
        except AssertionError:
            reasons.append("none")
        else:
            line = next(x for x in ratings["changes"] if x["player_id"] == farmer.player_id)
            reasons.append(str(line["unrated_reason"] or f"{line['change']:+d}"))
        for c in (farmer, *puppets):
            await c.send({"type": "leave"})
            await c.expect("left")
    await asyncio.sleep(0.5)  # each player's update is applied after the event
    _status, top = await asyncio.to_thread(srv.get_json, "/api/ratings?cells=4&limit=100")
    listed = any(p["player_id"] == farmer.player_id for p in top["players"])
    _status, page = await asyncio.to_thread(srv.get_json, f"/api/player/{farmer.player_id}")
    rating = (page["ratings"].get("4") or {}).get("rating")
    for c in (farmer, *puppets):
        await c.close()
    return {
        "class": "b. rated quick race, move/undo puppets",
        "players": 1,
        "races": args.races,
        "held_or_flagged": 0,
        "on_ratings": listed,
        "on_podium": False,
        "outcome": f"rating {rating}, per race {' '.join(reasons)}, listed {listed}",
        "target_met": not listed and (rating is None or rating <= 1000),
    }


async def daily_game(client: WsClient) -> str:
    """Open today's ranked daily: its deal's code."""
    await client.send({"type": "daily"})
    snap = await client.expect("snapshot", timeout=30)
    return str(snap["code"])


async def borrowed(srv: ServerProc, args: argparse.Namespace) -> dict[str, Any]:
    """Scenario (c): B replays A's exact kept line of today's daily, 20 s slower."""
    rng = random.Random(args.seed + 2)
    a = await open_client(srv.ws_url, "Ann", FARMER)
    b = await open_client(srv.ws_url, "Bea", PUPPETS[0])
    code = await daily_game(a)
    line = await asyncio.to_thread(noisy_line, code, rng, args.deviation)
    kept: list[str] = []
    for text in line:
        if text == "undo":
            kept.pop()
        else:
            kept.append(text)
    pauses = [think(rng, args.pace_ms) for _ in line]
    began = time.monotonic()
    await play(a, line, 0, iter(pauses).__next__)
    a_s = time.monotonic() - began
    res_a = await a.expect("daily_result", timeout=120)
    await daily_game(b)
    # A's whole time and 20 s more, over A's kept line (acks take their share: the pauses
    # are what is left of each action's slot).
    each = (a_s + 20) / len(kept)
    ack_s = a_s / len(line) - sum(pauses) / len(line)
    slow = iter([max(0.0, each - ack_s)] * len(kept))
    began = time.monotonic()
    await play(b, kept, 0, slow.__next__)
    b_s = time.monotonic() - began
    res_b = await b.expect("daily_result", timeout=120)
    for c in (a, b):
        await c.close()
    return {
        "class": "c. borrowed line, daily",
        "players": 1,
        "races": 0,
        "held_or_flagged": 0 if res_b.get("ranked") else 1,
        "on_ratings": bool(res_b.get("ranked")),
        "on_podium": False,
        "outcome": f"A {a_s:.0f} s ranked {res_a.get('ranked')} "
        f"({res_a.get('unranked_reason')}); B {b_s:.0f} s ranked {res_b.get('ranked')} "
        f"({res_b.get('unranked_reason')})",
        "target_met": not res_b.get("ranked"),
    }


async def run_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each scenario of ``args.only`` on a fresh server (its own key prefix)."""
    rows = []
    for scenario in args.only:
        prefix = f"farming-{secrets.token_hex(4)}:"
        flags = [*ARGS, *(RULES_OFF if args.control else [])]
        env = {"SEAHAVEN_KEY_PREFIX": prefix, **({} if scenario == "c" else REVIEW_OFF_ENV)}
        srv = start_server(redis_url(), args=flags, env=env)
        began = time.monotonic()
        try:
            run = {"a": arena, "b": quick, "c": borrowed}[scenario]
            row = await run(srv, args)
            row["wall_s"] = round(time.monotonic() - began)
            rows.append(row)
        finally:
            srv.stop()
            r = redis.Redis.from_url(redis_url(), decode_responses=True)
            for key in r.scan_iter(match=f"{prefix}*", count=1000):
                r.delete(key)
    return rows


def parser() -> argparse.ArgumentParser:
    """The command line."""
    out = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    out.add_argument("--races", type=int, default=5, help="races in (a) and (b) (default 5)")
    out.add_argument("--pace-ms", type=int, default=1300, help="median think, ms (1300)")
    out.add_argument("--deviation", type=float, default=0.35, help="kept deviations (0.35)")
    out.add_argument("--seed", type=int, default=1)
    out.add_argument("--only", default="abc", help="scenarios to run (default abc)")
    out.add_argument(
        "--control", action="store_true", help="the contest rule and repeated-rival decay off"
    )
    return out


def run_farming(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per scenario (see the module), for ``bench/fairplay.py``."""
    args = parser().parse_args(argv or [])
    args.only = [s for s in args.only if s in "abc"]
    return asyncio.run(run_async(args))


def main() -> None:
    rows = run_farming(sys.argv[1:])
    print(f"{'scenario':<42} {'target':<7} outcome")
    for row in rows:
        met = "met" if row["target_met"] else "MISSED"
        print(f"{row['class']:<42} {met:<7} {row['outcome']} ({row['wall_s']} s)")


if __name__ == "__main__":
    main()
