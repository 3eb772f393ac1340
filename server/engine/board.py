"""The table and the rules of play: a board with a move stack (push / undo).

Every rule of ``docs/RULES.md`` that decides whether one action is legal lives in this
module, each check next to the sentence it implements; the one refusal made elsewhere is a
send home as a whole (``cannot_send_home``, :mod:`server.engine.listing`), a sequence of
taps that this module checks one by one. A refused action raises
:class:`~server.engine.errors.IllegalAction` and changes nothing; an accepted one returns a
:class:`~server.engine.moves.Delta`. What a table allows, listed (the legal moves, whether
a useful move is left, a send home), is in :mod:`server.engine.listing`.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from .cards import KING, SUITS, Card, card_name, parse_card
from .codes import GameCode, format_code, parse_code, shuffle
from .errors import IllegalAction, PositionError
from .listing import Listing, run_bottom
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

# RULES.md, "Score".
POINTS_FOUNDATION = 10
POINTS_CELL_TO_COLUMN = 5


class _Record(NamedTuple):
    """One undoable action: where ``cards`` cards went, and the points it gave."""

    src: Loc
    dst: Loc
    cards: int
    points: int


class Board(Listing):
    """A Seahaven Towers table: 10 columns, 1, 2 or 4 cells, 4 foundations.

    Attributes:
        columns: the 10 columns, each a list of cards from bottom to top.
        cells: one entry per cell, a card or None.
        foundations: cards on each foundation, by suit index (S, H, D, C).
        score: the score (RULES.md, "Score").
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
        """The opening table of a deal number and cell count (RULES.md, "The deal").

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
        """The largest group that may move (RULES.md, "Group moves").

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
        bottom = run_bottom(column)
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
        """Tap a top card: send it to its foundation when allowed.

        RULES.md, "No automatic moves, tap and double tap": a tap that the foundation
        refuses does nothing.

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
        """Double tap a top card; the card moves alone.

        RULES.md, "No automatic moves, tap and double tap". Tries, in order: its
        foundation; the longest column that accepts it (leftmost on a tie); for a King the
        leftmost empty column; the leftmost free cell. Each step is a legal move, so a card
        already in a cell may go to another cell and a lone King to another empty column,
        exactly as RULES.md orders it.

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
        """Take back the most recent action, within the last 100 (RULES.md, "Undo").

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
