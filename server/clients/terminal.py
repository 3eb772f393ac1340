"""A picture of the table for the terminal, with suit symbols and colours on a tty."""

from __future__ import annotations

from ..engine import Board
from ..engine.cards import RANKS, SUIT_SYMBOLS, SUITS, Card

_RED = "\x1b[31m"
_DIM = "\x1b[2m"
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"


def _card(card: Card | None, colour: bool, symbols: bool) -> str:
    if card is None:
        text = " . "
        return f"{_DIM}{text}{_RESET}" if colour else text
    rank = "10" if card % 13 == 9 else RANKS[card % 13]
    suit = SUIT_SYMBOLS[card // 13] if symbols else SUITS[card // 13]
    text = f"{rank}{suit}".rjust(3)
    if colour and card // 13 in (1, 2):  # hearts and diamonds are red
        return f"{_RED}{text}{_RESET}"
    return text


def render(board: Board, *, colour: bool = False, symbols: bool = True) -> str:
    """The table as text: cells and foundations on top, then the 10 columns downwards.

    Args:
        board: the table to draw.
        colour: use ANSI colours (red hearts and diamonds, dim empty places).
        symbols: suit symbols (♠ ♥ ♦ ♣) instead of letters.
    """
    bold = (lambda s: f"{_BOLD}{s}{_RESET}") if colour else (lambda s: s)
    lines = []
    if board.code:
        lines.append(bold(board.code) + f"    score {board.score}    moves {board.moves}")
    cells = " ".join(_card(c, colour, symbols) for c in board.cells)
    found = " ".join(
        _card(s * 13 + n - 1 if n else None, colour, symbols)
        for s, n in enumerate(board.foundations)
    )
    lines.append(f"cells {cells}      foundations {found}".rstrip())
    lines.append("")
    lines.append("  " + " ".join(f"{i:>3}" for i in range(1, 11)))
    depth = max((len(col) for col in board.columns), default=0)
    for row in range(depth):
        cards = [
            _card(col[row], colour, symbols) if row < len(col) else "   " for col in board.columns
        ]
        lines.append("  " + " ".join(cards).rstrip())
    if board.is_won():
        lines.append(bold("won"))
    return "\n".join(lines)
