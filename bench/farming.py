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
c. **borrowed line**: identity A (127.0.0.2) wins today's ranked daily her own way (a strong
   honest player who never asks a solver, :func:`bench.people.planner`, with the model's
   own think times at ``--pace-ms`` 1300; at 150 they are about 9 times quicker); once her
   finish is reviewed (and its line indexed), identity B (127.0.0.3, another address)
   replays A's exact kept line, ``--later-s`` (20) slower in all. Each finish's decision
   is waited for (its ``daily_result``, sent when the review decides) and read again from
   the player's own day, the public leaderboard and the operator's held list (an admin
   token of the run's own). Target: A ranks, B does not, held with the evidence of a
   borrowed line (its share of decisions on A's line at least ``evidence_borrowed_high``,
   the player flagged).

In (a) and (b) the review is off: the farmer's finishes are a script's, which the review
would hold; what the contest and rating rules refuse is measured here. In (c) every review
setting is the server's default, given explicitly (``--pace-scale N`` divides the pace
model's times by N, for the tests' quick run). ``--control`` turns the contest rule and the
repeated-rival decay off (every racer contests) and, in (c), the borrowed-line evidence
(``evidence_borrowed_high`` 2), as a check that the benchmark sees a farmer, or a borrowed
line, when there is one.

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

from bench.people import planner  # noqa: E402
from bench.review import T0  # noqa: E402
from server.engine import Board, Move, parse_action  # noqa: E402
from server.engine.solver import solve  # noqa: E402
from server.review.pace import format_bursts, parse_bursts  # noqa: E402
from server.settings import Settings  # noqa: E402
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
#: A person's median think, ms: ``--pace-ms``'s default; in (c) the player model's own
#: think times are played at ``--pace-ms`` / this.
PERSON_MS = 1300
#: The settings of the review (the physical floor, the pace model, the one-game review, the
#: evidence across games), by their names' start: scenario c runs them at their defaults.
REVIEW_SETTINGS = ("min_ms_per_action", "pace_", "review_", "evidence_")
#: The one press that sends every card left home (``send_home``), as a line's action.
SEND_HOME = "send_home"
#: The operator's token of scenario c's server (its held list and the reasons).
TOKEN = "farming-" + secrets.token_hex(12)
#: How long a review may take to decide, s (the solver's processes on a busy shared host).
DECISION_S = 600


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
    if text == SEND_HOME:
        return {"type": "send_home", "id": action_id}
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


def review_env(scale: int = 1) -> dict[str, str]:
    """Every review setting of the server (the physical floor, the pace model, the one-game
    review, the evidence across games) at the server's own default, as its environment, so
    that scenario c measures the rule as shipped whatever the caller's environment holds.

    Args:
        scale: the pace model's times divided by this (``--pace-scale``: the tests' quick
            run, whose person plays that much faster too); 1 keeps every default.

    Raises:
        ValueError: ``scale`` is under 1.
    """
    if scale < 1:
        raise ValueError(f"the pace model's scale is 1 or more, not {scale}")
    out: dict[str, str] = {}
    for name, field in Settings.model_fields.items():
        if not name.startswith(REVIEW_SETTINGS):
            continue
        value = field.default
        if scale != 1 and name in ("pace_read_ms", "pace_game_ms", "pace_decision_ms"):
            value = int(value) // scale
        elif scale != 1 and name == "pace_bursts":
            value = format_bursts([(k, w // scale) for k, w in parse_bursts(str(value))])
        out[f"SEAHAVEN_{name.upper()}"] = str(value)
    return out


def own_game(code: str, seed: int) -> tuple[list[str], list[float]]:
    """A strong honest player's own win of the deal (:func:`bench.people.planner`, who never
    asks a solver): its actions, the cards' last send home as one ``send_home`` press, and
    the pause before each (s: the model's think times, the first its reading of the table).
    """
    for attempt in range(50):  # the model is stuck on some deals from some seeds
        game = planner(code, random.Random(seed * 1000 + attempt))
        if game is not None:
            break
    else:
        raise RuntimeError(f"the player model found no win of {code}")
    actions: list[str] = []
    pauses: list[float] = []
    last = T0  # the model's reveal
    for text, at in zip(game.actions, game.times, strict=True):
        if text.startswith("tap"):  # the send home: every tap at the time of one press
            if actions[-1] != SEND_HOME:
                actions.append(SEND_HOME)
                pauses.append((at - last) / 1000)
            last = at
            continue
        actions.append(text)
        pauses.append((at - last) / 1000)
        last = at
    return actions, pauses


def kept(actions: list[str]) -> list[int]:
    """The indices of a line's kept actions (those no undo took back), in order."""
    stack: list[int] = []
    for i, text in enumerate(actions):
        if text == "undo":
            stack.pop()
        else:
            stack.append(i)
    return stack


async def decision(client: WsClient) -> tuple[dict[str, Any], float]:
    """The review's decision of the client's daily finish (its ``daily_result``, which the
    server sends once the review has decided, after ``daily_pending``) and how long after
    the last move it came, s."""
    began = time.monotonic()
    result = await client.expect("daily_result", timeout=DECISION_S)
    return result, time.monotonic() - began


async def borrowed(srv: ServerProc, args: argparse.Namespace) -> dict[str, Any]:
    """Scenario (c): A wins today's daily her own way; once her finish is reviewed (and its
    line indexed), B on another address replays A's exact kept line, ``--later-s`` slower in
    all. Each decision is read as the player hears it, from the player's own day, the
    public leaderboard and the operator's held list."""
    a = await open_client(srv.ws_url, "Ann", FARMER)
    b = await open_client(srv.ws_url, "Bea", PUPPETS[0])
    code = await daily_game(a)
    line, own = await asyncio.to_thread(own_game, code, args.seed + 2)
    # The model's think times at ``--pace-ms`` (PERSON_MS: the model's own).
    pauses = [p * args.pace_ms / PERSON_MS for p in own]
    began = time.monotonic()
    await play(a, line, 0, iter(pauses).__next__)
    a_s = time.monotonic() - began
    res_a, a_wait = await decision(a)
    # B sees the deal only now: A's line is reviewed and indexed before B's first move (the
    # server notes a finish's tables before it sends its ``daily_result``).
    await daily_game(b)
    keep = kept(line)
    # B thinks where A did, each pause stretched alike, so that B's game takes A's and
    # ``--later-s`` more (the pauses of A's undone moves are B's too).
    stretch = (sum(pauses) + args.later_s) / sum(pauses[i] for i in keep)
    slow = iter([pauses[i] * stretch for i in keep])
    began = time.monotonic()
    await play(b, [line[i] for i in keep], 0, slow.__next__)
    b_s = time.monotonic() - began
    res_b, b_wait = await decision(b)
    date, kind = str(res_a["date"]), str(res_a["kind"])
    _status, board = await asyncio.to_thread(
        srv.get_json, f"/api/daily/{date}/leaderboard?kind={kind}"
    )
    shown = {str(e["player_id"]) for e in board["entries"]}
    mine: dict[str, str] = {}
    for c in (a, b):
        _status, day = await asyncio.to_thread(
            srv.get_json, f"/api/daily/{date}/mine?kind={kind}", c.token
        )
        mine[c.player_id] = str(day["state"])
    _status, held = await asyncio.to_thread(srv.get_json, "/api/admin/held?limit=500", TOKEN)
    holds = {str(h["result"]): h for h in held["held"]}
    for c in (a, b):
        await c.close()
    a_ranked = bool(res_a["ranked"]) and a.player_id in shown and mine[a.player_id] == "ranked"
    b_ranked = bool(res_b["ranked"]) or b.player_id in shown or mine[b.player_id] == "ranked"
    # What held B, as the operator reads it: the review's reason, the flag, and the share of
    # B's decisions on one other identity's line of the deal.
    score = holds.get(str(res_b["replay_id"]), {}).get("score") or {}
    share = float((score.get("evidence") or {}).get("borrowed") or 0.0)
    flag = bool((score.get("decision") or {}).get("flag"))
    high = float(Settings.model_fields["evidence_borrowed_high"].default)
    a_why = (holds.get(str(res_a["replay_id"]), {}).get("score") or {}).get("reason")
    a_said = f"ranked #{res_a['rank']}" if res_a["ranked"] else f"held ({a_why})"
    b_said = (
        f"ranked #{res_b['rank']}"
        if res_b["ranked"]
        else f"held ({score.get('reason')}, borrowed {share:.2f}, flagged {flag})"
    )
    return {
        "class": "c. borrowed line, daily",
        "players": 1,
        "races": 0,
        "held_or_flagged": int(bool(score)),  # B on the operator's held list
        "on_ratings": b_ranked,
        "on_podium": False,
        "a_ranked": a_ranked,
        "b_held": bool(score),
        "b_borrowed": share,
        "outcome": f"A {a_s:.0f} s: {a_said}, decided {a_wait:.1f} s after her last move; "
        f"B {b_s:.0f} s: {b_said}, decided {b_wait:.1f} s after; own days: A "
        f"{mine[a.player_id]}, B {mine[b.player_id]}; leaderboard: "
        f"{', '.join(str(e['name']) for e in board['entries']) or 'empty'}",
        # A's own line ranks and B's borrowed one does not, held for being A's line.
        "target_met": a_ranked and not b_ranked and flag and share >= high,
    }


async def run_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each scenario of ``args.only`` on a fresh server (its own key prefix)."""
    rows = []
    for scenario in args.only:
        prefix = f"farming-{secrets.token_hex(4)}:"
        flags = [*ARGS, *(RULES_OFF if args.control else [])]
        env = {"SEAHAVEN_KEY_PREFIX": prefix, **REVIEW_OFF_ENV}
        if scenario == "c":  # the review as shipped, the pace model scaled only if asked
            env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_ADMIN_TOKEN": TOKEN}
            env.update(review_env(args.pace_scale))
            if args.control:  # no line is ever borrowed enough: B's replay passes as his own
                env["SEAHAVEN_EVIDENCE_BORROWED_HIGH"] = "2"
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
    out.add_argument(
        "--pace-ms", type=int, default=PERSON_MS, help=f"median think, ms ({PERSON_MS})"
    )
    out.add_argument("--deviation", type=float, default=0.35, help="kept deviations (0.35)")
    out.add_argument("--seed", type=int, default=1)
    out.add_argument(
        "--later-s", type=float, default=20.0, help="(c) B's game is this much slower (20)"
    )
    out.add_argument(
        "--pace-scale",
        type=int,
        default=1,
        help="(c) the server's pace model divided by N, for the tests' quick run (default 1: "
        "the server's defaults)",
    )
    out.add_argument("--only", default="abc", help="scenarios to run (default abc)")
    out.add_argument(
        "--control",
        action="store_true",
        help="the contest rule and repeated-rival decay off; (c) the borrowed-line evidence off",
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
