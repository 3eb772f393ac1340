"""Daily leaderboards in Redis sorted sets, written only from replays the engine verifies.

Keys (named in :mod:`server.store.keys`):

- ``daily:{DATE:KIND}:rank``: sorted set, one member per ranked player,
  ``FFFFFFFFFFFFF:PID`` (the finish time in ms since the epoch, 13 digits, then the player
  id), scored ``time_ms * 2^14 + moves``. Redis orders equal scores by member, so the order
  is: server-measured time, then moves, then the earlier finish. Every score is an integer
  below 2^53, exact in a double.
- ``daily:{DATE:KIND}:fewest``: sorted set, the same members scored
  ``moves * 2^38 + time_ms``: the fewest-actions view (:data:`BY`), fewest actions, then
  time, then the earlier finish. Every score is below 2^52.
- ``daily:{DATE:KIND}:entries``: hash player id -> entry JSON
  ``{player_id, name, time_ms, moves, perfect, replay_id, finished_at, member}``, written
  with both sorted sets in one script, only if the player has none (``perfect``: the moves
  are the day's proven par; each such entry counts one of the player's perfect games,
  :mod:`.perfect`).
- ``daily:{DATE:KIND}:attempts``: hash player id -> the room of the player's ranked attempt:
  the first game of that day and kind they began, claimed atomically when its deal is
  revealed (:meth:`Leaderboard.claim_attempt`). Only that game can rank; later ones are
  practice.
- ``player:{PID}:days``: sorted set of the dates on which the player began a ranked daily
  finish of that same date (scored by day number), for streaks.
- channel ``daily:DATE:KIND:ch``: a message on every new entry (live pushes).

Provisional players (:class:`server.store.ratings.Bar`) rank and are listed like anyone
from their first finish, each entry saying whether its player is still ``new``: a newcomer
and their friends see each other the same day, and a rank is the entry's place among every
finisher, the same in every view, with no gap. A new player's finish that would take the
lead of the day is held for an operator instead (:func:`server.ranked.finish.review_daily`,
:meth:`Leaderboard.would_lead`): no fresh identity takes #1 unreviewed. One page's standing
is one pipelined read. Both views follow the same rules (held finishes are on neither until
an operator clears them; a void or a bar takes an entry off both); ``rank`` is the place in
the view read, ``daily_result``'s the fastest view's.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any, Final, cast

import redis.asyncio as aioredis

from ..clock import now_ms, utc_now
from ..pools import is_perfect
from ..records.perfect import Perfects
from ..records.replays import MIN_MS_PER_ACTION, Replay, verify
from ..settings import KEEP_S
from ..store.daily import DailyStore
from ..store.keys import Keys
from ..store.ratings import Bar
from .deal import KIND_CELLS, DailyError, day_bounds, is_running
from .deals import DailyDeals

#: ``moves`` occupies the low 14 bits of a score; more moves rank as this many.
MOVES_BITS: Final = 14
MAX_MOVES: Final = (1 << MOVES_BITS) - 1
#: Times above this (about 3 days) rank as this; keeps every score below 2^53.
MAX_TIME_MS: Final = (1 << 38) - 1

#: How far a finish may lie ahead of this server's clock (other instances' clocks drift).
FUTURE_SLACK_MS: Final = 60_000

#: How long a day's record of ranked attempts outlives the day, in seconds.
ATTEMPTS_KEPT_S: Final = 2 * 86_400

#: The most entries one leaderboard read returns.
MAX_LIMIT: Final = 200

#: Days a streak looks back at most.
STREAK_DAYS: Final = 400


#: The views of a day's board: fastest (time, then moves) and fewest actions (then time).
BY: Final = ("time", "actions")
#: ``time_ms`` occupies the low 38 bits of a fewest-actions score.
TIME_BITS: Final = 38


def score_of(time_ms: int, moves: int) -> int:
    """The sorted-set score: time first, then moves (both clamped to their fields)."""
    return min(time_ms, MAX_TIME_MS) * (1 << MOVES_BITS) + min(moves, MAX_MOVES)


def fewest_score_of(time_ms: int, moves: int) -> int:
    """The fewest-actions score: moves first, then time (both clamped to their fields)."""
    return min(moves, MAX_MOVES) * (1 << TIME_BITS) + min(time_ms, MAX_TIME_MS)


def member_of(finished_at: int, player_id: str) -> str:
    """The sorted-set member: finish time (13 digits) then the player id."""
    return f"{finished_at:013d}:{player_id}"


@dataclass(frozen=True, slots=True)
class Submission:
    """What :meth:`Leaderboard.submit` did.

    Attributes:
        status: ``ranked`` (a new entry), ``not_ranked`` (a verified win that does not
            count), ``refused`` (the replay is not a verified daily win), ``eligible``
            (:meth:`Leaderboard.check`: it may rank, once reviewed) or ``held`` (the
            review held it for an operator: ``pending_review``).
        rank: the new entry's rank when ``ranked``.
        reason: why it is not ranked: ``practice`` (not the player's ranked attempt),
            ``after_day`` (begun after its day), ``late_finish`` (won after its day),
            ``barred`` (an operator barred the player); why it is
            refused: a code of ``replays.REFUTATIONS`` or ``not_daily``, ``wrong_deal``,
            ``not_won``, ``bad_date``, ``future_date``, ``before_day``, ``future_time``.
        message: the reason in words.
    """

    status: str
    rank: int = 0
    reason: str = ""
    message: str = ""


def entry_of(replay: Replay) -> dict[str, Any]:
    """The leaderboard entry of a daily finish."""
    finished_at = replay.times_ms[-1]
    return {
        "player_id": replay.player_id,
        "name": replay.name,
        "time_ms": replay.result.time_ms,
        "moves": replay.result.moves,
        "replay_id": replay.id,
        "finished_at": finished_at,
        "member": member_of(finished_at, replay.player_id),
    }


def _shown(data: dict[str, Any], rank: int, new: bool) -> dict[str, Any]:
    """An entry as a board shows it: ``new`` marks a provisional player's."""
    return {
        "rank": rank,
        "player_id": data["player_id"],
        "name": data["name"],
        "time_ms": data["time_ms"],
        "moves": data["moves"],
        "perfect": data.get("perfect") is True,
        "new": new,
        "replay_id": data["replay_id"],
    }


def _unranked(reason: str, message: str) -> Submission:
    return Submission("not_ranked", reason=reason, message=message)


def _day_number(date: str) -> int:
    return dt.date.fromisoformat(date).toordinal()


def utc_date(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).date().isoformat()


class Leaderboard:
    """The daily leaderboards of one Redis.

    Args:
        redis: an asyncio client with ``decode_responses=True``.
        keys: the key names (with the instance's prefix).
        keep_s: seconds a day's leaderboard (and a player's days) live after their last
            entry.
        min_ms_per_action: the physical floor used when verifying submissions.
        deals: the days' certified deals (None: the Redis's, without a secret of its own).
        bar: what makes a player established (None: everyone is, for tools).
        perfect: the players' perfect games, counted when an entry is (None: its own).
    """

    def __init__(
        self,
        redis: aioredis.Redis,
        keys: Keys,
        min_ms_per_action: int = MIN_MS_PER_ACTION,
        keep_s: int = KEEP_S,
        *,
        deals: DailyDeals | None = None,
        bar: Bar | None = None,
        perfect: Perfects | None = None,
    ) -> None:
        self.redis = redis
        self.daily = DailyStore(redis, keys)
        self.bar = bar
        self.deals = deals if deals is not None else DailyDeals(redis, keys, None, keep_s)
        self.keys = keys
        self.keep_s = keep_s
        self.min_ms_per_action = min_ms_per_action
        self.perfect = perfect if perfect is not None else Perfects(redis, keys, keep_s)

    def parse_channel(self, name: str) -> tuple[str, str] | None:
        """The (date, kind) of a leaderboard channel's name, or None."""
        return self.keys.parse_leaderboard_channel(name)

    # -- ranked attempts ------------------------------------------------------------------

    async def claim_attempt(self, date: str, kind: str, player_id: str, room: str) -> str:
        """Make ``room`` the player's ranked attempt of the day, unless one was made before.

        Called when the deal is revealed, before the snapshot is sent; atomic, so two
        ``daily`` requests at once (two tabs, two instances) get one ranked attempt.

        Returns:
            The room of the ranked attempt: ``room``, or the earlier one.
        """
        # Kept until two days after the day (or after now, for a day already over).
        expire_at = max(day_bounds(date)[1] // 1000, now_ms() // 1000) + ATTEMPTS_KEPT_S
        return await self.daily.claim_attempt(date, kind, player_id, room, expire_at)

    async def attempt(self, date: str, kind: str, player_id: str) -> str | None:
        """The room of the player's ranked attempt of a day and kind, or None."""
        return await self.daily.attempt(date, kind, player_id)

    # -- writing --------------------------------------------------------------------------

    async def submit(self, replay: Replay, *, now: dt.datetime | None = None) -> Submission:
        """Rank a daily finish, if and only if its replay verifies and it may rank.

        :meth:`check`, then :meth:`enter` at once: the server reviews the finish between
        the two (:mod:`server.ranked.finish`); tools and tests that rank a verified finish
        without a review call this.
        """
        checked = await self.check(replay, now=now)
        if checked.status != "eligible":
            return checked
        return await self.enter(replay)

    async def check(self, replay: Replay, *, now: dt.datetime | None = None) -> Submission:
        """Whether a daily finish may rank: ``eligible``, or why not (the statuses of
        :meth:`submit`).

        Checks that the replay is of a daily challenge, on that day's deal, and that the
        engine confirms it: a legal win whose claimed time, moves and score match (see
        :func:`server.records.replays.verify`). It may rank only if it is the player's ranked
        attempt (the first game of the day they began), begun and won within its day
        (UTC). Whether its player may rank (a bar) is the review's question
        (:func:`server.ranked.finish.review_daily`, through the standing gate). Its pace
        is judged by the review (:mod:`server.review.scoring`), which holds an
        implausible finish.

        Args:
            replay: the finished game.
            now: the current time (only to accept the replay's date; tests).
        """
        date, kind = replay.daily_date, replay.daily_kind
        if replay.kind != "daily" or date is None or kind is None:
            return Submission("refused", reason="not_daily", message="not a daily challenge")
        try:
            deal = await self.deals.get(date, kind, now=now)
        except DailyError as exc:
            return Submission("refused", reason=exc.reason, message=str(exc))
        if replay.code != deal.code:
            return Submission(
                "refused",
                reason="wrong_deal",
                message=f"the {kind} deal of {date} is {deal.code}, not {replay.code}",
            )
        verdict = verify(replay, min_ms_per_action=self.min_ms_per_action)
        if not verdict.ok:
            return Submission("refused", reason=verdict.reason, message=verdict.message)
        if not verdict.won or replay.result.time_ms is None:
            return Submission("refused", reason="not_won", message="only a win is ranked")
        # A day's deal is out from 00:00 UTC of that day, and no game ends in the future.
        # A game begins at its reveal (``started_at``), when its clock starts.
        day_start, day_end = day_bounds(date)
        moment = now if now is not None else utc_now()
        if replay.started_at < day_start:
            return Submission(
                "refused", reason="before_day", message=f"the game began before {date} (UTC)"
            )
        if replay.times_ms[-1] > moment.timestamp() * 1000 + FUTURE_SLACK_MS:
            return Submission(
                "refused", reason="future_time", message="the game ends after the server's now"
            )
        # A past day stays playable, but only games begun on the day itself rank: a later
        # player could have studied the deal, or copied the day's published replays.
        if replay.started_at >= day_end:
            return _unranked("after_day", f"only games begun on {date} (UTC) rank")
        # Its replays go public when the day ends: a game still open then could copy them.
        if replay.times_ms[-1] >= day_end:
            return _unranked("late_finish", f"a ranked game is won before {date} ends (UTC)")
        # One ranked attempt: the first game of the day the player began (claimed at reveal).
        if replay.room is None or await self.attempt(date, kind, replay.player_id) != replay.room:
            return _unranked("practice", "only the first game begun on the day is ranked")
        return Submission("eligible")

    async def enter(self, replay: Replay) -> Submission:
        """Write a checked finish's entry (:meth:`check`): ``ranked`` with its rank, or
        ``not_ranked`` (``practice``) when the player's entry of the day is there already.
        Also the player's streak day, and a push to the day's watchers."""
        date, kind = replay.daily_date, replay.daily_kind
        assert date is not None and kind is not None
        entry = entry_of(replay)
        return await self.write(date, kind, entry, utc_date(replay.started_at) == date)

    async def write(self, date: str, kind: str, entry: dict[str, Any], streak: bool) -> Submission:
        """Write an entry (:func:`entry_of`) unless the player has one; count the streak day
        when ``streak`` (the game was begun on its day), and a perfect game when its moves
        are the day's proven par; push to the day's watchers."""
        pid = str(entry["player_id"])
        time_ms, moves = int(entry["time_ms"]), int(entry["moves"])
        # The day's stored deal (read without a secret too: an operator's tool clears).
        deal = (await self.deals.stored([(date, kind)]))[0]
        entry["perfect"] = deal is not None and is_perfect(moves, deal.par, deal.optimal)
        rank = await self.daily.submit(
            date,
            kind,
            pid,
            entry["member"],
            score_of(time_ms, moves),
            fewest_score_of(time_ms, moves),
            json.dumps(entry, separators=(",", ":")),
            self.keep_s,
        )
        if rank == 0:  # the ranked attempt's entry is already written (a second record)
            return _unranked("practice", "the player's entry of the day is already written")
        if entry["perfect"]:
            await self.perfect.add(pid, "daily")
        if streak:  # a past day played later is no streak
            # Streaks look back at most 400 days: older days are of no use.
            number = _day_number(date)
            await self.daily.add_day(pid, date, number, number - STREAK_DAYS, self.keep_s)
        await self.daily.announce(date, kind, pid)
        return Submission("ranked", rank=rank)

    async def remove(self, date: str, kind: str, player_id: str) -> dict[str, Any] | None:
        """Take a player's entry off a day's board (a void, a bar) and recount their streak
        day: it stays only while the player has an entry of that date of either kind.

        Returns:
            The entry taken off (with ``streak``: whether it counted a streak day), or None.
        """
        entry = await self.entry(date, kind, player_id)
        if entry is None:
            return None
        await self.daily.remove(date, kind, player_id, entry["member"])
        if entry.get("perfect"):
            await self.perfect.add(player_id, "daily", -1)
        entry["streak"] = await self.daily.is_day(player_id, date)
        other = "hard" if kind == "daily" else "daily"
        if not await self.daily.has_entry(date, other, player_id):
            await self.daily.drop_day(player_id, date)
        await self.daily.announce(date, kind, player_id)
        return entry

    async def entry(self, date: str, kind: str, player_id: str) -> dict[str, Any] | None:
        """A player's entry on a day's board, or None."""
        text = await self.daily.entry(date, kind, player_id)
        return None if text is None else cast(dict[str, Any], json.loads(text))

    async def days_of(self, player_id: str) -> list[str]:
        """The dates on which a player has a streak day (a ranked finish begun that day)."""
        return await self.daily.days(player_id)

    # -- reading --------------------------------------------------------------------------

    async def finishers(self, date: str, kind: str) -> int:
        """How many players are ranked."""
        return await self.daily.finishers(date, kind)

    async def provisional(self, kind: str, pids: list[str]) -> set[str]:
        """The provisional players among ``pids``, in one pipelined read (the variant of
        ``kind``'s rated races, and the days with a ranked daily)."""
        if self.bar is None or not pids:
            return set()
        found = await self.daily.standing(pids, KIND_CELLS[kind])
        return {
            pid
            for pid, (games, days, rivals) in zip(pids, found, strict=True)
            if not self.bar.met(games, days, rivals)
        }

    async def new_with_this_day(self, kind: str, pid: str) -> bool:
        """Whether a player stays provisional even once a ranked daily of today counts (the
        finish being reviewed would add its day)."""
        if self.bar is None:
            return False
        games, days, rivals = (await self.daily.standing([pid], KIND_CELLS[kind]))[0]
        return not self.bar.met(games, days + 1, rivals)

    async def _entries(
        self,
        date: str,
        kind: str,
        start: int,
        stop: int,
        by: str = "time",
    ) -> list[dict[str, Any]]:
        """Ranked entries from 0-based ``start`` to ``stop`` inclusive, in the view ``by``,
        each saying whether its player is ``new`` (provisional)."""
        if stop < start:
            return []
        members = await self.daily.members(date, kind, by, start, stop)
        if not members:
            return []
        pids = [m.split(":", 1)[1] for m in members]
        raw = await self.daily.entries(date, kind, pids)
        new = await self.provisional(kind, pids)
        out = []
        for i, text in enumerate(raw):
            if text is None:
                continue
            out.append(_shown(json.loads(text), start + i + 1, pids[i] in new))
        if is_running(date):  # replays stay private while the day runs
            for entry in out:
                del entry["replay_id"]
        return out

    async def among(
        self, date: str, kind: str, pids: list[str], owner: str | None = None, by: str = "time"
    ) -> list[dict[str, Any]]:
        """The entries of the ranked players among ``pids`` (at most 201: a follow list and
        its owner), by rank; each as the board shows it (no ``replay_id`` while the day
        runs; ``new`` for a provisional player: listed all the same, from the first day)."""
        pids = pids[:201]
        if not pids:
            return []
        raw = await self.daily.entries(date, kind, pids)
        found = [json.loads(text) for text in raw if text is not None]
        ranks = await self.daily.ranks_of(date, kind, by, [data["member"] for data in found])
        new = await self.provisional(kind, [str(data["player_id"]) for data in found])
        out = [
            _shown(data, rank + 1, data["player_id"] in new)
            for data, rank in zip(found, ranks, strict=True)
            if rank is not None
        ]
        out.sort(key=lambda entry: int(entry["rank"]))
        if is_running(date):  # replays stay private while the day runs
            for entry in out:
                del entry["replay_id"]
        return out

    async def top(self, date: str, kind: str, limit: int, by: str = "time") -> list[dict[str, Any]]:
        """The first ``limit`` entries (at most :data:`MAX_LIMIT`), in one read."""
        limit = max(0, min(limit, MAX_LIMIT))
        return await self._entries(date, kind, 0, limit - 1, by=by)

    async def would_lead(self, date: str, kind: str, time_ms: int, moves: int) -> bool:
        """Whether a finish of ``time_ms`` and ``moves`` would be first in the fastest view
        (the default view) of a day's board: ahead of its present leader, or on an empty
        board."""
        best = await self.daily.lead_score(date, kind)
        return best is None or score_of(time_ms, moves) < best

    async def rank(self, date: str, kind: str, player_id: str, by: str = "time") -> int | None:
        """A player's 1-based rank in the view ``by``, or None when not ranked."""
        entry = await self.entry(date, kind, player_id)
        if entry is None:
            return None
        found = await self.daily.rank_of(date, kind, by, entry["member"])
        return None if found is None else found + 1

    async def around(
        self, date: str, kind: str, player_id: str, limit: int, by: str = "time"
    ) -> list[dict[str, Any]]:
        """``limit`` entries centred on a player's (empty if the player is not ranked)."""
        limit = max(0, min(limit, MAX_LIMIT))
        rank = await self.rank(date, kind, player_id, by)
        if rank is None or limit == 0:
            return []
        total = await self.finishers(date, kind)
        start = max(0, min(rank - 1 - (limit - 1) // 2, total - limit))
        return await self._entries(date, kind, start, start + limit - 1, by)

    async def streak(self, player_id: str, as_of: str) -> int:
        """Consecutive days with a ranked finish ending on ``as_of`` (or the day before,
        while ``as_of`` is not played yet)."""
        end = _day_number(as_of)
        days = await self.daily.days(player_id, end - STREAK_DAYS, end)
        played = {_day_number(d) for d in days}
        day = end if end in played else end - 1
        count = 0
        while day in played:
            count += 1
            day -= 1
        return count

    async def board_json(
        self,
        date: str,
        kind: str,
        limit: int = 20,
        around: str | None = None,
        by: str = "time",
    ) -> dict[str, Any]:
        """The body of ``GET /api/daily/DATE/leaderboard`` and of ``leaderboard`` pushes.

        ``entries`` are the top ``limit`` entries, or with ``around`` the ``limit`` entries
        centred on that player (the top ones if the player is not ranked), each with
        ``new`` (a provisional player, listed from their first day); ``player`` then gives
        the player's rank (null if not ranked), streak and whether they are provisional.
        ``finishers`` counts everyone ranked. While the day runs, entries carry no
        ``replay_id``: its replays are their players' own until it is over. ``by`` is the
        view: ``time`` (the fastest) or ``actions`` (the fewest actions, then the fastest);
        ranks are places in it.
        """
        result: dict[str, Any] = {
            "date": date,
            "kind": kind,
            "by": by,
            "finishers": await self.finishers(date, kind),
        }
        entries: list[dict[str, Any]] = []
        if around is not None:
            entries = await self.around(date, kind, around, limit, by)
            result["player"] = {
                "player_id": around,
                "rank": await self.rank(date, kind, around, by),
                "streak": await self.streak(around, date),
                "provisional": bool(await self.provisional(kind, [around])),
            }
        if not entries:
            entries = await self.top(date, kind, limit, by)
        result["entries"] = entries
        return result
