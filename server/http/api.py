"""HTTP routes of the daily challenge, leaderboards, replays and player history.

- ``GET /api/daily`` and ``GET /api/daily/YYYY-MM-DD``: ``{date, running, ends_at, par,
  hard: {par}}``, with ``code`` and ``hard.code`` once the day is over (while it runs, a
  deal is revealed only by starting it); a future date is 404 ``future_date``, a malformed
  one 400 ``bad_date``, a day with no certified deal (or a server without a daily secret)
  503 ``unavailable``.
- ``GET /api/daily/YYYY-MM-DD/leaderboard?kind=daily|hard&limit=N&around=PLAYER_ID``:
  ``{date, kind, by, finishers, entries: [{rank, player_id, name, time_ms, moves, perfect,
  replay_id}]}`` (no ``replay_id`` while the day runs) and, with ``around``, ``player:
  {player_id, rank, streak}``; ``by=actions`` is the fewest-actions view (then time), under
  the same rules as the fastest (``by=time``, the default).
- ``GET /api/daily/YYYY-MM-DD/mine?kind=daily|hard`` with ``Authorization: Bearer TOKEN``:
  the token's player's own ranked attempt of the day, for the Daily page's "done for today"
  card: ``{date, kind, state, streak}`` (``state``: ``none``, ``playing``, ``ranked``,
  ``held`` (pending review: from the winning move until the review decides, and while an
  operator is to look), ``unranked`` (with ``reason``) or ``over``) and, once won,
  ``time_ms``, ``moves``, ``replay_id`` (the player's own), and when ranked ``rank``,
  ``finishers``, ``perfect``. Without a valid token: 401 ``bad_token``.
- ``GET /api/replay/ID``: the replay record, the opening table and every step's delta. A
  public replay never changes once stored: it carries a strong ``ETag`` (a hash of the
  body) and may be cached for good; a request whose ``If-None-Match`` names it is answered
  304. A board of a race still running is 404 to everyone, its racers too, until
  ``race_over``. A daily game's replay of a day still running, and any replay on a running
  day's deal (any cell count), answers its player alone
  (``Authorization: Bearer TOKEN``, the token of ``welcome``), never cached; anyone else
  gets the 404 of a missing replay. So does the replay of a finish held for review or
  voided (and a rated race's finish not reviewed yet): its player's (their token) and the
  operator's (the admin token) alone, never cached.
- ``GET /api/player/PLAYER_ID``: race history, daily streak and the daily results of the
  last 30 days (``daily``); the rooms of the history, and a running day's replay id, only to
  their owner (``Authorization: Bearer TOKEN``, the token of ``welcome``).
- ``GET /api/rooms/live?limit=N``: the public rooms that are live (at most 50, the most
  recent first): room id, cells, state, racers with their progress and rating,
  spectators, the arena of an arena's race (``arena``: its id, else null; and
  ``arena_minutes``, its length, as its page titles it); never a code,
  a board or a private room; and ``featured``, the running one with the highest ratings
  among those whose racers are all established (no provisional player). Answers are kept
  for a second per instance.
- ``GET /api/room/ID/invite``: what an invite link's page shows before joining: ``{room_id,
  host, cells, rated, state, arena, racers}`` (the host's and the racers' names; never the
  deal); 404 ``room_not_found``.
- ``GET /api/online``: ``{online, racing, waiting}``: the open sockets of every instance,
  those in a race in play (racers and watchers), and the players waiting in the quick race,
  for the quick-race page while it waits. Counts, never names or rooms.
- ``GET /api/ratings?cells=C&limit=N``: the best established players of a variant.
- ``GET /api/player/ID`` also gives the player's ratings per variant with their history and
  their recent public races (``ratings``, ``public_races``), and their solo statistics per
  variant (``solo``: games, wins, streaks, best time, fewest moves, the last 30 games; the
  player's own solo play, public like the daily results, holding no deal and no line), and
  ``perfect``: their perfect games per mode (wins in exactly a deal's proven par; each
  ``recent`` race and daily result says whether it was one): the reviewed ones (rated
  races, ranked dailies) to anyone, the solo and unrated races' too to their owner alone.
  To its owner alone, ``follows``: the players they follow.
- ``?friends=1`` on the leaderboard, with ``Authorization: Bearer TOKEN``: only the players
  the token's player follows, and that player. Without a valid token: 401 ``bad_token``.
  (Friends racing now are picked by the page from ``/api/rooms/live``: public rooms only.)

"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Final, Protocol

from ..clock import now_ms
from ..context import Context
from ..daily.deal import DailyError, daily_json, is_running, parse_date, today
from ..daily.leaderboard import BY, MAX_LIMIT
from ..daily.profile import daily_history
from ..daily.services import Daily
from ..fairplay.standing import standing
from ..net.registry import HttpRequest, HttpResponse, Routes
from ..ranked.today import my_day
from ..records.replays import Replay, ReplayFormatError, view_json
from ..records.services import Records
from ..rooms.records import RoomPhase
from ..settings import Settings
from ..store import arenas, follows, queue, ratings
from ..store.listing import MAX_ANSWERED, arena_named, live_rooms, rated_view
from ..store.ratings import Bar
from ..store.reviews import Reviews
from ..store.store import Store
from . import admin

routes = Routes()


class Api(Protocol):
    """What the API's routes use of an instance: its settings and the stores they read
    (rooms and players, the days' deals and leaderboards, the records, the reviews); never
    its sockets, caches or solver. The full context (:class:`server.context.Context`) has
    this and more; ``/api/daily/DATE/mine`` alone takes the whole context, for
    :func:`server.ranked.today.my_day`."""

    @property
    def settings(self) -> Settings:
        """The instance's settings."""

    @property
    def store(self) -> Store:
        """Rooms and players."""

    @property
    def daily(self) -> Daily:
        """The days' deals and leaderboards."""

    @property
    def records(self) -> Records:
        """Replays, history, solo statistics, perfect games."""

    @property
    def reviews(self) -> Reviews:
        """Review outcomes, held finishes, bars."""


_DATE = r"(?P<date>\d{4}-\d{2}-\d{2})"

#: How long anyone may keep a replay: a year, without asking again (it never changes).
IMMUTABLE: Final = "public, max-age=31536000, immutable"


def _json(status: int, data: object, cache: str = "no-cache") -> HttpResponse:
    return HttpResponse(
        status,
        json.dumps(data, separators=(",", ":")).encode(),
        headers={"Cache-Control": cache, "Vary": "Authorization"},
    )


def _immutable(data: object) -> HttpResponse:
    """A 200 that never changes: cacheable for good, its strong ETag a hash of the body."""
    body = json.dumps(data, separators=(",", ":")).encode()
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    return HttpResponse(200, body, headers={"Cache-Control": IMMUTABLE, "ETag": etag})


def _error(exc: DailyError) -> HttpResponse:
    status = {"future_date": 404, "unavailable": 503}.get(exc.reason, 400)
    return _json(status, {"error": exc.reason, "message": str(exc)})


@routes.get("/api/daily")
async def get_today(ctx: Api, request: HttpRequest) -> HttpResponse:
    """Today's (UTC) daily challenge."""
    return await _day(ctx, today().isoformat())


@routes.get(f"/api/daily/{_DATE}")
async def get_day(ctx: Api, request: HttpRequest) -> HttpResponse:
    """A past day's daily challenge (or today's)."""
    return await _day(ctx, request.params["date"])


async def _day(ctx: Api, date: str) -> HttpResponse:
    """The body of a day from its two certified deals; 503 ``unavailable`` without them."""
    try:
        main = await ctx.daily.deals.get(date, "daily")
        hard = await ctx.daily.deals.get(date, "hard")
    except DailyError as exc:
        return _error(exc)
    return _json(200, daily_json(main, hard))


@routes.get(f"/api/daily/{_DATE}/leaderboard")
async def get_leaderboard(ctx: Api, request: HttpRequest) -> HttpResponse:
    """A day's leaderboard: the top ``limit``, or ``limit`` entries around a player."""
    try:
        date = parse_date(request.params["date"]).isoformat()
    except DailyError as exc:
        return _error(exc)
    kind = request.query.get("kind", "daily")
    if kind not in ("daily", "hard"):
        return _json(400, {"error": "bad_kind", "message": "kind is daily or hard"})
    limit = request.query_int("limit", 20, 1, MAX_LIMIT)
    if limit is None:
        return _json(400, {"error": "bad_limit", "message": f"limit is 1 to {MAX_LIMIT}"})
    around = request.query.get("around") or None
    if around is not None and len(around) > 32:
        return _json(400, {"error": "bad_player", "message": "a player id has at most 32 chars"})
    by = request.query.get("by", "time")
    if by not in BY:
        return _json(400, {"error": "bad_by", "message": "by is time or actions"})
    if request.query.get("friends") == "1":
        me = await _bearer(ctx, request)
        if me is None:
            return _unauthorized()
        # A filter of the public board: each entry is one `around` would show anyone.
        wanted = await follows.followed(ctx.store, me) | {me}
        board = await ctx.daily.leaderboard.board_json(date, kind, 1, by=by)
        board["entries"] = await ctx.daily.leaderboard.among(date, kind, sorted(wanted), me, by)
        board["friends"] = True
        return _json(200, board)
    board = await ctx.daily.leaderboard.board_json(date, kind, limit, around, by)
    return _json(200, board)


@routes.get(f"/api/daily/{_DATE}/mine")
async def get_my_day(ctx: Context, request: HttpRequest) -> HttpResponse:
    """The token's player's own ranked attempt of a day (:func:`server.ranked.today.my_day`)."""
    try:
        date = parse_date(request.params["date"]).isoformat()
    except DailyError as exc:
        return _error(exc)
    kind = request.query.get("kind", "daily")
    if kind not in ("daily", "hard"):
        return _json(400, {"error": "bad_kind", "message": "kind is daily or hard"})
    me = await _bearer(ctx, request)
    if me is None:
        return _json(401, {"error": "bad_token", "message": "your own day needs your token"})
    return _json(200, await my_day(ctx, date, kind, me))


@routes.get(r"/api/room/(?P<room>[A-Za-z0-9]{1,16})/invite")
async def get_invite(ctx: Api, request: HttpRequest) -> HttpResponse:
    """What an invite link's page says before joining: the host, the level, rated or not,
    who is in. Whoever has the link may join and see as much in the lobby; never the deal."""
    room = request.params["room"].upper()
    fields = await ctx.store.room_fields(room)
    if not fields or fields.get("mode") != "race":
        return _json(404, {"error": "room_not_found", "message": "no race room has this id"})
    members = await ctx.store.members(room)
    host = members.get(fields.get("host") or "")
    return _json(
        200,
        {
            "room_id": room,
            "host": host["name"] if host else None,
            "cells": int(fields.get("cells") or 4),
            "rated": fields.get("rated") == "1",
            "state": fields.get("state"),
            "arena": bool(fields.get("arena")),
            "racers": [m["name"] for m in members.values() if m.get("role") == "player"],
        },
    )


#: How long an instance's counts stay in the online count without a heartbeat (three beats).
PRESENCE_FRESH_MS: Final = 15_000


@routes.get("/api/online")
async def get_online(ctx: Api, request: HttpRequest) -> HttpResponse:
    """How many are online, in a race and waiting in the quick race: counts, never names."""
    online, racing = await ctx.store.presence(now_ms(), PRESENCE_FRESH_MS)
    waiting = sum([await queue.waiting(ctx.store, cells) for cells in queue.VARIANTS])
    return _json(200, {"online": online, "racing": racing, "waiting": waiting})


def _unauthorized() -> HttpResponse:
    return _json(401, {"error": "bad_token", "message": "friends=1 needs your token"})


@routes.get(r"/api/replay/(?P<id>[A-Za-z0-9_-]{1,64})")
async def get_replay(ctx: Api, request: HttpRequest) -> HttpResponse:
    """A replay with its opening table and deltas, for ``seahaven verify`` and viewers."""
    min_ms = ctx.daily.leaderboard.min_ms_per_action
    try:
        replay = await ctx.records.replays.load(request.params["id"])
    except ReplayFormatError as exc:
        return _json(500, {"error": "internal", "message": str(exc)})
    missing = _json(404, {"error": "not_found", "message": "no replay has this id"})
    if replay is None or await still_racing(ctx, replay):
        return missing  # a race's lines are nobody's until it is over
    if not (await standing(ctx.reviews, replay.player_id)).shown:
        return missing  # a barred player's results are hidden everywhere
    if await held_back(ctx, replay):
        # A finish held for review (or voided, or a rated race's not reviewed yet) is its
        # player's alone, and the operator's, who judges it by its replay.
        if await _bearer(ctx, request) != replay.player_id and not admin.allowed(ctx, request):
            return missing
        return _json(200, view_json(replay, min_ms), "private, no-store")
    private = (replay.kind == "daily" and is_running(replay.daily_date or "")) or (
        await ctx.daily.deals.is_running(replay.code)
    )
    # A running day's replays are its players' own: one could copy the leader's line; so is
    # any game on a running day's deal (a solo game begun before its day, say).
    if private and await _bearer(ctx, request) != replay.player_id:
        return missing  # the same answer as no replay: its existence is not told either
    body = view_json(replay, min_ms)
    if private:
        return _json(200, body, "private, no-store")  # never in a shared cache
    return _immutable(body)


async def held_back(ctx: Api, replay: Replay) -> bool:
    """Whether a replay's finish is not public (yet): held for review or voided, or a
    rated race's finish whose review has not decided."""
    done = await ctx.reviews.decided(replay.id)
    if done is not None:
        return done["status"] in ("held", "voided")
    if replay.kind != "race" or replay.room is None or not replay.result.won:
        return False
    return (await ctx.store.room_fields(replay.room)).get("rated") == "1"


async def _bearer(ctx: Api, request: HttpRequest) -> str | None:
    """The player id of the ``Authorization: Bearer TOKEN`` header's session, or None."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not 16 <= len(token) <= 64:  # a token's bounds
        return None
    session = await ctx.store.load_session(token)
    return None if session is None else session[0]


async def still_racing(ctx: Api, replay: Replay) -> bool:
    """Whether a replay is of a race round not over yet: its line (a finished racer's
    winning one, say) would help those still racing, so nobody gets it before the end."""
    if replay.kind != "race" or replay.room is None or replay.round is None:
        return False
    fields = await ctx.store.room_fields(replay.room)
    return (
        bool(fields) and fields["round"] == str(replay.round) and fields["state"] != RoomPhase.DONE
    )


async def owner(ctx: Api, request: HttpRequest, pid: str) -> bool:
    """Whether the request proves to be player ``pid``: ``Authorization: Bearer TOKEN``."""
    return await _bearer(ctx, request) == pid


@routes.get(r"/api/player/(?P<pid>[A-Za-z0-9_-]{1,32})")
async def get_player(ctx: Api, request: HttpRequest) -> HttpResponse:
    """A player's race history and current daily streak (the room ids to the owner only:
    a room id is a way in, to watch a player's races)."""
    pid = request.params["pid"]
    records, leaderboard = ctx.records, ctx.daily.leaderboard
    # A barred player's results are hidden everywhere.
    if not (await standing(ctx.reviews, pid)).shown:
        return _json(404, {"error": "not_found", "message": "no such player"})
    data: dict[str, Any] = {"player_id": pid}
    data.update(await records.history.read(pid))
    mine = await owner(ctx, request, pid)
    if not mine:
        for entry in data["recent"]:
            entry.pop("room", None)
    day = today()
    data["streak"] = await leaderboard.streak(pid, day.isoformat())
    data["daily"] = await daily_history(leaderboard, pid, day, owner=mine)
    data["ratings"], data["public_races"] = await ratings.profile(ctx.store, pid, bar(ctx))
    data["solo"] = await records.solo.read(pid)
    data["arena"] = await arenas.player_arena(ctx.store, pid)  # the arena they are in, if any
    data["perfect"] = await records.perfect.read(pid, own=mine)
    if mine:  # whom one follows is one's own
        data["follows"] = await follows.follows(ctx.store, pid)
    return _json(200, data)


def bar(ctx: Api) -> Bar:
    """What makes a player established (listed), from the settings."""
    s = ctx.settings
    return Bar(s.provisional_games, s.provisional_days, s.established_rivals)


#: How long an instance keeps its answer of ``/api/rooms/live`` (seconds): many watchers
#: polling cost Redis one read a second.
LIVE_FRESH_S: Final = 1.0
_live_answers: dict[tuple[int, int], tuple[float, dict[str, Any]]] = {}


@routes.get("/api/rooms/live")
async def get_live_rooms(ctx: Api, request: HttpRequest) -> HttpResponse:
    """The public rooms that are live, newest first: for the Watch list."""
    limit = request.query_int("limit", MAX_ANSWERED, 1, MAX_ANSWERED)
    if limit is None:
        return _json(400, {"error": "bad_limit", "message": f"limit is 1 to {MAX_ANSWERED}"})
    key = (id(ctx.store), limit)
    held = _live_answers.get(key)
    if held is None or time.monotonic() - held[0] > LIVE_FRESH_S:
        if len(_live_answers) > 64:
            _live_answers.clear()
        since = now_ms() - ctx.settings.lobby_ttl_s * 1000  # older lobbies: closed
        listed = await arena_named(ctx.store, await live_rooms(ctx.store, limit, since))
        rooms, featured = await rated_view(ctx.store, listed, bar(ctx))
        held = (time.monotonic(), {"rooms": rooms, "featured": featured})
        _live_answers[key] = held
    return _json(200, {"now": now_ms(), **held[1]})


#: Players ``/api/ratings`` lists at most.
MAX_RATINGS: Final = 100


@routes.get("/api/ratings")
async def get_ratings(ctx: Api, request: HttpRequest) -> HttpResponse:
    """The best players of a variant: ``{cells, players: [{rank, player_id, name, rating,
    games}]}``."""
    cells = request.query.get("cells", "4")
    if cells not in ("4", "2", "1"):
        return _json(400, {"error": "bad_cells", "message": "cells is 4, 2 or 1"})
    limit = request.query_int("limit", 50, 1, MAX_RATINGS)
    if limit is None:
        return _json(400, {"error": "bad_limit", "message": f"limit is 1 to {MAX_RATINGS}"})
    players = await ratings.top(ctx.store, int(cells), limit, bar(ctx))
    return _json(200, {"cells": int(cells), "players": players})
