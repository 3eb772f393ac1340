"""The daily challenge: one certified deal per UTC date and kind, the same everywhere.

The deal of a date is a pure function of the date, the kind and the certified pool, so
every server instance (and any client holding the pool) agrees on it, after any restart:

    digest = SHA-256(ASCII "SH1-daily-" + DATE + "-" + KIND)     DATE is YYYY-MM-DD
    size   = min(len(pool), SPAN[KIND])
    index  = (first 8 bytes of digest, big-endian unsigned) mod size
    deal   = pool[index]                                          pool order as in the file

``KIND`` is ``daily`` (the 4-cell pool ``server/pools/c4.txt``, span 5000) or ``hard``
(the 1-cell pool ``c1.txt``, span 1000). Only the first ``SPAN`` entries are drawn from, so
appending deals to a pool never changes a day's deal. The par is the pool entry's solver
solution length. Days run from :data:`FIRST_DAY` to today (UTC); later dates are refused,
as are malformed ones.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from dataclasses import dataclass
from typing import Final

from ..pools import PoolEntry, draw, load_pool

#: The pool (cell count) of each daily kind.
KIND_CELLS: Final[dict[str, int]] = {"daily": 4, "hard": 1}
KINDS: Final = ("daily", "hard")

#: How many entries of each pool the daily draws from (fixed, so that growing a pool
#: keeps every day's deal).
SPAN: Final[dict[str, int]] = {"daily": 5000, "hard": 1000}

#: The first day with a daily challenge.
FIRST_DAY: Final = dt.date(2026, 1, 1)

#: The prefix of the hashed text; a new shuffle or pool format gets a new prefix.
SALT: Final = "SH1-daily-"


class DailyError(ValueError):
    """A date or kind has no daily challenge; ``reason`` is a stable code.

    Reasons: ``bad_date`` (not a YYYY-MM-DD calendar date, or before the first day),
    ``future_date`` (after today, UTC), ``bad_kind``, ``unavailable`` (no pool loaded).
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """The deal of one day and kind, with its par (the solver's solution length)."""

    date: str
    kind: str
    code: str
    par: int
    index: int


def today(now: dt.datetime | None = None) -> dt.date:
    """The current UTC date (or that of ``now``)."""
    moment = now if now is not None else dt.datetime.now(dt.UTC)
    return moment.astimezone(dt.UTC).date()


def parse_date(text: str, *, now: dt.datetime | None = None) -> dt.date:
    """Check a requested day: a real YYYY-MM-DD date between FIRST_DAY and today (UTC).

    Raises:
        DailyError: ``bad_date`` or ``future_date``; the message says what is wrong.
    """
    if len(text) != 10 or text[4] != "-" or text[7] != "-":
        raise DailyError("bad_date", f"date {text!r} is not YYYY-MM-DD")
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise DailyError("bad_date", f"date {text!r} is not a calendar date") from None
    if day < FIRST_DAY:
        raise DailyError("bad_date", f"the first daily challenge is {FIRST_DAY.isoformat()}")
    if day > today(now):
        raise DailyError("future_date", f"the daily challenge of {text} is not out yet")
    return day


def daily_index(date: str, kind: str, size: int) -> int:
    """The pool index of a day's deal (the documented function above).

    Raises:
        DailyError: ``bad_kind`` or ``unavailable`` (an empty pool).
    """
    if kind not in KIND_CELLS:
        raise DailyError("bad_kind", f"kind {kind!r} is not daily or hard")
    if size <= 0:
        raise DailyError("unavailable", f"the {kind} pool is empty")
    digest = hashlib.sha256(f"{SALT}{date}-{kind}".encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") % size


def daily_deal(date: str, kind: str = "daily", *, now: dt.datetime | None = None) -> DailyDeal:
    """The certified deal of a day and kind.

    Args:
        date: YYYY-MM-DD, from FIRST_DAY to today (UTC).
        kind: ``daily`` (4 cells) or ``hard`` (1 cell).
        now: the current time (tests); the real UTC clock when None.

    Raises:
        DailyError: the date or kind has no daily challenge, or the pool is missing.
    """
    day = parse_date(date, now=now).isoformat()
    if kind not in KIND_CELLS:
        raise DailyError("bad_kind", f"kind {kind!r} is not daily or hard")
    pool = _pool(KIND_CELLS[kind])
    index = daily_index(day, kind, min(len(pool), SPAN[kind]))
    entry = pool[index]
    return DailyDeal(day, kind, str(entry.code), int(entry.par), index)


def day_bounds(date: str) -> tuple[int, int]:
    """The first ms of a day (UTC, ms since the epoch) and the first ms of the next."""
    start = dt.datetime.combine(dt.date.fromisoformat(date), dt.time(), dt.UTC)
    begin = int(start.timestamp()) * 1000
    return begin, begin + 86_400_000


def is_running(date: str, *, now: dt.datetime | None = None) -> bool:
    """Whether a day's challenge is still running: it is that day now (UTC).

    While it runs its codes, its replays and its replay ids are kept from everyone but the
    player who revealed them (protocol/DAILY.md, "Fair play"); once it is over, all is public.
    """
    return date >= today(now).isoformat()


def running_codes(*, now: dt.datetime | None = None) -> frozenset[str]:
    """The codes of the daily deals whose day is not over (empty without pools)."""
    day = today(now).isoformat()
    try:
        return frozenset(daily_deal(day, kind, now=now).code for kind in KINDS)
    except DailyError:
        return frozenset()


def draw_open(cells: int, rng: random.Random | None = None) -> PoolEntry:
    """A certified deal drawn at random (:func:`server.pools.draw`), never a daily deal
    whose day runs: the daily deals come from the same pools, and a solo game or race that
    drew one would show its player today's deal before their clock (and tell them which
    deal it is, as its hints are refused).

    Raises:
        ValueError, OSError: as :func:`server.pools.draw`.
    """
    hidden = running_codes()
    for _ in range(32):  # two of thousands are hidden: the first draw nearly always does
        entry = draw(cells, rng)
        if entry.code not in hidden:
            return entry
    open_ = [entry for entry in load_pool(cells) if entry.code not in hidden]
    if not open_:
        raise ValueError(f"the {cells}-cell pool has no deal but the running days'")
    return (rng or random.SystemRandom()).choice(open_)


def daily_json(date: str | None = None, *, now: dt.datetime | None = None) -> dict[str, object]:
    """The body of ``GET /api/daily[/DATE]``.

    ``{date, running, ends_at, par, hard: {par}}`` while the day runs: its codes are
    revealed only by starting a game (the clock starts then); ``code`` and ``hard.code``
    are added once the day is over.

    Raises:
        DailyError: the date has no daily challenge.
    """
    day = date if date is not None else today(now).isoformat()
    main = daily_deal(day, "daily", now=now)
    hard = daily_deal(day, "hard", now=now)
    running = is_running(main.date, now=now)
    body: dict[str, object] = {
        "date": main.date,
        "running": running,
        "ends_at": day_bounds(main.date)[1],
        "par": main.par,
        "hard": {"par": hard.par},
    }
    if not running:
        body["code"] = main.code
        body["hard"] = {"code": hard.code, "par": hard.par}
    return body


def _pool(cells: int) -> tuple[PoolEntry, ...]:
    try:
        pool = load_pool(cells)
    except (OSError, ValueError) as exc:
        raise DailyError("unavailable", f"the {cells}-cell pool cannot be read: {exc}") from None
    if not pool:
        raise DailyError("unavailable", f"the {cells}-cell pool is empty")
    return tuple(pool)
