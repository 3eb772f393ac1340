"""Held finishes and what an operator does about them: clear, void, bar, unbar; the log.

A ranked finish the review holds (:mod:`server.review.scoring`) waits in ``review:held``
(result id -> the finish, its score and what to write when it is cleared). Nobody but its
player sees it: it is on no leaderboard, in no push and on no player page. An operator
(``seahaven admin``, or ``/api/admin/`` with the admin token) then:

- **clears** it: a daily finish's entry is written as if it had ranked at once (rank,
  streak day, a push); a race's held finisher is counted, and the race's ratings are
  settled once no finisher of it is held;
- **voids** it (held or already ranked): off every leaderboard, its streak day recounted;
  a race's finisher keeps their rating;
- **bars** a player: their entries go off every leaderboard and the ratings lists (kept
  aside, put back by **unbar**), and they may not enter ranked play.

Every action is idempotent (acting twice changes nothing the second time, and says so)
and logged in ``admin:log`` with when, what, on what, by whom and what came of it. The
same functions serve the command line and the HTTP routes. What they read and write is
:mod:`server.store.reviews`'s (held finishes, outcomes, bars, the log), the day's
leaderboard's and the ratings lists'.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..clock import now_ms, utc_now
from ..daily.leaderboard import Leaderboard
from ..periodic import periodic
from ..quiet import Quiet
from ..records.replays import ReplayFormatError, ReplayStore
from ..store import ratings
from ..store.evidence import EvidenceStore
from ..store.keys import Keys
from ..store.reviews import HELD_PAGE, MAX_HELD_PAGE, Reviews
from ..store.store import Store
from .standing import standing, standings

__all__ = [
    "HELD_PAGE",
    "MAX_HELD_PAGE",
    "MAX_SUSPECTS_PAGE",
    "VARIANTS",
    "Holds",
    "Outcome",
    "expiry_loop",
]

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: Players a page of the suspects list holds at most (and by default, 50).
MAX_SUSPECTS_PAGE: Final = 200
#: Records of each suspect the list shows.
SHOWN_RECORDS: Final = 5

#: The rating variants a bar takes a player off.
VARIANTS: Final = (4, 2, 1)
#: How often each instance keeps the held list within its bound (seconds).
EXPIRY_EVERY_S: Final = 2.0


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an operator action did.

    Attributes:
        ok: it applied (or had applied already); False: nothing to act on.
        status: ``cleared``, ``voided``, ``barred``, ``unbarred``, ``already_…`` or
            ``not_found``.
        message: in words.
        data: what it touched.
    """

    ok: bool
    status: str
    message: str
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The HTTP answer and the ``--json`` output."""
        return {"ok": self.ok, "status": self.status, "message": self.message, **self.data}


class Holds:
    """The operator's actions on held and ranked finishes and on players.

    Args:
        store: the room store (a held daily game's room note, the ratings lists).
        reviews: held finishes, outcomes, bars and the log.
        leaderboard: the days' leaderboards (entries written on clear, taken off on void).
        replays: the kept replays (a ranked finish found by its id).
    """

    def __init__(
        self, store: Store, reviews: Reviews, leaderboard: Leaderboard, replays: ReplayStore
    ) -> None:
        self.store = store
        self.reviews = reviews
        self.leaderboard = leaderboard
        self.replays = replays
        self.evidence = EvidenceStore(reviews.redis, reviews.keys, reviews.keep_s)

    @classmethod
    def on(cls, redis: Any, keys: Keys, keep_s: int) -> Holds:
        """The operator's actions straight on a Redis, for tools (``seahaven admin``): no
        server's settings beyond the key prefix and how long results are kept."""
        leaderboard = Leaderboard(redis, keys, keep_s=keep_s)
        return cls(
            Store(redis, keys, ttl=3600),
            Reviews(redis, keys, keep_s),
            leaderboard,
            ReplayStore(redis, keys),
        )

    # -- reading --------------------------------------------------------------------------

    async def held_page(
        self, offset: int = 0, limit: int = HELD_PAGE, after: str | None = None
    ) -> dict[str, Any]:
        """A page of the held finishes (:meth:`server.store.reviews.Reviews.held_page`)."""
        return await self.reviews.held_page(offset, limit, after)

    async def suspects(self, limit: int = 50, after: str | None = None) -> dict[str, Any]:
        """A page of the players by their score over recent ranked finishes, the highest
        first (where to look first): ``{suspects: [{player_id, score, flagged, barred, records}],
        next_after}``; ``after`` is the last player of the page before (``next_after``),
        None from the top."""
        limit = max(1, min(limit, MAX_SUSPECTS_PAGE))
        page = await self.evidence.suspects_page(limit, after)
        pids = [pid for pid, _ in page]
        gate = await standings(self.reviews, pids)
        rows = [
            {
                "player_id": pid,
                "score": score,
                "flagged": _plain(gate[pid].flag),
                "barred": gate[pid].barred,
                "records": await self.evidence.records(pid, SHOWN_RECORDS),
            }
            for pid, score in page
        ]
        more = len(page) == limit
        return {"suspects": rows, "next_after": pids[-1] if more and pids else None}

    async def identities(self, address: str) -> list[dict[str, Any]]:
        """The identities an address made in the last 7 days, the newest first."""
        pairs = await self.reviews.identities(address)
        gate = await standings(self.reviews, [pid for pid, _ in pairs])
        return [{"player_id": pid, "made_at": at, "barred": gate[pid].barred} for pid, at in pairs]

    async def log(self, limit: int = 100) -> list[dict[str, Any]]:
        """The operator's latest actions, the newest first."""
        return await self.reviews.log(limit)

    # -- acting ---------------------------------------------------------------------------

    async def _logged(self, action: str, target: str, by: str, outcome: Outcome) -> Outcome:
        line = {
            "at": now_ms(),
            "action": action,
            "target": target,
            "by": by,
            "status": outcome.status,
            "ok": outcome.ok,
        }
        await self.reviews.write_log(line)
        return outcome

    async def clear(self, result: str, by: str) -> Outcome:
        """Let a held finish count (see the module docstring)."""
        held = await self.reviews.take_held(result)
        if held is None:
            done = await self.reviews.decided(result)
            status = done["status"] if done else None
            if status == "cleared":
                outcome = Outcome(True, "already_cleared", "cleared before", {"result": result})
            else:
                outcome = Outcome(False, "not_found", "no held finish has this id", {})
                if status == "voided":
                    outcome = Outcome(False, "voided", "this finish was voided", {})
            return await self._logged("clear", result, by, outcome)
        data: dict[str, Any] = {"result": result, "player_id": held["player_id"]}
        await self.reviews.decide(result, "cleared", by=by)
        if held["kind"] == "daily":
            if (await standing(self.reviews, held["player_id"])).barred:
                # A barred player's entry waits aside, as their others do.
                await self.reviews.put_aside(
                    held["player_id"],
                    f"{held['date']}:{held['daily_kind']}",
                    json.dumps({**held["entry"], "streak": held.get("streak", True)}),
                )
            else:
                written = await self.leaderboard.write(
                    held["date"], held["daily_kind"], held["entry"], held.get("streak", True)
                )
                data["rank"] = written.rank or None
                await self._note(held.get("room"), ranked=True, rank=data["rank"])
        else:
            await self.reviews.resettle(held["room"], held["round"])
        outcome = Outcome(True, "cleared", "the finish counts", data)
        return await self._logged("clear", result, by, outcome)

    async def void(self, result: str, by: str) -> Outcome:
        """Take a finish off every leaderboard and streak, held or ranked."""
        return await self._void(result, by, "void")

    async def expire(self, result: str) -> Outcome:
        """Settle a held finish past the held list's bound as a void (see
        :func:`expire_held`), logged as ``expire`` by ``expiry``; a finish no longer held
        (an operator decided it a moment ago) is left as it is."""
        held = await self.reviews.take_held(result)  # atomic: an operator's or this
        if held is None:
            return Outcome(False, "not_found", "not held any more", {})
        return await self._void(result, "expiry", "expire", held)

    async def expire_held(self, most: int, days: int) -> list[str]:
        """Keep the held list within its bound: every held finish older than ``days`` and
        the oldest past the newest ``most`` are settled **unranked**, as a void (its player
        keeps their time; no leaderboard rank, no rating change, no arena place), each
        logged (``expire``, by ``expiry``). Returns the finishes settled."""
        before = now_ms() - days * 86_400_000
        settled = []
        for result in await self.reviews.oldest_held(most, before):
            if (await self.expire(result)).ok:
                settled.append(result)
        return settled

    async def _void(
        self, result: str, by: str, action: str, taken: dict[str, Any] | None = None
    ) -> Outcome:
        """:meth:`void`, logged as ``action`` (``taken``: the held finish, taken off the
        held list already)."""
        held = taken if taken is not None else await self.reviews.take_held(result)
        done = await self.reviews.decided(result)
        if held is None and done is not None and done["status"] == "voided":
            outcome = Outcome(True, "already_voided", "voided before", {"result": result})
            return await self._logged(action, result, by, outcome)
        data: dict[str, Any] = {"result": result}
        found = held or await self._ranked_finish(result)
        if found is None:
            outcome = Outcome(False, "not_found", "no held or ranked finish has this id", {})
            return await self._logged(action, result, by, outcome)
        data["player_id"] = found["player_id"]
        await self.reviews.decide(result, "voided", by=by)
        if found["kind"] == "daily":
            pid, date, kind = found["player_id"], found["date"], found["daily_kind"]
            taken = await self.leaderboard.remove(date, kind, pid)
            if taken is not None and taken.get("replay_id") != result:
                # The entry is another finish's (never expected): put it back.
                await self.leaderboard.write(date, kind, taken, bool(taken.get("streak")))
            await self.reviews.drop_aside(pid, f"{date}:{kind}")
            if held is not None:
                await self._note(held.get("room"), ranked=False, unranked_reason="voided")
        else:
            await self.reviews.resettle(found["room"], found["round"])
        outcome = Outcome(True, "voided", "off every leaderboard and streak", data)
        return await self._logged(action, result, by, outcome)

    async def _note(self, room: str | None, **change: Any) -> None:
        """Update a held daily game's room note (the snapshot's ``daily``), while it lives,
        so that its player's page says what became of it."""
        if not room:
            return
        if change.get("ranked"):
            change["unranked_reason"] = None
        await self.store.amend_daily(room, change)

    async def _ranked_finish(self, result: str) -> dict[str, Any] | None:
        """A ranked daily finish by its replay id (from the stored replay), or None."""
        try:
            replay = await self.replays.load(result)
        except ReplayFormatError:
            return None
        if replay is None:
            return None
        date, kind, pid = replay.daily_date, replay.daily_kind, replay.player_id
        if replay.kind != "daily" or not date or not kind or not pid:
            return None
        entry = await self.leaderboard.entry(date, kind, pid)
        stashed = await self.reviews.aside(pid, f"{date}:{kind}")
        for found in (entry, json.loads(stashed) if stashed is not None else None):
            if found is not None and found.get("replay_id") == result:
                return {"kind": "daily", "player_id": pid, "date": date, "daily_kind": kind}
        return None

    async def bar(self, player_id: str, by: str) -> Outcome:
        """Bar a player from ranked play; their results go aside (see the module docstring)."""
        if not await self.reviews.bar(player_id):
            outcome = Outcome(True, "already_barred", "barred before", {"player_id": player_id})
            return await self._logged("bar", player_id, by, outcome)
        taken = 0
        days = await self.leaderboard.days_of(player_id)
        for date, kind in [(date, kind) for date in days for kind in ("daily", "hard")]:
            entry = await self.leaderboard.remove(date, kind, player_id)
            if entry is not None:
                await self.reviews.put_aside(player_id, f"{date}:{kind}", json.dumps(entry))
                taken += 1
        for date, kind in await self._other_days(player_id):
            entry = await self.leaderboard.remove(date, kind, player_id)
            if entry is not None:
                await self.reviews.put_aside(player_id, f"{date}:{kind}", json.dumps(entry))
                taken += 1
        for cells in VARIANTS:
            rating = await ratings.take_off_list(self.store, player_id, cells)
            if rating is not None:
                await self.reviews.put_aside(player_id, f"ratings:{cells}", str(rating))
        data = {"player_id": player_id, "entries": taken}
        outcome = Outcome(True, "barred", "off every leaderboard; no ranked play", data)
        return await self._logged("bar", player_id, by, outcome)

    async def _other_days(self, player_id: str) -> list[tuple[str, str]]:
        """Days of the last 30 with an entry of the player that counted no streak day (a
        past day's ranked finish is kept even when begun later; rare)."""
        found: list[tuple[str, str]] = []
        today = utc_now().date()
        for back in range(30):
            date = (today - dt.timedelta(days=back)).isoformat()
            for kind in ("daily", "hard"):
                if await self.leaderboard.entry(date, kind, player_id) is not None:
                    found.append((date, kind))
        return found

    async def unflag(self, player_id: str, by: str) -> Outcome:
        """Lift a player's flag (their records forgotten: a fresh start); their finishes held
        meanwhile stay held, each for a clear or a void."""
        if not await self.evidence.unflag(player_id):
            outcome = Outcome(True, "already_unflagged", "not flagged", {"player_id": player_id})
            return await self._logged("unflag", player_id, by, outcome)
        data = {"player_id": player_id}
        outcome = Outcome(True, "unflagged", "ranked results no longer held", data)
        return await self._logged("unflag", player_id, by, outcome)

    async def unbar(self, player_id: str, by: str) -> Outcome:
        """Let a barred player rank again; put their entries and ratings back."""
        if not await self.reviews.unbar(player_id):
            outcome = Outcome(True, "already_unbarred", "not barred", {"player_id": player_id})
            return await self._logged("unbar", player_id, by, outcome)
        restored = 0
        for field, text in (await self.reviews.take_aside(player_id)).items():
            if field.startswith("ratings:"):
                cells = int(field.split(":", 1)[1])
                await ratings.put_on_list(self.store, player_id, cells, float(text))
                continue
            date, kind = field.split(":", 1)
            entry = json.loads(text)
            await self.leaderboard.write(date, kind, entry, bool(entry.pop("streak", True)))
            restored += 1
        data = {"player_id": player_id, "entries": restored}
        outcome = Outcome(True, "unbarred", "entries back; ranked play open", data)
        return await self._logged("unbar", player_id, by, outcome)


def _plain(flag: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A flag's reason as plain JSON."""
    return None if flag is None else dict(flag)


async def expiry_loop(holds: Holds, most: int, days: int) -> None:
    """Keep the held list within ``most`` finishes and ``days`` days on every instance
    (:meth:`Holds.expire_held`; taking a finish off the list is atomic, so two instances
    never settle one twice)."""

    async def step() -> None:
        settled = await holds.expire_held(most, days)
        if settled:
            log.warning("held list past its bound: %d finishes settled unranked", len(settled))

    failed = "settling the oldest held finishes failed"
    await periodic(step, EXPIRY_EVERY_S, QUIET, "expiry", failed)
