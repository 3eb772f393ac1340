"""``seahaven certify --optimal``: pools whose par is the proven fewest actions.

Two ways in. With ``--recertify FILE`` the deals of an existing pool are searched again,
in order, for their optimal par; the output is rewritten every few deals with every deal
of the pool (those not reached yet keep their first-format line), so the file is a
loadable pool at every moment and a stopped run resumes where it stopped (deals already
proven optimal in ``--out`` are not searched again). The time budget is CPU time, so a
busy machine slows the run but does not change what it proves. Without it, deals are walked from
``--start`` as plain ``certify`` does and the winnable ones kept with their optimal par.
A deal the search does not prove within the budget keeps the length of its best line and
is marked ``best LOWER`` (see :mod:`server.pools`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from ..engine import Board, parse_action
from ..engine.codes import MAX_DEAL, VERSION
from ..engine.optimal import OptimalResult, optimal_par
from ..pools import PoolEntry, format_entry, parse_pool

#: Rewrite the output after this many deals or seconds, whichever comes first.
_SAVE_EVERY = 20
_SAVE_SECONDS = 60.0

Solver = Callable[[Board], OptimalResult]

FORMAT_LINE = (
    "# Each line: DEAL_NUMBER PAR optimal (PAR: the proven fewest actions that win), "
    "DEAL_NUMBER PAR best LOWER (not proven within the budget: PAR is the best line's "
    "length, no win is shorter than LOWER), or DEAL_NUMBER PAR (not re-certified yet: the "
    "fast solver's line)."
)


def register(sub: Any) -> None:
    """Nothing of its own: ``--optimal`` is an option of ``certify`` (:mod:`.solve`)."""


def _fail(message: str) -> int:
    print(f"seahaven: {message}", file=sys.stderr)
    return 2


def _entry(board: Board, deal: int, code: str, answer: OptimalResult) -> PoolEntry | None:
    """The pool entry of a searched deal, None unless a win was found.

    The line is replayed through the engine first: a par is only ever a won game's length.
    """
    if answer.result not in ("optimal", "best"):
        return None
    table = board.copy()
    for move in answer.moves:
        table.play(parse_action(move))
    if not table.is_won():  # never expected: optimal_par replays its line too
        raise RuntimeError(f"{code}: the optimal line does not win")
    if answer.optimal:
        return PoolEntry(deal, len(answer.moves), code, True)
    return PoolEntry(deal, len(answer.moves), code, False, answer.lower_bound)


def _write(path: str, header: list[str], entries: list[PoolEntry]) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write("\n".join(header + [format_entry(e) for e in entries]) + "\n")
    os.replace(tmp, path)


def _command(args: argparse.Namespace) -> str:
    parts = [f"seahaven certify --cells {args.cells} --optimal"]
    if args.recertify:
        parts.append(f"--recertify {args.recertify}")
    else:
        parts.append(f"--count {args.count} --start {args.start}")
    parts.append(f"--timeout {args.timeout:g} (CPU seconds per deal)")
    if args.max_states:
        parts.append(f"--max-states {args.max_states}")
    return " ".join(parts)


def _tally(entries: list[PoolEntry]) -> str:
    proven = sum(e.optimal for e in entries)
    best = sum(e.lower_bound is not None for e in entries)
    rest = len(entries) - proven - best
    return (
        f"{proven} proven optimal, {best} best line only (budget ran out), "
        f"{rest} not re-certified yet"
    )


def cmd_certify_optimal(args: argparse.Namespace) -> int:
    """Run ``seahaven certify --optimal``: exit 0 when every deal asked for is written."""
    if args.timeout <= 0:
        return _fail("--timeout must be positive")
    if args.max_states is not None and args.max_states < 1:
        return _fail("--max-states must be at least 1")

    def solver(board: Board) -> OptimalResult:
        # CPU time: a budget other work on a shared machine does not eat into.
        return optimal_par(
            board,
            timeout=args.timeout,
            max_states=args.max_states or 2_000_000,
            clock=time.process_time,
        )

    if args.recertify:
        return _recertify(args, solver)
    if args.count is None or args.count < 1:
        return _fail("certify needs --count K (at least 1) unless --recertify FILE is given")
    if not 0 <= args.start <= MAX_DEAL:
        return _fail(f"--start must be a deal number in 0..{MAX_DEAL}")
    return _walk(args, solver)


def _read(path: str, cells: int) -> tuple[list[str], tuple[PoolEntry, ...]]:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    header = [line for line in text.splitlines() if line.startswith("#")]
    return header, parse_pool(text, cells)


def _recertify(args: argparse.Namespace, solver: Solver) -> int:
    try:
        source_header, source = _read(args.recertify, args.cells)
    except (OSError, ValueError) as exc:
        return _fail(f"cannot read pool {args.recertify}: {exc}")
    done: dict[int, PoolEntry] = {}
    if os.path.exists(args.out):
        try:
            _, previous = _read(args.out, args.cells)
        except (OSError, ValueError) as exc:
            return _fail(f"cannot resume from {args.out}: {exc}")
        done = {e.deal: e for e in previous if e.optimal}
    kept = [line for line in source_header if not line.startswith("# Each line")]
    kept = [line for line in kept if not line.startswith("# Par re-certified")]
    entries = [done.get(e.deal, e) for e in source]
    began = time.monotonic()
    saved = began
    searched = 0
    interrupted = False

    def header() -> list[str]:
        return [
            *kept,
            f"# Par re-certified by: {_command(args)}: {_tally(entries)}; this run "
            f"searched {searched} deals in {time.monotonic() - began:.0f} s.",
            FORMAT_LINE,
        ]

    try:
        for i, entry in enumerate(entries):
            if entry.optimal:
                continue
            board = Board.deal(entry.deal, args.cells)
            new = _entry(board, entry.deal, entry.code, solver(board))
            searched += 1
            if new is not None:
                entries[i] = new
            now = time.monotonic()
            if searched % _SAVE_EVERY == 0 or now - saved > _SAVE_SECONDS:
                _write(args.out, header(), entries)
                saved = now
                print(f"certify: {i + 1}/{len(entries)}: {_tally(entries)}", file=sys.stderr)
    except KeyboardInterrupt:
        interrupted = True
    try:
        _write(args.out, header(), entries)
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc}")
    print(f"certify: {_tally(entries)}", file=sys.stderr)
    return 130 if interrupted else 0


def _walk(args: argparse.Namespace, solver: Solver) -> int:
    kept: list[PoolEntry] = []
    tally = {"optimal": 0, "best": 0, "unsolvable": 0, "unknown": 0}
    deal = args.start
    began = time.monotonic()
    interrupted = False
    try:
        while len(kept) < args.count and deal <= MAX_DEAL:
            board = Board.deal(deal, args.cells)
            answer = solver(board)
            tally[answer.result] += 1
            entry = _entry(board, deal, str(board.code), answer)
            if entry is not None:
                kept.append(entry)
            deal += 1
    except KeyboardInterrupt:
        interrupted = True
    plural = "s" if args.cells > 1 else ""
    header = [
        f"# Certified winnable Seahaven Towers deals, {args.cells} cell{plural} ({VERSION}).",
        f"# Generated by: {_command(args)}",
        f"# Deals examined: {args.start}..{deal - 1} ({deal - args.start}): "
        f"{tally['optimal']} proven optimal, {tally['best']} best line only, "
        f"{tally['unsolvable']} proven unsolvable, {tally['unknown']} unknown (not kept); "
        f"{time.monotonic() - began:.0f} s.",
        FORMAT_LINE,
    ]
    if interrupted:
        header.append(f"# INTERRUPTED: {len(kept)} of the {args.count} deals asked for.")
    try:
        _write(args.out, header, kept)
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc}")
    return 130 if interrupted else 0
