"""Shortcuts in a solver's winning line: fewer actions, the same win.

The best-first search finds a win quickly but not always the shortest. This pass walks
the line's tables in order and, from each one, tries every sequence of one or two moves;
when such a sequence reaches a table that the line only reaches later (compared by the
canonical key, so columns may come out in another order), the moves in between are
replaced by the sequence, and the rest of the line is renamed to the new column order.
Foundation moves are not choices: they follow every move as in the search.
"""

from __future__ import annotations

import time

from .solver_search import (
    TO_CELL,
    TO_FOUND,
    ColumnInfo,
    InnerMove,
    Table,
    key_of,
    moves_from,
    play,
    settle,
)

_State = tuple[tuple[bytes, ...], bytes, tuple[int, ...]]


def _replay(
    start: _State, choices: list[InnerMove], memo: dict[bytes, ColumnInfo]
) -> tuple[list[_State], list[InnerMove]]:
    """The tables after each choice, and the full line with its foundation moves."""
    states = [start]
    line: list[InnerMove] = []
    cols, cells, found = start
    for move in choices:
        new_cols, cells, new_found, auto = play(cols, cells, found, move, memo)
        cols, found = tuple(new_cols), tuple(new_found)
        line.append(move)
        line += auto
        states.append((cols, cells, found))
    return states, line


def _renaming(old: tuple[bytes, ...], new: tuple[bytes, ...]) -> list[int]:
    """Where each column of ``old`` is in ``new`` (the two hold the same columns)."""
    where: dict[bytes, list[int]] = {}
    for i, col in enumerate(new):
        where.setdefault(col, []).append(i)
    return [where[col].pop(0) for col in old]


def _rename(move: InnerMove, columns: list[int]) -> InnerMove:
    src, dst = move
    if src < len(columns):
        src = columns[src]
    if dst < TO_CELL:
        dst = columns[dst]
    return src, dst


def shorten(
    start: Table,
    moves: tuple[InnerMove, ...],
    ncells: int,
    deadline: float | None = None,
    depth: int = 2,
) -> tuple[InnerMove, ...]:
    """A line no longer than ``moves`` that wins from ``start`` (stops at ``deadline``).

    Args:
        start: the table the line starts from.
        moves: a winning line from :func:`~server.engine.solver_search.search`.
        ncells: how many cells the table has.
        deadline: a ``time.monotonic()`` time after which the line is returned as it is.
        depth: the longest replacement sequence tried.

    Returns:
        The shortened line, foundation moves included.
    """
    memo: dict[bytes, ColumnInfo] = {}
    cols0 = list(start.columns)
    found0 = list(start.foundations)
    cells0, auto0 = settle(cols0, start.cells, found0)
    first: _State = (tuple(cols0), cells0, tuple(found0))
    choices = [m for m in moves if m[1] != TO_FOUND]
    states, line = _replay(first, choices, memo)
    i = 0
    while i < len(choices):
        if deadline is not None and time.monotonic() > deadline:
            break
        index = {key_of(s[0], s[1]): k for k, s in enumerate(states)}
        best: tuple[int, int, tuple[InnerMove, ...], tuple[bytes, ...]] | None = None
        frontier: list[tuple[_State, tuple[InnerMove, ...]]] = [(states[i], ())]
        for d in range(1, depth + 1):
            deeper: list[tuple[_State, tuple[InnerMove, ...]]] = []
            for (cols, cells, found), path in frontier:
                for move in moves_from(cols, cells, ncells, memo):
                    new_cols, new_cells, new_found, _ = play(cols, cells, found, move, memo)
                    j = index.get(key_of(new_cols, new_cells), -1)
                    gain = j - i - d
                    if gain > 0 and (best is None or gain > best[0]):
                        best = (gain, j, (*path, move), tuple(new_cols))
                    if d < depth:
                        deeper.append(
                            ((tuple(new_cols), new_cells, tuple(new_found)), (*path, move))
                        )
            frontier = deeper
        if best is None:
            i += 1
            continue
        _, j, path, reached = best
        columns = _renaming(states[j][0], reached)
        choices = choices[:i] + list(path) + [_rename(m, columns) for m in choices[j:]]
        states, line = _replay(first, choices, memo)
    if sum(states[-1][2]) != 52:  # never expected; the original line is still good
        return moves
    return (*auto0, *line)
