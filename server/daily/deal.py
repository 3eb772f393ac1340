"""The daily challenge: one certified deal per UTC date and kind, drawn under a secret.

A day's deal is drawn from the whole deal-number space (not from the shipped pools) under
the deployment's secret (``--daily-secret``), so neither the source nor the published par
narrows it down before the day is over:

    mac       = HMAC-SHA256(key = SECRET (UTF-8), message = ASCII DATE "|" KIND "|" COUNTER)
    candidate = (first 8 bytes of mac, big-endian unsigned) mod 2^35   a deal number
    deal      = the first candidate (COUNTER = 0, 1, 2 ...) that the solver proves winnable
                within its budget (:data:`CERTIFY_SECONDS`), with the KIND's cell count

``DATE`` is YYYY-MM-DD and ``KIND`` is ``daily`` (4 cells) or ``hard`` (1 cell); 2^35 is
the number of deal numbers (``MAX_DEAL + 1``), so the reduction is exact. The search runs
once per day and kind, ahead of the day, in one instance's solver processes
(:mod:`server.daily.deals`), and its result (code, par, counter) is stored in Redis, where
every instance reads it: a restart reuses it, and two instances never disagree. Days run
from :data:`FIRST_DAY` to today (UTC); later dates are refused, as are malformed ones.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import random
from dataclasses import dataclass
from typing import Final

from ..clock import utc_now
from ..engine import Board, format_code, parse_code
from ..engine.codes import MAX_DEAL
from ..engine.optimal import optimal_par
from ..engine.solver import solve
from ..pools import PoolEntry, draw, load_pool

#: The cell count of each daily kind.
KIND_CELLS: Final[dict[str, int]] = {"daily": 4, "hard": 1}
KINDS: Final = ("daily", "hard")

#: The first day with a daily challenge.
FIRST_DAY: Final = dt.date(2026, 1, 1)

#: The solver's budget for one candidate, in seconds: a candidate not proven winnable in it
#: is passed over (the shipped pools were certified with the same budget).
CERTIFY_SECONDS: Final = 10.0

#: Candidates tried for one day and kind at most (a 1-cell deal is winnable about one time
#: in 45; a 4-cell one about 13 times in 14).
MAX_COUNTER: Final = 5000
#: The optimal search's budget for a day's par, in tables kept (deterministic; about 50 MB
#: at most, and a few seconds of one core on the hardest days seen).
OPTIMAL_STATES: Final = 300_000

#: The documented test key of protocol/DAILY.md's vectors; never a deployment's secret.
TEST_SECRET: Final = "seahaven-test-key"


class DailyError(ValueError):
    """A date or kind has no daily challenge; ``reason`` is a stable code.

    Reasons: ``bad_date`` (not a YYYY-MM-DD calendar date, or before the first day),
    ``future_date`` (after today, UTC), ``bad_kind``, ``unavailable`` (no deal certified
    for that day: the server has no secret, or the day is not certified yet, or it came
    before the deployment).
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """The certified deal of one day and kind.

    Attributes:
        date, kind: the day (YYYY-MM-DD) and ``daily`` or ``hard``.
        code: the game code.
        par: the fewest actions that win the deal when ``optimal``, else the length of the
            shortest win the certification found (:func:`certified_par`).
        counter: the counter of the candidate that was certified.
        optimal: whether ``par`` is proven to be the fewest actions (a perfect game is a
            win in ``par`` actions of such a deal).
    """

    date: str
    kind: str
    code: str
    par: int
    counter: int
    optimal: bool = False

    @property
    def deal(self) -> int:
        """The deal number (the same for every cell count of this deal)."""
        return parse_code(self.code).deal

    def to_json(self) -> str:
        """The record kept in Redis (``daily:{DATE:KIND}:deal``)."""
        record = {"code": self.code, "par": self.par, "counter": self.counter}
        return json.dumps({**record, "optimal": self.optimal}, separators=(",", ":"))

    @classmethod
    def from_json(cls, date: str, kind: str, text: str) -> DailyDeal:
        """The deal of a stored record.

        Raises:
            ValueError: the record is not one :meth:`to_json` wrote.
        """
        data = json.loads(text)
        code, par, counter = data["code"], data["par"], data["counter"]
        if not isinstance(code, str) or not isinstance(par, int) or not isinstance(counter, int):
            raise ValueError(f"not a daily deal record: {text[:80]!r}")
        if parse_code(code).cells != KIND_CELLS[kind]:
            raise ValueError(f"{code} is not a {kind} deal")
        # A record of a server before optimal pars has none: its par is a solver line's.
        return cls(date, kind, code, par, counter, data.get("optimal") is True)


def candidate(secret: str, date: str, kind: str, counter: int) -> int:
    """The deal number of one candidate of a day and kind (the function above)."""
    message = f"{date}|{kind}|{counter}".encode("ascii")
    mac = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big") % (MAX_DEAL + 1)


def certified_par(board: Board, moves: tuple[str, ...]) -> tuple[int, bool]:
    """The par of a certified deal and whether it is proven optimal: the engine's optimal
    search (:func:`server.engine.optimal.optimal_par`) from the solver's winning line
    ``moves``, within a budget of :data:`OPTIMAL_STATES` tables.

    The budget is in tables, not seconds, so that the par of a day is the same whichever
    instance certifies it and however busy its machine is; it proves most deals in well
    under a second. Out of budget, the par is the shortest win found (never longer than
    ``moves``).
    """
    found = optimal_par(board, timeout=None, max_states=OPTIMAL_STATES, line=moves)
    if found.result in ("optimal", "best") and len(found.moves) <= len(moves):
        return len(found.moves), found.optimal
    return len(moves), False


def certify(
    secret: str, date: str, kind: str, *, seconds: float = CERTIFY_SECONDS, start: int = 0
) -> DailyDeal:
    """Search a day's deal: the first candidate from ``start`` proven winnable (CPU-bound:
    run it in a solver process, never on the event loop).

    Raises:
        DailyError: ``bad_kind``, or ``unavailable`` when no candidate up to
            :data:`MAX_COUNTER` is winnable within the budget (never seen).
    """
    if kind not in KIND_CELLS:
        raise DailyError("bad_kind", f"kind {kind!r} is not daily or hard")
    for counter in range(start, MAX_COUNTER):
        found = certify_candidate(secret, date, kind, counter, seconds)
        if found is not None:
            return found
    raise DailyError("unavailable", f"no winnable {kind} deal for {date} in {MAX_COUNTER} tries")


def certify_candidate(
    secret: str, date: str, kind: str, counter: int, seconds: float = CERTIFY_SECONDS
) -> DailyDeal | None:
    """One candidate, certified (with its par) or None when it is not proven winnable."""
    cells = KIND_CELLS[kind]
    number = candidate(secret, date, kind, counter)
    board = Board.deal(number, cells)
    answer = solve(board, timeout=seconds)
    if answer.result != "solved":
        return None
    par, optimal = certified_par(board, answer.moves)
    return DailyDeal(date, kind, format_code(number, cells), par, counter, optimal)


def today(now: dt.datetime | None = None) -> dt.date:
    """The current UTC date (or that of ``now``)."""
    moment = now if now is not None else utc_now()
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


def draw_open(
    cells: int, hidden: frozenset[int] = frozenset(), rng: random.Random | None = None
) -> PoolEntry:
    """A certified deal drawn at random (:func:`server.pools.draw`), never one whose deal
    number is in ``hidden`` (the running days' daily deals, every cell count): a solo game
    or race that drew one would show its player a daily deal before their clock.

    Raises:
        ValueError, OSError: as :func:`server.pools.draw`.
    """
    for _ in range(32):  # the daily deals are drawn from 2^35: nearly never in a pool
        entry = draw(cells, rng)
        if entry.deal not in hidden:
            return entry
    open_ = [entry for entry in load_pool(cells) if entry.deal not in hidden]
    if not open_:
        raise ValueError(f"the {cells}-cell pool has no deal but the running days'")
    return (rng or random.SystemRandom()).choice(open_)


def daily_json(
    main: DailyDeal, hard: DailyDeal, *, now: dt.datetime | None = None
) -> dict[str, object]:
    """The body of ``GET /api/daily[/DATE]`` from the day's two certified deals.

    ``{date, running, ends_at, par, hard: {par}}`` while the day runs: its codes are
    revealed only by starting a game (the clock starts then); ``code`` and ``hard.code``
    are added once the day is over. The par narrows nothing: a deal is one of 2^35, and
    only solving a deal tells its par.
    """
    running = is_running(main.date, now=now)
    body: dict[str, object] = {
        "date": main.date,
        "running": running,
        "ends_at": day_bounds(main.date)[1],
        "par": main.par,
        "par_optimal": main.optimal,
        "hard": {"par": hard.par, "par_optimal": hard.optimal},
    }
    if not running:
        body["code"] = main.code
        body["hard"] = {"code": hard.code, "par": hard.par, "par_optimal": hard.optimal}
    return body
