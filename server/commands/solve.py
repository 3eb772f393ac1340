"""``seahaven solve`` and ``seahaven certify``: the solver at the terminal.

``solve`` exits 0 when the position is solved, 1 when it is proven unsolvable or the
budget ran out (``unknown``), and 2 for a bad code or an unreadable position file.
``certify`` walks deal numbers, keeps the winnable ones with their par (the length of the
solver's winning line) and writes a pool file in the format :mod:`server.pools` reads.
With ``--optimal`` both search for the fewest actions instead (A*, proven optimal within
the budget; see :mod:`server.engine.optimal` and :mod:`server.commands.certify_optimal`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, TextIO

from ..engine import Board, CodeError, PositionError, parse_code
from ..engine.codes import MAX_DEAL, VERSION
from ..engine.optimal import OptimalResult, optimal_par
from ..engine.solver import SolveResult, solve
from .certify_optimal import cmd_certify_optimal

#: The per-deal budget of ``certify`` unless told otherwise, in seconds.
CERTIFY_TIMEOUT = 10.0
#: The budget of ``solve --optimal`` unless told otherwise: seconds, and tables kept
#: (about 250 bytes each).
OPTIMAL_TIMEOUT = 60.0
OPTIMAL_STATES = 2_000_000


def register(sub: Any) -> None:
    """Add the ``solve`` and ``certify`` subcommands."""
    p = sub.add_parser("solve", help="solve a deal or a mid-game position")
    p.add_argument("code", nargs="?", help="a game code such as SH1-C4-AAAAAJ2")
    p.add_argument(
        "--position", metavar="FILE", help="a position as printed by 'deal --json'; - for stdin"
    )
    p.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    p.add_argument("--max-states", type=int, metavar="N", help="give up after N tables")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="give up after SECONDS")
    p.add_argument(
        "--optimal",
        action="store_true",
        help="search for the fewest actions (proven optimal, or the best line found and a "
        "lower bound when the budget runs out)",
    )
    p.set_defaults(func=cmd_solve)

    c = sub.add_parser("certify", help="find winnable deals and write a pool file")
    c.add_argument("--cells", type=int, choices=(4, 2, 1), required=True)
    c.add_argument("--count", type=int, metavar="K", help="deals to keep")
    c.add_argument("--start", type=int, default=0, metavar="D", help="first deal number")
    c.add_argument("--out", required=True, metavar="FILE", help="the pool file to write")
    c.add_argument(
        "--timeout",
        type=float,
        default=CERTIFY_TIMEOUT,
        metavar="SECONDS",
        help=f"budget per deal; an undecided deal is not kept (default {CERTIFY_TIMEOUT:g})",
    )
    c.add_argument("--max-states", type=int, metavar="N", help="state budget per deal")
    c.add_argument(
        "--optimal",
        action="store_true",
        help="par is the proven fewest actions (a deal not proven in the budget keeps its "
        "best line, marked)",
    )
    c.add_argument(
        "--recertify",
        metavar="FILE",
        help="with --optimal: search the deals of this pool again instead of walking deal "
        "numbers; resumes from --out",
    )
    c.set_defaults(func=cmd_certify)


def _fail(message: str) -> int:
    print(f"seahaven: {message}", file=sys.stderr)
    return 2


def _read_position(source: str) -> Board:
    """The board of a position file (``-`` for stdin).

    Raises:
        OSError, ValueError, PositionError: the file cannot be read or is no position.
    """
    if source == "-":
        text = sys.stdin.read()
    else:
        with open(source, encoding="utf-8") as handle:
            text = handle.read()
    return Board.from_json(json.loads(text))


def cmd_solve(args: argparse.Namespace) -> int:
    """Run ``seahaven solve``."""
    if (args.code is None) == (args.position is None):
        return _fail("solve needs a game code or --position FILE (one of them)")
    if args.max_states is not None and args.max_states < 1:
        return _fail("--max-states must be at least 1")
    if args.timeout is not None and args.timeout <= 0:
        return _fail("--timeout must be positive")
    if args.code is not None:
        try:
            board = Board.from_code(parse_code(args.code))
        except CodeError as exc:
            return _fail(f"bad game code: {exc} [{exc.reason}]")
    else:
        try:
            board = _read_position(args.position)
        except (OSError, ValueError, PositionError) as exc:
            return _fail(f"cannot read position {args.position}: {exc}")
    if args.optimal:
        best = optimal_par(
            board,
            timeout=args.timeout or OPTIMAL_TIMEOUT,
            max_states=args.max_states or OPTIMAL_STATES,
        )
        if args.json:
            print(json.dumps(_optimal_json(board.code, best)))
        else:
            _print_optimal(board.code, best, sys.stdout)
        return 0 if best.moves else 1
    answer = solve(board, max_states=args.max_states, timeout=args.timeout)
    if args.json:
        print(json.dumps(_as_json(board.code, answer)))
    else:
        _print_text(board.code, answer, sys.stdout)
    return 0 if answer.result == "solved" else 1


def _as_json(code: str | None, answer: SolveResult) -> dict[str, object]:
    return {
        "code": code,
        "result": answer.result,
        "moves": list(answer.moves),
        "states": answer.states,
        "seconds": round(answer.seconds, 6),
    }


def _optimal_json(code: str | None, answer: OptimalResult) -> dict[str, object]:
    """The shape of ``solve --json`` (``result`` ``solved`` when a win was found), plus
    ``"optimal": true`` when the line is proven shortest, else ``"lower_bound"``."""
    result = {"optimal": "solved", "best": "solved"}.get(answer.result, answer.result)
    out: dict[str, object] = {
        "code": code,
        "result": result,
        "moves": list(answer.moves),
        "states": answer.states,
        "seconds": round(answer.seconds, 6),
    }
    if answer.optimal:
        out["optimal"] = True
    else:
        out["optimal"] = False
        out["lower_bound"] = answer.lower_bound
    return out


def _print_optimal(code: str | None, answer: OptimalResult, out: TextIO) -> None:
    """As :func:`_print_text`, saying whether the line is proven shortest."""
    name = code or "position"
    figures = f"{answer.states} states, {answer.seconds:.3f} s"
    if answer.result == "optimal":
        print(f"# {name}: solved in {len(answer.moves)} actions, proven optimal", file=out)
        print(f"# ({figures})", file=out)
    elif answer.result == "best":
        print(
            f"# {name}: solved in {len(answer.moves)} actions, not proven optimal: no win is "
            f"shorter than {answer.lower_bound} ({figures})",
            file=out,
        )
    elif answer.result == "unsolvable":
        print(f"# {name}: unsolvable, proven by an exhaustive search ({figures})", file=out)
    else:
        print(f"# {name}: unknown, the budget ran out ({figures})", file=out)
    for move in answer.moves:
        print(move, file=out)


def _print_text(code: str | None, answer: SolveResult, out: TextIO) -> None:
    """A ``#`` summary line, then the actions: ``seahaven replay CODE -`` can read it."""
    name = code or "position"
    figures = f"{answer.states} states, {answer.seconds:.3f} s"
    if answer.result == "solved":
        print(f"# {name}: solved in {len(answer.moves)} actions ({figures})", file=out)
        for move in answer.moves:
            print(move, file=out)
    elif answer.result == "unsolvable":
        print(f"# {name}: unsolvable, proven by an exhaustive search ({figures})", file=out)
    else:
        print(f"# {name}: unknown, the budget ran out ({figures})", file=out)


class _Progress:
    """A text progress bar on stderr: redrawn in place on a terminal, else a line now and then."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.tty = stream.isatty()
        self.began = time.monotonic()
        self.last = 0.0

    def show(self, examined: int, kept: int, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < (0.2 if self.tty else 5.0):
            return
        self.last = now
        rate = examined / max(now - self.began, 1e-9)
        width = 30
        filled = width * kept // max(self.total, 1)
        bar = "#" * filled + "." * (width - filled)
        text = f"[{bar}] kept {kept}/{self.total}, examined {examined}, {rate:.1f} deals/s"
        if self.tty:
            self.stream.write("\r" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def cmd_certify(args: argparse.Namespace) -> int:
    """Run ``seahaven certify``: exit 0 when the file holds ``--count`` deals."""
    if args.optimal:
        return cmd_certify_optimal(args)
    if args.recertify:
        return _fail("--recertify needs --optimal")
    if args.count is None or args.count < 1:
        return _fail("--count must be at least 1")
    if not 0 <= args.start <= MAX_DEAL:
        return _fail(f"--start must be a deal number in 0..{MAX_DEAL}")
    if args.timeout <= 0:
        return _fail("--timeout must be positive")
    kept: list[tuple[int, int]] = []
    tally = {"solved": 0, "unsolvable": 0, "unknown": 0}
    progress = _Progress(args.count, sys.stderr)
    deal = args.start
    began = time.monotonic()
    interrupted = False
    try:
        while len(kept) < args.count and deal <= MAX_DEAL:
            answer = solve(
                Board.deal(deal, args.cells), max_states=args.max_states, timeout=args.timeout
            )
            tally[answer.result] += 1
            if answer.result == "solved":
                kept.append((deal, len(answer.moves)))
            deal += 1
            progress.show(deal - args.start, len(kept))
    except KeyboardInterrupt:
        interrupted = True
    progress.show(deal - args.start, len(kept), final=True)
    plural = "s" if args.cells > 1 else ""
    header = [
        f"# Certified winnable Seahaven Towers deals, {args.cells} cell{plural} ({VERSION}).",
        f"# Generated by: seahaven certify --cells {args.cells} --count {args.count} "
        f"--start {args.start} --timeout {args.timeout:g}"
        + (f" --max-states {args.max_states}" if args.max_states else ""),
        f"# Deals examined: {args.start}..{deal - 1} ({deal - args.start}): "
        f"{tally['solved']} solved, {tally['unsolvable']} proven unsolvable, "
        f"{tally['unknown']} unknown (not kept); {time.monotonic() - began:.0f} s.",
        "# Each line: DEAL_NUMBER PAR (par: actions in the solver's winning line).",
    ]
    if interrupted:
        header.append(f"# INTERRUPTED: {len(kept)} of the {args.count} deals asked for.")
    lines = header + [f"{d} {par}" for d, par in kept]
    tmp = f"{args.out}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        os.replace(tmp, args.out)
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc}")
    return 130 if interrupted else 0
