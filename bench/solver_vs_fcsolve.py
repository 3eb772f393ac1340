"""Our solver against Freecell Solver (``fc-solve -g seahaven``) on the same 4-cell deals.

Run: python bench/solver_vs_fcsolve.py [--deals 200] [--seed 2026] [--timeout 10]

The deals are drawn from a fixed seed. Each deal is solved by :func:`server.engine.solver.solve`
(in this process, timed around the call) and by ``fc-solve -g seahaven --freecells-num 4 -m
-p -t`` (a fresh process per deal, timed from start to exit, so its figure includes process
start-up of about 2 ms). Both get the same budget per deal: our solver a ``timeout``, fc-solve
a wall-clock limit after which the process is killed and the deal counted as undecided.

Every fc-solve solution is converted to RULES.md notation (stack N -> col N+1, freecell N ->
cell N+1, foundations -> found) and replayed through our engine, which must accept every
action, move exactly the number of cards fc-solve says, and end with the game won.

fc-solve's "I could not solve this game" means its own scan ended under its stricter group
rule (free cells + 1); it is reported as "reported unsolvable", not as a proof under ours.
Prints a markdown table with ratios (ours / fc-solve) and the issue's targets.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.engine import Board, IllegalAction, card_name, format_code, parse_action
from server.engine.codes import MAX_DEAL
from server.engine.solver import solve

FC_ARGS = ["-g", "seahaven", "--freecells-num", "4", "-m", "-p", "-t"]

_MOVE = re.compile(
    r"Move (?:a card|(?P<n>\d+) cards) from (?P<sk>stack|freecell) (?P<si>\d+) "
    r"to (?:(?P<dk>stack|freecell) (?P<di>\d+)|the foundations)"
)


@dataclass
class Run:
    """One solver's answer on one deal."""

    result: str  # solved, unsolvable, unknown
    seconds: float
    length: int | None = None


def fc_board(board: Board) -> str:
    """The fc-solve input of a board: foundations, free cells, then one line per column."""
    lines = ["Foundations: H-0 C-0 D-0 S-0"]
    lines.append("Freecells: " + " ".join("-" if c is None else card_name(c) for c in board.cells))
    lines += [" ".join(card_name(c) for c in col) for col in board.columns]
    return "\n".join(lines) + "\n"


def fc_moves(output: str) -> list[tuple[str, int]]:
    """fc-solve's moves in RULES.md notation, each with the number of cards it moves."""
    moves = []
    for line in output.splitlines():
        if not line.startswith("Move"):
            continue
        m = _MOVE.fullmatch(line.strip())
        if m is None:
            raise ValueError(f"unknown fc-solve move: {line!r}")
        src = ("col" if m["sk"] == "stack" else "cell") + str(int(m["si"]) + 1)
        if m["dk"] is None:
            dst = "found"
        else:
            dst = ("col" if m["dk"] == "stack" else "cell") + str(int(m["di"]) + 1)
        moves.append((f"{src} {dst}", int(m["n"] or 1)))
    return moves


def replay_fc(board: Board, moves: list[tuple[str, int]]) -> tuple[bool, bool]:
    """(legal, won): our engine accepts every move, moving as many cards; it ends won.

    Raises:
        IllegalAction: the engine refuses a move.
    """
    table = board.copy()
    for text, count in moves:
        delta = table.play(parse_action(text))
        if len(delta.changes[0].cards) != count:
            return False, False
    return True, table.is_won()


def run_fc(board: Board, timeout: float) -> tuple[Run, list[tuple[str, int]]]:
    """Solve a deal with fc-solve within a wall-clock budget."""
    began = time.monotonic()
    try:
        proc = subprocess.run(
            ["fc-solve", *FC_ARGS],
            input=fc_board(board),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return Run("unknown", time.monotonic() - began), []
    seconds = time.monotonic() - began
    if "This game is solveable." in proc.stdout:
        moves = fc_moves(proc.stdout)
        return Run("solved", seconds, len(moves)), moves
    if "I could not solve this game." in proc.stdout:
        return Run("unsolvable", seconds), []
    return Run("unknown", seconds), []


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[8]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--timeout", type=float, default=10.0, help="budget per deal, seconds")
    args = parser.parse_args()
    if shutil.which("fc-solve") is None:
        print("fc-solve is not installed (Debian: freecell-solver-bin)", file=sys.stderr)
        return 2

    rng = random.Random(args.seed)
    deals: list[int] = []
    while len(deals) < args.deals:
        d = rng.randrange(MAX_DEAL + 1)
        if d not in deals:
            deals.append(d)

    ours: list[Run] = []
    theirs: list[Run] = []
    fc_legal = fc_won = 0
    for i, deal in enumerate(deals, start=1):
        board = Board.deal(deal, 4)
        answer = solve(board, timeout=args.timeout)
        ours.append(Run(answer.result, answer.seconds, len(answer.moves) if answer.moves else None))
        if answer.result == "solved":
            table = board.copy()
            for move in answer.moves:
                table.play(parse_action(move))
            if not table.is_won():
                print(f"OUR SOLUTION DOES NOT WIN: {format_code(deal, 4)}", file=sys.stderr)
                return 1
        fc, moves = run_fc(board, args.timeout)
        theirs.append(fc)
        if fc.result == "solved":
            try:
                legal, won = replay_fc(board, moves)
            except IllegalAction as exc:  # report it and keep counting
                print(f"{format_code(deal, 4)}: fc-solve move refused: {exc}", file=sys.stderr)
                legal = won = False
            fc_legal += legal
            fc_won += won
        if i % 20 == 0:
            print(f"... {i}/{len(deals)} deals", file=sys.stderr)

    n = len(deals)

    def figures(runs: list[Run]) -> dict[str, float]:
        times = [r.seconds for r in runs]
        lengths = [r.length for r in runs if r.length is not None]
        return {
            "solved": sum(r.result == "solved" for r in runs) / n,
            "unsolvable": sum(r.result == "unsolvable" for r in runs) / n,
            "decided": sum(r.result != "unknown" and r.seconds <= 10.0 for r in runs) / n,
            "median": statistics.median(times),
            "p90": p90(times),
            "length": statistics.median(lengths) if lengths else float("nan"),
        }

    a, b = figures(ours), figures(theirs)
    both = [
        (x.length, y.length)
        for x, y in zip(ours, theirs, strict=True)
        if x.length is not None and y.length is not None
    ]
    fc_solved = sum(r.result == "solved" for r in theirs)
    only_ours = sum(
        x.result == "solved" and y.result != "solved" for x, y in zip(ours, theirs, strict=True)
    )
    only_fc = sum(
        y.result == "solved" and x.result != "solved" for x, y in zip(ours, theirs, strict=True)
    )

    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    def ms(x: float) -> str:
        return f"{1000 * x:.1f} ms"

    def ratio(x: float, y: float) -> str:
        return f"{x / y:.2f}" if y else "n/a"

    print(f"{n} random 4-cell deals (seed {args.seed}), budget {args.timeout:g} s per deal\n")
    print("| | ours | fc-solve | ours / fc-solve |")
    print("|---|---|---|---|")
    print(
        f"| solved | {pct(a['solved'])} | {pct(b['solved'])} | {ratio(a['solved'], b['solved'])} |"
    )
    print(
        f"| unsolvable (ours: proven; fc-solve: reported, stricter rules) | "
        f"{pct(a['unsolvable'])} | {pct(b['unsolvable'])} | |"
    )
    print(f"| decided within 10 s | {pct(a['decided'])} | {pct(b['decided'])} | |")
    print(
        f"| median time | {ms(a['median'])} | {ms(b['median'])} | "
        f"{ratio(a['median'], b['median'])} |"
    )
    print(f"| p90 time | {ms(a['p90'])} | {ms(b['p90'])} | {ratio(a['p90'], b['p90'])} |")
    print(
        f"| median solution length (actions, each solver's own wins) | "
        f"{a['length']:g} | {b['length']:g} | {ratio(a['length'], b['length'])} |"
    )
    if both:
        la = statistics.median(x for x, _ in both)
        lb = statistics.median(y for _, y in both)
        print(
            f"| median solution length, {len(both)} deals both solved | "
            f"{la:g} | {lb:g} | {ratio(la, lb)} |"
        )
    print()
    print(f"- solved by ours only: {only_ours}; by fc-solve only: {only_fc}")
    print(
        f"- fc-solve solutions accepted move by move by our engine: {fc_legal}/{fc_solved}; "
        f"ending in a win: {fc_won}/{fc_solved}"
    )
    print("- times: ours in-process per solve(); fc-solve a process per deal (start-up included)")
    print()
    checks = [
        ("solve rate above fc-solve's", a["solved"] > b["solved"]),
        ("at least 99% decided within 10 s", a["decided"] >= 0.99),
        ("median time at most 25 x fc-solve's", a["median"] <= 25 * b["median"]),
        ("median solution length at most fc-solve's", a["length"] <= b["length"]),
        ("every fc-solve solution is a legal win here", fc_won == fc_solved),
    ]
    for name, ok in checks:
        print(f"- target {name}: {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
