"""A room's event as its scripts store and publish it: read and written here, and only here.

Every change of a room is one script (``lua/``) that keeps its events in the room's event
list and publishes each on the room's channel (``lua/common.lua``, ``push``). An event is
one line of tab-separated fields, :data:`ENTRY`; published, the connection whose request
made it (its ``origin``) comes in front. FULL is either a message body the server wrote
with the room's seq stamped in front (:func:`stamp`), or, for an event whose values only
the script knows, a record: a JSON array ``[kind, seq, values...]`` whose values are laid
out as :data:`RECORDS` says (``tests/server/store/test_room_event.py`` holds the scripts to it).

:class:`RoomEvent` is the event parsed once, for the hub, the wire and the move path; the
wire turns it into the message each socket receives (``server/net/wire/records.py``, ``render``).
"""

from __future__ import annotations

import json
from typing import Final, NamedTuple

from protocol.models import DEFAULT_DELAY_S
from protocol.vocabulary import WatchMode

#: The fields of a stored event, in order (``lua/common.lua`` ``push``): the player it is
#: about ('' for a room-wide event), what spectators and that player receive, what the other
#: racers receive instead ('' the same, ``-`` nothing), the room's watch mode and delay as
#: the room had them (``WORD:DELAY_S``, a board's delta only; '' none), from which
#: ``server/rooms/visibility.py`` decides what spectators receive, and the JSON of the
#: change of the board's legal moves, for that player's own sockets (a delta only). One
#: layout: the forms of versions before the scripts stored the room's words, the perfect
#: flag and the par are refused, not guessed at, and a version whose deltas kept the whole
#: listing is not told apart (an idle room expires after ``room_ttl``: a deployment moving
#: on from such a version lets its rooms end first).
ENTRY: Final = ("pid", "full", "racer", "watch", "own")

#: The OWN of an event as the room's channel carries it: the legal moves are kept in the
#: event list but not published to every instance in the room; the mover has them with the
#: ack, and the player's other sockets, where there are any, from the player's own channel
#: (:func:`parse_own`, published just before the event).
APART: Final = "*"

#: The fields of a room's hash that a ``room`` record carries, in order (``lua/common.lua``
#: ``room_values``), each a string; the racers' member JSON follow them.
ROOM_FIELDS: Final = (
    "room_id",
    "code",
    "cells",
    "mode",
    "state",
    "round",
    "host",
    "ns",
    "typed",
    "watch",
    "delay_s",
    "public",
    "rated",
    "paired",
)

_NOTHING: Final = "-"
_STAMP: Final = '{"seq":'
_NO_VALUES: Final[tuple[str, ...]] = ()


class Layout(NamedTuple):
    """The values of one kind of record after its kind and seq: named fields in order,
    then any number of items of one sort (``rest``, '' for none), ``per`` values each."""

    fields: tuple[str, ...]
    rest: str = ""
    per: int = 1


#: Each record a script writes, by kind. The scripts build each record's values from
#: locals of these names, in this order (``room``: from ``room_values``).
RECORDS: Final[dict[str, Layout]] = {
    "room": Layout(ROOM_FIELDS, "members"),
    "countdown": Layout(("round", "starts_at", "now")),
    "started": Layout(("round", "code", "cells", "started_at"), "players"),
    # ``perfect`` ('1'/'0'): the win took exactly the deal's proven par.
    "finished": Layout(("pid", "round", "time_ms", "moves", "rank", "perfect")),
    # The deal's par ('' unknown) and whether it is proven; then each result
    # as two values: the rank ('' for none) and the result JSON.
    "race_over": Layout(("round", "par", "par_optimal"), "results", 2),
}


class EventError(ValueError):
    """A stored or published event that is not of the form the scripts write."""


def stamp(seq: int, body: str) -> str:
    """A message body with its seq in front, as the scripts stamp it (``common.lua``)."""
    return f"{_STAMP}{seq},{body}"


class RoomEvent(NamedTuple):
    """One event of a room (a tuple: made for every event, it is the cheapest to make).

    Attributes:
        pid: the player the event is about ('' for a room-wide event).
        full: what spectators and that player receive: a stamped message or a record.
        racer: what the other racers receive instead: '' the same as ``full``, None nothing.
        watch: the room's watch mode when the event was made (live for an event that is
            not a board's delta): what spectators receive of it is the visibility table's
            to say (``server/rooms/visibility.py``).
        delay_ms: the room's delay in ms when the event was made (0: none stored).
        own: the change of the board's legal moves (JSON) for that player's own sockets
            ('' for none).
        seq: the event's seq in its room.
        kind: a record's kind ('' when ``full`` is a stamped message).
        values: a record's values after its kind and seq, laid out as :data:`RECORDS`.
        origin: the connection whose request made it, as published ('' when unknown or
            stored; the mover's socket receives its own events with its ack).
    """

    pid: str
    full: str
    racer: str | None
    watch: WatchMode
    delay_ms: int
    own: str
    seq: int
    kind: str = ""
    values: tuple[str, ...] = ()
    origin: str = ""

    @classmethod
    def parse(cls, entry: str, origin: str = "") -> RoomEvent:
        """An event as a room's event list keeps it.

        Raises:
            EventError: ``entry`` is not of the form the scripts write.
        """
        return _read(entry.split("\t", 4), 0, origin)

    @classmethod
    def parse_published(cls, data: str) -> RoomEvent:
        """An event as a room's channel carries it: its origin, then the stored event.

        Raises:
            EventError: ``data`` is not of the form the scripts publish.
        """
        parts = data.split("\t", 5)
        if len(parts) < 2:
            raise EventError(f"a published room event starts with its origin: {data[:40]!r}")
        return _read(parts, 1, parts[0])

    def entry(self) -> str:
        """The event as a room's event list keeps it (what :meth:`parse` reads)."""
        racer = _NOTHING if self.racer is None else self.racer
        if self.watch == _LIVE and not self.delay_ms:
            watch = ""
        else:
            watch = f"{self.watch}:{self.delay_ms // 1000}"
        parts = [self.pid, self.full, racer, watch]
        if self.own:
            parts.append(self.own)
        return "\t".join(parts)

    def published(self) -> str:
        """The event as a room's channel carries it (what :meth:`parse_published` reads)."""
        return f"{self.origin}\t{self.entry()}"

    def fields(self) -> dict[str, str]:
        """A record's named values (:data:`RECORDS`)."""
        names = RECORDS[self.kind].fields
        return dict(zip(names, self.values, strict=False))

    def rest(self) -> tuple[str, ...]:
        """A record's values after its named fields (members, players, results)."""
        return self.values[len(RECORDS[self.kind].fields) :]


_new = tuple.__new__
_LIVE: Final = WatchMode.LIVE
_MODES: Final[dict[str, WatchMode]] = {mode.value: mode for mode in WatchMode}


def move_event(
    pid: str, seq: int, body: str, progress: str, watch: str, own: str, origin: str
) -> RoomEvent:
    """A move's delta as ``lua/move.lua`` stores it (:data:`ENTRY`), made from the parts the
    mover's instance sent it and the seq and WATCH it answered: the instance fans the event
    out to its own sockets from the commit's answer, without reading it back from the
    room's channel (``server/net/hub.py``, ``committed``)."""
    mode, delay_ms = _watch(watch)
    fields = (pid, stamp(seq, body), stamp(seq, progress), mode, delay_ms, own, seq)
    event: RoomEvent = _new(RoomEvent, (*fields, "", _NO_VALUES, origin))
    return event


def parse_own(data: str) -> tuple[int, str]:
    """The seq and legal moves (JSON) of a message of a player's own channel in a room
    (``lua/common.lua`` ``emit``): what that player's sockets add to the event of that seq,
    which the room's channel carries next with its OWN :data:`APART`.

    Raises:
        EventError: ``data`` is not of that form.
    """
    seq, sep, own = data.partition("\t")
    if not sep or not seq.isdigit() or not own:
        raise EventError(f"a player's own message is SEQ<TAB>LEGAL: {data[:40]!r}")
    return int(seq), own


def _read(parts: list[str], at: int, origin: str) -> RoomEvent:
    """The event whose fields (:data:`ENTRY`) start at ``parts[at]``: read once per event
    and per instance, so kept to a few string operations for a move's."""
    n = len(parts) - at
    if n < 4:
        raise EventError(f"a room event has 4 or 5 tab-separated fields, not {n}: {parts!r}")
    full = parts[at + 1]
    racer: str | None = parts[at + 2]
    if racer == _NOTHING:
        racer = None
    watch, delay_ms = _watch(parts[at + 3])
    own = parts[at + 4] if n > 4 else ""
    if full.startswith(_STAMP):
        try:
            seq = int(full[7 : full.index(",", 7)])
        except ValueError:
            raise EventError(f"a stamped room event starts with its seq: {full[:40]!r}") from None
        kind, values = "", _NO_VALUES
    else:
        kind, seq, values = _record(full)
    fields = (parts[at], full, racer, watch, delay_ms, own, seq, kind, values, origin)
    event: RoomEvent = _new(RoomEvent, fields)
    return event


#: WATCH fields read already (a handful of distinct values: every move's event has one).
_WATCHES: dict[str, tuple[WatchMode, int]] = {"": (WatchMode.LIVE, 0)}


def _watch(field: str) -> tuple[WatchMode, int]:
    """The room's watch mode and delay (ms) of an event's WATCH field (:data:`ENTRY`)."""
    known = _WATCHES.get(field)
    if known is not None:
        return known
    read = _read_watch(field)
    if len(_WATCHES) < 256:  # bounded, whatever a store holds
        _WATCHES[field] = read
    return read


def _read_watch(field: str) -> tuple[WatchMode, int]:
    """:func:`_watch` for a field not read before."""
    if not field:
        return _LIVE, 0
    word, sep, delay = field.partition(":")
    if sep:  # the room's words, as the scripts store them
        watch = _MODES.get(word or _LIVE)
        if watch is not None and (delay.isdigit() or not delay):
            return watch, int(delay or DEFAULT_DELAY_S) * 1000
    raise EventError(f"a room event's watch is WORD:DELAY_S or '' (none), not {field!r}")


def _record(full: str) -> tuple[str, int, tuple[str, ...]]:
    """The kind, seq and values of a record, checked against its layout."""
    try:
        items = json.loads(full)
    except ValueError:
        items = None
    if (
        not isinstance(items, list)
        or len(items) < 2
        or not all(isinstance(v, str) for v in items)
        or not items[1].isdigit()
    ):
        raise EventError(f"a room event is a stamped message or a record: {full[:40]!r}")
    kind, seq, *values = items
    layout = RECORDS.get(kind)
    if layout is None:
        raise EventError(f"unknown event record {kind!r}")
    n, named = len(values), len(layout.fields)
    fits = n >= named and (n - named) % layout.per == 0 and (n == named or bool(layout.rest))
    if not fits:
        raise EventError(f"a {kind!r} record's values are {layout}, not these {n}: {values}")
    return kind, int(seq), tuple(values)
