"""Cards of the single 52-card deck, as small integers.

A card is ``suit * 13 + (rank - 1)``: suits in the order of RULES.md (spades, hearts,
diamonds, clubs) and ranks from 1 (Ace) to 13 (King). Integers keep the hot move path
free of object allocation; the helpers here give them names.
"""

from __future__ import annotations

from typing import Final

Card = int

SUITS: Final = "SHDC"
RANKS: Final = "A23456789TJQK"
SUIT_SYMBOLS: Final = ("\u2660", "\u2665", "\u2666", "\u2663")
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES: Final = (
    "Ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King",
)  # fmt: skip

DECK: Final = tuple(range(52))
ACE: Final = 1
KING: Final = 13

_NAMES: Final = tuple(RANKS[c % 13] + SUITS[c // 13] for c in DECK)
_BY_NAME: Final = {name: card for card, name in enumerate(_NAMES)}


def card_name(card: Card) -> str:
    """The notation of a card: rank then suit, for example ``TH`` or ``KS``."""
    return _NAMES[card]


def card_label(card: Card) -> str:
    """A spoken label, for example ``10 of hearts``."""
    return f"{RANK_NAMES[card % 13]} of {SUIT_NAMES[card // 13]}"


def parse_card(text: str) -> Card:
    """Parse a card in notation (case-insensitive, ``10`` accepted for ``T``).

    Raises:
        ValueError: the text names no card; the message says which part is wrong.
    """
    name = text.strip().upper()
    if name.startswith("10"):
        name = "T" + name[2:]
    card = _BY_NAME.get(name)
    if card is not None:
        return card
    if len(name) != 2:
        raise ValueError(f"card {text!r} must be a rank and a suit, like 'TH' or 'KS'")
    if name[0] not in RANKS:
        raise ValueError(f"card {text!r} has no rank: use one of {' '.join(RANKS)}")
    raise ValueError(f"card {text!r} has no suit: use one of {' '.join(SUITS)}")
