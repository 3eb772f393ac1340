"""The messages the server sends, and the one union that validates them (clients and
tests use it; the server builds its messages in ``server/net/wire/``).

Each is one JSON object (one websocket text frame) tagged by its ``type``;
``protocol/README.md`` documents each with an example.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field, TypeAdapter

from .devices import GameLeft, PasskeyChallenge, Passkeys, PlayerDeleted, SignedOut, TransferCode
from .fields import (
    PROTOCOL_VERSION,
    CardName,
    Cells,
    Date,
    DelayS,
    Location,
    Message,
    MsEpoch,
    MsgId,
    Name,
    PlayerId,
    Role,
    RoomId,
    Seq,
    Token,
    UnrankedReason,
    WatchModeName,
)
from .matches import (
    ArenaLeft,
    ArenaMsg,
    ArenaOver,
    ArenaPledged,
    ArenaStandings,
    BotOffer,
    Pairing,
    Queued,
    RatingChange,
    Ratings,
    Unqueued,
)


class Welcome(Message):
    """Answer to ``hello`` (or a ``resume``): your id and the token to resume with."""

    type: Literal["welcome"]
    player_id: PlayerId
    token: Token
    name: Name
    v: int = PROTOCOL_VERSION
    now: MsEpoch


class PlayerEntry(Message):
    """A member of a room as ``room`` lists it."""

    player_id: PlayerId
    name: Name
    role: Role


class RoomFacts(Message):
    """What ``room`` and ``snapshot`` both say of a room (each field's meaning is in the
    schema)."""

    round: int
    mode: Literal["race", "solo", "daily"]
    state: Literal["lobby", "countdown", "racing", "done"]
    code: str | None = Field(
        description="null until the race starts, unless the host typed it (code_typed)"
    )
    code_typed: bool
    public: bool = Field(default=False, description="the room is listed for anyone to watch")
    rated: bool = Field(default=False, description="the race changes the racers' ratings")
    paired: bool = Field(
        default=False,
        description="the quick-race queue made the room (no host: the server starts it)",
    )
    watch: WatchModeName
    delay_s: DelayS | None
    cells: Cells
    host: PlayerId | None
    spectators: int


class RoomInfo(RoomFacts):
    """A room's identity and members; sent on create, join and every change of members."""

    type: Literal["room"]
    room_id: RoomId
    invite: str
    players: list[PlayerEntry] = Field(max_length=64)
    seq: Seq


class BoardView(Message):
    """A whole board: cells 1..N (null when free), columns bottom to top, foundations."""

    cells: list[CardName | None] = Field(min_length=1, max_length=4)
    columns: list[list[CardName]] = Field(min_length=10, max_length=10)
    foundations: dict[Literal["S", "H", "D", "C"], int]


class LegalMoves(Message):
    """Your own board's legal moves, with each update of it (never another's board, never
    to spectators): every source that has one (a column's top card or group, a cell, a
    foundation's top card) and its destinations, foundations by suit; a top card can go home
    when its list holds a foundation. ``send_home``: every card left can reach the
    foundations by foundation moves alone (``send_home`` sends them)."""

    moves: dict[Location, list[Location]] = Field(max_length=18)
    send_home: bool


class LegalChange(Message):
    """How your own board's legal moves changed with one of your deltas: ``moves`` the
    sources whose destinations are new or different (the whole list of each), ``gone`` those
    with none any more, ``send_home`` as it now is. Applied in seq order to the ``legal`` of
    your ``started`` or ``snapshot``, they give the board's ``LegalMoves`` after each delta."""

    moves: dict[Location, list[Location]] = Field(max_length=18)
    gone: list[Location] = Field(default_factory=list, max_length=18)
    send_home: bool


class PlayerState(Message):
    """One racer in a snapshot: progress for everyone, the board only when you may see it."""

    player_id: PlayerId
    name: Name
    status: Literal["waiting", "playing", "finished", "gave_up"]
    foundation_cards: int
    moves: int
    score: int | None = None
    time_ms: int | None = None
    rank: int | None = None
    perfect: bool = Field(
        default=False, description="won in exactly the deal's proven par (the fewest actions)"
    )
    lost: bool = False
    board: BoardView | None = None
    legal: LegalMoves | None = None


class DailyGame(Message):
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


class Snapshot(RoomFacts):
    """The whole room as you may see it, as of ``seq``: replace everything you hold.

    Before the start it holds no board and ``code`` is null unless the host typed it; a
    spectator of a ``delayed`` race gets the boards as they were ``delay_s`` seconds ago
    (and ``seq`` of that moment), of a ``progress`` race no board until the race is over.
    """

    type: Literal["snapshot"]
    room_id: RoomId
    seq: Seq
    you: PlayerId
    role: Role
    starts_at: MsEpoch | None
    now: MsEpoch
    players: list[PlayerState] = Field(max_length=64)
    par: int | None = Field(
        default=None,
        ge=1,
        description="the deal's par once the round is over (a daily game's at once: it is "
        "published); null while it runs, or when not known",
    )
    par_optimal: bool = Field(default=False, description="par is proven the fewest actions")
    daily: DailyGame | None = None
    #: A rated round that is over and settled: each racer's rating change, as ``ratings``
    #: gave it (so a reload of the results still shows them).
    ratings: list[RatingChange] | None = Field(default=None, max_length=64)
    household: bool = Field(
        default=False,
        description="the pairing put identities of one client address together (nobody else "
        "waited): the race counts no rating and no arena point between them",
    )


class Countdown(Message):
    """The race starts at server time ``starts_at`` (ms since the epoch)."""

    type: Literal["countdown"]
    seq: Seq
    round: int
    starts_at: MsEpoch
    now: MsEpoch


class Started(Message):
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


class Ack(Message):
    """Your action ``id`` is committed as event ``seq``; it is never lost."""

    type: Literal["ack"]
    id: MsgId
    seq: Seq


class Reject(Message):
    """Your action ``id`` was refused and nothing changed; ``reason`` is a stable code."""

    type: Literal["reject"]
    id: MsgId
    reason: str
    message: str


class ChangeView(Message):
    """Take ``cards`` (bottom first) off the top of ``src`` and put them on top of ``dst``."""

    cards: list[CardName] = Field(min_length=1, max_length=13)
    src: Location
    dst: Location


class DeltaMsg(Message):
    """An accepted action on ``player_id``'s board (to that player, with ``legal_change``,
    and to spectators)."""

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
    legal_change: LegalChange | None = None


class Progress(Message):
    """What a racer sees of another racer's action: counts only, never the board."""

    type: Literal["progress"]
    player_id: PlayerId
    seq: Seq
    round: int
    foundation_cards: int
    moves: int
    finished: bool


class Finished(Message):
    """``player_id`` won in ``time_ms`` (server-timed) and ``moves`` actions, placing ``rank``;
    ``perfect``: in exactly the deal's proven par (the fewest actions that win it)."""

    type: Literal["finished"]
    player_id: PlayerId
    seq: Seq
    round: int
    time_ms: int
    moves: int
    rank: int
    perfect: bool = False


class GaveUp(Message):
    """``player_id`` gave up (or left during the race)."""

    type: Literal["gave_up"]
    player_id: PlayerId
    seq: Seq
    round: int
    moves: int


class ResultEntry(Message):
    """One line of a race's results: finishers by rank, then those who gave up."""

    player_id: PlayerId
    name: Name
    status: Literal["finished", "gave_up", "playing"]
    rank: int | None
    time_ms: int | None
    moves: int
    perfect: bool = False


class RaceOver(Message):
    """Every racer has finished or given up: the final results of this round, and the
    deal's par (null when not known: a typed code of no pool) with ``par_optimal``, whether
    it is proven the fewest actions (only then is a result ``perfect``)."""

    type: Literal["race_over"]
    seq: Seq
    round: int
    par: int | None = Field(default=None, ge=1)
    par_optimal: bool = False
    results: list[ResultEntry] = Field(max_length=64)


class Lost(Message):
    """Your position is practically lost (no useful move); undo or give up."""

    type: Literal["lost"]
    player_id: PlayerId


class HintMsg(Message):
    """Answer to ``hint``: a move to play, or that the position is lost or unknown.

    ``source`` comes with a move and says which search named it: ``proven`` (the first move
    of a line proven shortest; ``remaining`` is then the fewest actions that win from the
    board asked about, the move included) or ``solver`` (the first move of the fast
    solver's win: it wins, but may not be shortest; the proof ran out of time).
    """

    type: Literal["hint"]
    id: MsgId
    status: Literal["move", "lost", "unknown"]
    move: str | None = None
    source: Literal["proven", "solver"] | None = None
    remaining: int | None = Field(default=None, ge=1)


class LeaderboardEntry(Message):
    """One finisher of a daily challenge."""

    rank: int
    player_id: PlayerId
    name: Name
    time_ms: int
    moves: int
    perfect: bool = False
    new: bool = False  # a provisional player, listed from their first day, marked as new
    replay_id: str | None = None  # absent while the day runs: replays are private until then


class DailyResult(Message):
    """To the player alone, after winning a daily game: on the leaderboard, or why not."""

    type: Literal["daily_result"]
    date: Date
    kind: Literal["daily", "hard"]
    ranked: bool
    rank: int | None
    unranked_reason: UnrankedReason | None
    message: str
    replay_id: str


class DailyPending(Message):
    """To the player alone, at once after winning a daily game that may rank: its time
    stands and its rank is pending review; ``daily_result`` follows when the review
    decides (ranked, or still ``pending_review`` when an operator is to look)."""

    type: Literal["daily_pending"]
    date: Date
    kind: Literal["daily", "hard"]
    message: str
    replay_id: str


class SoloGame(Message):
    """One of the last solo games of a variant: won (its time and moves) or lost."""

    won: bool
    time_ms: int | None
    moves: int


class SoloVariant(Message):
    """A player's solo statistics of one variant (``win_rate`` null before a game)."""

    games: int
    wins: int
    win_rate: float | None
    streak: int
    best_streak: int
    best_ms: int | None
    fewest_moves: int | None
    last: list[SoloGame] = Field(max_length=30)


class SoloStats(Message):
    """To the player alone, after a solo win is counted: the variant's statistics and the
    records it set (``best_time``, ``fewest_moves``, ``best_streak``)."""

    type: Literal["solo_stats"]
    cells: Cells
    stats: SoloVariant
    records: list[Literal["best_time", "fewest_moves", "best_streak"]] = Field(max_length=3)


class FriendEntry(Message):
    """A player you follow (``name`` as last seen on a public board, or empty)."""

    player_id: PlayerId
    name: str = Field(max_length=64)


class FriendsMsg(Message):
    """Answer to ``follow``, ``unfollow`` and ``friends``: the players you follow, the most
    recently followed first (at most 200). Sent to you alone."""

    type: Literal["friends"]
    follows: list[FriendEntry] = Field(max_length=200)


class Leaderboard(Message):
    """A day's leaderboard (pushed again on every change while you watch it)."""

    type: Literal["leaderboard"]
    date: Date
    kind: Literal["daily", "hard"]
    by: Literal["time", "actions"] = "time"
    finishers: int
    entries: list[LeaderboardEntry] = Field(max_length=200)


class Left(Message):
    """Answer to ``leave``: you are out of the room."""

    type: Literal["left"]
    room_id: RoomId


class Pong(Message):
    """Answer to ``ping``."""

    type: Literal["pong"]
    now: MsEpoch | None = None


class Error(Message):
    """A message was refused; nothing changed and the connection stays open."""

    type: Literal["error"]
    code: str
    message: str
    #: ``too_many_identities``: the seconds until this address may make a new player;
    #: ``slow_down``: until this player (or address) may start a new game.
    retry_s: int | None = Field(default=None, ge=0)


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
    | DailyPending
    | DailyResult
    | SoloStats
    | FriendsMsg
    | Pong
    | Queued
    | Unqueued
    | Pairing
    | BotOffer
    | Ratings
    | ArenaMsg
    | ArenaStandings
    | ArenaOver
    | ArenaLeft
    | ArenaPledged
    | PasskeyChallenge
    | Passkeys
    | TransferCode
    | PlayerDeleted
    | SignedOut
    | GameLeft
    | Error,
    Field(discriminator="type"),
]

#: Built once: validating through a shared adapter avoids per-message setup.
SERVER_ADAPTER: Final[TypeAdapter[ServerMessage]] = TypeAdapter(ServerMessage)


def parse_server(data: str | bytes) -> ServerMessage:
    """Validate one server frame (clients and tests).

    Raises:
        pydantic.ValidationError: the frame is not a valid server message.
    """
    return SERVER_ADAPTER.validate_json(data)
