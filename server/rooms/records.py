"""The rooms' vocabulary and their rules over it: which watch modes a room may use, in
which phases a racer's moves count.

The words themselves (phases, modes, roles, watch modes, and :data:`TRANSITIONS`, which
change of phase each room-wide event makes) are the protocol's
(:mod:`protocol.vocabulary`), since they appear on the wire; they are named here too so
the rooms' code speaks one vocabulary. A room's phase lives in Redis (``room:{R}`` field
``state``) and only the store's scripts change it; a cached :class:`RoomState` follows it
through :data:`TRANSITIONS` (:class:`server.cache.RoomState`), which the tests check
against the scripts.
"""

from __future__ import annotations

from typing import Final

from protocol.vocabulary import TRANSITIONS, Mode, Role, RoomPhase, WatchMode, deal_shown

__all__ = [
    "IN_PLAY",
    "TRANSITIONS",
    "Mode",
    "Role",
    "RoomPhase",
    "WatchMode",
    "deal_shown",
    "default_watch",
    "watch_modes",
]


def watch_modes(public: bool) -> tuple[WatchMode, ...]:
    """The watch modes a room may use.

    A public room (anyone may enter) never shows the boards live: a racer's friend, or the
    racer under a second name, could read a rival's board there and relay it. An invite
    room's host knows who is in it and may choose.
    """
    if public:
        return (WatchMode.DELAYED, WatchMode.PROGRESS)
    return tuple(WatchMode)


def default_watch(public: bool) -> WatchMode:
    """The watch mode a new room starts with: live among invited friends, else delayed."""
    return WatchMode.DELAYED if public else WatchMode.LIVE


#: Phases in which a racer's moves count.
IN_PLAY: Final = frozenset({RoomPhase.COUNTDOWN, RoomPhase.RACING})
