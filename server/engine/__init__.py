"""The pure rules engine of Seahaven Towers: standard library only, no I/O.

The public names below are the engine's API; the server, the command line and the
solver use nothing else.
"""

from .board import Board, apply_delta
from .cards import Card, card_label, card_name, parse_card
from .codes import GameCode, format_code, parse_code, shuffle
from .errors import REASONS, CodeError, EngineError, IllegalAction, NotationError, PositionError
from .moves import (
    CELL,
    COL,
    FOUND,
    OWN_FOUNDATION,
    Action,
    Change,
    Delta,
    DoubleTap,
    Loc,
    Move,
    Tap,
    Undo,
)
from .notation import format_action, parse_action, parse_location
from .optimal import OptimalResult, optimal_par

__all__ = [
    "CELL",
    "COL",
    "FOUND",
    "OWN_FOUNDATION",
    "REASONS",
    "Action",
    "Board",
    "Card",
    "Change",
    "CodeError",
    "Delta",
    "DoubleTap",
    "EngineError",
    "GameCode",
    "IllegalAction",
    "Loc",
    "Move",
    "NotationError",
    "OptimalResult",
    "PositionError",
    "Tap",
    "Undo",
    "apply_delta",
    "card_label",
    "card_name",
    "format_action",
    "format_code",
    "optimal_par",
    "parse_action",
    "parse_card",
    "parse_code",
    "parse_location",
    "shuffle",
]
