"""The optimal solver: A* over a compact table, proving the fewest actions that win.

Every action is one ``Move``, ``Tap`` or ``DoubleTap`` (RULES.md), and each moves one card
or one group, so a line's length is its number of moves. :func:`search` finds a shortest
one with A* and the admissible bound of :mod:`server.engine.solver_bound`, on a table of
its own: the columns a sorted tuple of ``bytes`` (bottom card first; a multiset, since
which column holds what changes nothing), the cells a sorted ``bytes`` (a set) and the
foundations four counts. Moves are named by cards (the bottom card moved, and the
destination's top card, an empty column, a cell or the foundation), so a line found on
the sorted table plays on any board with the same cards.

Foundation moves are played at once, and no line is longer for it. Let ``c`` be a top card
(of a column, or in a cell) whose foundation holds every lower card of its suit, ``S`` the
table and ``S'`` the table after ``c`` goes home. Take any win ``P`` from ``S``; follow it
on a table ``T'`` that is ``P``'s table ``T`` with a set ``D`` of cards (at first ``{c}``)
already home. Only a card's predecessor of its suit may be put on it, and a card above a
card of ``D`` is of that card's suit and lower, not home in ``T`` and home in ``T'``: so it
is in ``D`` too, and ``D`` is a top stretch of each column. Each action of ``P`` is then
copied with the cards of ``D`` left out, or left out itself:

- a move of cards all in ``D`` (a foundation move of one, a move to a cell or a column)
  is left out; so is a take-back of a suit whose foundation in ``T'`` is higher than in
  ``T`` (the card joins ``D``);
- any other move moves the same cards less those of ``D`` (those are at its top) from the
  same place to the same place, and stays legal: its destination's top card is not in
  ``D`` (else the moving cards would be), so it is the same in ``T'``; a cell or a column
  empty in ``T`` is empty in ``T'``; a group is still the run its destination fixes; and
  ``T'`` has at least the free cells and empty columns of ``T``, so the group capacity
  ``(free cells + 1) x 2 ^ (empty columns)`` (RULES.md, "Group moves") is no smaller. Only
  Kings enter empty columns in ``T``, and a column empty in ``T'`` alone held cards of
  ``D`` in ``T``, which no copied move touches.

When ``P`` ends all 52 cards are home in ``T``, so ``D`` is empty, and each card that ever
was in ``D`` had a foundation move of ``P`` left out: ``c``'s at least. So a win from
``S'`` is at least one action shorter than ``P``, and playing ``c`` home first costs
nothing. The same copy starting from a take-back shows that a take-back is never on a
shortest line (the line without it and without the card's return home is at least two actions
shorter), so the search leaves take-backs out. It leaves out too the moves that leave
the sorted table as it was (a card from cell to cell, a whole column that is one King-led
group into an empty column) and tries one empty column of several (they are alike).

A* keeps the fewest actions found for each table and looks at a table again when it is
reached in fewer, so with an admissible bound some table of a shortest line is always
queued with an estimate no higher than the optimum: a win is proven shortest once no
queued estimate is below its length. The search is seeded with a line from the fast
solver (an upper bound, ``best``, lowered by every shorter win it meets): tables whose
estimate reaches it are dropped, and when the queue is empty or its lowest estimate
reaches ``best``, ``best`` is proven optimal. When a budget (time, tables) runs out the
lowest estimate still queued is a lower bound on the optimum.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from typing import Literal, NamedTuple

from .solver_bound import ColumnBound, lower_bound

#: Destination codes of a :data:`CardMove`: a card 0..51 is a column with that top card.
TO_FOUND = 52
TO_CELL = 53
TO_EMPTY = 54
#: A take-back's source: the foundation (the card moved is its top card).
FROM_FOUND = 255

#: A move: (the bottom card moved, the destination code).
CardMove = tuple[int, int]
Outcome = Literal["optimal", "best", "unsolvable", "unknown"]


class State(NamedTuple):
    """The compact table: sorted columns, sorted cells, foundation counts by suit."""

    cols: tuple[bytes, ...]
    cells: bytes
    found: tuple[int, int, int, int]


class Found(NamedTuple):
    """What :func:`search` found.

    Attributes:
        outcome: ``optimal`` (``moves`` is a proven shortest win), ``best`` (the budget
            ran out: ``moves`` is the shortest win found, ``bound`` a lower bound),
            ``unsolvable`` (proven: no win) or ``unknown`` (no win found in the budget).
        moves: the win, foundation moves included.
        bound: a lower bound on the fewest actions of a win (their number if proven).
        states: distinct tables the search kept.
    """

    outcome: Outcome
    moves: tuple[CardMove, ...]
    bound: int
    states: int


def key_of(state: State) -> bytes:
    """The table as one ``bytes`` (foundations, columns, cells): one per sorted table."""
    return bytes(state.found) + b"\xff".join(state.cols) + b"\xfe" + state.cells


def state_of(key: bytes) -> State:
    """The inverse of :func:`key_of`."""
    cols, cells = key[4:].split(b"\xfe")
    return State(tuple(cols.split(b"\xff")), cells, (key[0], key[1], key[2], key[3]))


def run_length(col: bytes) -> int:
    """The length of the group at the top of a non-empty column (RULES.md, "Group moves")."""
    i = len(col) - 1
    while i > 0 and col[i - 1] == col[i] + 1 and col[i] % 13 != 12:
        i -= 1
    return len(col) - i


def expand(state: State, ncells: int, full: bool = False) -> list[tuple[CardMove, State]]:
    """The moves of a table and the tables they lead to (foundation moves not followed).

    Args:
        state: the table.
        ncells: the cells of the table (1, 2 or 4).
        full: list every move that changes the sorted table, foundation moves and
            take-backs too (to check this list against the engine's); else only the moves
            the search tries on a table with no card ready to go home.
    """
    cols, cells, found = state
    tops: dict[int, int] = {}
    empty = -1
    empties = 0
    for i, col in enumerate(cols):
        if col:
            tops[col[-1]] = i
        else:
            empties += 1
            empty = i
    free = ncells - len(cells)
    cap_onto = (free + 1) << empties
    cap_empty = (free + 1) << (empties - 1) if empties else 0
    out: list[tuple[CardMove, State]] = []

    def put(src: int, cards: bytes, dst: int, new_cells: bytes, f: tuple[int, ...]) -> None:
        new = list(cols)
        if src >= 0:
            new[src] = new[src][: -len(cards)]
        if dst >= 0:
            new[dst] = new[dst] + cards
        new.sort()
        code = TO_CELL if dst == -1 else (TO_EMPTY if not cols[dst] else cols[dst][-1])
        moved = FROM_FOUND if src == -2 else cards[0]
        out.append(((moved, code), State(tuple(new), new_cells, f)))  # type: ignore[arg-type]

    for i, col in enumerate(cols):
        if not col:
            continue
        card = col[-1]
        run = run_length(col)
        bottom = col[-run]
        if bottom % 13 != 12:
            j = tops.get(bottom + 1)
            if j is not None and run <= cap_onto:
                put(i, col[-run:], j, cells, found)
        elif empties and run <= cap_empty and run < len(col):
            put(i, col[-run:], empty, cells, found)
        if free:
            put(i, col[-1:], -1, bytes(sorted(cells + col[-1:])), found)
        if full and found[card // 13] == card % 13:
            f = list(found)
            f[card // 13] += 1
            new = list(cols)
            new[i] = col[:-1]
            new.sort()
            out.append(((card, TO_FOUND), State(tuple(new), cells, tuple(f))))  # type: ignore[arg-type]
    for card in cells:
        rest = cells.replace(bytes((card,)), b"")
        if card % 13 == 12:
            if empties:
                put(-1, bytes((card,)), empty, rest, found)
        else:
            j = tops.get(card + 1)
            if j is not None:
                put(-1, bytes((card,)), j, rest, found)
        if full and found[card // 13] == card % 13:
            f = list(found)
            f[card // 13] += 1
            out.append(((card, TO_FOUND), State(cols, rest, tuple(f))))  # type: ignore[arg-type]
    if full:
        for suit, n in enumerate(found):
            if not n:
                continue
            card = suit * 13 + n - 1
            f = list(found)
            f[suit] -= 1
            taken = tuple(f)
            one = bytes((card,))
            if free:
                put(-2, one, -1, bytes(sorted(cells + one)), taken)
            if card % 13 == 12:
                if empties:
                    put(-2, one, empty, cells, taken)
            else:
                j = tops.get(card + 1)
                if j is not None:
                    put(-2, one, j, cells, taken)
    return out


def settle(state: State) -> tuple[State, list[CardMove]]:
    """Send home every card that can go, until none can (see the module notes)."""
    cols = list(state.cols)
    cells = state.cells
    found = list(state.found)
    moves: list[CardMove] = []
    changed = True
    while changed:
        changed = False
        for i, col in enumerate(cols):
            while col and found[col[-1] // 13] == col[-1] % 13:
                moves.append((col[-1], TO_FOUND))
                found[col[-1] // 13] += 1
                col = col[:-1]
                changed = True
            cols[i] = col
        for card in cells:
            if found[card // 13] == card % 13:
                moves.append((card, TO_FOUND))
                found[card // 13] += 1
                cells = cells.replace(bytes((card,)), b"")
                changed = True
    if not moves:
        return state, moves
    cols.sort()
    return State(tuple(cols), cells, (found[0], found[1], found[2], found[3])), moves


def successors(state: State, ncells: int) -> list[tuple[tuple[CardMove, ...], State]]:
    """The search's steps from a settled table: a move, then the foundation moves it allows."""
    out = []
    for move, nxt in expand(state, ncells):
        settled, auto = settle(nxt)
        out.append(((move, *auto), settled))
    return out


def search(
    start: State,
    ncells: int,
    best: tuple[CardMove, ...] | None = None,
    *,
    max_states: int | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Found:
    """A shortest win from a table, or the best line and a lower bound when out of budget.

    Args:
        start: the table.
        ncells: how many cells it has.
        best: a known win from ``start`` (an upper bound), if any.
        max_states: stop after keeping this many distinct tables.
        deadline: stop when ``clock()`` passes it.
        clock: the clock of ``deadline`` (``time.process_time`` for a budget of CPU time,
            which other work on the machine does not eat into).
    """
    memo: dict[bytes, ColumnBound] = {}
    root, auto = settle(start)
    g0 = len(auto)
    limit = max_states if max_states is not None else 1 << 62
    upper = len(best) if best is not None else 1 << 30
    line: tuple[CardMove, ...] | None = best
    root_key = key_of(root)
    h0 = lower_bound(root.cols, sum(root.found), memo)
    if sum(root.found) == 52:
        return Found("optimal", tuple(auto), g0, 1)
    # Per table: fewest actions found, the table before it, the step from there.
    parent: dict[bytes, tuple[int, bytes | None, tuple[CardMove, ...]]] = {
        root_key: (g0, None, tuple(auto))
    }
    heap: list[tuple[int, int, int, bytes]] = [(g0 + h0, -g0, 0, root_key)]
    counter = 0
    popped = 0

    def unwind(key: bytes, step: tuple[CardMove, ...]) -> tuple[CardMove, ...]:
        steps = [step]
        at: bytes | None = key
        while at is not None:
            _, before, part = parent[at]
            steps.append(part)
            at = before
        return tuple(m for part in reversed(steps) for m in part)

    while heap:
        f, neg_g, _, key = heap[0]
        if f >= upper:
            break
        heapq.heappop(heap)
        g = -neg_g
        if parent[key][0] != g:
            continue  # reached again in fewer actions since it was queued
        popped += 1
        if popped & 127 == 0 and deadline is not None and clock() > deadline:
            return _out_of_budget(line, f, len(parent))
        if len(parent) >= limit:
            return _out_of_budget(line, f, len(parent))
        for step, nxt in successors(state_of(key), ncells):
            cost = g + len(step)
            home = sum(nxt.found)
            if home == 52:
                if cost < upper:
                    line = unwind(key, step)
                    upper = len(line)
                continue
            nkey = key_of(nxt)
            seen = parent.get(nkey)
            if seen is not None and seen[0] <= cost:
                continue
            h = lower_bound(nxt.cols, home, memo)
            if cost + h >= upper:
                continue
            parent[nkey] = (cost, key, step)
            counter += 1
            heapq.heappush(heap, (cost + h, -cost, counter, nkey))
    if line is None:
        return Found("unsolvable", (), 0, len(parent))
    return Found("optimal", line, len(line), len(parent))


def _out_of_budget(line: tuple[CardMove, ...] | None, bound: int, states: int) -> Found:
    if line is None:
        return Found("unknown", (), bound, states)
    if bound >= len(line):
        return Found("optimal", line, len(line), states)
    return Found("best", line, bound, states)
