"""The operator's HTTP routes, the same actions as ``seahaven admin`` (protocol/README.md,
"Operator").

Open only when the server has ``--admin-token`` (``SEAHAVEN_ADMIN_TOKEN``) and the request
carries it: ``Authorization: Bearer TOKEN``, compared in constant time. Anyone else, a wrong
token included, gets the 404 of a path that does not exist (the static files' 404, byte for
byte, whatever the method or path under ``/api/admin/``; the front answers it before it
looks for a route), so not even their existence shows. Every answer is JSON; every action
is idempotent and logged with ``by`` set to ``http:ADDRESS`` (the client's address).

- ``GET /api/admin/held?limit=N&after=CURSOR`` (or ``&offset=K``): a page of the held
  finishes, the oldest first: ``{"held": [...], "total", "offset", "limit",
  "next_offset", "next_after"}`` (limit 1 to 500, default 50; ``after`` a page's
  ``next_after``, which holds however many finishes are decided meanwhile), each with
  ``result``, ``player_id``, ``kind``, ``score``, ``replay`` and the rest of what was
  held. The list is bounded (``--held-max``, ``--held-days``): past it the oldest are
  settled unranked, as voided, and logged (``expire``, by ``expiry``).
- ``POST /api/admin/clear/RESULT``, ``POST /api/admin/void/RESULT``,
  ``POST /api/admin/bar/PLAYER``, ``POST /api/admin/unbar/PLAYER``: ``{ok, status,
  message, …}``; 404 ``not_found`` when there is nothing to act on.
- ``GET /api/admin/identities/ADDRESS``: ``{"address", "identities": [{player_id,
  made_at, barred}]}``.
- ``GET /api/admin/log?limit=N``: ``{"log": [{at, action, target, by, status, ok}]}``.
- ``GET /api/admin/suspects?limit=N&after=PLAYER``: the players by their score over recent
  ranked finishes, the highest first (``server.fairplay.evidence``): ``{"suspects":
  [{player_id, score, flagged, barred, records}], "next_after"}`` (limit 1 to 200, default
  50; ``after``: the ``next_after`` of the page before).
- ``POST /api/admin/unflag/PLAYER``: lift a player's flag (``{ok, status, …}``).
- ``GET /api/admin/marks/RESULT``: a finish's line for the operator's replay, each action
  marked where it matched a reference line: ``{"result", "player_id", "kind", "code",
  "started_at", "actions": [{action, at_ms, kept, forced, solver, optimal}], "replay"}``
  (``replay``: as ``/api/replay/ID`` gives it, a held one's too); 404 when no replay has
  that id; 503 ``busy`` when the solver processes cannot mark it now (their queue full,
  or the process running it died). Computed in the solver pool, bounded
  and prioritised as a review is.
"""

from __future__ import annotations

import hmac
import json
import re
import sys
from ipaddress import ip_address
from typing import Protocol

from ..daily.services import Daily
from ..fairplay.holds import HELD_PAGE, MAX_HELD_PAGE, MAX_SUSPECTS_PAGE, Holds, Outcome
from ..net.limits import bucket_key
from ..net.registry import HttpRequest, HttpResponse, Routes
from ..records.replays import ReplayFormatError, view_json
from ..records.services import Records
from ..review.reviewer import Reviewer
from ..settings import Settings
from ..store.reviews import Reviews
from ..store.store import Store

routes = Routes()


class Configured(Protocol):
    """What the token check reads of an instance: its settings."""

    @property
    def settings(self) -> Settings:
        """The instance's settings (the admin token among them)."""


class Operated(Configured, Protocol):
    """What the operator's routes use of an instance: the stores its actions read and
    change (:class:`Holds`), and the reviewer that marks a finish's line. The full context
    (:class:`server.context.Context`) has this and more."""

    @property
    def store(self) -> Store:
        """Rooms and players."""

    @property
    def reviews(self) -> Reviews:
        """Review outcomes, held finishes, bars, the operator's log."""

    @property
    def daily(self) -> Daily:
        """The days' deals and leaderboards."""

    @property
    def records(self) -> Records:
        """Replays, history, solo statistics, perfect games."""

    @property
    def reviewer(self) -> Reviewer:
        """Scores and marks a line in the solver's processes."""


_ID = r"(?P<id>[A-Za-z0-9_-]{1,64})"
_PLAYER = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _json(status: int, data: object) -> HttpResponse:
    body = json.dumps(data, separators=(",", ":")).encode()
    return HttpResponse(status, body, headers={"Cache-Control": "no-store"})


def _hidden() -> HttpResponse:
    """The answer of a path that does not exist (as the static files answer it; the front
    answers so before a route is even looked up: :func:`token_ok`)."""
    return HttpResponse(404, b"not found", "text/plain; charset=utf-8")


def token_ok(settings: Settings, authorization: str) -> bool:
    """Whether an ``Authorization`` header carries the admin token (and the server has
    one), compared in constant time."""
    token = settings.admin_token
    if token is None:
        return False
    scheme, _, given = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.get_secret_value().encode())


def allowed(ctx: Configured, request: HttpRequest) -> bool:
    """Whether the request carries the admin token (and the server has one)."""
    return token_ok(ctx.settings, request.headers.get("authorization", ""))


def operator(ctx: Operated) -> Holds:
    """The operator's actions on this instance's stores."""
    return Holds(ctx.store, ctx.reviews, ctx.daily.leaderboard, ctx.records.replays)


def _by(request: HttpRequest) -> str:
    return f"http:{request.client}" if request.client is not None else "http:unknown"


def _answer(outcome: Outcome) -> HttpResponse:
    return _json(200 if outcome.ok else 404, outcome.to_json())


@routes.get("/api/admin/held")
async def get_held(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """The held finishes, the oldest first."""
    if not allowed(ctx, request):
        return _hidden()
    limit = request.query_int("limit", HELD_PAGE, 1, MAX_HELD_PAGE)
    if limit is None:
        return _json(400, {"error": "bad_limit", "message": f"limit is 1 to {MAX_HELD_PAGE}"})
    offset = request.query_int("offset", 0, 0, sys.maxsize)
    if offset is None:
        return _json(400, {"error": "bad_offset", "message": "offset is 0 or more"})
    after = request.query.get("after")
    try:
        page = await operator(ctx).held_page(offset, limit, after)
    except ValueError as exc:
        return _json(400, {"error": "bad_after", "message": str(exc)})
    return _json(200, page)


@routes.post(f"/api/admin/clear/{_ID}")
async def post_clear(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """Let a held finish count."""
    if not allowed(ctx, request):
        return _hidden()
    return _answer(await operator(ctx).clear(request.params["id"], _by(request)))


@routes.post(f"/api/admin/void/{_ID}")
async def post_void(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """Take a finish off every leaderboard and streak."""
    if not allowed(ctx, request):
        return _hidden()
    return _answer(await operator(ctx).void(request.params["id"], _by(request)))


@routes.post(f"/api/admin/bar/{_ID}")
async def post_bar(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """Bar a player from ranked play."""
    if not allowed(ctx, request):
        return _hidden()
    return _answer(await operator(ctx).bar(request.params["id"], _by(request)))


@routes.post(f"/api/admin/unbar/{_ID}")
async def post_unbar(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """Let a barred player rank again."""
    if not allowed(ctx, request):
        return _hidden()
    return _answer(await operator(ctx).unbar(request.params["id"], _by(request)))


@routes.get(r"/api/admin/identities/(?P<address>[0-9A-Fa-f:.]{2,45})")
async def get_identities(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """The identities an address made in the last 7 days."""
    if not allowed(ctx, request):
        return _hidden()
    try:
        address = bucket_key(ip_address(request.params["address"]))
    except ValueError:
        return _json(400, {"error": "bad_address", "message": "not an IPv4 or IPv6 address"})
    found = await operator(ctx).identities(address)
    return _json(200, {"address": address, "identities": found})


@routes.get("/api/admin/log")
async def get_log(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """The operator's latest actions, the newest first."""
    if not allowed(ctx, request):
        return _hidden()
    limit = request.query_int("limit", 100, 1, 1000)
    if limit is None:
        return _json(400, {"error": "bad_limit", "message": "limit is 1 to 1000"})
    return _json(200, {"log": await operator(ctx).log(limit)})


@routes.get("/api/admin/suspects")
async def get_suspects(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """The players by their score over recent ranked finishes, the highest first."""
    if not allowed(ctx, request):
        return _hidden()
    limit = request.query_int("limit", 50, 1, MAX_SUSPECTS_PAGE)
    if limit is None:
        return _json(400, {"error": "bad_limit", "message": f"limit is 1 to {MAX_SUSPECTS_PAGE}"})
    after = request.query.get("after") or None
    if after is not None and not _PLAYER.fullmatch(after):
        return _json(400, {"error": "bad_after", "message": "after is a player id"})
    return _json(200, await operator(ctx).suspects(limit, after))


@routes.post(f"/api/admin/unflag/{_ID}")
async def post_unflag(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """Lift a player's flag."""
    if not allowed(ctx, request):
        return _hidden()
    return _answer(await operator(ctx).unflag(request.params["id"], _by(request)))


@routes.get(f"/api/admin/marks/{_ID}")
async def get_marks(ctx: Operated, request: HttpRequest) -> HttpResponse:
    """A finish's line, each action marked where it matched a reference line."""
    if not allowed(ctx, request):
        return _hidden()
    rid = request.params["id"]
    try:
        replay = await ctx.records.replays.load(rid)
    except ReplayFormatError:
        replay = None
    if replay is None:
        return _json(404, {"error": "not_found", "message": "no replay has this id"})
    marks = await ctx.reviewer.marks(rid, replay.code, list(replay.actions))
    if marks is None:
        return _json(
            503,
            {
                "error": "busy",
                "message": "the solver processes cannot mark this line now; try again in a moment",
            },
        )
    for row, at in zip(marks, replay.times_ms, strict=False):
        row["at_ms"] = at - replay.started_at
    body = {
        "result": rid,
        "player_id": replay.player_id,
        "name": replay.name,
        "kind": replay.kind,
        "code": replay.code,
        "started_at": replay.started_at,
        "actions": marks,
        "replay": view_json(replay, ctx.settings.min_ms_per_action),
    }
    return _json(200, body)
