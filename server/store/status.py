"""What a room operation answers: ``ok``, or the word for why not.

The room scripts (``lua/``) answer a record laid out as :data:`ANSWER` whose first value is
one of these words; the operations above them (joining, starting, queueing) answer the same
words and a few of their own. Most refusals go to the client as they are, as the code of an
``error`` or the reason of a ``reject`` (``protocol/fields.py``); the words of
:data:`INTERNAL` never do: the server acts on them itself.
(``tests/server/store/test_room_event.py`` holds the scripts and the protocol to this list.)
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final


class Status(StrEnum):
    """An operation's answer."""

    OK = "ok"
    # Refusals the client hears as they are.
    ROOM_NOT_FOUND = "room_not_found"
    ROOM_FULL = "room_full"
    SPECTATORS_FULL = "spectators_full"
    RACE_IN_PROGRESS = "race_in_progress"
    RACING_HERE = "racing_here"
    DAILY_RUNNING = "daily_running"
    BARRED = "barred"  # an operator barred the player from ranked play
    RATED_ROOM = "rated_room"  # a rated race never shows the boards live
    NOT_IN_ROOM = "not_in_room"
    ALREADY_IN_ROOM = "already_in_room"
    NOT_HOST = "not_host"
    WRONG_STATE = "wrong_state"
    PUBLIC_ROOM = "public_room"
    NOT_RACING = "not_racing"
    NOT_STARTED = "not_started"
    FINISHED = "finished"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_ACTIONS = "too_many_actions"
    ALREADY_QUEUED = "already_queued"
    NO_BOT_OFFER = "no_bot_offer"
    UNAVAILABLE = "unavailable"
    BUSY = "busy"
    ARENA_NOT_FOUND = "arena_not_found"
    ARENA_OVER = "arena_over"
    ALREADY_IN_ARENA = "already_in_arena"
    NOT_IN_ARENA = "not_in_arena"
    IN_ARENA = "in_arena"  # the quick race (or a second arena) while in an arena
    ARENA_LIMIT = "arena_limit"  # one private arena not over per player at once
    TOO_MANY_ARENAS = "too_many_arenas"  # an address's private arenas not over, at most
    NO_PLEDGE = "no_pledge"  # no arena race in its lobby or countdown to pledge for
    # What the server acts on itself.
    DUP = "dup"  # the action id is committed already (a resend): acknowledge it again
    STALE = "stale"  # the board changed since the copy it was played on: play it afresh
    ROUND = "round"  # the room is in another round now
    NOOP = "noop"  # the countdown was ended already
    EARLY = "early"  # the countdown is not over yet
    DONE = "done"  # the round's rating changes were settled already
    FULL = "full"  # the quick-race queue holds as many as it takes (the client hears busy)
    EMPTY = "empty"  # nobody came to a paired room
    RACING = "racing"  # an arena's racer is in another of its races already


#: The answers the client never hears as they are.
INTERNAL: Final = frozenset(
    {
        Status.DUP,
        Status.STALE,
        Status.ROUND,
        Status.NOOP,
        Status.EARLY,
        Status.DONE,
        Status.FULL,
        Status.EMPTY,
        Status.RACING,
    }
)

#: The record a room script answers, in order (``lua/move.lua``; the other scripts answer
#: the first two): its status, the seq of its (last) event, a finisher's rank, the seq
#: of its first event (the move script's deltas run from it to the seq), the WATCH field
#: its deltas were stored with (``server/store/events.py``) and whether they were published
#: on the room's channel (1/0).
ANSWER: Final = ("status", "seq", "rank", "first", "watch", "published")

_BY_WORD: Final[dict[str, Status]] = {status.value: status for status in Status}


def status_of(word: Any) -> Status:
    """The status a script answered (``bytes`` or ``str``).

    Raises:
        ValueError: a word that is no :class:`Status` (a script and this module disagree).
    """
    text = word.decode() if isinstance(word, bytes) else str(word)
    found = _BY_WORD.get(text)
    if found is None:
        raise ValueError(f"a script answered {text!r}, which is no Status")
    return found
