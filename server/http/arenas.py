"""The arenas' JSON routes: ``GET /api/arenas`` (the running scheduled arenas and the next
ones) and ``GET /api/arena/ID`` (an arena's full table, its podium once over, and its top
race to watch). A private arena is listed nowhere: its id is its invitation."""

from __future__ import annotations

import json
import sys
from typing import Final

from ..arena import standings
from ..context import Context
from ..net.registry import HttpRequest, HttpResponse, Routes

routes = Routes()

#: The most lines ``?top=`` asks for.
MAX_TOP: Final = 1000


def _json(status: int, data: object) -> HttpResponse:
    body = json.dumps(data, separators=(",", ":")).encode()
    return HttpResponse(status, body, headers={"Cache-Control": "no-cache"})


@routes.get("/api/arenas")
async def get_arenas(ctx: Context, request: HttpRequest) -> HttpResponse:
    """The running scheduled arenas and the next of each."""
    return _json(200, await standings.listed(ctx))


@routes.get(r"/api/arena/(?P<id>[A-Za-z0-9-]{4,32})")
async def get_arena(ctx: Context, request: HttpRequest) -> HttpResponse:
    """One arena's table (``?top=N``: its first N lines; a page polling many arenas needs
    five, not a thousand)."""
    top = request.query_int("top", sys.maxsize, 1, MAX_TOP)  # not given: the whole table
    if top is None:
        return _json(400, {"error": "bad_top", "message": f"top is 1 to {MAX_TOP}"})
    found = await standings.table(ctx, request.params["id"])
    if found is None:
        return _json(404, {"error": "not_found", "message": "no such arena"})
    found["standings"] = found["standings"][:top]
    return _json(200, found)
