"""The optimal search's lower bound: actions a table still needs, at least.

:func:`lower_bound` never exceeds the fewest actions that win from a table (it is
admissible), so the A* search of :mod:`server.engine.solver_optimal` proves its lines
optimal. It adds two counts, each a bound on its own kind of action:

1. **Foundation actions.** Every card not on its foundation is put there by an action of
   its own (a foundation move moves one card, RULES.md, "Moves"), so at least ``52 - home``
   actions end on a foundation.

2. **Other actions: chains that must move.** Every other action moves a card or a group
   of one suit in consecutive ranks, and so has exactly one *bottom card* (the group's
   lowest in the column, its highest rank). A *chain* is a maximal stretch of a column
   that is such a group now (same suit, each card one rank lower than the card under it).
   Say a card *stays* when no action but its foundation move ever moves it.

   - The first action that moves a card ``x`` that has stayed so far moves ``x`` with the
     cards above it, from the place ``x`` has had since the table we look at; its bottom
     card ``b`` is ``x`` or a card under ``x`` in the same group, and that group has been
     there all along (nothing under ``x`` could move while ``x`` stayed), so ``b`` is in
     ``x``'s chain. Cards of two different chains therefore need two different actions,
     and the non-foundation actions are at least the number of chains holding a card that
     does not stay.
   - If ``x`` stays, every card under ``x`` goes home after ``x`` (none of them can leave
     while ``x`` covers it), and a suit goes home in rank order. Write ``x -> x2`` when a
     card ``y`` under ``x`` is of ``x2``'s suit and of lower rank: if ``x`` stays, ``x``
     goes home before ``y``, which goes before ``x2``. So the cards that stay can never
     include a cycle of ``->``. A card above a lower card of its own suit is a cycle of
     one (``x -> x``); longer cycles run through several columns.
   - Hence the chains holding a card that does not stay must meet every cycle. Removing
     whole chains removes at least as many cards, so the fewest chains whose cards,
     removed, leave no cycle is a lower bound; and if cycles use cards of pairwise
     different chains, each needs a chain of its own. The count here finds such cycles
     greedily: every chain with a card on a cycle of one, then, repeatedly, a cycle among
     the cards left, counting one and removing all the chains it touches (so the next
     cycle shares no chain with it). The count is at most the fewest chains needed, which
     is at most the non-foundation actions of any win.

Cells hold no chain and add nothing: a card in a cell may go straight home. The bound is
on tables after the search's foundation moves, but holds for any table.
"""

from __future__ import annotations

from typing import NamedTuple

#: ``_ABOVE[s][m]``: the bit mask (bit = card) of suit ``s``'s cards of rank index above
#: ``m``; ``m == 13`` means no card of the suit lies under the card looked at.
_ABOVE: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << (s * 13 + r) for r in range(m + 1, 13)) for m in range(14)) for s in range(4)
)


class ColumnBound(NamedTuple):
    """What one column contributes, memoised by its bytes (columns recur in a search).

    Attributes:
        forced: chains holding a card above a lower card of its own suit.
        nodes: ``(card, out, chain)`` for each card of the other chains that has a card
            under it: ``out`` is the mask of cards ``x2`` with ``card -> x2`` (see the
            module notes), ``chain`` the chain's number in the column.
    """

    forced: int
    nodes: tuple[tuple[int, int, int], ...]


def column_bound(col: bytes) -> ColumnBound:
    """The chains of a column (bottom card first) and its cards' ``->`` masks."""
    chains: list[int] = []
    chain = -1
    for k in range(len(col)):
        # A card continues the chain when it is one rank lower than the card under it,
        # of the same suit (card + 1 is of the same suit unless the card is a King).
        if k == 0 or col[k - 1] != col[k] + 1 or col[k] % 13 == 12:
            chain += 1
        chains.append(chain)
    lowest = [13, 13, 13, 13]
    forced: set[int] = set()
    candidates: list[tuple[int, int, int]] = []
    for k, card in enumerate(col):
        suit, rank = divmod(card, 13)
        if k:
            if lowest[suit] < rank:
                forced.add(chains[k])
            else:
                out = (
                    _ABOVE[0][lowest[0]]
                    | _ABOVE[1][lowest[1]]
                    | _ABOVE[2][lowest[2]]
                    | _ABOVE[3][lowest[3]]
                )
                candidates.append((card, out, chains[k]))
        if rank < lowest[suit]:
            lowest[suit] = rank
    nodes = tuple(n for n in candidates if n[2] not in forced)
    return ColumnBound(len(forced), nodes)


def chain_bound(cols: tuple[bytes, ...] | list[bytes], memo: dict[bytes, ColumnBound]) -> int:
    """At least how many non-foundation actions a win from these columns needs.

    Args:
        cols: the columns, bottom card first (any order).
        memo: column facts by column, shared over one search.
    """
    total = 0
    out = [0] * 52
    chain_of = [0] * 52
    live: list[int] = []
    alive = 0
    for i, col in enumerate(cols):
        if not col:
            continue
        info = memo.get(col)
        if info is None:
            info = memo[col] = column_bound(col)
        total += info.forced
        for card, mask, chain in info.nodes:
            out[card] = mask
            chain_of[card] = i * 64 + chain
            live.append(card)
            alive |= 1 << card
    if not alive:
        return total
    # A depth-first walk along ``->``: an edge back to a card on the walk closes a cycle.
    # Cards whose walks ended with no cycle ("done") stay done when cards are removed.
    done = 0
    searching = True
    while searching:
        searching = False
        for root in live:
            if (done | ~alive) >> root & 1:
                continue
            stack = [root]
            on_walk = 1 << root
            while stack:
                card = stack[-1]
                nxt = out[card] & alive
                back = nxt & on_walk
                if back:
                    first = stack.index((back & -back).bit_length() - 1)
                    touched = {chain_of[c] for c in stack[first:]}
                    total += 1
                    for c in live:
                        if chain_of[c] in touched:
                            alive &= ~(1 << c)
                    searching = True
                    break
                nxt &= ~done
                if nxt:
                    low = (nxt & -nxt).bit_length() - 1
                    stack.append(low)
                    on_walk |= 1 << low
                else:
                    stack.pop()
                    on_walk &= ~(1 << card)
                    done |= 1 << card
            if searching:
                break
    return total


def lower_bound(
    cols: tuple[bytes, ...] | list[bytes], home: int, memo: dict[bytes, ColumnBound]
) -> int:
    """Fewest actions that could still win: cards not home, plus :func:`chain_bound`.

    Args:
        cols: the columns, bottom card first.
        home: cards on the foundations.
        memo: column facts by column, shared over one search.
    """
    return 52 - home + chain_bound(cols, memo)
