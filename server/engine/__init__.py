"""The pure rules engine of Seahaven Towers: standard library only, no I/O.

The names below are the API of a game: the board (:mod:`.board`, with what a table allows
listed in :mod:`.listing`), cards (:mod:`.cards`), game codes and the shuffle
(:mod:`.codes`), errors with their reason codes (:mod:`.errors`), moves and deltas
(:mod:`.moves`) and notation (:mod:`.notation`), and the optimal par
(:mod:`.optimal`: ``optimal_par``, ``OptimalResult``). Two parts are imported from their
own modules instead: the solvers (:mod:`.solver`, its search :mod:`.solver_search` and the
shortening of its lines :mod:`.solver_shorten`; the optimal search :mod:`.solver_optimal`
and its lower bound :mod:`.solver_bound`), which only hints, certification, the daily's
deal and the bot use, and the constants of the deck and of the codes (``SUITS``,
``RANKS``, ``MAX_DEAL``, ``CELL_COUNTS``, ...).
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
