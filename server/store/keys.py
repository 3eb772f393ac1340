"""Every Redis key and channel name the server uses, built in this one place.

A :class:`Keys` carries the instance's key prefix (empty in production; tests give each
server a unique one so that they share a Redis safely), and every name starts with it.

Room keys share the hash tag ``{R}`` so that a room lives in one Redis Cluster slot and its
scripts touch one slot only:

- ``room:{R}``: hash of room fields (``state``, ``round``, ``code``, ``cells``, ``mode``,
  ``host``, ``starts_at``, ``seq``, ``np``/``ns`` racer and spectator counts, ``playing``,
  ``finishers``, ``st:PID`` each racer's status).
- ``room:{R}:members``: hash player id -> member JSON ``{player_id, name, role}``.
- ``room:{R}:events``: list of the last events, one per seq (see ``lua/common.lua``).
- ``room:{R}:log:N:PID``: list, PID's action log in round N, ``MS\\tID\\tACTION`` per
  accepted action; its length is the board's version.
- ``room:{R}:ids:N:PID``: hash client action id -> seq (idempotent resends).
- ``room:{R}:res:N``: hash player id -> result JSON of round N, ``rank:PID`` -> rank.
- ``room:{R}:away:PID``: set while a racer's socket is gone mid-race.
- ``room:{R}:daily``: ``{date, kind}`` of a daily game's room.
- channel ``room:{R}:ch``: every event, prefixed with the connection it came from.

Elsewhere: ``racing:{CODE}`` (sorted set of the rooms racing that deal now, each scored
with the ms until which its mark holds unless renewed), ``session:TOKEN`` (hash
``{pid, name}``), ``daily:DATE:KIND:rank|entries|ch`` (a day's leaderboard),
``player:PID:days|races|recent|counted`` and ``replay:ID``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Keys:
    """Key and channel names under one prefix."""

    prefix: str = ""

    # -- rooms ----------------------------------------------------------------------------

    def room(self, room: str) -> str:
        """The room's field hash (also the stem of its other keys)."""
        return f"{self.prefix}room:{{{room}}}"

    def members(self, room: str) -> str:
        """Player id -> member JSON."""
        return f"{self.room(room)}:members"

    def events(self, room: str) -> str:
        """The room's recent events."""
        return f"{self.room(room)}:events"

    def log(self, room: str, round_: int, pid: str) -> str:
        """One board's action log."""
        return f"{self.room(room)}:log:{round_}:{pid}"

    def ids(self, room: str, round_: int, pid: str) -> str:
        """One board's committed client ids."""
        return f"{self.room(room)}:ids:{round_}:{pid}"

    def results(self, room: str, round_: int) -> str:
        """A round's results."""
        return f"{self.room(room)}:res:{round_}"

    def away(self, room: str, pid: str) -> str:
        """Set while a racer's socket is gone mid-race."""
        return f"{self.room(room)}:away:{pid}"

    def daily_room(self, room: str) -> str:
        """``{date, kind}`` of a daily game's room."""
        return f"{self.room(room)}:daily"

    def channel(self, room: str) -> str:
        """The room's pub/sub channel (the scripts derive it as ``room .. ':ch'``)."""
        return f"{self.room(room)}:ch"

    @staticmethod
    def room_of_channel(name: str) -> str:
        """The room id in a room channel's name."""
        return name[name.index("{") + 1 : name.index("}")]

    def racing(self, code: str) -> str:
        """The rooms racing deal ``code`` now (sorted set, scored by the mark's end in ms)."""
        return f"{self.prefix}racing:{{{code}}}"

    # -- players --------------------------------------------------------------------------

    def session(self, token: str) -> str:
        """A token's player: hash ``{pid, name}``."""
        return f"{self.prefix}session:{token}"

    def player_days(self, pid: str) -> str:
        """Sorted set of the days a player ranked (score: day number)."""
        return f"{self.prefix}player:{pid}:days"

    def player_races(self, pid: str) -> str:
        """Hash of race counters and best times."""
        return f"{self.prefix}player:{pid}:races"

    def player_recent(self, pid: str) -> str:
        """List of recent race results (JSON)."""
        return f"{self.prefix}player:{pid}:recent"

    def player_counted(self, pid: str) -> str:
        """Set of the ``ROOM/ROUND`` already counted in the history."""
        return f"{self.prefix}player:{pid}:counted"

    # -- the daily challenge --------------------------------------------------------------

    def leaderboard_rank(self, date: str, kind: str) -> str:
        """Sorted set of a day's ranked members."""
        return f"{self.prefix}daily:{date}:{kind}:rank"

    def leaderboard_entries(self, date: str, kind: str) -> str:
        """Hash player id -> leaderboard entry JSON."""
        return f"{self.prefix}daily:{date}:{kind}:entries"

    def leaderboard_channel(self, date: str, kind: str) -> str:
        """Announces a change of a day's leaderboard."""
        return f"{self.prefix}daily:{date}:{kind}:ch"

    def leaderboard_pattern(self) -> str:
        """The pattern of every leaderboard channel."""
        return f"{self.prefix}daily:*:ch"

    def parse_leaderboard_channel(self, name: str) -> tuple[str, str] | None:
        """``(date, kind)`` of a leaderboard channel, or None."""
        if not name.startswith(self.prefix):
            return None
        parts = name[len(self.prefix) :].split(":")
        if len(parts) != 4 or parts[0] != "daily" or parts[3] != "ch":
            return None
        return parts[1], parts[2]

    def replay(self, replay_id: str) -> str:
        """A replay record (JSON)."""
        return f"{self.prefix}replay:{replay_id}"
