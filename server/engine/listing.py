"""What a table allows, listed: its legal moves, their destinations by source, whether a
useful move is left, and whether the cards left can all go home (the send home of
RULES.md, "No automatic moves, tap and double tap").

:class:`Listing` is mixed into :class:`~server.engine.board.Board`, where each move is
judged (``Board.is_legal``, next to the rules it implements); what is here lists the moves
those rules accept, and the tests hold each list to them. Much of it runs after every
action of every player, so it scans the table once and builds nothing it does not return.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from .cards import KING, Card
from .errors import IllegalAction
from .moves import CELL, COL, FOUND, OWN_FOUNDATION, Loc, Move, Tap

#: A place as :meth:`Listing._scan` writes it: a :class:`Loc`, or its notation.
_At = TypeVar("_At", Loc, str)

#: The notation of every place, by index (``COL_NAMES[2] == "col3"``).
COL_NAMES = tuple(loc.name for loc in COL)
CELL_NAMES = tuple(loc.name for loc in CELL)
FOUND_NAMES = tuple(loc.name for loc in FOUND)


def run_bottom(column: list[Card]) -> int:
    """The deepest card of the ordered group at the top of a non-empty column.

    A group is the same suit with consecutive ranks going down (RULES.md, "Group moves"):
    in card numbers each card is one less than the card under it, within one suit.
    """
    i = len(column) - 1
    card = column[i]
    while i > 0:
        below = column[i - 1]
        if below != card + 1 or below % 13 == 0:  # % 13 == 0: an Ace starts a new suit
            break
        card = below
        i -= 1
    return card


class Listing:
    """The listings of a table (mixed into :class:`~server.engine.board.Board`, which holds
    the table: 10 columns, the cells, the foundations' card counts by suit)."""

    __slots__ = ()

    columns: list[list[Card]]
    cells: list[Card | None]
    foundations: list[int]

    def is_won(self) -> bool:
        """All 52 cards are on the foundations."""
        return sum(self.foundations) == 52

    def legal_moves(self) -> list[Move]:
        """Every legal move, each destination once (foundations as ``found``): the scan of
        :meth:`targets`, one move per destination, in the same order."""
        return [
            Move(src, OWN_FOUNDATION if dst.kind == "found" else dst)
            for src, dsts in self._scan(COL, CELL, FOUND).items()
            for dst in dsts
        ]

    def targets(self, legal: list[Move] | None = None) -> dict[Loc, list[Loc]]:
        """Each movable card's (or group's) legal destinations, by source.

        The legal moves of :meth:`legal_moves` (``legal``, if already listed for this very
        table), grouped by where they start, in the same order, with the foundation named by
        the card's suit (``found:S``), as deltas name it: a top card can go home exactly when
        its source lists a foundation. Sources with no legal move are left out.
        """
        if legal is not None:
            return self._group(legal)
        return self._scan(COL, CELL, FOUND)

    def target_names(self) -> dict[str, list[str]]:
        """:meth:`targets` in notation (``{"col3": ["found:H", "cell2"]}``), as a player's
        own board is sent after each of their actions."""
        return self._scan(COL_NAMES, CELL_NAMES, FOUND_NAMES)

    def _scan(
        self, col: Sequence[_At], cell: Sequence[_At], found: Sequence[_At]
    ) -> dict[_At, list[_At]]:
        """The legal destinations by source, each place written as ``col[i]``, ``cell[i]``
        or ``found[suit]`` (a foundation is only ever the moving card's own): the one scan of
        the table that every listing here comes from. It writes the groups straight away
        (it runs after every action of every player, and a Move per destination costs more)."""
        columns, cells, foundations = self.columns, self.cells, self.foundations
        free = [i for i, c in enumerate(cells) if c is None]
        to_free = [cell[i] for i in free]
        empty = [col[i] for i, column in enumerate(columns) if not column]
        base = len(free) + 1
        cap_onto = base << len(empty)
        cap_into_empty = base << (len(empty) - 1) if empty else 0
        by_top = {column[-1]: col[i] for i, column in enumerate(columns) if column}
        out: dict[_At, list[_At]] = {}
        for i, column in enumerate(columns):
            if not column:
                continue
            card = column[-1]
            dsts: list[_At] = [found[card // 13]] if foundations[card // 13] == card % 13 else []
            bottom = run_bottom(column)
            # The card of the top group that fits a column's top, within the group capacity.
            for fit in range(card, min(bottom, card + cap_onto - 1) + 1):
                if fit % 13 != KING - 1:
                    onto = by_top.get(fit + 1)
                    if onto is not None:
                        dsts.append(onto)
            if empty and bottom % 13 == KING - 1 and bottom - card < cap_into_empty:
                dsts += empty
            dsts += to_free
            if dsts:
                out[col[i]] = dsts
        singles = [(cell[i], held, True, i) for i, held in enumerate(cells) if held is not None]
        singles += [(found[s], s * 13 + n - 1, False, -1) for s, n in enumerate(foundations) if n]
        for src, card, homeward, at in singles:
            dsts = [found[card // 13]] if homeward and foundations[card // 13] == card % 13 else []
            if card % 13 != KING - 1:
                onto = by_top.get(card + 1)
                if onto is not None:
                    dsts.append(onto)
            else:
                dsts += empty
            dsts += [cell[i] for i in free if i != at]
            if dsts:
                out[src] = dsts
        return out

    def _group(self, legal: list[Move]) -> dict[Loc, list[Loc]]:
        """Legal moves grouped by source, foundations by suit (see :meth:`targets`)."""
        out: dict[Loc, list[Loc]] = {}
        last: Loc | None = None
        dsts: list[Loc] = []
        for src, dst in legal:
            if dst.index < 0:  # the card's own foundation (the only place with no index)
                card = self.columns[src.index][-1] if src.kind == "col" else self.cells[src.index]
                assert card is not None  # a legal move's source holds a card
                dst = FOUND[card // 13]
            if src is not last:  # a source's moves come together: one lookup per source
                last = src
                dsts = out.setdefault(src, [])
            dsts.append(dst)
        return out

    def _home_order(self) -> list[Loc] | None:
        """Where each tap of a send home takes its card, in order; None when not every card
        left can reach the foundations by foundation moves alone.

        A foundation move only uncovers cards, so the order of taps cannot block another:
        the cards go home while any can, the lowest rank first (on a tie the cells before the
        columns, each left to right), and it works exactly when the table ends empty.
        """
        columns = [col[:] for col in self.columns]
        cells = self.cells[:]
        foundations = self.foundations[:]
        order: list[Loc] = []
        while True:
            tops = [(c, CELL[i]) for i, c in enumerate(cells) if c is not None]
            tops += [(col[-1], COL[i]) for i, col in enumerate(columns) if col]
            ready = [
                (card % 13, n, at)
                for n, (card, at) in enumerate(tops)
                if foundations[card // 13] == card % 13
            ]
            if not ready:
                break
            at = min(ready)[2]
            if at.kind == "cell":
                card = cells[at.index]
                cells[at.index] = None
            else:
                card = columns[at.index].pop()
            assert card is not None
            foundations[card // 13] += 1
            order.append(at)
        return order if sum(foundations) == 52 else None

    def can_send_home(self) -> bool:
        """Every card left can reach the foundations by foundation moves alone.

        This is when RULES.md, "No automatic moves, tap and double tap", allows a send
        home; false once the game is won (nothing is left to send).

        Each suit's next card goes home while it is a top card (a cell's card, or the last
        card left of its column); it works when every suit reaches its King. The same answer
        as :meth:`send_home_taps`, without writing the order down (it is asked after every
        action).
        """
        if self.is_won():
            return False
        # A card above a lower card of its own suit waits for it and covers it: never home.
        # Most tables in play have one, and finding it is cheaper than the walk below.
        for col in self.columns:
            lowest = [13, 13, 13, 13]
            for card in col:
                suit, rank = divmod(card, 13)
                if rank > lowest[suit]:
                    return False
                if rank < lowest[suit]:
                    lowest[suit] = rank
        where: dict[Card, tuple[int, int]] = {}
        for i, col in enumerate(self.columns):
            for j, card in enumerate(col):
                where[card] = (i, j)
        for held in self.cells:
            if held is not None:
                where[held] = (-1, 0)
        lengths = [len(col) for col in self.columns]
        home = self.foundations[:]
        moved = True
        while moved:
            moved = False
            for suit in range(4):
                while home[suit] < 13:
                    at = where.get(suit * 13 + home[suit])
                    if at is None:
                        break  # not on this table (a test's partial table)
                    i, j = at
                    if i >= 0:
                        if j != lengths[i] - 1:
                            break
                        lengths[i] -= 1
                    home[suit] += 1
                    moved = True
        return sum(home) == 52

    def send_home_taps(self) -> list[Tap]:
        """The taps a send home stands for, in the order they are made (see
        :meth:`_home_order`): played in turn, each is accepted and the last one wins.

        Raises:
            IllegalAction: ``cannot_send_home`` when :meth:`can_send_home` is false.
        """
        order = None if self.is_won() else self._home_order()
        if order is None:
            raise IllegalAction("cannot_send_home")
        return [Tap(at) for at in order]

    def is_useful(self, move: Move) -> bool:
        """Whether a legal move counts towards "a useful move is left".

        RULES.md, "The end of a game".

        Not useful: a card from one cell to another, a foundation take-back, and moving a
        whole column that is one King-led group into an empty column.
        """
        src, dst = move
        if src.kind == "found":
            return False
        if src.kind == "cell":
            return dst.kind != "cell"
        if dst.kind == "col" and not self.columns[dst.index]:
            column = self.columns[src.index]
            return column[0] != run_bottom(column)
        return True

    def useful_moves(self) -> list[Move]:
        """The legal moves that are useful (see :meth:`is_useful`)."""
        return [m for m in self.legal_moves() if self.is_useful(m)]

    def is_lost(self, legal: list[Move] | None = None) -> bool:
        """Practically lost: not won, and no useful move is left (of ``legal``, the table's
        :meth:`legal_moves` if already listed)."""
        if self.is_won():
            return False
        if legal is None:
            return not self._any_useful_move()
        return not any(self.is_useful(m) for m in legal)

    def _any_useful_move(self) -> bool:
        """Whether one of :meth:`useful_moves` exists. Asked after every action, so the two
        answers almost every table in play gives come first: a column's top card has a free
        cell to go to, or a card can go home (both useful); else the moves are listed."""
        tops = [col[-1] for col in self.columns if col]
        if tops and None in self.cells:
            return True
        held = [card for card in self.cells if card is not None]
        if any(self.foundations[card // 13] == card % 13 for card in tops + held):
            return True
        return any(self.is_useful(move) for move in self.legal_moves())
