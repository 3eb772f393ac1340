"""How well the review (server/review/scoring.py) tells a solver's line from a person's.

Two kinds of player, on the same deals of the 4-cell pool, with timestamps simulated (a
game of four minutes costs no wait):

- a **noisy solver**: plays the solver's winning line from the start, adds random detours
  (with probability ``--detour`` before a move, one or two useful moves that are then
  undone), and thinks like a person: every press log-normal with a median of 1.2 s
  (``--sigma`` 0.6), the first one after a read of 2 to 6 s; it presses send home as soon
  as it can.
- a **human model**: a player who searches the win herself. A heuristic (not a solver)
  ranks the useful moves of the position: a card home first, then a card out of a cell, a
  move that uncovers a card that can go home, a column emptied, a cell filled last, with a
  little noise; she never goes back to a table she has seen; at a dead end (no move to a
  table not seen) she undoes one move and tries the next best. Same think times, same send
  home. A game past ``--max-actions`` counts as given up (not a finish).

Each finish is scored by :func:`server.review.scoring.review`, the function the server runs,
with the default pace model, and the two rates are printed: the share of noisy solver lines
held (target: at least 95 %) and the share of the human model's finishes held (target: at
most 2 %), with the features' medians.

    nice -n 10 .venv/bin/python bench/review.py            # 200 deals
    nice -n 10 .venv/bin/python bench/review.py --deals 20 --seed 2
    nice -n 10 .venv/bin/python bench/review.py --fastest 90   # the pace model's floor

``--fastest N`` prints instead the fastest time the pace model admits for the solver's line
on the first 40 deals of the pool whose solver line is N actions long
(:func:`server.review.pace.fastest_ms`): the solver's line played by a script as fast as the
model lets it.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.engine import Board, Move, format_code, parse_action
from server.engine.solver import solve
from server.review.pace import Pace, fastest_ms, forced
from server.review.scoring import Score, review, table_key

POOL = Path(__file__).resolve().parent.parent / "server" / "pools" / "c4.txt"
T0 = 1_780_000_000_000


@dataclass(slots=True)
class Game:
    """A finished game: its code, actions and server times."""

    code: str
    actions: list[str]
    times: list[int]


class Clock:
    """Simulated commit times: a person's think time before each press."""

    def __init__(self, rng: random.Random, sigma: float) -> None:
        self.rng = rng
        self.sigma = sigma
        self.now = T0 + rng.randint(2_000, 6_000)  # reading the table
        self.first = True

    def press(self) -> int:
        """The time of the next press."""
        if self.first:
            self.first = False
            return self.now
        self.now += max(80, round(1200 * math.exp(self.rng.gauss(0.0, self.sigma))))
        return self.now


def send_home(board: Board, game: Game, clock: Clock) -> None:
    """One press: every tap of the send home at one time."""
    at = clock.press()
    for tap in board.send_home_taps():
        board.play(tap)
        game.actions.append(str(tap))
        game.times.append(at)


def noisy_solver(code: str, rng: random.Random, detour: float, sigma: float) -> Game | None:
    """The solver's line with random undone detours and a person's think times."""
    board = Board.from_code(code)
    line = solve(board, timeout=10).moves
    if not line:
        return None
    game, clock = Game(code, [], []), Clock(rng, sigma)
    for text in line:
        if board.can_send_home():
            break
        if rng.random() < detour:
            steps = 0
            for _ in range(rng.choice((1, 2))):
                useful = board.useful_moves()
                if not useful:
                    break
                move = rng.choice(useful)
                board.play(move)
                game.actions.append(str(move))
                game.times.append(clock.press())
                steps += 1
            for _ in range(steps):
                board.play(parse_action("undo"))
                game.actions.append("undo")
                game.times.append(clock.press())
        board.play(parse_action(text))
        game.actions.append(text)
        game.times.append(clock.press())
    if not board.is_won():
        send_home(board, game, clock)
    return game


def heuristic(board: Board, move: Move, rng: random.Random) -> float:
    """A person's liking for a move: simple features of the table, a little noise."""
    src, dst = move
    value = rng.gauss(0.0, 3.0)
    if dst.kind == "found":
        value += 50
    if src.kind == "cell":
        value += 20
    if dst.kind == "cell":
        value -= 8 + 4 * (len(board.cells) - board.free_cells())
    if src.kind == "col":
        column = board.columns[src.index]
        after = board.copy()
        after.push(move)
        rest = after.columns[src.index]
        if not rest:
            value += 10
        elif after.foundations[rest[-1] // 13] == rest[-1] % 13:
            value += 15
        if dst.kind == "col" and not board.columns[dst.index] and len(rest) == 0:
            value -= 30  # a King's column into an empty one: nothing gained
        value -= 0.5 * len(column)
    return value


def human(code: str, rng: random.Random, sigma: float, max_actions: int) -> Game | None:
    """A player who searches the win herself (see the module docstring)."""
    board = Board.from_code(code)
    game, clock = Game(code, [], []), Clock(rng, sigma)
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
            if table_key(after) not in seen:
                options.append((heuristic(board, move, rng), str(move), move))
        if options:
            _value, text, move = max(options, key=lambda o: o[0])
            board.play(move)
            seen.add(table_key(board))
            game.actions.append(text)
            game.times.append(clock.press())
            depth += 1
        elif depth > 0 and board.can_undo():
            board.play(parse_action("undo"))
            game.actions.append("undo")
            game.times.append(clock.press())
            depth -= 1
        else:
            return None
    return None


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def summary(name: str, scores: list[Score], games: list[Game]) -> str:
    held = sum(s.held for s in scores)
    reasons: dict[str, int] = {}
    for s in scores:
        if s.held:
            reasons[s.reason] = reasons.get(s.reason, 0) + 1
    agreement = [s.agreement for s in scores if s.agreement is not None]
    return (
        f"{name}: {held} of {len(scores)} held ({held / max(1, len(scores)):.1%})"
        f" {reasons or ''}\n"
        f"  medians: agreement {median(agreement):.2f},"
        f" scored {median([s.scored for s in scores])},"
        f" decisions {median([s.decisions for s in scores])},"
        f" actions {median([len(g.actions) for g in games])},"
        f" detours {median([s.detours for s in scores])},"
        f" dead ends {median([s.dead_ends for s in scores])},"
        f" spread {median([s.spread for s in scores]):.2f},"
        f" solves {median([s.solves for s in scores])},"
        f" time {median([(g.times[-1] - T0) / 1000 for g in games]):.0f} s;"
        f" agreement max {max(agreement, default=float('nan')):.2f}"
        f" min {min(agreement, default=float('nan')):.2f}"
    )


def fastest(rows: list[list[str]], length: int, most: int = 40) -> int:
    """Print the fastest admitted time of the solver's line on the first ``most`` deals of
    the pool whose solver line is ``length`` actions long (the pools' pars are proven
    optima now, shorter than the solver's lines: the line is what a script would play)."""
    pace = Pace()
    found: list[tuple[int, int, int]] = []
    for deal in (int(r[0]) for r in rows):
        code = format_code(deal, 4)
        line = solve(Board.from_code(code), timeout=10).moves
        if len(line) != length:
            continue
        decisions = sum(not f for f in forced(code, line))
        found.append((fastest_ms(code, line, pace), decisions, deal))
        if len(found) == most:
            break
    if not found:
        print(f"no deal of the 4-cell pool has a solver line of {length} actions")
        return 1
    found.sort()
    times = [t for t, _d, _n in found]
    print(f"{len(found)} deals whose solver line is {length} actions (4-cell pool), pace {pace}")
    print(
        f"fastest admitted time of the solver's line: min {times[0] / 1000:.1f} s, median "
        f"{statistics.median(times) / 1000:.1f} s, max {times[-1] / 1000:.1f} s"
    )
    print(
        f"decisions (unforced actions) of the line: min {min(d for _t, d, _n in found)}, "
        f"max {max(d for _t, d, _n in found)}; held by the game floor (60 s): "
        f"{sum(t == pace.game_ms + 0 for t in times)}"
    )
    for t, d, n in found[:3]:
        print(f"  deal {n}: {t / 1000:.1f} s, {d} decisions")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--detour", type=float, default=0.1)
    parser.add_argument("--sigma", type=float, default=0.6)
    parser.add_argument("--max-actions", type=int, default=3000)
    parser.add_argument(
        "--fastest", type=int, metavar="ACTIONS", help="the model's floor on lines this long"
    )
    args = parser.parse_args()
    rows = [line.split() for line in POOL.read_text().splitlines() if not line.startswith("#")]
    if args.fastest:
        return fastest(rows, args.fastest)
    rng = random.Random(args.seed)
    deals = rng.sample([int(r[0]) for r in rows], args.deals)
    pace = Pace()
    began = time.monotonic()
    solver_scores: list[Score] = []
    solver_games: list[Game] = []
    human_scores: list[Score] = []
    human_games: list[Game] = []
    gave_up = 0
    solver_cpu: list[float] = []
    human_cpu: list[float] = []
    for n, deal in enumerate(deals):
        code = format_code(deal, 4)
        game = noisy_solver(code, random.Random(deal * 7 + 1), args.detour, args.sigma)
        if game is not None:
            solver_games.append(game)
            t = time.process_time()
            solver_scores.append(review(code, T0, game.actions, game.times, pace))
            solver_cpu.append(time.process_time() - t)
        person = human(code, random.Random(deal * 7 + 2), args.sigma, args.max_actions)
        if person is None:
            gave_up += 1
        else:
            human_games.append(person)
            t = time.process_time()
            human_scores.append(review(code, T0, person.actions, person.times, pace))
            human_cpu.append(time.process_time() - t)
        if (n + 1) % 20 == 0:
            print(f"  {n + 1} deals, {time.monotonic() - began:.0f} s", file=sys.stderr)
    print(f"{args.deals} deals of the 4-cell pool (seed {args.seed}), pace model {pace}")
    print(summary("noisy solver lines", solver_scores, solver_games))
    print(summary("human model finishes", human_scores, human_games))
    print(
        f"human model: {gave_up} of {args.deals} games given up (over {args.max_actions} actions)"
    )
    for name, cpu in (("noisy solver line", solver_cpu), ("human model finish", human_cpu)):
        cpu.sort()
        print(
            f"CPU of one review ({name}): median {median(cpu) * 1000:.0f} ms, "
            f"p90 {cpu[int(0.9 * (len(cpu) - 1))] * 1000:.0f} ms, max {cpu[-1] * 1000:.0f} ms"
        )
    print(f"{time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
