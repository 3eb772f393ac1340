"""The shipped pools of certified winnable deals, for races and the daily challenge.

Each pool is package data, ``server/pools/c4.txt``, ``c2.txt`` and ``c1.txt``: a comment
header (lines starting with ``#``) saying how ``seahaven certify`` generated it, then one
``DEAL_NUMBER PAR`` line per deal, where the par is the length in actions of the solver's
winning line.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ..engine import format_code
from ..engine.codes import CELL_COUNTS, MAX_DEAL


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """One certified deal.

    Attributes:
        deal: the deal number.
        par: the length in actions of the solver's winning line.
        code: the game code of the deal with the pool's cell count.
    """

    deal: int
    par: int
    code: str


def pool_file(cells: int) -> str:
    """The file name of a pool inside the ``server.pools`` package data."""
    return f"c{cells}.txt"


def parse_pool(text: str, cells: int) -> tuple[PoolEntry, ...]:
    """Parse the text of a pool file.

    Raises:
        ValueError: a line is not ``DEAL_NUMBER PAR``, a number is out of range, or a deal
            is listed twice; the message names the line.
    """
    entries: list[PoolEntry] = []
    seen: set[int] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ValueError(f"line {number}: expected 'DEAL_NUMBER PAR', got {line!r}")
        deal, par = int(parts[0]), int(parts[1])
        if deal > MAX_DEAL or par < 1:
            raise ValueError(f"line {number}: deal or par out of range in {line!r}")
        if deal in seen:
            raise ValueError(f"line {number}: deal {deal} is listed twice")
        seen.add(deal)
        entries.append(PoolEntry(deal, par, format_code(deal, cells)))
    return tuple(entries)


@cache
def load_pool(cells: int) -> tuple[PoolEntry, ...]:
    """The certified deals shipped for a cell count (read once, then cached).

    Raises:
        ValueError: the cell count is not 4, 2 or 1, or the pool file is malformed.
        OSError: the pool file cannot be read.
    """
    if cells not in CELL_COUNTS:
        raise ValueError(f"cell count {cells} is not 4, 2 or 1")
    text = resources.files(__package__).joinpath(pool_file(cells)).read_text("utf-8")
    return parse_pool(text, cells)


def draw(cells: int, rng: random.Random | None = None) -> PoolEntry:
    """A certified deal drawn at random from the pool of a cell count.

    Args:
        cells: 4, 2 or 1.
        rng: the random source; the system's secure source when None.

    Raises:
        ValueError: the cell count is wrong, or its pool is empty or malformed.
        OSError: the pool file cannot be read.
    """
    pool = load_pool(cells)
    if not pool:
        raise ValueError(f"the {cells}-cell pool is empty")
    return (rng or random.SystemRandom()).choice(pool)
