"""``GET /api/player/PLAYER_ID/data``: "Download my data", everything the server keeps of a
player, to the player alone (``Authorization: Bearer TOKEN``; anyone else 401 ``bad_token``,
the same answer whether the player exists or not).

The body: the player's name (as their session holds it), what their own player page shows
(history, daily results, ratings with their history, public races, solo statistics, perfect
games, whom they follow), their finishes held for review (as "pending review" alone: the
kind, the day or room, since when; never a score or what held it, as ``daily_result`` says),
their passkeys' names and dates (never a key), and the replays their records name (held
finishes' too: their own lines), in full.
"""

from __future__ import annotations

import json
from typing import Any

from ..clock import now_ms
from ..net.registry import HttpRequest, HttpResponse, Routes
from ..records.replays import ReplayFormatError, replay_id
from ..store import accounts
from ..store.reviews import MAX_HELD_PAGE
from .api import Api, _bearer, _json, get_player

routes = Routes()


@routes.get(r"/api/player/(?P<pid>[A-Za-z0-9_-]{1,32})/data")
async def get_my_data(ctx: Api, request: HttpRequest) -> HttpResponse:
    """A player's data, as one JSON document, to that player alone."""
    pid = request.params["pid"]
    if await _bearer(ctx, request) != pid:
        return _json(401, {"error": "bad_token", "message": "your data needs your token"})
    page = await get_player(ctx, request)
    token = request.headers.get("authorization", "").partition(" ")[2].strip()
    session = await ctx.store.load_session(token)
    data: dict[str, Any] = {
        "exported_at": now_ms(),
        "player_id": pid,
        "name": session[1] if session is not None else "",
    }
    if page.status == 200:
        data["profile"] = json.loads(page.body)
    held = await pending_review(ctx, pid)
    data["pending_review"] = [shown for shown, _ in held]
    keys = await accounts.passkeys(ctx.store, pid)
    data["passkeys"] = [k.shown() for k in keys]
    ids, games = await accounts.replay_refs(ctx.store, pid)
    wanted = set(ids) | {replay_id(room, round_, pid) for room, round_ in games}
    wanted.update(result for _, result in held if result)
    for result in data.get("profile", {}).get("daily", {}).get("results", []):
        if isinstance(result.get("replay_id"), str):  # the daily games of the last 30 days
            wanted.add(result["replay_id"])
    replays = []
    for rid in sorted(wanted):
        try:
            replay = await ctx.records.replays.load(rid)
        except ReplayFormatError:
            continue
        if replay is not None and replay.player_id == pid:
            replays.append(replay.to_json())
    data["replays"] = replays
    response = _json(200, data)
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Content-Disposition"] = 'attachment; filename="seahaven-player.json"'
    return response


async def pending_review(ctx: Api, pid: str) -> list[tuple[dict[str, Any], str]]:
    """The player's finishes held for review, each as they may see it (``status``
    ``pending review``, the kind, the day or the room, since when) with its result id (its
    replay's); the held list is read page by page (it is bounded by ``held_max``)."""
    found: list[tuple[dict[str, Any], str]] = []
    after: str | None = None
    while True:
        page = await ctx.reviews.held_page(limit=MAX_HELD_PAGE, after=after)
        for record in page["held"]:
            if record.get("player_id") != pid:
                continue
            shown: dict[str, Any] = {"status": "pending review", "kind": record.get("kind")}
            for name in ("date", "daily_kind", "room", "round", "held_at"):
                if record.get(name) is not None:
                    shown[name] = record[name]
            found.append((shown, str(record.get("result") or "")))
        after = page["next_after"]
        if after is None:
            return found
