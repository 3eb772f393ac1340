"""Every message the server sends, built here and nowhere else: ``wire.NAME`` for each,
whichever module of this package builds it.

Each builder returns the JSON text of one message of :mod:`protocol.models` (the tests check
every builder against its model and the examples of ``protocol/README.md``). Room events
are built in two halves: the server writes a message *body* (a JSON object without its
opening brace, see :func:`body`) and the store's script stamps the room's ``seq`` in front;
events whose values only the script knows (the members, a rank, the results) come back from
Redis as *records* (``[kind, seq, values...]``, read by :mod:`server.store.events`) that
:func:`render` turns into messages.

The modules, by concern: :mod:`.compact` (the JSON they are written in), :mod:`.answers`
(to one client), :mod:`.matches` (the queue, bots, arenas, ratings), :mod:`.bodies` (the
room events the server writes), :mod:`.records` (those the scripts fill in, and the
snapshot) and :mod:`.devices` (a player's devices: passkeys, transfer codes, deletion).
"""

from __future__ import annotations

from .answers import (
    ack,
    daily_pending,
    daily_result,
    error,
    friends,
    hint,
    identities_refused,
    leaderboard,
    left,
    lost,
    pong,
    reject,
    solo_stats,
    welcome,
)
from .bodies import (
    delta_body,
    gave_up_body,
    legal,
    legal_change,
    legal_view,
    member,
    opening_view,
    own_text,
    own_view,
    progress_body,
    ratings_body,
    result,
)
from .compact import body, dumps, fast_dumps
from .matches import (
    arena,
    arena_info,
    arena_left,
    arena_line,
    arena_over,
    arena_pledged,
    arena_standings,
    bot_offer,
    pairing,
    queued,
    rating_change,
    unqueued,
)
from .records import board_view, countdown, finished, race_over, render, room, snapshot, started

__all__ = [
    "ack",
    "arena",
    "arena_info",
    "arena_left",
    "arena_line",
    "arena_over",
    "arena_pledged",
    "arena_standings",
    "board_view",
    "body",
    "bot_offer",
    "countdown",
    "daily_pending",
    "daily_result",
    "delta_body",
    "dumps",
    "error",
    "fast_dumps",
    "finished",
    "friends",
    "gave_up_body",
    "hint",
    "identities_refused",
    "leaderboard",
    "left",
    "legal",
    "legal_change",
    "legal_view",
    "lost",
    "member",
    "opening_view",
    "own_text",
    "own_view",
    "pairing",
    "pong",
    "progress_body",
    "queued",
    "race_over",
    "rating_change",
    "ratings_body",
    "reject",
    "render",
    "result",
    "room",
    "snapshot",
    "solo_stats",
    "started",
    "unqueued",
    "welcome",
]
