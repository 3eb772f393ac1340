"""The shipped pools of certified winnable deals, for races and the daily challenge.

Each pool is package data, ``server/pools/c4.txt``, ``c2.txt`` and ``c1.txt``: a comment
header (lines starting with ``#``) saying how ``seahaven certify`` generated it, then one
line per deal, in one of three forms (a pool may mix them, so a pool being re-certified
for optimal par is usable at every stage):

- ``DEAL_NUMBER PAR``: the par is the length of the fast solver's winning line (the
  first format; nothing is proven about it but that it wins);
- ``DEAL_NUMBER PAR optimal``: the par is the proven fewest actions that win the deal
  (``seahaven certify --optimal``);
- ``DEAL_NUMBER PAR best LOWER``: the optimal search ran out of budget; the par is the
  length of the shortest win it found and no win has fewer than ``LOWER`` actions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ..engine import CodeError, format_code, parse_code
from ..engine.codes import CELL_COUNTS, MAX_DEAL


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """One certified deal.

    Attributes:
        deal: the deal number.
        par: the length in actions of a winning line: the fewest possible when
            ``optimal``.
        code: the game code of the deal with the pool's cell count.
        optimal: whether ``par`` is proven to be the fewest actions that win.
        lower_bound: for a deal the optimal search did not finish, no win is shorter;
            None when not searched (the first format) or when ``optimal``.
    """

    deal: int
    par: int
    code: str
    optimal: bool = False
    lower_bound: int | None = None


def pool_file(cells: int) -> str:
    """The file name of a pool inside the ``server.pools`` package data."""
    return f"c{cells}.txt"


def parse_pool(text: str, cells: int) -> tuple[PoolEntry, ...]:
    """Parse the text of a pool file.

    Raises:
        ValueError: a line is none of the three forms, a number is out of range, a lower
            bound exceeds its par, or a deal is listed twice; the message names the line.
    """
    entries: list[PoolEntry] = []
    seen: set[int] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        entry = _parse_line(line, number, cells)
        if entry.deal in seen:
            raise ValueError(f"line {number}: deal {entry.deal} is listed twice")
        seen.add(entry.deal)
        entries.append(entry)
    return tuple(entries)


def _parse_line(line: str, number: int, cells: int) -> PoolEntry:
    parts = line.split()
    numbers = [parts[0], parts[1]] if len(parts) >= 2 else []
    if len(parts) == 4 and parts[2] == "best":
        numbers.append(parts[3])
    shape = len(parts) == 2 or (len(parts) == 3 and parts[2] == "optimal") or len(numbers) == 3
    if not shape or not all(p.isdigit() for p in numbers):
        raise ValueError(
            f"line {number}: expected 'DEAL_NUMBER PAR', 'DEAL_NUMBER PAR optimal' or "
            f"'DEAL_NUMBER PAR best LOWER', got {line!r}"
        )
    deal, par = int(numbers[0]), int(numbers[1])
    if deal > MAX_DEAL or par < 1:
        raise ValueError(f"line {number}: deal or par out of range in {line!r}")
    lower = int(numbers[2]) if len(numbers) == 3 else None
    if lower is not None and lower > par:
        raise ValueError(f"line {number}: the lower bound exceeds the par in {line!r}")
    optimal = len(parts) == 3
    return PoolEntry(deal, par, format_code(deal, cells), optimal, lower)


def format_entry(entry: PoolEntry) -> str:
    """The line of an entry in a pool file (the inverse of one line of :func:`parse_pool`)."""
    if entry.optimal:
        return f"{entry.deal} {entry.par} optimal"
    if entry.lower_bound is not None:
        return f"{entry.deal} {entry.par} best {entry.lower_bound}"
    return f"{entry.deal} {entry.par}"


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


@cache
def _by_code(cells: int) -> dict[str, PoolEntry]:
    return {entry.code: entry for entry in load_pool(cells)}


def find(code: str) -> PoolEntry | None:
    """The pool entry of a game code (its par), or None when the deal is in no pool (a
    typed code of another deal: its par is unknown, so no game of it is called perfect).

    Raises:
        OSError, ValueError: as :func:`load_pool`.
    """
    try:
        cells = parse_code(code).cells
    except CodeError:
        return None
    return _by_code(cells).get(code)


def is_perfect(moves: int, par: int | None, optimal: bool) -> bool:
    """Whether a win in ``moves`` actions is perfect: the par is proven the fewest actions
    that win (``optimal``) and the win took exactly that many. A par that is only a best
    line makes no claim (a shorter win may exist)."""
    return optimal and par is not None and moves == par
