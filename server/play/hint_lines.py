"""The winning lines hints named, kept per instance: a hint on a position along one is
answered from it at once, without the solver.

A hint's search finds a whole winning line, of which it names the first move; a player who
follows the hints, or anyone on the same opening of the same deal, asks next about a
position on that line. On a host with no spare CPU the solver's processes (which yield to
everything) may take seconds to start a search of a few milliseconds; a position already on
a line needs none. A line proven shortest stays proven along the way (the rest of a shortest
line is a shortest line from where it stands), so its positions keep their ``remaining``.

Positions are the exact table (:meth:`~server.engine.board.Board.key`: which cell holds a
card matters, as a move names its cell); the most recent :data:`MOST` are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from ..context import Kept
from ..engine import Board, Card, parse_action
from ..engine.errors import EngineError
from ..engine.solver import Hint

#: Positions kept on an instance (each a few hundred bytes).
MOST: Final = 50_000

Position = tuple[tuple[tuple[Card, ...], ...], tuple[Card | None, ...], tuple[int, ...]]


class HintLines:
    """Positions on the winning lines hints named, with the move each line plays there."""

    def __init__(self, most: int = MOST) -> None:
        self.most = most
        self._moves: OrderedDict[Position, tuple[str, int | None]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._moves)

    def hint(self, board: Board) -> Hint | None:
        """The hint for ``board`` from a line known to pass through it, or None."""
        found = self._moves.get(board.key())
        if found is None:
            return None
        self._moves.move_to_end(board.key())
        move, remaining = found
        return Hint("move", move, remaining)

    def learn(self, board: Board, hint: Hint) -> None:
        """Keep the positions of the line ``hint`` names from ``board`` (the board it was
        asked about; not changed). A line that does not play is dropped where it stops."""
        if hint.status != "move" or not hint.line:
            return
        table = board.copy()
        for i, text in enumerate(hint.line):
            remaining = None if hint.remaining is None else hint.remaining - i
            self._moves[table.key()] = (text, remaining)
            self._moves.move_to_end(table.key())
            try:
                table.play(parse_action(text))
            except EngineError:
                break
        while len(self._moves) > self.most:
            self._moves.popitem(last=False)


#: This instance's known lines.
LINES: Final = Kept[HintLines]("hint_lines", HintLines)
