"""Every message of the Seahaven Race websocket protocol, in both directions.

Each message is one JSON object (one websocket text frame) with a ``type`` field; the
client and server unions below are tagged on it. Every model forbids unknown fields and
bounds its strings and lists, so a message that validates is safe to act on.

``protocol/README.md`` documents each message with an example and a full session;
``protocol/schema.json`` is generated from these models (``python -m protocol.schema``).
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

#: The protocol version; a client names the version it speaks in ``hello.v``.
PROTOCOL_VERSION: Final = 1

#: The largest text frame the server reads, in bytes (larger frames get ``too_large``).
MAX_FRAME: Final = 4096

#: Most players racing in one room.
MAX_PLAYERS: Final = 8

#: The largest client-chosen id (2^53 - 1, exact in JavaScript).
MAX_ID: Final = 9_007_199_254_740_991

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
    "room_not_found": "no room has this id (or it expired)",
    "room_full": f"the room already has {MAX_PLAYERS} players",
    "not_in_room": "you are not in a room (or not in this one)",
    "already_in_room": "leave your room before joining or creating another",
    "not_host": "only the room's host may do this",
    "wrong_state": "the room is not in a state that allows this",
    "race_in_progress": "players join before the start; join as a spectator instead",
    "not_racing": "you are not racing in this room",
    "bad_code": "the game code is not valid",
    "bad_date": "the date is not a day with a daily challenge",
    "unavailable": "this feature is not available on this server",
    "busy": "the server is busy; retry",
    "internal": "the server failed on this message; nothing changed",
}

#: Reasons of ``reject`` added by the server to the engine's reason codes
#: (``server/engine/errors.py`` ``REASONS``: ``not_same_suit``, ``cell_occupied`` ...).
SERVER_REJECT_REASONS: Final[dict[str, str]] = {
    "bad_notation": "the location is not colN, cellN, found or found:S/H/D/C",
    "not_racing": "you are not racing in this room (a spectator, or not in a room)",
    "not_started": "the race has not started yet",
    "finished": "your game is over (won or given up)",
    "conflict": "the move raced another change of your board; it was not applied",
    "hints_off": "no solver hints in a race room until the race is over",
    "busy": "the solver is busy (a hint of yours is running, or too many wait); retry",
}

_FORBID = ConfigDict(extra="forbid", frozen=True)

Name = Annotated[str, Field(min_length=1, max_length=24)]
Token = Annotated[str, Field(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
RoomId = Annotated[str, Field(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9]+$")]
PlayerId = Annotated[str, Field(min_length=1, max_length=32)]
MsgId = Annotated[int, Field(ge=0, le=MAX_ID)]
Seq = Annotated[int, Field(ge=0)]
Location = Annotated[
    str, Field(max_length=8, pattern=r"^(col([1-9]|10)|cell[1-4]|found(:[SHDC])?)$")
]
CardName = Annotated[str, Field(pattern=r"^[A2-9TJQK][SHDC]$")]
Cells = Literal[4, 2, 1]
GameCodeText = Annotated[str, Field(min_length=1, max_length=32)]
Date = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
MsEpoch = Annotated[int, Field(ge=0)]
Role = Literal["player", "spectator"]


class _Message(BaseModel):
    model_config = _FORBID


# -- client to server ---------------------------------------------------------------------


class Hello(_Message):
    """First message: who you are. Send ``token`` from an earlier ``welcome`` to stay you."""

    type: Literal["hello"]
    name: Name
    token: Token | None = None
    v: int = PROTOCOL_VERSION


class CreateRoom(_Message):
    """Create a race room on a certified deal with 4, 2 or 1 cells; you become its host.

    With ``code`` the race is on that game code instead (its cell count wins).
    """

    type: Literal["create_room"]
    cells: Cells = 4
    code: GameCodeText | None = None


class Join(_Message):
    """Join a room by id, as a racer (before the start, up to 8) or as a spectator."""

    type: Literal["join"]
    room: RoomId
    role: Role = "player"


class Start(_Message):
    """Host only: start the 3-second countdown."""

    type: Literal["start"]


class MoveMsg(_Message):
    """Move the top card (or the group the rules fix) from ``src`` to ``dst``."""

    type: Literal["move"]
    id: MsgId
    src: Location
    dst: Location


class TapMsg(_Message):
    """Tap a top card: it goes to its foundation if allowed."""

    type: Literal["tap"]
    id: MsgId
    at: Location


class DoubleTapMsg(_Message):
    """Double tap a top card: foundation, longest column, empty column, free cell."""

    type: Literal["double_tap"]
    id: MsgId
    at: Location


class UndoMsg(_Message):
    """Take back your most recent action."""

    type: Literal["undo"]
    id: MsgId


class Resume(_Message):
    """After a dropped connection: rejoin ``room`` and get what happened after ``last_seq``."""

    type: Literal["resume"]
    room: RoomId
    token: Token
    last_seq: Seq


class Leave(_Message):
    """Leave the room (a racer who leaves during a race gives up)."""

    type: Literal["leave"]


class Solo(_Message):
    """Play alone at once: a typed game code, or a certified deal with ``cells`` cells.

    The clock starts with the first move.
    """

    type: Literal["solo"]
    code: GameCodeText | None = None
    cells: Cells | None = None


class Daily(_Message):
    """Play the daily challenge of ``date`` (today if absent), the hard one if ``hard``."""

    type: Literal["daily"]
    date: Date | None = None
    hard: bool = False


class WatchLeaderboard(_Message):
    """Receive ``leaderboard`` pushes for a day's challenge."""

    type: Literal["watch_leaderboard"]
    date: Date
    kind: Literal["daily", "hard"] = "daily"


class HintReq(_Message):
    """Ask for a hint on your board; answered by ``hint`` with the same id."""

    type: Literal["hint"]
    id: MsgId


class GiveUp(_Message):
    """Give up the current game; your result is kept as given up."""

    type: Literal["give_up"]


class Rematch(_Message):
    """Host only, after a race is over: a new certified deal in the same room."""

    type: Literal["rematch"]


class Ping(_Message):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]


ClientMessage = Annotated[
    Hello
    | CreateRoom
    | Join
    | Start
    | MoveMsg
    | TapMsg
    | DoubleTapMsg
    | UndoMsg
    | Resume
    | Leave
    | Solo
    | Daily
    | WatchLeaderboard
    | HintReq
    | GiveUp
    | Rematch
    | Ping,
    Field(discriminator="type"),
]

# -- server to client ---------------------------------------------------------------------


class Welcome(_Message):
    """Answer to ``hello`` (or a ``resume``): your id and the token to resume with."""

    type: Literal["welcome"]
    player_id: PlayerId
    token: Token
    name: Name
    v: int = PROTOCOL_VERSION
    now: MsEpoch


class PlayerEntry(_Message):
    """A member of a room as ``room`` lists it."""

    player_id: PlayerId
    name: Name
    role: Role


class RoomInfo(_Message):
    """A room's identity and members; sent on create, join and every change of members."""

    type: Literal["room"]
    room_id: RoomId
    invite: str
    code: str
    cells: Cells
    mode: Literal["race", "solo", "daily"]
    state: Literal["lobby", "countdown", "racing", "done"]
    round: int
    host: PlayerId | None
    players: list[PlayerEntry] = Field(max_length=64)
    spectators: int
    seq: Seq


class BoardView(_Message):
    """A whole board: cells 1..N (null when free), columns bottom to top, foundations."""

    cells: list[CardName | None] = Field(min_length=1, max_length=4)
    columns: list[list[CardName]] = Field(min_length=10, max_length=10)
    foundations: dict[Literal["S", "H", "D", "C"], int]


class PlayerState(_Message):
    """One racer in a snapshot: progress for everyone, the board only when you may see it."""

    player_id: PlayerId
    name: Name
    status: Literal["waiting", "playing", "finished", "gave_up"]
    foundation_cards: int
    moves: int
    score: int | None = None
    time_ms: int | None = None
    rank: int | None = None
    lost: bool = False
    board: BoardView | None = None


class Snapshot(_Message):
    """The whole room as you may see it, as of ``seq``: replace everything you hold."""

    type: Literal["snapshot"]
    room_id: RoomId
    seq: Seq
    round: int
    mode: Literal["race", "solo", "daily"]
    state: Literal["lobby", "countdown", "racing", "done"]
    code: str
    cells: Cells
    host: PlayerId | None
    you: PlayerId
    role: Role
    starts_at: MsEpoch | None
    now: MsEpoch
    players: list[PlayerState] = Field(max_length=64)
    spectators: int


class Countdown(_Message):
    """The race starts at server time ``starts_at`` (ms since the epoch)."""

    type: Literal["countdown"]
    seq: Seq
    round: int
    starts_at: MsEpoch
    now: MsEpoch


class Started(_Message):
    """Play! Every racer holds the same opening ``board`` of deal ``code``."""

    type: Literal["started"]
    seq: Seq
    round: int
    code: str
    cells: Cells
    started_at: MsEpoch
    board: BoardView
    players: list[PlayerId] = Field(max_length=64)


class Ack(_Message):
    """Your action ``id`` is committed as event ``seq``; it is never lost."""

    type: Literal["ack"]
    id: MsgId
    seq: Seq


class Reject(_Message):
    """Your action ``id`` was refused and nothing changed; ``reason`` is a stable code."""

    type: Literal["reject"]
    id: MsgId
    reason: str
    message: str


class ChangeView(_Message):
    """Take ``cards`` (bottom first) off the top of ``src`` and put them on top of ``dst``."""

    cards: list[CardName] = Field(min_length=1, max_length=13)
    src: Location
    dst: Location


class DeltaMsg(_Message):
    """An accepted action on ``player_id``'s board (to that player and to spectators)."""

    type: Literal["delta"]
    player_id: PlayerId
    seq: Seq
    round: int
    action: str
    changes: list[ChangeView] = Field(max_length=4)
    points: int
    score: int
    undo: bool
    moves: int
    foundation_cards: int
    finished: bool
    lost: bool
    t: int


class Progress(_Message):
    """What a racer sees of another racer's action: counts only, never the board."""

    type: Literal["progress"]
    player_id: PlayerId
    seq: Seq
    round: int
    foundation_cards: int
    moves: int
    finished: bool


class Finished(_Message):
    """``player_id`` won in ``time_ms`` (server-timed) and ``moves`` actions, placing ``rank``."""

    type: Literal["finished"]
    player_id: PlayerId
    seq: Seq
    round: int
    time_ms: int
    moves: int
    rank: int


class GaveUp(_Message):
    """``player_id`` gave up (or left during the race)."""

    type: Literal["gave_up"]
    player_id: PlayerId
    seq: Seq
    round: int
    moves: int


class ResultEntry(_Message):
    """One line of a race's results: finishers by rank, then those who gave up."""

    player_id: PlayerId
    name: Name
    status: Literal["finished", "gave_up", "playing"]
    rank: int | None
    time_ms: int | None
    moves: int


class RaceOver(_Message):
    """Every racer has finished or given up: the final results of this round."""

    type: Literal["race_over"]
    seq: Seq
    round: int
    results: list[ResultEntry] = Field(max_length=64)


class Lost(_Message):
    """Your position is practically lost (no useful move); undo or give up."""

    type: Literal["lost"]
    player_id: PlayerId


class HintMsg(_Message):
    """Answer to ``hint``: a move to play, or that the position is lost or unknown."""

    type: Literal["hint"]
    id: MsgId
    status: Literal["move", "lost", "unknown"]
    move: str | None = None


class LeaderboardEntry(_Message):
    """One finisher of a daily challenge."""

    rank: int
    player_id: PlayerId
    name: Name
    time_ms: int
    moves: int
    replay_id: str


class Leaderboard(_Message):
    """A day's leaderboard (pushed again on every change while you watch it)."""

    type: Literal["leaderboard"]
    date: Date
    kind: Literal["daily", "hard"]
    finishers: int
    entries: list[LeaderboardEntry] = Field(max_length=200)


class Left(_Message):
    """Answer to ``leave``: you are out of the room."""

    type: Literal["left"]
    room_id: RoomId


class Pong(_Message):
    """Answer to ``ping``."""

    type: Literal["pong"]
    now: MsEpoch | None = None


class Error(_Message):
    """A message was refused; nothing changed and the connection stays open."""

    type: Literal["error"]
    code: str
    message: str


ServerMessage = Annotated[
    Welcome
    | RoomInfo
    | Snapshot
    | Countdown
    | Started
    | Ack
    | Reject
    | DeltaMsg
    | Progress
    | Finished
    | GaveUp
    | RaceOver
    | Lost
    | Left
    | HintMsg
    | Leaderboard
    | Pong
    | Error,
    Field(discriminator="type"),
]

#: Built once: validating through a shared adapter avoids per-message setup.
CLIENT_ADAPTER: Final[TypeAdapter[ClientMessage]] = TypeAdapter(ClientMessage)
SERVER_ADAPTER: Final[TypeAdapter[ServerMessage]] = TypeAdapter(ServerMessage)

CLIENT_TYPES: Final = frozenset(
    m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    for m in (
        Hello,
        CreateRoom,
        Join,
        Start,
        MoveMsg,
        TapMsg,
        DoubleTapMsg,
        UndoMsg,
        Resume,
        Leave,
        Solo,
        Daily,
        WatchLeaderboard,
        HintReq,
        GiveUp,
        Rematch,
        Ping,
    )
)


def parse_client(data: str | bytes) -> ClientMessage:
    """Validate one client frame.

    Raises:
        pydantic.ValidationError: the frame is not a valid client message.
    """
    return CLIENT_ADAPTER.validate_json(data)


def parse_server(data: str | bytes) -> ServerMessage:
    """Validate one server frame (clients and tests).

    Raises:
        pydantic.ValidationError: the frame is not a valid server message.
    """
    return SERVER_ADAPTER.validate_json(data)
