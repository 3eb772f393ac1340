"""``GET /api/player/PLAYER_ID/data``: "Download my data", everything the server keeps of a
player, to the player alone (``Authorization: Bearer TOKEN``; anyone else 401 ``bad_token``,
the same answer whether the player exists or not).

The body: what their own player page shows (history, daily results, ratings with their
history, public races, solo statistics, perfect games, whom they follow), their passkeys'
names and dates (never a key), and the replays their records name, in full.
"""

from __future__ import annotations

import json
from typing import Any

from ..clock import now_ms
from ..context import Context
from ..net.registry import HttpRequest, HttpResponse, Routes
from ..records.replays import ReplayFormatError, replay_id
from ..store import accounts
from .api import _bearer, _json, get_player

routes = Routes()


@routes.get(r"/api/player/(?P<pid>[A-Za-z0-9_-]{1,32})/data")
async def get_my_data(ctx: Context, request: HttpRequest) -> HttpResponse:
    """A player's data, as one JSON document, to that player alone."""
    pid = request.params["pid"]
    if await _bearer(ctx, request) != pid:
        return _json(401, {"error": "bad_token", "message": "your data needs your token"})
    page = await get_player(ctx, request)
    data: dict[str, Any] = {"exported_at": now_ms(), "player_id": pid}
    if page.status == 200:
        data["profile"] = json.loads(page.body)
    keys = await accounts.passkeys(ctx.store, pid)
    data["passkeys"] = [k.shown() for k in keys]
    ids, games = await accounts.replay_refs(ctx.store, pid)
    wanted = set(ids) | {replay_id(room, round_, pid) for room, round_ in games}
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
