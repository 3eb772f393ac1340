"""The typed room record: its phases, the moves between them, and what an instance keeps.

A room's phase lives in Redis (``room:{R}`` field ``state``) and only the store's scripts
change it; :data:`TRANSITIONS` is the one table of which change each event makes, used to
keep a cached :class:`RoomState` in step and checked by the tests against the scripts.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from protocol.models import DEFAULT_DELAY_S


class RoomPhase(StrEnum):
    """Where a room's round stands."""

    LOBBY = "lobby"  # members gather; racers may join
    COUNTDOWN = "countdown"  # the host started; the boards open at ``starts_at``
    RACING = "racing"  # moves are taken
    DONE = "done"  # no racer is left playing; a rematch starts a new round


class Mode(StrEnum):
    """What a room is for."""

    RACE = "race"
    SOLO = "solo"
    DAILY = "daily"


class Role(StrEnum):
    """A member's part in a room."""

    PLAYER = "player"
    SPECTATOR = "spectator"


class WatchMode(StrEnum):
    """What spectators see while a race runs (the host picks it in the lobby)."""

    LIVE = "live"  # every board, move by move
    DELAYED = "delayed"  # the boards ``delay_s`` seconds late
    PROGRESS = "progress"  # progress only; the boards once the race is over


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


def deal_shown(phase: str, typed: bool) -> bool:
    """Whether a room's members may know its deal (the game code, any board) now.

    Nothing of the deal before ``started``: a code known in the lobby can be studied with a
    solver before the clock runs. A code the host typed is known to the host anyway, so the
    lobby shows it to everyone and says that it was typed.
    """
    return typed or phase in (RoomPhase.RACING, RoomPhase.DONE)


#: The phase change each room-wide event makes: event type -> (phases it may follow,
#: the phase after it). ``room`` follows a rematch (``done`` -> ``lobby``) or any change of
#: members (no change of phase).
TRANSITIONS: Final[dict[str, tuple[frozenset[RoomPhase], RoomPhase | None]]] = {
    "countdown": (frozenset({RoomPhase.LOBBY}), RoomPhase.COUNTDOWN),
    "started": (frozenset({RoomPhase.COUNTDOWN}), RoomPhase.RACING),
    "race_over": (frozenset({RoomPhase.RACING}), RoomPhase.DONE),
    "room": (frozenset(RoomPhase), None),
}

#: Phases in which a racer's moves count.
IN_PLAY: Final = frozenset({RoomPhase.COUNTDOWN, RoomPhase.RACING})


@dataclass(slots=True)
class RoomState:
    """What an instance remembers of a room between events (refreshed from Redis).

    ``seq`` is the room's last event as of this state: a read from Redis that answers
    after a newer event passed through must not replace what that event taught.
    """

    room: str
    code: str
    cells: int
    round: int
    phase: RoomPhase
    starts_at: int
    mode: Mode
    watch: WatchMode = WatchMode.LIVE
    delay_s: int = DEFAULT_DELAY_S
    seq: int = 0
    public: bool = False  # listed for anyone to watch (never changes after creation)
    paired: bool = False  # made by the quick-race queue: no host (never changes either)

    @classmethod
    def from_fields(cls, room: str, fields: dict[str, str]) -> RoomState:
        """The state of a room's field hash."""
        return cls(
            room,
            fields["code"],
            int(fields["cells"]),
            int(fields["round"]),
            RoomPhase(fields["state"]),
            int(fields.get("starts_at") or 0),
            Mode(fields["mode"]),
            WatchMode(fields.get("watch") or WatchMode.LIVE),
            int(fields.get("delay_s") or DEFAULT_DELAY_S),
            int(fields.get("seq") or 0),
            fields.get("public") == "1",
            fields.get("paired") == "1",
        )

    def follow(self, kind: str, phase: str | None = None) -> bool:
        """Apply a room-wide event's change of phase (``phase``: a ``room`` event's state).

        Returns:
            False when the event does not fit the phase held (the cache is stale).
        """
        rule = TRANSITIONS.get(kind)
        if rule is None:
            return True
        before, after = rule
        if self.phase not in before:
            return False
        self.phase = RoomPhase(phase) if after is None and phase else (after or self.phase)
        return True
