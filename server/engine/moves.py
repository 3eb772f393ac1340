"""Small immutable values: locations, actions and board deltas.

Locations and moves are named tuples so that they are cheap to make and compare on the
hot move path, like python-chess's ``Move``. Their ``str()`` is RULES.md notation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, NamedTuple

from .cards import SUITS, Card, card_name

COLUMNS: Final = 10
MAX_CELLS: Final = 4
UNDO_LIMIT: Final = 100


@dataclass(frozen=True, slots=True)
class Loc:
    """A place on the table.

    ``kind`` is ``"col"``, ``"cell"`` or ``"found"``; ``index`` is the 0-based column or
    cell, or for a foundation the suit index, or -1 for "the moving card's own foundation".
    """

    kind: str
    index: int
    #: Its notation, written once: the server names locations for every move it sends.
    name: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind == "found":
            name = "found" if self.index < 0 else f"found:{SUITS[self.index]}"
        else:
            name = f"{self.kind}{self.index + 1}"
        object.__setattr__(self, "name", name)

    def __str__(self) -> str:
        return self.name


COL: Final = tuple(Loc("col", i) for i in range(COLUMNS))
CELL: Final = tuple(Loc("cell", i) for i in range(MAX_CELLS))
FOUND: Final = tuple(Loc("found", s) for s in range(4))
OWN_FOUNDATION: Final = Loc("found", -1)


class Move(NamedTuple):
    """Move the card (or, between columns, the group the rules fix) from src to dst."""

    src: Loc
    dst: Loc

    def __str__(self) -> str:
        return f"{self.src} {self.dst}"


class Tap(NamedTuple):
    """Tap a top card: it goes to its foundation if allowed.

    RULES.md, "No automatic moves, tap and double tap".
    """

    at: Loc

    def __str__(self) -> str:
        return f"tap {self.at}"


class DoubleTap(NamedTuple):
    """Double tap a top card: foundation, longest column, empty column, free cell."""

    at: Loc

    def __str__(self) -> str:
        return f"dtap {self.at}"


class Undo(NamedTuple):
    """Take back the most recent action."""

    def __str__(self) -> str:
        return "undo"


Action = Move | Tap | DoubleTap | Undo


@dataclass(frozen=True, slots=True)
class Change:
    """Cards that moved together, bottom card first, from one place to another."""

    cards: tuple[Card, ...]
    src: Loc
    dst: Loc

    def to_json(self) -> dict[str, object]:
        """The wire form: card and location names in RULES.md notation."""
        return {
            "cards": [card_name(c) for c in self.cards],
            "src": self.src.name,
            "dst": self.dst.name,
        }


@dataclass(frozen=True, slots=True)
class Delta:
    """What an accepted action changed, enough for a client that knows no rules.

    Apply ``changes`` in order: take ``cards`` off the top of ``src`` and put them on top
    of ``dst``. Foundations are always named by suit. ``points`` is the score change and
    ``score`` the score after it; ``undo`` marks the inverse delta of a take-back.
    """

    changes: tuple[Change, ...]
    points: int
    score: int
    undo: bool = False

    def to_json(self) -> dict[str, object]:
        """The wire form used by the protocol's ``delta`` message."""
        return {
            "changes": [c.to_json() for c in self.changes],
            "points": self.points,
            "score": self.score,
            "undo": self.undo,
        }
