"""The optimal solver on the shipped pools: how many deals it proves, how fast, how much
shorter than the old par, and fc-solve's lines on the same deals.

Run: nice -n 19 python bench/optimal.py [--sample 100] [--seed 2026] [--timeout 60]
     [--pools 4,2,1] [--fc-timeout 10]

For each pool (``server/pools/c4.txt``, ``c2.txt``, ``c1.txt``) a sample of deals (all of
them without ``--sample``) is searched by :func:`server.engine.optimal.optimal_par` with a
budget of ``--timeout`` CPU seconds per deal (CPU time, not wall time: the machine is
shared, and other work must not change what is proven). A deal counts as proven within
10 s or 60 s when the search proved its line optimal in that much CPU time. Every line is
replayed through the engine and must win.

- old par: the length of the fast solver's line (:func:`server.engine.solver.solve`), the
  par the pools shipped before; the gap is old par minus the optimum, over proven deals.
- peak memory: the process's peak resident set (``ru_maxrss``) after each pool, which is
  the largest any one deal needed (memory is freed between deals) plus the interpreter.
- fc-solve: ``fc-solve -g seahaven --freecells-num N -m -p -t`` on the same deal, a fresh
  process per deal with a wall-clock limit of ``--fc-timeout``. Each of its moves is one
  action here (it moves one card or one group of at most free cells + 1, a group our
  rules allow), and every line is replayed through our engine, which must accept each
  move moving as many cards as fc-solve says: so its counts are in our actions.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.solver_vs_fcsolve import fc_moves, replay_fc
from server.engine import Board, IllegalAction, card_name, parse_action
from server.engine.optimal import optimal_par
from server.engine.solver import solve
from server.pools import parse_pool

POOLS = Path(__file__).resolve().parent.parent / "server" / "pools"


@dataclass
class Deal:
    """One deal's figures."""

    deal: int
    result: str
    cpu: float
    wall: float
    length: int
    lower: int
    old_par: int
    states: int
    fc_length: int | None = None


def fc_input(board: Board) -> str:
    """The fc-solve board: foundations, the free cells (a removed cell is not listed),
    then each column bottom card first."""
    lines = ["Foundations: H-0 C-0 D-0 S-0"]
    lines.append("Freecells: " + " ".join("-" if c is None else card_name(c) for c in board.cells))
    lines += [" ".join(card_name(c) for c in col) for col in board.columns]
    return "\n".join(lines) + "\n"


def run_fc(board: Board, timeout: float) -> int | None:
    """fc-solve's line length on a deal, in our actions; None if it finds none in time or
    our engine refuses its line."""
    import subprocess

    args = ["fc-solve", "-g", "seahaven", "--freecells-num", str(len(board.cells)), "-m", "-p"]
    try:
        proc = subprocess.run(
            [*args, "-t"], input=fc_input(board), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return None
    if "This game is solveable." not in proc.stdout:
        return None
    moves = fc_moves(proc.stdout)
    try:
        legal, won = replay_fc(board, moves)
    except IllegalAction:
        return None
    return len(moves) if legal and won else None


def search_deal(deal: int, cells: int, timeout: float, fc_timeout: float | None) -> Deal:
    board = Board.deal(deal, cells)
    old = solve(board)
    cpu0, wall0 = time.process_time(), time.monotonic()
    answer = optimal_par(board, timeout=timeout, max_states=3_000_000, clock=time.process_time)
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    table = board.copy()
    for move in answer.moves:
        table.play(parse_action(move))
    if answer.moves and not table.is_won():
        raise SystemExit(f"deal {deal} ({cells} cells): the optimal line does not win")
    fc = run_fc(board, fc_timeout) if fc_timeout else None
    return Deal(
        deal,
        answer.result,
        cpu,
        wall,
        len(answer.moves),
        answer.lower_bound,
        len(old.moves),
        answer.states,
        fc,
    )


def p90(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=10, method="inclusive")[8]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, help="deals per pool (default: all)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--timeout", type=float, default=60.0, help="CPU seconds per deal")
    parser.add_argument("--pools", default="4,2,1", help="cell counts, comma-separated")
    parser.add_argument("--fc-timeout", type=float, default=10.0, help="0: no fc-solve")
    args = parser.parse_args()
    fc_timeout = args.fc_timeout if args.fc_timeout > 0 else None
    if fc_timeout and shutil.which("fc-solve") is None:
        print("fc-solve is not installed (Debian: freecell-solver-bin); --fc-timeout 0 to skip")
        return 2
    rows = []
    for cells in (int(c) for c in args.pools.split(",")):
        # The deals of the pool; their par comes from the fast solver, as it was shipped.
        pool = parse_pool((POOLS / f"c{cells}.txt").read_text("utf-8"), cells)
        deals = [e.deal for e in pool]
        if args.sample and args.sample < len(deals):
            deals = sorted(random.Random(f"{args.seed}-{cells}").sample(deals, args.sample))
        found: list[Deal] = []
        for i, deal in enumerate(deals, start=1):
            d = search_deal(deal, cells, args.timeout, fc_timeout)
            found.append(d)
            print(
                f"... c{cells} {i}/{len(deals)}: deal {d.deal} {d.result} {d.length} "
                f"(old par {d.old_par}, fc-solve {d.fc_length}) {d.cpu:.2f} CPU s",
                file=sys.stderr,
                flush=True,
            )
        rows.append((cells, found, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))

    print(
        f"optimal_par on the shipped pools: budget {args.timeout:g} CPU s per deal"
        + (f", a sample of {args.sample} deals per pool (seed {args.seed})" if args.sample else "")
    )
    print()
    print(
        "| pool | deals | proven <= 10 s | proven <= 60 s | median CPU s | p90 CPU s | "
        "median wall s | peak RSS MB | mean old par - optimum | median optimum | "
        "fc-solve median length | fc-solve - optimum (mean) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for cells, found, rss in rows:
        n = len(found)
        proven = [d for d in found if d.result == "optimal"]
        p10 = sum(d.cpu <= 10 for d in proven) / n
        p60 = sum(d.cpu <= 60 for d in proven) / n
        cpu = [d.cpu for d in found]
        gap = statistics.mean(d.old_par - d.length for d in proven) if proven else float("nan")
        fc = [(d.fc_length, d.length) for d in proven if d.fc_length is not None]
        fc_med = f"{statistics.median(a for a, _ in fc):g} ({len(fc)} deals)" if fc else "n/a"
        fc_gap = f"{statistics.mean(a - b for a, b in fc):.1f}" if fc else "n/a"
        print(
            f"| c{cells} | {n} | {100 * p10:.1f}% | {100 * p60:.1f}% | "
            f"{statistics.median(cpu):.2f} | {p90(cpu):.2f} | "
            f"{statistics.median(d.wall for d in found):.2f} | {rss:.0f} | {gap:.2f} | "
            f"{statistics.median(d.length for d in proven) if proven else float('nan'):g} | "
            f"{fc_med} | {fc_gap} |"
        )
    print()
    for cells, found, _ in rows:
        unproven = [d for d in found if d.result != "optimal"]
        shorter = sum(d.length < d.old_par for d in found if d.result == "optimal")
        print(
            f"- c{cells}: shorter than the old par on {shorter}/{len(found)} deals; "
            f"not proven: "
            + (
                ", ".join(f"{d.deal} ({d.result}, {d.lower}..{d.length})" for d in unproven)
                or "none"
            )
        )
    c4 = next((found for cells, found, _ in rows if cells == 4), None)
    if c4:
        share = sum(d.result == "optimal" and d.cpu <= 60 for d in c4) / len(c4)
        median = statistics.median(d.cpu for d in c4)
        print(
            "- target: at least 99% of c4 proven within 60 s: "
            + ("met" if share >= 0.99 else "NOT met")
        )
        print(f"- target: median at most 1 s (CPU): {'met' if median <= 1 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
