"""The solver's search: a compact table and a weighted best-first search over it.

The table here is the solver's own, built for speed rather than for play: a column is a
``bytes`` of cards from bottom to top (``bytes`` caches its hash and slices fast), the
cells are a sorted ``bytes`` of the cards they hold (which cell holds a card does not
change what can be done next), and the foundations are four counts. Moves are named by
card and column so that :mod:`server.engine.solver` can turn them into RULES.md notation
on a real :class:`~server.engine.board.Board`.

What the search leaves out, and why that loses no win:

- Every card that can go to its foundation goes at once, inside the search. Building is by
  suit, so the only card that could ever sit on a card ``r`` is ``r - 1``, already home;
  ``r`` in the tableau or a cell is only ever in the way (an empty column or a free cell is
  worth at least as much).
- Foundation take-backs: a card taken back could only go on its successor or a cell, which
  helps nothing for the same reason.
- A card from one cell to another, and anything out of a column that is one King-led group
  (the column is finished; only its foundation moves remain).
- Of several empty columns, only the leftmost is tried (they are all alike).

States are compared by a canonical key (columns as a sorted list, cells as a set), so the
same table reached in another order or with columns swapped is searched once. When the
queue runs dry every reachable table has been seen: that is the proof of ``unsolvable``.
"""

from __future__ import annotations

import heapq
import time
from typing import Literal, NamedTuple

COLUMNS = 10
KING = 12  # rank index of a King (card % 13)
TO_CELL = 10  # destination code: a free cell
TO_FOUND = 11  # destination code: the card's foundation
FROM_CELL = 100  # source code base: 100 + card for the card in a cell

# A move is (src, dst): src is a column index or FROM_CELL + card; dst a column index,
# TO_CELL or TO_FOUND.
InnerMove = tuple[int, int]
Result = Literal["solved", "unsolvable", "unknown"]
Path = tuple[tuple[InnerMove, ...], "Path"] | None

# Weights of the best-first priority: (1, 2) was tried against (1, 1), (2, 3), (1, 3) and
# (3, 1) on 200 4-cell deals; it gives short lines (median 79 actions) at a few ms a deal.
_W_H = 1  # weight of the distance estimate
_W_G = 2  # weight of the moves made so far


class Table(NamedTuple):
    """The solver's table: columns, the cards in cells (sorted) and foundation counts."""

    columns: tuple[bytes, ...]
    cells: bytes
    foundations: tuple[int, int, int, int]


class Outcome(NamedTuple):
    """What the search found: result, the moves of a win (if any), states seen."""

    result: Result
    moves: tuple[InnerMove, ...]
    states: int


class ColumnInfo(NamedTuple):
    """Facts about one column that the search asks for often."""

    run: int  # length of the ordered group at the top
    done: bool  # the whole column is one King-led group
    cost: int  # estimated work to clear the column (see _column_info)


def _column_info(col: bytes) -> ColumnInfo:
    """Facts about one column, memoised per search since columns recur often.

    The cost counts, for each card, whether it sits above a lower card of its own suit
    (it must leave before that card can go home, so it needs a cell or its successor),
    plus one for every card not resting on its successor.
    """
    n = len(col)
    i = n - 1
    while i > 0 and col[i - 1] == col[i] + 1 and col[i] % 13 != KING:
        i -= 1
    run = n - i
    done = i == 0 and col[0] % 13 == KING
    if done:
        return ColumnInfo(run, True, 0)
    cost = 0
    lowest = [99, 99, 99, 99]
    for k, card in enumerate(col):
        suit = card // 13
        if lowest[suit] < card:
            cost += 2
        else:
            lowest[suit] = card
        if k == 0 or col[k - 1] != card + 1:
            cost += 1
    return ColumnInfo(run, False, cost)


def settle(cols: list[bytes], cells: bytes, found: list[int]) -> tuple[bytes, list[InnerMove]]:
    """Send home every card that can go, until none can; mutates ``cols`` and ``found``.

    Returns:
        The new cells and the foundation moves made, in order.
    """
    moves: list[InnerMove] = []
    changed = True
    while changed:
        changed = False
        for i, col in enumerate(cols):
            while col:
                card = col[-1]
                if found[card // 13] != card % 13:
                    break
                found[card // 13] += 1
                col = col[:-1]
                moves.append((i, TO_FOUND))
                changed = True
            cols[i] = col
        for card in cells:
            if found[card // 13] == card % 13:
                found[card // 13] += 1
                cells = cells.replace(bytes((card,)), b"")
                moves.append((FROM_CELL + card, TO_FOUND))
                changed = True
    return cells, moves


def search(start: Table, ncells: int, max_states: int | None, deadline: float | None) -> Outcome:
    """Search for a win from ``start``.

    Args:
        start: the table to solve.
        ncells: how many cells the table has (1, 2 or 4).
        max_states: stop with ``unknown`` after this many distinct tables.
        deadline: stop with ``unknown`` when ``time.monotonic()`` passes it.

    Returns:
        ``solved`` with the moves, ``unsolvable`` after an exhaustive search, or
        ``unknown`` when a budget ran out.
    """
    memo: dict[bytes, ColumnInfo] = {}
    cols0 = list(start.columns)
    found0 = list(start.foundations)
    cells0, auto = settle(cols0, start.cells, found0)
    root: Path = (tuple(auto), None) if auto else None
    if sum(found0) == 52:
        return Outcome("solved", tuple(auto), 1)

    seen: set[bytes] = set()
    heap: list[tuple[int, int, tuple[bytes, ...], bytes, tuple[int, ...], int, Path]] = []
    counter = 0
    limit = max_states if max_states is not None else 1 << 62

    def estimate(cols: list[bytes], cells: bytes, found: list[int]) -> int:
        h = 0
        empty = 0
        for col in cols:
            if not col:
                empty += 1
                continue
            info = memo.get(col)
            if info is None:
                info = memo[col] = _column_info(col)
            h += info.cost
        return h + 2 * len(cells) - 2 * empty + (52 - sum(found))

    seen.add(key_of(cols0, cells0))
    heap.append((0, 0, tuple(cols0), cells0, tuple(found0), 0, root))
    expanded = 0
    while heap:
        _, _, cols_t, cells, found_t, g, path = heapq.heappop(heap)
        expanded += 1
        if expanded & 255 == 0 and deadline is not None and time.monotonic() > deadline:
            return Outcome("unknown", (), len(seen))
        if len(seen) >= limit:
            return Outcome("unknown", (), len(seen))
        for move in moves_from(cols_t, cells, ncells, memo):
            cols, new_cells, found, auto = play(cols_t, cells, found_t, move, memo)
            key = key_of(cols, new_cells)
            if key in seen:
                continue
            seen.add(key)
            step = (move, *auto)
            if sum(found) == 52:
                node: Path = (step, path)
                out: list[InnerMove] = []
                while node is not None:
                    out[:0] = node[0]
                    node = node[1]
                return Outcome("solved", tuple(out), len(seen))
            counter += 1
            prio = _W_H * estimate(cols, new_cells, found) + _W_G * (g + 1)
            heapq.heappush(
                heap, (prio, counter, tuple(cols), new_cells, tuple(found), g + 1, (step, path))
            )
    return Outcome("unsolvable", (), len(seen))


def key_of(cols: list[bytes] | tuple[bytes, ...], cells: bytes) -> bytes:
    """The canonical key of a table: columns as a sorted list, the cells as a set.

    The foundations need no place in it: they hold exactly the cards found nowhere else.
    """
    return b"\xff".join(sorted(cols)) + b"\xfe" + cells


def moves_from(
    cols: tuple[bytes, ...], cells: bytes, ncells: int, memo: dict[bytes, ColumnInfo]
) -> list[InnerMove]:
    """The moves worth trying on a table (see the module notes for what is left out)."""
    tops: dict[int, int] = {}
    empties: list[int] = []
    for i, col in enumerate(cols):
        if col:
            tops[col[-1]] = i
        else:
            empties.append(i)
    free = ncells - len(cells)
    cap_onto = (free + 1) << len(empties)
    cap_empty = (free + 1) << (len(empties) - 1) if empties else 0

    moves: list[InnerMove] = []
    for i, col in enumerate(cols):
        if not col:
            continue
        info = memo.get(col)
        if info is None:
            info = memo[col] = _column_info(col)
        if info.done:
            continue
        run = info.run
        bottom = col[-run]
        if bottom % 13 != KING:
            j = tops.get(bottom + 1)
            if j is not None and run <= cap_onto:
                moves.append((i, j))
        elif empties and run <= cap_empty:
            moves.append((i, empties[0]))
        if free:
            moves.append((i, TO_CELL))
    for card in cells:
        if card % 13 == KING:
            if empties:
                moves.append((FROM_CELL + card, empties[0]))
        else:
            j = tops.get(card + 1)
            if j is not None:
                moves.append((FROM_CELL + card, j))
    return moves


def play(
    cols_t: tuple[bytes, ...],
    cells: bytes,
    found_t: tuple[int, ...],
    move: InnerMove,
    memo: dict[bytes, ColumnInfo],
) -> tuple[list[bytes], bytes, list[int], list[InnerMove]]:
    """Play a move from :func:`moves_from`, then the foundation moves it allows.

    The table must be settled (no card at a top or in a cell can go home, as after
    :func:`settle`): then only the card the move uncovers can start foundation moves.

    Returns:
        The new columns, cells and foundations, and the foundation moves made.
    """
    cols = list(cols_t)
    src, dst = move
    if src >= FROM_CELL:
        card = src - FROM_CELL
        new_cells = cells.replace(bytes((card,)), b"")
        cols[dst] = cols[dst] + bytes((card,))
    elif dst == TO_CELL:
        col = cols[src]
        card = col[-1]
        cols[src] = col[:-1]
        new_cells = bytes(sorted(cells + bytes((card,))))
    else:
        col = cols[src]
        info = memo.get(col)
        if info is None:
            info = memo[col] = _column_info(col)
        cols[dst] = cols[dst] + col[-info.run :]
        cols[src] = col[: -info.run]
        new_cells = cells
    found = list(found_t)
    if src < FROM_CELL and cols[src]:
        card = cols[src][-1]
        if found[card // 13] == card % 13:
            new_cells, auto = settle(cols, new_cells, found)
            return cols, new_cells, found, auto
    return cols, new_cells, found, []
