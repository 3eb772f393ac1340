"""What every message of the protocol is made of: its limits, its codes and their meanings,
the bounded field types, and the base of every model.

Every model forbids unknown fields and is frozen; every string and list is bounded, so a
message that validates is safe to act on. The messages themselves are in
:mod:`protocol.commands` (client to server) and :mod:`protocol.events` (server to client).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
)

from .names import REFUSED_CATEGORIES, refusal

#: The protocol version; a client names the version it speaks in ``hello.v``.
PROTOCOL_VERSION: Final = 1

#: The largest text frame the server reads, in bytes (larger frames get ``too_large``).
MAX_FRAME: Final = 4096

#: Most players racing in one room.
MAX_PLAYERS: Final = 8

#: The largest client-chosen id (2^53 - 1, exact in JavaScript).
MAX_ID: Final = 9_007_199_254_740_991

#: How late spectators see the boards in the ``delayed`` watch mode, in seconds.
MIN_DELAY_S: Final = 10
MAX_DELAY_S: Final = 120
DEFAULT_DELAY_S: Final = 30

#: Codes of ``error`` messages and what each means.
ERROR_CODES: Final[dict[str, str]] = {
    "bad_json": "the frame is not a JSON object",
    "too_large": f"the frame is larger than {MAX_FRAME} bytes",
    "unknown_type": "the message type is not part of the protocol",
    "invalid_message": "a field is missing, unknown, of the wrong type or out of bounds",
    "rate_limited": "too many messages; slow down",
    "hello_first": "send hello (or resume) before anything else",
    "unsupported_version": "the server does not speak this protocol version",
    "bad_token": "the token is unknown or expired",
    "name_taken": "the name passes for an established player's (the same look, UTS #39): "
    "choose another",
    "room_not_found": "no room has this id (or it expired)",
    "room_full": f"the room already has {MAX_PLAYERS} players",
    "spectators_full": "the room has as many spectators as it takes",
    "too_many_identities": "this address made too many new players lately; use your token",
    "barred": "an operator barred this player from ranked play (daily ranked games, rated races)",
    "not_in_room": "you are not in a room (or not in this one)",
    "already_in_room": "leave your room before joining or creating another",
    "not_host": "only the room's host may do this",
    "wrong_state": "the room is not in a state that allows this",
    "race_in_progress": "players join before the start; join as a spectator instead",
    "not_racing": "you are not racing in this room",
    "racing_here": "you race in this room, so you cannot also watch it",
    "daily_running": "the room shows a daily deal whose day runs: nobody may watch it yet",
    "daily_only": "the typed code's deal is a daily deal whose day runs: play it in the daily",
    "public_room": "a public room races a drawn deal and never shows the boards live",
    "rated_room": "a rated race never shows the boards live",
    "lobby_open": "you already have a lobby open: start it or leave it first",
    "too_many_lobbies": "your address has as many public lobbies open as it may",
    "bad_code": "the game code is not valid",
    "already_queued": "you already wait for a quick race",
    "not_queued": "you are not waiting for a quick race",
    "no_bot_offer": "no bot racer is offered to you now",
    "arena_not_found": "no arena has this id",
    "arena_over": "this arena is over",
    "already_in_arena": "you are in an arena already: leave it first",
    "not_in_arena": "you are not in an arena",
    "in_arena": "you are in an arena: leave it first",
    "arena_limit": "you have a private arena that is not over yet",
    "too_many_arenas": "your address has made as many private arenas not over yet as it may",
    "no_pledge": "there is no arena race in its lobby or countdown to pledge for",
    "unknown_player": "no player has this id (or nothing of theirs is kept)",
    "too_many_follows": "you follow as many players as one may (200); unfollow one first",
    "self_follow": "you cannot follow yourself",
    "bad_date": "the date is not a day with a daily challenge",
    "unavailable": "this feature is not available on this server",
    "slow_down": "you (or your address) started as many games as one may in an hour; "
    "retry_s says when the next may start",
    "busy": "the server is busy; retry",
    "internal": "the server failed on this message; nothing changed",
    # A player's devices (protocol/devices.py).
    "no_challenge": "ask for passkey_options first (a challenge is good for one try, 2 min)",
    "passkey_refused": "the passkey did not prove itself (wrong origin, key or challenge)",
    "passkey_unknown": "no player has this passkey (removed, or the player deleted)",
    "passkey_not_found": "you have no passkey with this id",
    "passkey_taken": "this passkey is already one of a player's",
    "too_many_passkeys": "you have as many passkeys as one may (10): remove one first",
    "transfer_unknown": "this code does not work: check it on the other device",
    "transfer_used": "this transfer code was used already: make a new one on the other device",
    "transfer_expired": "this transfer code expired (after 10 minutes): make a new one",
    "transfer_dead": "this transfer code was tried wrong too often: make a new one",
    "transfer_limited": "too many transfer codes tried from this address: wait a few minutes",
    "confirm_mismatch": "player_id must repeat your own id",
    "signed_out": "this device was signed out everywhere: sign in again, or start as a new player",
}

#: Reasons of ``reject`` added by the server to the engine's reason codes
#: (``server/engine/errors.py`` ``REASONS``: ``not_same_suit``, ``cell_occupied`` ...).
SERVER_REJECT_REASONS: Final[dict[str, str]] = {
    "bad_notation": "the location is not colN, cellN, found or found:S/H/D/C",
    "not_racing": "you are not racing in this room (a spectator, or not in a room)",
    "not_started": "the race has not started yet",
    "finished": "your game is over (won or given up)",
    "conflict": "the move raced another change of your board; it was not applied",
    "hints_off": "no solver hints for a deal being raced, nor on a daily deal of today "
    "(any cell count of the deal)",
    "rate_limited": "too many actions on this board at once; slow down",
    "too_many_actions": "this board has taken the most actions one game may have",
    "busy": "the solver is busy (a hint of yours is running, or too many wait); retry",
}

#: Why a daily game is not on the leaderboard (``unranked_reason``), and what each means.
UNRANKED_REASONS: Final[dict[str, str]] = {
    "practice": "only your first game of the day is ranked; this one is practice",
    "after_day": "the day is over: its deal is practice now",
    "late_finish": "a ranked game must be won before its day ends (UTC)",
    "fast_start": "the first move came sooner after the board opened than a person can act",
    "too_fast": "the moves came faster than a person plays",
    "fast_bursts": "too many moves came faster than a person can react",
    "not_verified": "the replay of this game did not verify",
    "pending_review": "held for review: your time stands, and an operator checks the game "
    "before it is ranked",
    "barred": "an operator barred this player from ranked play",
    "voided": "an operator voided this finish after review",
}

_FORBID = ConfigDict(extra="forbid", frozen=True)

#: Unicode categories a name may not hold (see :mod:`protocol.names` for every rule).
REFUSED_IN_NAMES: Final = REFUSED_CATEGORIES


def clean_name(value: str) -> str:
    """A name in Unicode NFC, trimmed, refused if it holds an invisible, blank or look-alike
    character (named in the error), mixes scripts into look-alikes, imitates the client's
    name·tag, or shows nothing (:func:`protocol.names.refusal`)."""
    name = unicodedata.normalize("NFC", value)
    spaces = "".join(c for c in set(name) if unicodedata.category(c) == "Zs")
    why = refusal(name.strip(spaces))  # any space at the ends is trimmed, not refused
    if why is not None:
        raise ValueError(why)
    name = name.strip()
    if not name:
        raise ValueError("a name needs a visible character")
    return name


Name = Annotated[str, AfterValidator(clean_name), Field(min_length=1, max_length=24)]
Token = Annotated[str, Field(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
RoomId = Annotated[str, Field(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9]+$")]
PlayerId = Annotated[str, Field(min_length=1, max_length=32)]
MsgId = Annotated[StrictInt, Field(ge=0, le=MAX_ID)]
Seq = Annotated[StrictInt, Field(ge=0)]
Location = Annotated[
    str, Field(max_length=8, pattern=r"^(col([1-9]|10)|cell[1-4]|found(:[SHDC])?)$")
]
CardName = Annotated[str, Field(pattern=r"^[A2-9TJQK][SHDC]$")]
Cells = Literal[4, 2, 1]
GameCodeText = Annotated[str, Field(min_length=1, max_length=32)]
Date = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
MsEpoch = Annotated[int, Field(ge=0)]
Role = Literal["player", "spectator"]
#: The codes of :data:`UNRANKED_REASONS`.
UnrankedReason = Literal[
    "practice",
    "after_day",
    "late_finish",
    "fast_start",
    "too_fast",
    "fast_bursts",
    "not_verified",
    "pending_review",
    "barred",
    "voided",
]
#: What spectators see while a race runs: every board move by move, the boards
#: ``delay_s`` seconds late, or the racers' progress only (boards once the race is over).
WatchModeName = Literal["live", "delayed", "progress"]
DelayS = Annotated[int, Field(ge=MIN_DELAY_S, le=MAX_DELAY_S)]
#: Why a racer's result did not change their rating (``RatingChange.unrated_reason``): an
#: operator voided it after review (``voided``), they played too few actions, joined from
#: the address of another racer, their result against a racer placed ahead already
#: counted lately, they did not contest the race (``absent``: gave up or idled early) or no
#: rival of theirs did (``uncontested``); the pace codes are those of earlier servers, whose
#: pace rules refused a finish (a finish is now held for review instead).
UnratedReason = Literal[
    "fast_start",
    "too_fast",
    "fast_bursts",
    "voided",
    "too_few_actions",
    "same_address",
    "repeat_pair",
    "absent",
    "uncontested",
]
#: Why a player left the quick-race queue (``unqueued.reason``).
UnqueueReason = Literal["asked", "room"]
#: An arena's id: ``A`` and eight characters for a private one, or a scheduled one's name
#: (``S4-30-29000000``: cells, minutes, its start in minutes since the epoch).
ArenaId = Annotated[str, Field(min_length=4, max_length=32, pattern=r"^[A-Za-z0-9-]+$")]
#: An arena's phase: before its start, running, or over (its podium final).
ArenaPhase = Literal["soon", "running", "over"]
#: Where a joined player is in an arena: waiting to be paired, in a race, or out of it.
ArenaSeat = Literal["pool", "racing", "out"]
#: Why a player left an arena (``arena_left.reason``): they asked, entered another room or
#: the quick race, or the arena ended.
ArenaLeftReason = Literal["asked", "room", "over"]


class Message(BaseModel):
    """The base of every message and of every object inside one."""

    model_config = _FORBID
