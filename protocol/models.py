"""Every message of the Seahaven Race websocket protocol, in both directions.

Each message is one JSON object (one websocket text frame) with a ``type`` field; the
client and server unions below are tagged on it. Every model forbids unknown fields and
bounds its strings and lists, so a message that validates is safe to act on.

``protocol/README.md`` documents each message with an example and a full session;
``protocol/schema.json`` is generated from these models (``python -m protocol.schema``).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    TypeAdapter,
)

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
    "room_not_found": "no room has this id (or it expired)",
    "room_full": f"the room already has {MAX_PLAYERS} players",
    "spectators_full": "the room has as many spectators as it takes",
    "too_many_identities": "this address made too many new players lately; use your token",
    "not_in_room": "you are not in a room (or not in this one)",
    "already_in_room": "leave your room before joining or creating another",
    "not_host": "only the room's host may do this",
    "wrong_state": "the room is not in a state that allows this",
    "race_in_progress": "players join before the start; join as a spectator instead",
    "not_racing": "you are not racing in this room",
    "racing_here": "you race in this room, so you cannot also watch it",
    "daily_running": "the room shows a daily deal whose day runs: nobody may watch it yet",
    "public_room": "a public room races a drawn deal and never shows the boards live",
    "bad_code": "the game code is not valid",
    "already_queued": "you already wait for a quick race",
    "not_queued": "you are not waiting for a quick race",
    "no_bot_offer": "no bot racer is offered to you now",
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
    "hints_off": "no solver hints for a deal being raced, nor on a daily deal of today",
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
}

_FORBID = ConfigDict(extra="forbid", frozen=True)

#: Unicode categories a name may not hold: control (Cc), format (Cf: zero-width and bidi
#: controls), surrogate (Cs), private use (Co), unassigned (Cn), line and paragraph
#: separators (Zl, Zp). They make two names look alike or reorder what is shown around them.
REFUSED_IN_NAMES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def clean_name(value: str) -> str:
    """A name in Unicode NFC, trimmed, refused if it holds an invisible or unassigned
    character (named in the error) or nothing visible."""
    name = unicodedata.normalize("NFC", value)
    for char in name:
        if unicodedata.category(char) in REFUSED_IN_NAMES:
            code = f"U+{ord(char):04X}"
            label = unicodedata.name(char, "an unnamed character")
            raise ValueError(f"a name may not hold {code} ({label})")
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
    "practice", "after_day", "late_finish", "fast_start", "too_fast", "fast_bursts", "not_verified"
]
#: What spectators see while a race runs: every board move by move, the boards
#: ``delay_s`` seconds late, or the racers' progress only (boards once the race is over).
WatchModeName = Literal["live", "delayed", "progress"]
DelayS = Annotated[int, Field(ge=MIN_DELAY_S, le=MAX_DELAY_S)]
#: Why a racer's result did not change their rating (``RatingChange.unrated_reason``): the
#: human-pace rule of the daily challenge (``server/daily/pace.py``) refused their pace.
UnratedReason = Literal["fast_start", "too_fast", "fast_bursts"]
#: Why a player left the quick-race queue (``unqueued.reason``).
UnqueueReason = Literal["asked", "room"]


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

    With ``code`` the race is on that game code instead (its cell count wins). A
    ``public`` room is listed for anyone to watch (``GET /api/rooms/live``): it races a
    drawn deal and its spectators never see the boards live.
    """

    type: Literal["create_room"]
    cells: Cells = 4
    code: GameCodeText | None = None
    public: bool = False


class WatchMode(_Message):
    """Host only, in the lobby: what spectators see during the race (see ``WatchModeName``).

    ``delay_s`` is the delay of ``delayed`` (10 to 120 s, default 30).
    """

    type: Literal["watch_mode"]
    mode: WatchModeName
    delay_s: DelayS | None = None


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


class SendHomeMsg(_Message):
    """Send every card left home, when foundation moves alone can (your ``legal.send_home``).

    The server makes the taps it stands for, each a committed action with its own ``delta``.
    """

    type: Literal["send_home"]
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


class Queue(_Message):
    """Wait for a quick race: the server pairs you with players of the same variant
    (``cells``) into a public, rated race; answered by ``queued``."""

    type: Literal["queue"]
    cells: Cells = 4


class Unqueue(_Message):
    """Stop waiting for a quick race; answered by ``unqueued``."""

    type: Literal["unqueue"]


class AcceptBot(_Message):
    """Race the bot of a ``bot_offer`` now (you leave the queue); answered by ``snapshot``."""

    type: Literal["accept_bot"]


class SetRated(_Message):
    """Host only, in an invite room's lobby: whether this race changes the racers' ratings."""

    type: Literal["rated"]
    rated: StrictBool


ClientMessage = Annotated[
    Hello
    | CreateRoom
    | WatchMode
    | Join
    | Start
    | MoveMsg
    | TapMsg
    | DoubleTapMsg
    | UndoMsg
    | SendHomeMsg
    | Resume
    | Leave
    | Solo
    | Daily
    | WatchLeaderboard
    | HintReq
    | GiveUp
    | Rematch
    | Ping
    | Queue
    | Unqueue
    | AcceptBot
    | SetRated,
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
    """A room's identity and members; sent on create, join and every change of members.

    ``code`` is null until the race starts, unless the host typed it (``code_typed``);
    ``public``: the room is listed for anyone to watch; ``rated``: the race changes the
    racers' ratings; ``paired``: the quick-race queue made the room (no host: the server
    starts it).
    """

    type: Literal["room"]
    room_id: RoomId
    invite: str
    code: str | None
    code_typed: bool
    public: bool = False
    rated: bool = False
    paired: bool = False
    watch: WatchModeName
    delay_s: DelayS | None
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


class LegalMoves(_Message):
    """Your own board's legal moves, with each update of it (never another's board, never
    to spectators): every source that has one (a column's top card or group, a cell, a
    foundation's top card) and its destinations, foundations by suit; a top card can go home
    when its list holds a foundation. ``send_home``: every card left can reach the
    foundations by foundation moves alone (``send_home`` sends them)."""

    moves: dict[Location, list[Location]] = Field(max_length=18)
    send_home: bool


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
    legal: LegalMoves | None = None


class DailyGame(_Message):
    """What a daily game counts for, in its snapshot: the day's one ranked attempt (the
    first game you began that day) or practice; ``ranked``, ``rank`` and the player's own
    ``replay_id`` once it is won."""

    date: Date
    kind: Literal["daily", "hard"]
    attempt: Literal["ranked", "practice"]
    ranked: bool | None = None
    rank: int | None = None
    unranked_reason: UnrankedReason | None = None
    replay_id: str | None = None


class Snapshot(_Message):
    """The whole room as you may see it, as of ``seq``: replace everything you hold.

    Before the start it holds no board and ``code`` is null unless the host typed it; a
    spectator of a ``delayed`` race gets the boards as they were ``delay_s`` seconds ago
    (and ``seq`` of that moment), of a ``progress`` race no board until the race is over.
    """

    type: Literal["snapshot"]
    room_id: RoomId
    seq: Seq
    round: int
    mode: Literal["race", "solo", "daily"]
    state: Literal["lobby", "countdown", "racing", "done"]
    code: str | None
    code_typed: bool
    public: bool = False
    rated: bool = False
    paired: bool = False
    watch: WatchModeName
    delay_s: DelayS | None
    cells: Cells
    host: PlayerId | None
    you: PlayerId
    role: Role
    starts_at: MsEpoch | None
    now: MsEpoch
    players: list[PlayerState] = Field(max_length=64)
    spectators: int
    daily: DailyGame | None = None
    #: A rated round that is over and settled: each racer's rating change, as ``ratings``
    #: gave it (so a reload of the results still shows them).
    ratings: list[RatingChange] | None = Field(default=None, max_length=64)


class Countdown(_Message):
    """The race starts at server time ``starts_at`` (ms since the epoch)."""

    type: Literal["countdown"]
    seq: Seq
    round: int
    starts_at: MsEpoch
    now: MsEpoch


class Started(_Message):
    """Play! Every racer holds the same opening ``board`` of deal ``code`` (a racer's comes
    with its ``legal`` moves)."""

    type: Literal["started"]
    seq: Seq
    round: int
    code: str
    cells: Cells
    started_at: MsEpoch
    board: BoardView
    players: list[PlayerId] = Field(max_length=64)
    legal: LegalMoves | None = None


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
    """An accepted action on ``player_id``'s board (to that player, with ``legal``, and to
    spectators)."""

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
    legal: LegalMoves | None = None


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
    replay_id: str | None = None  # absent while the day runs: replays are private until then


class DailyResult(_Message):
    """To the player alone, after winning a daily game: on the leaderboard, or why not."""

    type: Literal["daily_result"]
    date: Date
    kind: Literal["daily", "hard"]
    ranked: bool
    rank: int | None
    unranked_reason: UnrankedReason | None
    message: str
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


class Queued(_Message):
    """You wait for a quick race of ``cells`` cells, at ``rating`` (that variant's).

    ``penalty_s``: seconds you wait before you can be paired at all, because you left
    paired races before their start (0 normally).
    """

    type: Literal["queued"]
    cells: Cells
    rating: int
    games: int
    penalty_s: int = Field(ge=0)
    now: MsEpoch


class Unqueued(_Message):
    """You no longer wait for a quick race: you asked (``unqueue``), or you entered a room
    (``join``, ``create_room``, ``solo``, ``daily``, ``accept_bot``)."""

    type: Literal["unqueued"]
    cells: Cells
    reason: UnqueueReason


class BotEntry(_Message):
    """The bot racer a ``bot_offer`` proposes."""

    name: Name
    rating: int


class BotOffer(_Message):
    """Nobody else waits for this variant: race a bot at about your pace (``accept_bot``)
    or keep waiting (you stay in the queue; a player who comes is paired with you and the
    offer lapses)."""

    type: Literal["bot_offer"]
    cells: Cells
    bot: BotEntry
    waited_s: int


class RatingChange(_Message):
    """One racer's rating after a rated race: ``rating`` now, ``change`` from before,
    ``games`` rated races of that variant; ``unrated_reason`` when it did not change."""

    player_id: PlayerId
    name: Name
    rating: int
    change: int
    games: int
    unrated_reason: UnratedReason | None = None


class Ratings(_Message):
    """After ``race_over`` of a rated race: each racer's rating change (variant ``cells``)."""

    type: Literal["ratings"]
    seq: Seq
    round: int
    cells: Cells
    changes: list[RatingChange] = Field(max_length=64)


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
    | DailyResult
    | Pong
    | Queued
    | Unqueued
    | BotOffer
    | Ratings
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
        WatchMode,
        Join,
        Start,
        MoveMsg,
        TapMsg,
        DoubleTapMsg,
        UndoMsg,
        SendHomeMsg,
        Resume,
        Leave,
        Solo,
        Daily,
        WatchLeaderboard,
        HintReq,
        GiveUp,
        Rematch,
        Ping,
        Queue,
        Unqueue,
        AcceptBot,
        SetRated,
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
