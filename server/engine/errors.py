"""Errors of the engine. Each names whose fault it is and carries a stable reason code.

Reasons are kept together here as data (h11 style), so the protocol, the command line and
the web client share one list of codes and plain-language explanations.
"""

from __future__ import annotations

from typing import Final

#: Why an action was refused. The codes are stable: clients key translations on them.
REASONS: Final[dict[str, str]] = {
    "empty_source": "there is no card at the source",
    "same_location": "the source and the destination are the same place",
    "no_such_cell": "this game has fewer cells",
    "not_same_suit": "a card goes on a column only onto a card of its own suit",
    "not_one_lower": "a card goes on a column only onto the card exactly one rank higher",
    "empty_column_needs_king": "an empty column takes only a King or a King-led group",
    "group_too_large": "the group is larger than (free cells + 1) x 2^(empty columns) allows",
    "cell_occupied": "a cell holds one card and this one is taken",
    "not_next_on_foundation": "a foundation takes the next rank of its suit, Ace first",
    "wrong_foundation": "a card goes only on the foundation of its own suit",
    "foundation_to_foundation": "a foundation card may go back to a column or a cell only",
    "foundation_needs_suit": "name the foundation to take a card from, like found:H",
    "not_a_top_card": "only a top card of a column or a card in a cell can be tapped",
    "no_foundation_move": "the card cannot go to its foundation now",
    "no_destination": "no place accepts this card",
    "cannot_send_home": "not every card left can reach its foundation by foundation moves alone",
    "nothing_to_undo": "there is no action to undo",
    "undo_limit": "only the last 100 actions can be undone",
}


class EngineError(Exception):
    """Base of the engine's errors: ``reason`` is a stable code, ``str()`` explains it."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class IllegalAction(EngineError):
    """The player's action breaks a rule; the board is unchanged."""

    def __init__(self, reason: str, detail: str | None = None) -> None:
        super().__init__(reason, detail or REASONS[reason])


class NotationError(EngineError, ValueError):
    """The text of an action, location or card is not RULES.md notation."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_notation", message)


class CodeError(EngineError, ValueError):
    """A game code is not valid; ``reason`` names the fault."""


class PositionError(EngineError, ValueError):
    """A position given from outside (JSON, tests) is not a possible table."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_position", message)
