"""The certified deals of the days, kept in Redis, and the instance that certifies them.

A day's deal is searched once per day and kind (:func:`server.daily.deal.certify`: the
first candidate the solver proves winnable) by one instance of the deployment, ahead of
the day: :func:`certify_loop` keeps today's and tomorrow's deals of both kinds certified.
It takes a lease first (``daily:certifier``, ``SET NX PX``, renewed while it works), so
that instances sharing a Redis do the work once; the solver runs in the instance's solver
processes (:mod:`server.solver_pool`), one candidate a job, so that the event loop never
waits for a search and hints still get their turn. The result is written once
(``daily:{DATE:KIND}:deal``, ``SET NX``) and every instance reads it from there: a
restart reuses it, and two instances never serve two deals for one day.

A server without a secret (``--daily-secret``) serves no daily (``unavailable``), yet
still reads the stored deals: a typed code that is a running day's deal is refused
everywhere (:meth:`DailyDeals.running`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import hmac
import json
import logging
from typing import Any, Final

from ..engine import parse_code
from ..periodic import DONE, Done, periodic
from ..quiet import Quiet
from ..solver_pool import SolverPool
from ..store.daily import DailyStore
from ..store.keys import Keys
from .deal import (
    CERTIFY_SECONDS,
    KIND_CELLS,
    KINDS,
    MAX_COUNTER,
    DailyDeal,
    DailyError,
    certify_candidate,
    day_bounds,
    parse_date,
    today,
)

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: How long the certifier's lease holds unless renewed (ms), and how often it is renewed.
LEASE_MS: Final = 30_000
RENEW_S: Final = 10.0

#: How often an instance looks for a day to certify: soon while one is missing (another
#: instance may hold the lease, or Redis was away), else now and then (a new day).
RETRY_S: Final = 2.0
CHECK_S: Final = 30.0

#: Deals an instance keeps in memory (a stored deal never changes).
CACHED: Final = 512

#: The message of ``error daily_only``: a typed code of a running day's deal.
DAILY_ONLY: Final = "this deal is a daily challenge until its day ends (UTC): play it in the daily"


class DailyDeals:
    """The days' certified deals of one deployment, as stored in Redis.

    Args:
        redis: the instance's Redis client (``decode_responses=True``).
        keys: the key names.
        secret: the deployment's daily secret; None: this server serves no daily.
        keep_s: how long a day's deal is kept after its day (its leaderboard's lifetime).
    """

    def __init__(self, redis: Any, keys: Keys, secret: str | None, keep_s: int) -> None:
        self.redis = redis
        self.keys = keys
        self.daily = DailyStore(redis, keys)
        self.secret = secret or None
        self.keep_s = keep_s
        self._cache: dict[tuple[str, str], DailyDeal] = {}
        self._sid = None if self.secret is None else secret_id(self.secret)
        self._warned = False

    async def get(self, date: str, kind: str, *, now: dt.datetime | None = None) -> DailyDeal:
        """The certified deal of a day (FIRST_DAY to today) and kind.

        Raises:
            DailyError: ``bad_date``, ``future_date``, ``bad_kind``, or ``unavailable``:
                this server has no secret, or no deal was certified for that day.
        """
        day = parse_date(date, now=now).isoformat()
        if kind not in KIND_CELLS:
            raise DailyError("bad_kind", f"kind {kind!r} is not daily or hard")
        if self.secret is None:
            raise DailyError(
                "unavailable", "this server has no daily secret (--daily-secret): no daily"
            )
        found = (await self.stored([(day, kind)]))[0]
        if found is None:
            raise DailyError("unavailable", f"the {kind} deal of {day} is not certified")
        return found

    async def stored(self, days: list[tuple[str, str]]) -> list[DailyDeal | None]:
        """The stored deals of ``(date, kind)`` pairs (None where none is), in order; one
        pipelined read for those not in memory (a key a command: they are in other slots)."""
        out: list[DailyDeal | None] = [self._cache.get(day) for day in days]
        wanted = [i for i, deal in enumerate(out) if deal is None]
        if not wanted:
            return out
        texts = await self.daily.deals([days[i] for i in wanted])
        for i, text in zip(wanted, texts, strict=True):
            if text is None:
                continue
            try:
                deal = DailyDeal.from_json(days[i][0], days[i][1], text)
                sid = json.loads(text).get("sid")
            except (ValueError, KeyError) as exc:
                log.error("unreadable daily deal of %s: %s", days[i], exc)
                continue
            if self._sid is not None and sid is not None and sid != self._sid:
                self._mismatch(days[i])
            if len(self._cache) >= CACHED:
                self._cache.clear()
            self._cache[days[i]] = out[i] = deal
        return out

    async def running(self, *, now: dt.datetime | None = None) -> frozenset[int]:
        """The deal numbers of the daily deals whose day is not over (today's, and
        tomorrow's once certified): every cell count of these deals is played only in the
        daily, until the day ends."""
        found = await self.stored(ahead(now))
        return frozenset(deal.deal for deal in found if deal is not None)

    async def is_running(self, code: str, *, now: dt.datetime | None = None) -> bool:
        """Whether a game code's deal number (any cell count) is a running day's deal."""
        try:
            number = parse_code(code).deal
        except ValueError:
            return False
        return number in await self.running(now=now)

    def _mismatch(self, day: tuple[str, str]) -> None:
        """Say once that another instance certified under another secret (its deal wins)."""
        if not self._warned:
            self._warned = True
            log.warning(
                "the %s deal of %s was certified under another daily secret than this "
                "instance's: give every instance the same --daily-secret",
                day[1],
                day[0],
            )

    # -- certifying -----------------------------------------------------------------------

    async def take_lease(self, holder: str) -> bool:
        """Take the certifier's lease: True when this instance holds it."""
        return await self.daily.take_certifier(holder, LEASE_MS)

    async def renew_lease(self, holder: str) -> bool:
        """Renew the lease; False when it is no longer this instance's."""
        return await self.daily.renew_certifier(holder, LEASE_MS)

    async def release_lease(self, holder: str) -> None:
        """Give the lease back (only if still held)."""
        await self.daily.drop_certifier(holder)

    async def store(self, deal: DailyDeal) -> DailyDeal:
        """Write a certified deal once (``SET NX``); the deal stored is the one returned."""
        expire_at = day_bounds(deal.date)[1] // 1000 + self.keep_s
        record = json.loads(deal.to_json())
        if self._sid is not None:
            record["sid"] = self._sid  # which secret drew it (never the secret)
        text = json.dumps(record, separators=(",", ":"))
        await self.daily.keep_deal(deal.date, deal.kind, text, expire_at)
        self._cache.pop((deal.date, deal.kind), None)
        stored = (await self.stored([(deal.date, deal.kind)]))[0]
        return stored if stored is not None else deal

    async def certify(
        self, solver: SolverPool, date: str, kind: str, seconds: float = CERTIFY_SECONDS
    ) -> DailyDeal:
        """Search and store the deal of a day and kind, one candidate a solver job.

        Raises:
            DailyError: ``unavailable``: no secret, or no candidate is winnable.
        """
        if self.secret is None:
            raise DailyError("unavailable", "no daily secret")
        # Each candidate runs niced, not only on spare CPU: today's deal is waited on (a
        # fresh deployment), and a review or hint queued behind tomorrow's candidate waited
        # minutes for it on a busy host. A candidate is milliseconds of CPU.
        for counter in range(MAX_COUNTER):
            found = await solver.run_waited_for(
                certify_candidate, self.secret, date, kind, counter, seconds
            )
            if found is not None:
                return await self.store(found)
        raise DailyError("unavailable", f"no winnable {kind} deal for {date}")


def secret_id(secret: str) -> str:
    """A short fingerprint of a daily secret, stored with the deals it drew, so that an
    instance given another secret says so; it tells nothing of the secret."""
    mac = hmac.new(secret.encode("utf-8"), b"seahaven daily secret id", hashlib.sha256)
    return mac.hexdigest()[:12]


def ahead(now: dt.datetime | None = None) -> list[tuple[str, str]]:
    """The days and kinds that must be certified now: today's and tomorrow's (UTC)."""
    first = today(now)
    days = (first, first + dt.timedelta(days=1))
    return [(day.isoformat(), kind) for day in days for kind in KINDS]


async def certify_due(deals: DailyDeals, solver: SolverPool, holder: str) -> int:
    """Certify what is due and not stored, if this instance gets the lease.

    Returns:
        How many (date, kind) are still missing afterwards.
    """
    due = ahead()
    missing = [day for day, deal in zip(due, await deals.stored(due), strict=True) if not deal]
    if not missing or not await deals.take_lease(holder):
        return len(missing)
    renewing = asyncio.create_task(_keep_lease(deals, holder))
    work = asyncio.create_task(_certify_all(deals, solver, missing))
    try:
        await asyncio.wait({renewing, work}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (renewing, work):
            task.cancel()
        await asyncio.gather(renewing, work, return_exceptions=True)
        with contextlib.suppress(Exception):
            await deals.release_lease(holder)
    if work.done() and not work.cancelled() and work.exception() is not None:
        raise work.exception()  # type: ignore[misc]
    found = await deals.stored(due)
    return sum(deal is None for deal in found)


async def _certify_all(
    deals: DailyDeals, solver: SolverPool, missing: list[tuple[str, str]]
) -> None:
    for date, kind in missing:
        began = asyncio.get_running_loop().time()
        deal = await deals.certify(solver, date, kind)
        took = asyncio.get_running_loop().time() - began
        log.warning(
            "certified the %s deal of %s (candidate %d, par %d) in %.1f s",
            kind,
            date,
            deal.counter,
            deal.par,
            took,
        )


async def _keep_lease(deals: DailyDeals, holder: str) -> None:
    """Renew the lease until it is lost (then the certification stops); a renewal that
    fails is tried again (the lease outlives a few of them)."""

    async def step() -> Done | None:
        if await deals.renew_lease(holder):
            return None
        log.warning("the daily certifier's lease was lost; another instance goes on")
        return DONE

    await periodic(step, RENEW_S, QUIET, "lease", "renewing the certifier's lease failed")


async def certify_loop(deals: DailyDeals, solver: SolverPool, holder: str) -> None:
    """Keep today's and tomorrow's deals certified, for as long as the server runs."""
    if deals.secret is None:
        log.warning("no --daily-secret (SEAHAVEN_DAILY_SECRET): this server serves no daily")
        return

    async def step() -> float:
        missing = await certify_due(deals, solver, holder)
        return RETRY_S if missing else CHECK_S

    # Redis away, a solver process died: try again soon.
    await periodic(
        step,
        CHECK_S,
        QUIET,
        "certify",
        "daily certification failed, retrying",
        at_once=True,
        after_fault=RETRY_S,
    )
