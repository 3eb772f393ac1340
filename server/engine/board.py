"""The table and the rules of play: a board with a move stack (push / undo).

Every rule of ``../shared/RULES.md`` that decides legality lives in this module, each
check next to the sentence it implements. A refused action raises
:class:`~server.engine.errors.IllegalAction` and changes nothing; an accepted one returns a
:class:`~server.engine.moves.Delta`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import NamedTuple, TypeVar

from .cards import KING, SUITS, Card, card_name, parse_card
from .codes import GameCode, format_code, parse_code, shuffle
from .errors import IllegalAction, PositionError
from .moves import (
    CELL,
    COL,
    COLUMNS,
    FOUND,
    OWN_FOUNDATION,
    UNDO_LIMIT,
    Action,
    Change,
    Delta,
    DoubleTap,
    Loc,
    Move,
    Tap,
    Undo,
)

#: A place as :meth:`Board._scan` writes it: a :class:`Loc`, or its notation.
_At = TypeVar("_At", Loc, str)

#: The notation of every place, by index (``COL_NAMES[2] == "col3"``).
COL_NAMES = tuple(loc.name for loc in COL)
CELL_NAMES = tuple(loc.name for loc in CELL)
FOUND_NAMES = tuple(loc.name for loc in FOUND)

# RULES.md, Score.
POINTS_FOUNDATION = 10
POINTS_CELL_TO_COLUMN = 5


class _Record(NamedTuple):
    """One undoable action: where ``cards`` cards went, and the points it gave."""

    src: Loc
    dst: Loc
    cards: int
    points: int


def _run_bottom(column: list[Card]) -> int:
    """The deepest card of the ordered group at the top of a non-empty column.

    A group is the same suit with consecutive ranks going down (RULES.md, Group moves):
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


class Board:
    """A Seahaven Towers table: 10 columns, 1, 2 or 4 cells, 4 foundations.

    Attributes:
        columns: the 10 columns, each a list of cards from bottom to top.
        cells: one entry per cell, a card or None.
        foundations: cards on each foundation, by suit index (S, H, D, C).
        score: the score (RULES.md, Score).
        moves: accepted actions so far, undos included.
        code: the game code of the deal, if the board came from one.
    """

    __slots__ = (
        "_dropped",
        "_history",
        "cells",
        "code",
        "columns",
        "foundations",
        "moves",
        "score",
    )

    def __init__(
        self,
        columns: list[list[Card]],
        cells: list[Card | None],
        foundations: list[int] | None = None,
        *,
        score: int = 0,
        code: str | None = None,
    ) -> None:
        self.columns = columns
        self.cells = cells
        self.foundations = foundations if foundations is not None else [0, 0, 0, 0]
        self.score = score
        self.moves = 0
        self.code = code
        self._history: deque[_Record] = deque(maxlen=UNDO_LIMIT)
        self._dropped = 0  # actions that fell out of the undo window

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def deal(cls, deal: int, cells: int) -> Board:
        """The opening table of a deal number and cell count (RULES.md, The deal).

        Cards 1-50 of the shuffle go round the columns left to right, five rounds; card 51
        goes to cell 1; card 52 to cell 2, or on top of column 2 with a single cell.

        Raises:
            CodeError: the deal number or the cell count is out of range.
        """
        code = format_code(deal, cells)
        order = shuffle(deal)
        columns: list[list[Card]] = [[] for _ in range(COLUMNS)]
        for i in range(50):
            columns[i % COLUMNS].append(order[i])
        table_cells: list[Card | None] = [None] * cells
        table_cells[0] = order[50]
        if cells == 1:
            columns[1].append(order[51])
        else:
            table_cells[1] = order[51]
        return cls(columns, table_cells, code=code)

    @classmethod
    def from_code(cls, code: str | GameCode) -> Board:
        """The opening table of a game code such as ``SH1-C4-AAAAAJ2``.

        Raises:
            CodeError: the code is not valid; its reason names the fault.
        """
        parsed = parse_code(code) if isinstance(code, str) else code
        return cls.deal(parsed.deal, parsed.cells)

    @classmethod
    def from_json(cls, data: object) -> Board:
        """A board from the shape printed by ``seahaven deal --json``.

        Raises:
            PositionError: the data is not a possible table (it says why).
        """
        if not isinstance(data, dict):
            raise PositionError("a position is a JSON object with cells, columns, foundations")
        try:
            raw_cells = data["cells"]
            raw_columns = data["columns"]
            raw_found = data.get("foundations", {})
        except KeyError as exc:
            raise PositionError(f"a position needs {exc.args[0]!r}") from None
        if not isinstance(raw_cells, list) or len(raw_cells) not in (1, 2, 4):
            raise PositionError("cells must be a list of 1, 2 or 4 entries")
        if not isinstance(raw_columns, list) or len(raw_columns) != COLUMNS:
            raise PositionError(f"columns must be a list of {COLUMNS} lists")
        if not isinstance(raw_found, dict) or set(raw_found) - set(SUITS):
            raise PositionError("foundations must map S, H, D, C to card counts")
        try:
            cells = [None if c is None else parse_card(str(c)) for c in raw_cells]
            columns = [[parse_card(str(c)) for c in col] for col in raw_columns]
        except (TypeError, ValueError) as exc:
            raise PositionError(str(exc)) from None
        foundations = []
        for s in SUITS:
            n = raw_found.get(s, 0)
            if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= KING:
                raise PositionError(f"foundation {s} must hold 0 to 13 cards")
            foundations.append(n)
        seen = [c for col in columns for c in col] + [c for c in cells if c is not None]
        seen += [s * 13 + r for s, n in enumerate(foundations) for r in range(n)]
        if len(seen) != 52 or len(set(seen)) != 52:
            raise PositionError("a position must hold each of the 52 cards exactly once")
        code = data.get("code")
        return cls(columns, cells, foundations, code=code if isinstance(code, str) else None)

    def copy(self) -> Board:
        """An independent copy of the table, score and undo history."""
        board = Board([col[:] for col in self.columns], self.cells[:], self.foundations[:])
        board.score, board.moves, board.code = self.score, self.moves, self.code
        board._history = self._history.copy()
        board._dropped = self._dropped
        return board

    # -- looking at the table -------------------------------------------------------------

    def key(self) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card | None, ...], tuple[int, ...]]:
        """The table alone (no score, no history), for comparing positions."""
        return (tuple(map(tuple, self.columns)), tuple(self.cells), tuple(self.foundations))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.key() == other.key() and self.score == other.score

    __hash__ = None  # type: ignore[assignment]  # mutable

    def to_json(self) -> dict[str, object]:
        """The shape of ``seahaven deal --json``."""
        return {
            "code": self.code,
            "cells": [None if c is None else card_name(c) for c in self.cells],
            "columns": [[card_name(c) for c in col] for col in self.columns],
            "foundations": dict(zip(SUITS, self.foundations, strict=True)),
        }

    def free_cells(self) -> int:
        """Empty cells; removed cells are not on the table and never count."""
        return self.cells.count(None)

    def empty_columns(self) -> int:
        """Columns with no card."""
        return sum(1 for col in self.columns if not col)

    def capacity(self, into_empty: bool) -> int:
        """The largest group that may move (RULES.md, Group moves).

        ``(free cells + 1) x 2 ^ (empty columns)``, and an empty destination column does not
        count itself: ``x 2 ^ (empty columns - 1)``.
        """
        empty = self.empty_columns() - (1 if into_empty else 0)
        return (self.free_cells() + 1) << max(empty, 0)

    def card_at(self, loc: Loc) -> Card | None:
        """The card a move from ``loc`` would take (the top card), or None."""
        if loc.kind == "col":
            col = self.columns[loc.index]
            return col[-1] if col else None
        if loc.kind == "cell":
            return self.cells[loc.index] if loc.index < len(self.cells) else None
        if loc.index < 0 or not self.foundations[loc.index]:
            return None
        return loc.index * 13 + self.foundations[loc.index] - 1

    def is_won(self) -> bool:
        """All 52 cards are on the foundations."""
        return sum(self.foundations) == 52

    # -- legality -------------------------------------------------------------------------

    def _resolve(self, move: Move) -> tuple[int, Loc, int]:
        """Check a move against the rules.

        Returns:
            (cards moving, the destination with foundations named by suit, points).

        Raises:
            IllegalAction: the move breaks a rule; the reason code says which.
        """
        src, dst = move
        # The source: the top card of a column, a cell's card, a foundation's top card.
        if src.kind == "col":
            column = self.columns[src.index]
            if not column:
                raise IllegalAction("empty_source")
            card = column[-1]
        elif src.kind == "cell":
            if src.index >= len(self.cells):
                raise IllegalAction("no_such_cell")
            held = self.cells[src.index]
            if held is None:
                raise IllegalAction("empty_source")
            card = held
        else:
            if src.index < 0:
                raise IllegalAction("foundation_needs_suit")
            if not self.foundations[src.index]:
                raise IllegalAction("empty_source")
            card = src.index * 13 + self.foundations[src.index] - 1
        if src == dst:
            raise IllegalAction("same_location")

        if dst.kind == "found":
            # On its foundation: the suit's Ace first, then each next rank, one at a time.
            if src.kind == "found":
                raise IllegalAction("foundation_to_foundation")
            suit = card // 13
            if dst.index >= 0 and dst.index != suit:
                raise IllegalAction("wrong_foundation")
            if self.foundations[suit] != card % 13:
                raise IllegalAction("not_next_on_foundation")
            return 1, FOUND[suit], POINTS_FOUNDATION

        if dst.kind == "cell":
            # In a cell: any single card, if the cell is empty.
            if dst.index >= len(self.cells):
                raise IllegalAction("no_such_cell")
            if self.cells[dst.index] is not None:
                raise IllegalAction("cell_occupied")
            return 1, dst, 0

        target = self.columns[dst.index]
        points = POINTS_CELL_TO_COLUMN if src.kind == "cell" else 0
        if src.kind != "col":
            # A single card onto a column: same suit, exactly one rank lower.
            if not target:
                if card % 13 != KING - 1:
                    raise IllegalAction("empty_column_needs_king")
                return 1, dst, points
            top = target[-1]
            if top // 13 != card // 13:
                raise IllegalAction("not_same_suit")
            if top != card + 1:
                raise IllegalAction("not_one_lower")
            return 1, dst, points

        # From a column the group is fixed by the rules: the card of the ordered top group
        # that fits the destination's top card, or the group's King for an empty column.
        bottom = _run_bottom(column)
        if not target:
            if bottom % 13 != KING - 1:
                raise IllegalAction("empty_column_needs_king")
            count = bottom - card + 1
            if count > 1 and count > self.capacity(into_empty=True):
                raise IllegalAction("group_too_large")
            return count, dst, 0
        top = target[-1]
        if top // 13 != card // 13:
            raise IllegalAction("not_same_suit")
        wanted = top - 1
        if top % 13 == 0 or not card <= wanted <= bottom:
            raise IllegalAction("not_one_lower")
        count = wanted - card + 1
        if count > 1 and count > self.capacity(into_empty=False):
            raise IllegalAction("group_too_large")
        return count, dst, 0

    def is_legal(self, move: Move) -> bool:
        """Whether ``push(move)`` would be accepted."""
        try:
            self._resolve(move)
        except IllegalAction:
            return False
        return True

    def legal_moves(self) -> list[Move]:
        """Every legal move, each destination once (foundations as ``found``)."""
        columns, cells, foundations = self.columns, self.cells, self.foundations
        free = [CELL[i] for i, c in enumerate(cells) if c is None]
        empty = [COL[i] for i, col in enumerate(columns) if not col]
        base = len(free) + 1
        cap_onto = base << len(empty)
        cap_into_empty = base << (len(empty) - 1) if empty else 0
        by_top = {col[-1]: COL[i] for i, col in enumerate(columns) if col}
        moves: list[Move] = []
        add = moves.append

        def single(src: Loc, card: Card, to_foundation: bool) -> None:
            if to_foundation and foundations[card // 13] == card % 13:
                add(Move(src, OWN_FOUNDATION))
            if card % 13 != KING - 1:
                onto = by_top.get(card + 1)
                if onto is not None:
                    add(Move(src, onto))
            else:
                for dst in empty:
                    add(Move(src, dst))
            for dst in free:
                if dst is not src:  # both from CELL: identity is equality, and cheaper
                    add(Move(src, dst))

        for i, col in enumerate(columns):
            if not col:
                continue
            src = COL[i]
            card = col[-1]
            if foundations[card // 13] == card % 13:
                add(Move(src, OWN_FOUNDATION))
            bottom = _run_bottom(col)
            for fit in range(card, bottom + 1):
                if fit % 13 != KING - 1:
                    onto = by_top.get(fit + 1)
                    if onto is not None and fit - card < cap_onto:
                        add(Move(src, onto))
            if bottom % 13 == KING - 1 and bottom - card < cap_into_empty:
                for dst in empty:
                    add(Move(src, dst))
            for dst in free:
                add(Move(src, dst))
        for i, held in enumerate(cells):
            if held is not None:
                single(CELL[i], held, True)
        for suit, n in enumerate(foundations):
            if n:
                single(FOUND[suit], suit * 13 + n - 1, False)
        return moves

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
        or ``found[suit]``: the same scan as :meth:`legal_moves`, straight into groups (it
        runs after every action of every player, and a Move per destination costs more)."""
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
            bottom = _run_bottom(column)
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
                card = self.card_at(src)
                assert card is not None
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
        """Every card left can reach the foundations by foundation moves alone (RULES.md,
        Send home); false once the game is won (nothing is left to send).

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
        """Whether a legal move counts towards "a useful move is left" (RULES.md, end).

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
            return column[0] != _run_bottom(column)
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
        """Whether one of :meth:`useful_moves` exists, found without listing them: asked
        after every action, and almost always answered by the first column looked at."""
        columns, cells, foundations = self.columns, self.cells, self.foundations
        free = cells.count(None)
        empty = sum(1 for col in columns if not col)
        tops = {col[-1] for col in columns if col}
        cap_onto = (free + 1) << empty
        cap_into_empty = (free + 1) << (empty - 1) if empty else 0
        for col in columns:
            if not col:
                continue
            card = col[-1]
            if free or foundations[card // 13] == card % 13:
                return True  # into a cell, or home
            bottom = _run_bottom(col)
            for fit in range(card, min(bottom, card + cap_onto - 1) + 1):
                if fit % 13 != KING - 1 and fit + 1 in tops:
                    return True
            # A King-led group into an empty column, unless it is the whole column.
            king_led = bottom % 13 == KING - 1 and col[0] != bottom
            if empty and king_led and bottom - card < cap_into_empty:
                return True
        for held in cells:
            if held is None:
                continue
            if foundations[held // 13] == held % 13:
                return True
            if held % 13 == KING - 1:
                if empty:
                    return True  # a King into an empty column
            elif held + 1 in tops:
                return True
        return False

    # -- actions --------------------------------------------------------------------------

    def push(self, move: Move) -> Delta:
        """Validate and play a move.

        Raises:
            IllegalAction: the move breaks a rule; nothing changed.
        """
        count, dst, points = self._resolve(move)
        return self._apply(move.src, dst, count, points)

    def _apply(self, src: Loc, dst: Loc, count: int, points: int) -> Delta:
        cards = self._take(src, count)
        self._put(dst, cards)
        self.score += points
        if len(self._history) == UNDO_LIMIT:
            self._dropped += 1
        self._history.append(_Record(src, dst, count, points))
        self.moves += 1
        return Delta((Change(cards, src, dst),), points, self.score)

    def _take(self, loc: Loc, count: int) -> tuple[Card, ...]:
        if loc.kind == "col":
            column = self.columns[loc.index]
            cards = tuple(column[-count:])
            del column[-count:]
            return cards
        if loc.kind == "cell":
            card = self.cells[loc.index]
            assert card is not None
            self.cells[loc.index] = None
            return (card,)
        self.foundations[loc.index] -= 1
        return (loc.index * 13 + self.foundations[loc.index],)

    def _put(self, loc: Loc, cards: tuple[Card, ...]) -> None:
        if loc.kind == "col":
            self.columns[loc.index].extend(cards)
        elif loc.kind == "cell":
            self.cells[loc.index] = cards[0]
        else:
            self.foundations[loc.index] += 1

    def tap(self, at: Loc) -> Delta:
        """Tap a top card: send it to its foundation when allowed (RULES.md, tap).

        Raises:
            IllegalAction: ``not_a_top_card`` for a foundation, ``empty_source``, or
                ``no_foundation_move`` when the foundation does not take the card.
        """
        self._tappable(at)
        try:
            return self.push(Move(at, OWN_FOUNDATION))
        except IllegalAction as exc:
            raise IllegalAction("no_foundation_move") from exc

    def double_tap(self, at: Loc) -> Delta:
        """Double tap a top card; the card moves alone (RULES.md, double tap).

        Tries, in order: its foundation; the longest column that accepts it (leftmost on a
        tie); for a King the leftmost empty column; the leftmost free cell. Each step is a
        legal move, so a card already in a cell may go to another cell and a lone King to
        another empty column, exactly as RULES.md orders it.

        Raises:
            IllegalAction: ``not_a_top_card``, ``empty_source`` or ``no_destination``.
        """
        card = self._tappable(at)
        if self.foundations[card // 13] == card % 13:
            return self._apply(at, FOUND[card // 13], 1, POINTS_FOUNDATION)
        points = POINTS_CELL_TO_COLUMN if at.kind == "cell" else 0
        best = -1
        for i, col in enumerate(self.columns):
            fits = col and col[-1] == card + 1 and card % 13 != KING - 1
            if fits and (best < 0 or len(col) > len(self.columns[best])):
                best = i
        if best >= 0:
            return self._apply(at, COL[best], 1, points)
        if card % 13 == KING - 1:
            for i, col in enumerate(self.columns):
                if not col:
                    return self._apply(at, COL[i], 1, points)
        for i, held in enumerate(self.cells):
            if held is None:
                return self._apply(at, CELL[i], 1, 0)
        raise IllegalAction("no_destination")

    def _tappable(self, at: Loc) -> Card:
        if at.kind == "found":
            raise IllegalAction("not_a_top_card")
        if at.kind == "cell" and at.index >= len(self.cells):
            raise IllegalAction("no_such_cell")
        card = self.card_at(at)
        if card is None:
            raise IllegalAction("empty_source")
        return card

    def undo(self) -> Delta:
        """Take back the most recent action, within the last 100 (RULES.md, Undo).

        The inverse delta removes the points the action gave; the score stays >= 0.

        Raises:
            IllegalAction: ``nothing_to_undo``, or ``undo_limit`` past 100 take-backs.
        """
        if not self._history:
            raise IllegalAction("undo_limit" if self._dropped else "nothing_to_undo")
        src, dst, count, points = self._history.pop()
        cards = self._take(dst, count)
        self._put(src, cards)
        removed = min(points, self.score)
        self.score -= removed
        self.moves += 1
        return Delta((Change(cards, dst, src),), -removed, self.score, undo=True)

    pop = undo

    def play(self, action: Action) -> Delta:
        """Play any action: a move, a tap, a double tap or an undo.

        Raises:
            IllegalAction: the action is refused; nothing changed.
        """
        if isinstance(action, Move):
            return self.push(action)
        if isinstance(action, Tap):
            return self.tap(action.at)
        if isinstance(action, DoubleTap):
            return self.double_tap(action.at)
        if isinstance(action, Undo):
            return self.undo()
        raise TypeError(f"not an action: {action!r}")

    def can_undo(self) -> bool:
        """Whether an undo would be accepted."""
        return bool(self._history)


def apply_delta(board: Board, delta: Delta) -> None:
    """Apply a delta as a thin client would: move cards, set the score, check nothing."""
    for change in delta.changes:
        cards = board._take(change.src, len(change.cards))
        board._put(change.dst, cards)
    board.score = delta.score
