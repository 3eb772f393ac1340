"""Game codes (``SH1-C4-AAAAAJ2``) and the version-1 shuffle.

A code names a deal number and a cell count; the shuffle turns the deal number into the
order of the 52 cards. Both are documented step by step, with test vectors, in
``protocol/README.md`` so that any client in any language reproduces a deal exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .cards import DECK, Card
from .errors import CodeError

VERSION: Final = "SH1"
CELL_COUNTS: Final = (4, 2, 1)
DIGITS: Final = 7
MAX_DEAL: Final = 32**DIGITS - 1  # 2^35 - 1
ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"  # RFC 4648 base 32
_VALUE: Final = {ch: i for i, ch in enumerate(ALPHABET)}

_MASK64: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15


@dataclass(frozen=True, slots=True)
class GameCode:
    """A parsed game code: the deal number and the number of cells."""

    deal: int
    cells: int

    def __post_init__(self) -> None:
        if not 0 <= self.deal <= MAX_DEAL:
            raise CodeError("deal_out_of_range", f"deal number {self.deal} is not in 0..2^35-1")
        if self.cells not in CELL_COUNTS:
            raise CodeError("bad_cells", f"cell count {self.cells} is not 4, 2 or 1")

    def __str__(self) -> str:
        return format_code(self.deal, self.cells)


def format_code(deal: int, cells: int) -> str:
    """The code of a deal number and cell count, for example ``SH1-C4-AAAAAJ2`` for 314.

    Raises:
        CodeError: the number is outside 0..2^35-1 or the cell count is not 4, 2 or 1.
    """
    if not 0 <= deal <= MAX_DEAL:
        raise CodeError("deal_out_of_range", f"deal number {deal} is not in 0..2^35-1")
    if cells not in CELL_COUNTS:
        raise CodeError("bad_cells", f"cell count {cells} is not 4, 2 or 1")
    digits = []
    for _ in range(DIGITS):
        digits.append(ALPHABET[deal & 31])
        deal >>= 5
    return f"{VERSION}-C{cells}-{''.join(reversed(digits))}"


def parse_code(text: str) -> GameCode:
    """Parse a game code; input is trimmed and upper-cased first (RULES.md, "Game codes").

    Raises:
        CodeError: with a reason naming the fault: ``malformed``, ``unknown_version``,
            ``bad_cells``, ``bad_length`` or ``bad_character``.
    """
    code = text.strip().upper()
    parts = code.split("-")
    if len(parts) != 3:
        raise CodeError(
            "malformed",
            f"code {code!r} must have three parts separated by '-', like SH1-C4-AAAAAJ2",
        )
    version, cells_part, number = parts
    if version != VERSION:
        raise CodeError(
            "unknown_version",
            f"code {code!r} starts with {version!r}; the only known prefix is {VERSION!r}",
        )
    if cells_part not in ("C4", "C2", "C1"):
        raise CodeError(
            "bad_cells", f"code {code!r} has cell part {cells_part!r}; use C4, C2 or C1"
        )
    if len(number) != DIGITS:
        raise CodeError(
            "bad_length",
            f"code {code!r} has a deal number of {len(number)} characters; it needs {DIGITS}",
        )
    deal = 0
    for position, ch in enumerate(number, start=1):
        value = _VALUE.get(ch)
        if value is None:
            raise CodeError(
                "bad_character",
                f"code {code!r}: character {ch!r} at position {position} of the deal number "
                "is not base 32 (A-Z, 2-7)",
            )
        deal = deal * 32 + value
    return GameCode(deal, int(cells_part[1]))


def splitmix64(state: int) -> tuple[int, int]:
    """One step of SplitMix64: returns (next state, 64-bit output)."""
    state = (state + _GOLDEN) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def shuffle(deal: int) -> list[Card]:
    """The card order of a deal number under version SH1.

    The deck starts in order (AS..KS, AH..KH, AD..KD, AC..KC). For i from 51 down to 1 a
    SplitMix64 stream seeded with the deal number draws j uniformly in 0..i (rejection
    sampling, no modulo bias) and swaps positions i and j (Fisher-Yates).
    """
    deck = list(DECK)
    state = deal
    for i in range(51, 0, -1):
        n = i + 1
        limit = (1 << 64) - ((1 << 64) % n)  # reject the biased tail
        while True:
            state, value = splitmix64(state)
            if value < limit:
                break
        j = value % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck
