"""Fair play against patient cheaters: each known attack as a player model, beside two
human models, through the review and the evidence kept across games.

Every player plays ``--finishes`` ranked finishes (3 by default), each on a deal of its own
drawn from the 4-cell pool, with simulated server timestamps (a game of four minutes costs
no wait). Each finish is scored as the server scores it: :func:`server.review.scoring.review`
(the one-game review, at the pace model's defaults) and :func:`server.review.evidence.gather`
(the record kept across games), and the player's score after each finish is the mean
suspicion of their recent records (:func:`server.ranked.evidence.player_score`). A player is
**caught** when one of their finishes is held by the review or their score reaches the flag
threshold, by their last finish.

The players:

- ``noisy P``: the server's own solver, re-asked after each deliberate deviation: before each
  decision, with probability P, a random useful move that is kept (not undone); otherwise the
  solver's next move from where the board stands. Think times log-normal, median 1.3 s.
- ``optimal``: the engine's optimal search's line (``solve --optimal``), same pace.
- ``practised``: identity A of an address explores the deal as the human model does; identity
  B of the same address replays A's kept line (no undo, no detour) at the same pace.
- ``human``: the human model of ``bench/review.py`` (a heuristic, never back to a table seen,
  undo at a dead end), its think times (median 1.2 s).
- ``human2``: a differently built person: looks two moves ahead over a different liking of
  the table, blunders now and then (a random useful move, 8 %), goes back two moves at a dead
  end; thinks longer when there is more to choose from (median 1.6 s and up).
- ``household``: two people of one address win the same daily deal each her own way (the
  second built as ``human``, the first as ``human2``); the second's finish is weighed with
  the first's line as the address's practice: an honest household must not look practised.
- the puppet farming rows of ``bench/farming.py``.

Targets: at least 95 % of each cheating class caught; at most 2 % of each human model held.

    nice -n 10 .venv/bin/python bench/fairplay.py               # 8 players a class
    nice -n 10 .venv/bin/python bench/fairplay.py --players 100 --seed 3   # a bigger run
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.review import T0, Clock, Game, human, send_home  # noqa: E402
from server.engine import Board, format_code, parse_action  # noqa: E402
from server.engine.optimal import optimal_par  # noqa: E402
from server.engine.solver import solve  # noqa: E402
from server.ranked.evidence import flags, player_score  # noqa: E402
from server.review.evidence import Weights, gather, suspicion  # noqa: E402
from server.review.pace import Pace  # noqa: E402
from server.review.scoring import review, table_key  # noqa: E402

POOL = ROOT / "server" / "pools" / "c4.txt"


class PaceClock(Clock):
    """Think times log-normal with a median of ``median_ms``."""

    def __init__(self, rng: random.Random, sigma: float, median_ms: int) -> None:
        super().__init__(rng, sigma)
        self.median_ms = median_ms

    def press(self, scale: float = 1.0) -> int:
        if self.first:
            self.first = False
            return self.now
        think = self.median_ms * scale * math.exp(self.rng.gauss(0.0, self.sigma))
        self.now += max(80, round(think))
        return self.now


def noisy(code: str, rng: random.Random, rate: float) -> Game | None:
    """The solver re-asked after each deliberate deviation (see the module docstring)."""
    board = Board.from_code(code)
    game, clock = Game(code, [], []), PaceClock(rng, 0.5, 1300)
    line: list[str] = list(solve(board, max_states=200_000).moves)
    if not line:
        return None
    while len(game.actions) < 1000:
        if board.is_won():
            return game
        if board.can_send_home():
            send_home(board, game, clock)
            return game
        useful = board.useful_moves()
        if useful and rng.random() < rate:
            move = rng.choice(useful)
            board.play(move)
            fresh = solve(board, max_states=200_000)
            if fresh.result != "solved":  # a deviation that loses: take it back
                board.play(parse_action("undo"))
                game.actions += [str(move), "undo"]
                game.times += [clock.press(), clock.press()]
                continue
            game.actions.append(str(move))
            game.times.append(clock.press())
            line = list(fresh.moves)
            continue
        text = line.pop(0)
        board.play(parse_action(text))
        game.actions.append(text)
        game.times.append(clock.press())
    return None


def optimal(code: str, rng: random.Random) -> Game | None:
    """The optimal search's line at a person's pace."""
    board = Board.from_code(code)
    found = optimal_par(board, timeout=30, max_states=1_000_000)
    if not found.moves:
        return None
    game, clock = Game(code, [], []), PaceClock(rng, 0.5, 1300)
    for text in found.moves:
        if board.can_send_home():
            send_home(board, game, clock)
            return game
        board.play(parse_action(text))
        game.actions.append(text)
        game.times.append(clock.press())
    return game


def kept_line(code: str, actions: list[str]) -> list[str]:
    """A line without what was undone."""
    board = Board.from_code(code)
    stack: list[str] = []
    for text in actions:
        board.play(parse_action(text))
        if text == "undo":
            stack.pop()
        else:
            stack.append(text)
    return stack


def practised(code: str, rng: random.Random) -> tuple[Game, list[str]] | None:
    """Identity B replays identity A's kept line; returns B's game and A's line."""
    first = human(code, rng, 0.6, 3000)
    if first is None:
        return None
    line = kept_line(code, first.actions)
    board = Board.from_code(code)
    game, clock = Game(code, [], []), PaceClock(rng, 0.5, 1300)
    for text in line:
        if board.can_send_home():
            send_home(board, game, clock)
            return game, first.actions
        board.play(parse_action(text))
        game.actions.append(text)
        game.times.append(clock.press())
    return game, first.actions


def liking(board: Board, rng: random.Random) -> float:
    """The second person's view of a table: cards home, free cells, empty columns, buried
    low cards."""
    value = 6.0 * sum(board.foundations)
    value += 2.5 * board.free_cells()
    value += 4.0 * sum(1 for col in board.columns if not col)
    for col in board.columns:
        for depth, card in enumerate(reversed(col)):
            if card % 13 < 3:
                value -= 0.8 * depth
    return value + rng.gauss(0.0, 1.5)


def human2(code: str, rng: random.Random, max_actions: int = 2500) -> Game | None:
    """A person who looks two moves ahead and blunders now and then (module docstring)."""
    board = Board.from_code(code)
    game = Game(code, [], [])
    clock = PaceClock(rng, 0.55, 1600)
    seen = {table_key(board)}
    depth = 0
    while len(game.actions) < max_actions:
        if board.can_send_home():
            send_home(board, game, clock)
            return game
        options = []
        for move in board.useful_moves():
            after = board.copy()
            after.push(move)
            if table_key(after) in seen:
                continue
            ahead = [liking(after, rng)]
            for reply in after.useful_moves()[:8]:
                two = after.copy()
                two.push(reply)
                ahead.append(liking(two, rng))
            options.append((max(ahead), str(move), move))
        if options:
            if rng.random() < 0.08:
                _v, text, move = rng.choice(options)
            else:
                _v, text, move = max(options, key=lambda o: o[0])
            board.play(move)
            seen.add(table_key(board))
            game.actions.append(text)
            game.times.append(clock.press(1.0 + 0.08 * len(options)))
            depth += 1
        elif depth > 0 and board.can_undo():
            for _ in range(min(2, depth)):
                if not board.can_undo():
                    break
                board.play(parse_action("undo"))
                game.actions.append("undo")
                game.times.append(clock.press(0.6))
                depth -= 1
        else:
            return None
    return None


@dataclass(slots=True)
class Tally:
    """One class's players."""

    players: int = 0
    caught: int = 0
    held_games: int = 0
    games: int = 0
    gave_up: int = 0
    suspicions: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    refs: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


Model = Callable[[str, random.Random], tuple[Game, list[list[str]]] | None]


def models() -> dict[str, tuple[Model, bool]]:
    """Each class: (model, whether it cheats)."""

    def wrap(fn: Callable[[str, random.Random], Game | None]) -> Model:
        def play(code: str, rng: random.Random) -> tuple[Game, list[list[str]]] | None:
            game = fn(code, rng)
            return None if game is None else (game, [])

        return play

    def practice(code: str, rng: random.Random) -> tuple[Game, list[list[str]]] | None:
        found = practised(code, rng)
        return None if found is None else (found[0], [found[1]])

    out: dict[str, tuple[Model, bool]] = {}
    for rate in (0.05, 0.10, 0.15, 0.20, 0.30):
        out[f"noisy {rate:.2f}"] = (
            wrap(lambda code, rng, r=rate: noisy(code, rng, r)),  # type: ignore[misc]
            True,
        )
    out["optimal"] = (wrap(optimal), True)
    out["practised"] = (practice, True)
    out["human"] = (wrap(lambda code, rng: human(code, rng, 0.6, 3000)), False)
    out["human2"] = (wrap(human2), False)
    out["household"] = (household, False)
    return out


def household(code: str, rng: random.Random) -> tuple[Game, list[list[str]]] | None:
    """Two people of one address, each finding her own win of the day's deal: the second's
    line is weighed against the first's (the address's practice, as the server sees it)."""
    first = human2(code, rng)
    second = human(code, rng, 0.6, 3000)
    if first is None or second is None:
        return None
    return second, [first.actions]


def play_player(name: str, index: int, args: argparse.Namespace) -> list[dict[str, Any]]:
    """One player's finishes, each with its review and record (seeded by class and index,
    so a run is the same however many processes share it)."""
    model, _cheats = models()[name]
    rows = [line.split() for line in POOL.read_text().splitlines() if not line.startswith("#")]
    deals = [int(r[0]) for r in rows]
    pace, weights = Pace(), Weights()
    rng = random.Random(f"{args.seed}:{name}:{index}")
    out: list[dict[str, Any]] = []
    for _ in range(args.finishes):
        game, gave_up = None, 0
        while game is None:
            code = format_code(rng.choice(deals), 4)
            played = model(code, random.Random(rng.getrandbits(32)))
            if played is None:
                gave_up += 1
                continue
            game, lines = played
        cpu = time.process_time()
        score = review(code, T0, game.actions, game.times, pace)
        record = gather(
            code,
            T0,
            game.actions,
            game.times,
            score.agreement,
            practised=lines,
            field_ms=args.field_s * 1000,
        ).to_json()
        record["suspicion"] = suspicion(record, weights)
        out.append(
            {
                "held": score.held,
                "reason": score.reason,
                "record": record,
                "gave_up": gave_up,
                "cpu": time.process_time() - cpu,
            }
        )
    return out


def _task(job: tuple[str, int, argparse.Namespace]) -> tuple[str, list[dict[str, Any]]]:
    name, index, args = job
    return name, play_player(name, index, args)


def tally(
    name: str, games: list[dict[str, Any]], args: argparse.Namespace, tallies: dict[str, Tally]
) -> None:
    """Count one player's finishes as the server would weigh them."""
    t = tallies.setdefault(name, Tally())
    t.players += 1
    records: list[dict[str, Any]] = []
    caught = False
    for game in games:
        record = game["record"]
        records.insert(0, record)
        now = player_score(records[: args.window])
        counted = min(len(records), args.window)
        caught = caught or game["held"] or flags(now, counted, args.flag, args.min_finishes)
        t.games += 1
        t.held_games += game["held"]
        t.gave_up += game["gave_up"]
        t.suspicions.append(record["suspicion"])
        refs = [a for a in (record["solver"],) if a is not None]
        if record["optimal"] is not None and record["optimal_scored"] >= 20:
            refs.append(record["optimal"])
        t.refs.append(max(refs, default=0.0))
        t.times.append(record["time_ms"] / 1000)
        t.scores.append(now)
        t.cpu.append(game["cpu"])
    t.caught += caught


def run(args: argparse.Namespace) -> dict[str, list[list[dict[str, Any]]]]:
    """Every player of every chosen class: their finishes."""
    names = [k for k in models() if not args.only or k in args.only]
    jobs = [(name, i, args) for name in names for i in range(args.players)]
    found: dict[str, list[list[dict[str, Any]]]] = {name: [] for name in names}
    began = time.monotonic()
    with multiprocessing.Pool(args.jobs) as pool:
        for n, (name, games) in enumerate(pool.imap_unordered(_task, jobs), start=1):
            found[name].append(games)
            if n % 20 == 0:
                print(
                    f"  {n} of {len(jobs)} players, {time.monotonic() - began:.0f} s",
                    file=sys.stderr,
                )
    return found


def farming_rows() -> list[dict[str, Any]]:
    """The puppet farming rows (:mod:`bench.farming`: real servers, a minute or two)."""
    from bench.farming import run_farming

    return list(run_farming())


def q(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(share * len(values)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=8, help="players a class")
    parser.add_argument("--finishes", type=int, default=3, help="ranked finishes a player")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--window", type=int, default=5, help="recent finishes scored")
    parser.add_argument("--min-finishes", type=int, default=3, help="a score flags from these")
    parser.add_argument("--flag", type=float, default=0.6, help="the flag threshold")
    parser.add_argument("--field-s", type=int, default=200, help="the field's median time")
    parser.add_argument("--agreement-low", type=float, default=Weights().agreement_low)
    parser.add_argument("--agreement-high", type=float, default=Weights().agreement_high)
    parser.add_argument("--field-low", type=float, default=Weights().field_low)
    parser.add_argument("--field-weight", type=float, default=Weights().field_weight)
    parser.add_argument("--only", nargs="*", help="classes to run (default: all)")
    parser.add_argument("--no-farming", action="store_true")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--dump", help="write every finish's record to this JSON file")
    parser.add_argument("--load", help="weigh the records of an earlier --dump (no play)")
    args = parser.parse_args()
    began = time.monotonic()
    played = json.loads(Path(args.load).read_text()) if args.load else run(args)
    if args.dump:
        Path(args.dump).write_text(json.dumps(played))
    tallies: dict[str, Tally] = {}
    weights = Weights(
        min_scored=20,
        agreement_low=args.agreement_low,
        agreement_high=args.agreement_high,
        field_low=args.field_low,
        field_weight=args.field_weight,
    )
    for name, players in played.items():
        for games in players:
            for game in games:
                game["record"]["suspicion"] = suspicion(game["record"], weights)
            tally(name, games, args, tallies)
    print(
        f"{args.players} players a class, {args.finishes} ranked finishes each (seed "
        f"{args.seed}); score = mean suspicion of the last {args.window}; flag at {args.flag} "
        f"from {args.min_finishes} finishes; "
        f"{weights}"
    )
    head = (
        f"{'class':<12} {'players':>7} {'caught':>7} {'rate':>6} {'target':>8} {'met':>4} "
        f"{'held 1g':>7} {'ref p10/p50/p90':>16} {'susp p50':>8} {'time p50':>8}"
    )
    print(head)
    print("-" * len(head))
    cheats = {name: c for name, (_m, c) in models().items()}
    for name, t in tallies.items():
        rate = t.caught / max(1, t.players)
        target, met = (">=95%", rate >= 0.95) if cheats[name] else ("<=2%", rate <= 0.02)
        print(
            f"{name:<12} {t.players:>7} {t.caught:>7} {rate:>6.1%} {target:>8} "
            f"{'yes' if met else 'NO':>4} {t.held_games / max(1, t.games):>7.1%} "
            f"{q(t.refs, 0.1):.2f}/{q(t.refs, 0.5):.2f}/{q(t.refs, 0.9):.2f}".rjust(16)
            + f" {q(t.suspicions, 0.5):>8.2f} {q(t.times, 0.5):>7.0f}s"
        )
    rows = None if args.no_farming else farming_rows()
    if rows is None:
        print("puppet farming: not run here (bench/farming.py is not in this tree)")
    else:
        for row in rows:
            print(
                f"{row['class']:<12} {row['players']:>7} {row['held_or_flagged']!s:>7} "
                f"on ratings {row['on_ratings']} on podium {row['on_podium']} "
                f"target met {row['target_met']}"
            )
    cpu = sorted(c for t in tallies.values() for c in t.cpu)
    print(
        f"CPU of one review with its record: median {q(cpu, 0.5) * 1000:.0f} ms, p90 "
        f"{q(cpu, 0.9) * 1000:.0f} ms, max {cpu[-1] * 1000:.0f} ms; "
        f"{time.monotonic() - began:.0f} s in all"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
