"""RULES.md notation: parse and format locations and actions.

Cards are ``TH``, ``KS``; locations ``col1``..``col10``, ``cell1``..``cell4``, ``found``,
``found:S``; actions ``SRC DST``, ``tap AT``, ``dtap AT`` and ``undo``.
"""

from __future__ import annotations

from .cards import SUITS
from .errors import NotationError
from .moves import (
    CELL,
    COL,
    COLUMNS,
    FOUND,
    MAX_CELLS,
    OWN_FOUNDATION,
    Action,
    DoubleTap,
    Loc,
    Move,
    Tap,
    Undo,
)

_LOCATIONS: dict[str, Loc] = {str(loc): loc for loc in (*COL, *CELL, *FOUND, OWN_FOUNDATION)}


def parse_location(text: str) -> Loc:
    """Parse ``col3``, ``cell1``, ``found`` or ``found:H`` (case-insensitive).

    Raises:
        NotationError: the text is no location; the message says what is expected.
    """
    word = text.strip().lower()
    if word.startswith("found:"):
        word = "found:" + word[6:].upper()
    loc = _LOCATIONS.get(word)
    if loc is not None:
        return loc
    if word.startswith("col"):
        raise NotationError(f"location {text!r}: columns are col1 to col{COLUMNS}")
    if word.startswith("cell"):
        raise NotationError(f"location {text!r}: cells are cell1 to cell{MAX_CELLS}")
    if word.startswith("found"):
        raise NotationError(f"location {text!r}: foundations are found or found:S/H/D/C")
    raise NotationError(f"location {text!r} is not colN, cellN, found or found:{'/'.join(SUITS)}")


def parse_action(text: str) -> Action:
    """Parse one action line: ``col3 found``, ``tap cell1``, ``dtap col2`` or ``undo``.

    Raises:
        NotationError: the line is not an action; the message says why.
    """
    words = text.split()
    if not words:
        raise NotationError("empty action: expected 'SRC DST', 'tap AT', 'dtap AT' or 'undo'")
    head = words[0].lower()
    if head == "undo":
        if len(words) != 1:
            raise NotationError(f"action {text.strip()!r}: 'undo' takes nothing after it")
        return Undo()
    if head in ("tap", "dtap"):
        if len(words) != 2:
            raise NotationError(f"action {text.strip()!r}: '{head}' takes one location")
        at = parse_location(words[1])
        return Tap(at) if head == "tap" else DoubleTap(at)
    if len(words) != 2:
        raise NotationError(
            f"action {text.strip()!r}: expected 'SRC DST', 'tap AT', 'dtap AT' or 'undo'"
        )
    src = parse_location(words[0])
    if src == OWN_FOUNDATION:
        raise NotationError(
            f"action {text.strip()!r}: a take-back names its foundation, like found:H"
        )
    return Move(src, parse_location(words[1]))


def format_action(action: Action) -> str:
    """The notation of an action (the inverse of :func:`parse_action`)."""
    return str(action)
