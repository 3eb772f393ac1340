"""A new community on a fresh deployment: do honest newcomers rank, with no operator?

Run: ``.venv/bin/python bench/community.py [--players 20] [--days 3] [--seed 1]``

One server instance of this checkout runs in this process (``tests/helpers/inproc.py``) on
the machine's Redis under a key prefix of the run's own, at the fair-play defaults (the
review, the evidence across games, the provisional rule), on a clock that the run moves:
a day passes in an instant, and each press waits its think time on that clock only.

``--players`` newcomers, each a fresh identity on a loopback address of its own (127.0.1.N:
no two share a network), are honest people of ``bench/people.py`` and ``bench/review.py``
(in turn: the strong planner, the club player, the human model, the second human model).
Each day each of them reveals the day's daily, finds a win of it the model's own way (a
model that finds none plays the deal again with another seed, as a person who lost would
have to start a new game: a lost game has no ranked second try, so such a player is
counted as not finishing that day), and plays it through the socket at the model's pace.
The run then waits for each finish's decision (the ``daily_result`` that follows the
review; the player heard "pending review" at once) and prints, per day: finishes, ranked,
held (with the reasons, as the operator's list has them), the share ranked, and how many
players are established (no longer ``new`` on the day's board). No operator acts.

Target (docs/fairplay.md): at least 90 % of finishes ranked over the run, players established
on the days the provisional rule says, no operator action.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import random
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fairplay import human2
from bench.people import club, planner
from bench.review import Game, human
from server.engine import parse_action
from server.engine.moves import Move, Tap
from tests.helpers.dailies import daily_deal, plant
from tests.helpers.inproc import Served, serving, settings
from tests.helpers.serverproc import WsClient

Model = Callable[[str, random.Random], Game | None]

MODELS: list[tuple[str, Model]] = [
    ("planner", planner),
    ("club", club),
    ("human", lambda code, rng: human(code, rng, 0.6, 3000)),
    ("human2", human2),
]


def message(text: str, action_id: int) -> dict[str, Any]:
    """An action of the notation as the protocol's message."""
    if text == "undo":
        return {"type": "undo", "id": action_id}
    action = parse_action(text)
    if isinstance(action, Move):
        return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}
    if isinstance(action, Tap):
        return {"type": "tap", "id": action_id, "at": str(action.at)}
    raise ValueError(f"no message for {text!r}")


async def press(client: WsClient, msg: dict[str, Any], action_id: int) -> None:
    """Send an action and wait for its ack; on ``busy`` (Redis slow to answer on a loaded
    machine) the same action is sent again with the same id, which the server acknowledges
    once and never applies twice."""
    for _ in range(50):
        await client.send(msg)
        for _ in range(300):
            if client.find("ack", id=action_id) is not None:
                return
            refused = client.find("error")
            if refused is not None:
                if refused["code"] != "busy":
                    raise AssertionError(f"action {action_id} refused: {refused}")
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"no ack of action {action_id} in 15 s")
        await asyncio.sleep(0.2)
    raise AssertionError(f"action {action_id}: the server stayed busy")


async def play_day(server: Served, client: WsClient, model: Model, seed: int) -> float | None:
    """Reveal today's daily and play the model's win of it at its pace; when the last move
    was acknowledged (``time.monotonic()``), or None when the model found no win."""
    await client.send({"type": "daily"})
    snap = await client.expect("snapshot")
    code = snap["code"]
    game = None
    for attempt in range(3):
        game = model(code, random.Random(f"{seed}:{attempt}"))
        if game is not None:
            break
    if game is None:
        await client.send({"type": "give_up"})
        await client.send({"type": "leave"})
        await client.expect("left")
        return None
    before = game.times[0] - 4000
    for i, (text, at) in enumerate(zip(game.actions, game.times, strict=True), start=1):
        server.clock.advance(max(0, at - before))
        before = at
        await press(client, message(text, i), i)
    return time.monotonic()


async def decision(client: WsClient, finished: float) -> tuple[str, float]:
    """The review's verdict on a finish (the player heard "pending review" at once), and
    the seconds from the last move to it; the player then leaves the day's room."""
    result = await client.expect("daily_result", timeout=900)
    state = "ranked" if result["ranked"] else str(result["unranked_reason"])
    waited = time.monotonic() - finished
    await client.send({"type": "leave"})  # the day's room: tomorrow's daily is a new one
    await client.expect("left")
    return state, waited


def today_of(server: Served) -> str:
    """The server's date (UTC), on its moved clock."""
    now = dt.datetime.fromtimestamp(server.clock.now_ms() / 1000, dt.UTC)
    return now.date().isoformat()


async def held_reasons(server: Served, token: str) -> dict[str, int]:
    """The held finishes' reasons, counted (the operator's list)."""
    status, page = await server.get("/api/admin/held?limit=200", token)
    if status != 200:
        return {}
    out: dict[str, int] = {}
    for held in page["held"]:
        score = held.get("score") or {}
        decision = score.get("decision") or {}
        why = str(decision.get("reason") or score.get("reason") or "?")
        out[why] = out.get(why, 0) + 1
    return out


async def established(server: Served, date: str, pids: list[str]) -> int:
    """How many of ``pids`` the day's board no longer marks ``new``."""
    status, board = await server.get(f"/api/daily/{date}/leaderboard?kind=daily&limit=100")
    if status != 200:
        return 0
    return sum(1 for e in board["entries"] if e["player_id"] in pids and not e.get("new"))


async def run(args: argparse.Namespace) -> int:
    prefix = f"bench:community:{secrets.token_hex(6)}:"
    rng = random.Random(args.seed)
    # The socket's rate limits are real time, and the run presses on a moved clock: lifted
    # (a person's pace is far below them; the fair-play rules read the moved clock).
    lifted = {
        f"SEAHAVEN_{name}": "100000"
        for name in ("RATE_PER_S", "RATE_BURST", "BOARD_RATE_PER_S", "BOARD_BURST")
    }
    lifted |= {"SEAHAVEN_API_RATE_PER_S": "100000", "SEAHAVEN_API_BURST": "100000"}
    token = "bench-" + secrets.token_hex(12)  # the operator's: the reasons, never shown to a player
    server_settings = settings(["--admin-token", token], {"SEAHAVEN_KEY_PREFIX": prefix, **lifted})
    rows: list[tuple[str, int, int, int, int, int]] = []
    async with serving(server_settings) as server:
        clients: list[tuple[str, Model, WsClient]] = []
        for i in range(args.players):
            name, model = MODELS[i % len(MODELS)]
            client = await WsClient.connect(
                server.ws_url,
                f"{name}{i}",
                additional_headers={},
                local_addr=(f"127.0.1.{i + 1}", 0),
            )
            clients.append((name, model, client))
        pids = [c.player_id for _n, _m, c in clients]
        for day in range(args.days):
            if day:
                # The next day, a little after midnight: the day's deals as certified.
                now = dt.datetime.fromtimestamp(server.clock.now_ms() / 1000, dt.UTC)
                nxt = dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(0, 5), dt.UTC)
                server.clock.advance((nxt - now).total_seconds() * 1000)
            date = today_of(server)
            tomorrow = (dt.date.fromisoformat(date) + dt.timedelta(days=1)).isoformat()
            plant(prefix, date, tomorrow)
            print(f"day {day + 1} ({date}): deal {daily_deal(date).code}", file=sys.stderr)
            ranked = held = lost = 0
            waits: list[float] = []
            order = list(range(len(clients)))
            rng.shuffle(order)
            played: list[tuple[str, int, WsClient, float]] = []
            for i in order:
                name, model, client = clients[i]
                finished = await play_day(server, client, model, rng.getrandbits(32))
                if finished is None:
                    lost += 1
                    continue
                played.append((name, i, client, finished))
            # The reviews run while the others play; each verdict is read once all played.
            for name, i, client, finished in played:
                state, waited = await decision(client, finished)
                waits.append(waited)
                ranked += state == "ranked"
                held += state != "ranked"
                print(f"  {name} #{i}: {state}", file=sys.stderr)
            why = await held_reasons(server, token)
            if why:
                print(f"  held, as the operator reads them: {why}", file=sys.stderr)
            est = await established(server, date, pids)
            print(f"  established after the day: {est} of {len(pids)}", file=sys.stderr)
            if waits:
                print(
                    f"  the review's verdict read {statistics.median(waits):.0f} s (median) after "
                    "the last move (the others playing meanwhile)",
                    file=sys.stderr,
                )
            rows.append((date, ranked + held, ranked, held, lost, est))
        for _n, _m, client in clients:
            await client.close()
    print(f"{args.players} honest newcomers, {args.days} days, a fresh deployment, no operator")
    head = f"{'day':<11} {'finishes':>8} {'ranked':>7} {'held':>5} {'share':>6} {'no win':>7}"
    print(head + f" {'established':>12}")
    total = ranked_all = 0
    for date, finishes, ranked, held, lost, est in rows:
        total += finishes
        ranked_all += ranked
        share = ranked / max(1, finishes)
        print(f"{date:<11} {finishes:>8} {ranked:>7} {held:>5} {share:>6.0%} {lost:>7} {est:>12}")
    share = ranked_all / max(1, total)
    print(
        f"all days: {ranked_all} of {total} finishes ranked ({share:.0%}); target >= 90%: "
        f"{'met' if share >= 0.9 else 'NOT met'}"
    )
    return 0 if share >= 0.9 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
