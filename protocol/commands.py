"""The messages a client sends, and the one union that validates them.

Each is one JSON object (one websocket text frame) tagged by its ``type``;
``protocol/README.md`` documents each with an example.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field, StrictBool, TypeAdapter

from .devices import (
    DeletePlayer,
    ListPasskeys,
    PasskeyOptions,
    PasskeyRegister,
    PasskeyRemove,
    PasskeyRename,
    PasskeySignIn,
    SignOutEverywhere,
    TransferClaim,
    TransferNew,
)
from .fields import (
    PROTOCOL_VERSION,
    ArenaId,
    Cells,
    Date,
    DelayS,
    GameCodeText,
    Location,
    Message,
    MsgId,
    Name,
    Role,
    RoomId,
    Seq,
    Token,
    WatchModeName,
)


class Hello(Message):
    """First message: who you are. Send ``token`` from an earlier ``welcome`` to stay you."""

    type: Literal["hello"]
    name: Name
    token: Token | None = None
    v: int = PROTOCOL_VERSION


class CreateRoom(Message):
    """Create a race room on a certified deal with 4, 2 or 1 cells; you become its host.

    With ``code`` the race is on that game code instead (its cell count wins). A
    ``public`` room is listed for anyone to watch (``GET /api/rooms/live``): it races a
    drawn deal and its spectators never see the boards live.
    """

    type: Literal["create_room"]
    cells: Cells = 4
    code: GameCodeText | None = None
    public: bool = False


class WatchMode(Message):
    """Host only, in the lobby: what spectators see during the race (see ``WatchModeName``).

    ``delay_s`` is the delay of ``delayed`` (10 to 120 s, default 30).
    """

    type: Literal["watch_mode"]
    mode: WatchModeName
    delay_s: DelayS | None = None


class Join(Message):
    """Join a room by id, as a racer (before the start, up to 8) or as a spectator."""

    type: Literal["join"]
    room: RoomId
    role: Role = "player"


class Start(Message):
    """Host only: start the 3-second countdown."""

    type: Literal["start"]


class MoveMsg(Message):
    """Move the top card (or the group the rules fix) from ``src`` to ``dst``."""

    type: Literal["move"]
    id: MsgId
    src: Location
    dst: Location


class TapMsg(Message):
    """Tap a top card: it goes to its foundation if allowed."""

    type: Literal["tap"]
    id: MsgId
    at: Location


class DoubleTapMsg(Message):
    """Double tap a top card: foundation, longest column, empty column, free cell."""

    type: Literal["double_tap"]
    id: MsgId
    at: Location


class UndoMsg(Message):
    """Take back your most recent action."""

    type: Literal["undo"]
    id: MsgId


class SendHomeMsg(Message):
    """Send every card left home, when foundation moves alone can (your ``legal.send_home``).

    The server makes the taps it stands for, each a committed action with its own ``delta``.
    """

    type: Literal["send_home"]
    id: MsgId


class Resume(Message):
    """After a dropped connection: rejoin ``room`` and get what happened after ``last_seq``."""

    type: Literal["resume"]
    room: RoomId
    token: Token
    last_seq: Seq


class Leave(Message):
    """Leave the room (a racer who leaves during a race gives up)."""

    type: Literal["leave"]


class Solo(Message):
    """Play alone at once: a typed game code, or a certified deal with ``cells`` cells.

    The clock starts with the first move.
    """

    type: Literal["solo"]
    code: GameCodeText | None = None
    cells: Cells | None = None


class Daily(Message):
    """Play the daily challenge of ``date`` (today if absent), the hard one if ``hard``."""

    type: Literal["daily"]
    date: Date | None = None
    hard: bool = False


class WatchLeaderboard(Message):
    """Receive ``leaderboard`` pushes for a day's challenge, in the view ``by``: ``time`` (the
    fastest) or ``actions`` (the fewest actions, then the fastest)."""

    type: Literal["watch_leaderboard"]
    date: Date
    kind: Literal["daily", "hard"] = "daily"
    by: Literal["time", "actions"] = "time"


class HintReq(Message):
    """Ask for a hint on your board; answered by ``hint`` with the same id."""

    type: Literal["hint"]
    id: MsgId


class GiveUp(Message):
    """Give up the current game; your result is kept as given up."""

    type: Literal["give_up"]


#: A player id as the server makes them (the player page's URL takes the same).
FollowedId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")]


class Follow(Message):
    """Follow a player: their daily results on your Friends tab, their public races on
    Watch. Your follow list is yours alone; answered by ``friends``."""

    type: Literal["follow"]
    player_id: FollowedId


class Unfollow(Message):
    """Stop following a player; answered by ``friends``."""

    type: Literal["unfollow"]
    player_id: FollowedId


class Friends(Message):
    """Ask for the players you follow; answered by ``friends``."""

    type: Literal["friends"]


class Rematch(Message):
    """Host only, after a race is over: a new certified deal in the same room."""

    type: Literal["rematch"]


class Ping(Message):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]


class Queue(Message):
    """Wait for a quick race: the server pairs you with players of the same variant
    (``cells``) into a public, rated race; answered by ``queued``."""

    type: Literal["queue"]
    cells: Cells = 4


class Unqueue(Message):
    """Stop waiting for a quick race; answered by ``unqueued``."""

    type: Literal["unqueue"]


class AcceptBot(Message):
    """Race the bot of a ``bot_offer`` now (you leave the queue); answered by ``snapshot``."""

    type: Literal["accept_bot"]


class SetRated(Message):
    """Host only, in an invite room's lobby: whether this race changes the racers' ratings."""

    type: Literal["rated"]
    rated: StrictBool


class CreateArena(Message):
    """Make a private arena (reached by its invite link only): ``cells``, ``minutes`` of
    racing, starting in ``starts_in_s`` seconds; answered by ``arena``."""

    type: Literal["create_arena"]
    cells: Cells = 4
    minutes: int = Field(ge=1, le=180)
    starts_in_s: int = Field(default=0, ge=0, le=86_400)


class ArenaJoin(Message):
    """Join an arena (before its start or while it runs): you are paired with its waiting
    players race after race until it ends or you leave; answered by ``arena``."""

    type: Literal["arena_join"]
    arena: ArenaId


class ArenaLeave(Message):
    """Leave your arena (a race you are in goes on); answered by ``arena_left``."""

    type: Literal["arena_leave"]


class ArenaWatch(Message):
    """Watch an arena's standings without joining it (``arena``, then ``arena_standings``
    at most once a second); ``arena_unwatch`` stops."""

    type: Literal["arena_watch"]
    arena: ArenaId


class ArenaUnwatch(Message):
    """Stop watching an arena's standings."""

    type: Literal["arena_unwatch"]


class ArenaPledge(Message):
    """In an arena race's lobby or countdown: pledge no take-backs for this race (an undo
    breaks it); a win with the pledge kept earns one point more. Answered by
    ``arena_pledged``."""

    type: Literal["arena_pledge"]


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
    | SetRated
    | Follow
    | Unfollow
    | Friends
    | CreateArena
    | ArenaJoin
    | ArenaLeave
    | ArenaWatch
    | ArenaUnwatch
    | ArenaPledge
    | PasskeyOptions
    | PasskeyRegister
    | PasskeySignIn
    | ListPasskeys
    | PasskeyRename
    | PasskeyRemove
    | TransferNew
    | TransferClaim
    | SignOutEverywhere
    | DeletePlayer,
    Field(discriminator="type"),
]

#: Built once: validating through a shared adapter avoids per-message setup.
CLIENT_ADAPTER: Final[TypeAdapter[ClientMessage]] = TypeAdapter(ClientMessage)

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
        CreateArena,
        ArenaJoin,
        ArenaLeave,
        ArenaWatch,
        ArenaUnwatch,
        ArenaPledge,
        PasskeyOptions,
        PasskeyRegister,
        PasskeySignIn,
        ListPasskeys,
        PasskeyRename,
        PasskeyRemove,
        TransferNew,
        TransferClaim,
        SignOutEverywhere,
        DeletePlayer,
    )
)


def parse_client(data: str | bytes) -> ClientMessage:
    """Validate one client frame.

    Raises:
        pydantic.ValidationError: the frame is not a valid client message.
    """
    return CLIENT_ADAPTER.validate_json(data)
