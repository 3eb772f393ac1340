"""Engine speed: median time to validate and apply one move, and to list legal moves.

Run: python bench/engine_speed.py [--games 300] [--seed 1]

Random play over random 4-, 2- and 1-cell deals. Each timing is of one call, taken with
``time.perf_counter_ns`` around ``board.push(move)`` (validation, apply, delta and the
undo record) and around ``board.legal_moves()``; the script prints medians and the 90th
percentile in microseconds, and the targets of the engine issue beside them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.engine import Board
from server.engine.codes import MAX_DEAL

TARGET_APPLY_US = 10.0
TARGET_LIST_US = 60.0


def measure(games: int, seed: int) -> tuple[list[float], list[float], list[float]]:
    """Time push(), legal_moves() and undo() over random play; microseconds per call."""
    rng = random.Random(seed)
    push_us: list[float] = []
    list_us: list[float] = []
    undo_us: list[float] = []
    clock = time.perf_counter_ns
    for game in range(games):
        board = Board.deal(rng.randrange(MAX_DEAL + 1), (4, 2, 1)[game % 3])
        for _ in range(200):
            t0 = clock()
            moves = board.legal_moves()
            t1 = clock()
            list_us.append((t1 - t0) / 1000)
            if not moves:
                break
            move = rng.choice(moves)
            t0 = clock()
            board.push(move)
            t1 = clock()
            push_us.append((t1 - t0) / 1000)
            if rng.random() < 0.1:
                t0 = clock()
                board.undo()
                t1 = clock()
                undo_us.append((t1 - t0) / 1000)
    return push_us, list_us, undo_us


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    measure(10, args.seed + 1)  # warm up
    push_us, list_us, undo_us = measure(args.games, args.seed)
    print(f"engine speed: {args.games} random games, python {sys.version.split()[0]}")
    print()
    print("| operation | calls | median (µs) | p90 (µs) | target (µs) | median / target |")
    print("|---|---|---|---|---|---|")
    for name, values, target in (
        ("validate + apply one move (push)", push_us, TARGET_APPLY_US),
        ("list all legal moves", list_us, TARGET_LIST_US),
        ("undo one action", undo_us, None),
    ):
        med = statistics.median(values)
        ratio = f"{med / target:.2f}" if target else "-"
        print(
            f"| {name} | {len(values)} | {med:.2f} | {p90(values):.2f} | "
            f"{target if target else '-'} | {ratio} |"
        )


if __name__ == "__main__":
    main()
