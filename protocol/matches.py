"""What the server sends about racing others: the quick race's queue and bot offer, rating
changes, and the arenas (their info, standings, podium).

Part of the server's messages (:mod:`protocol.events`, whose union takes these too); each
is one JSON object tagged by its ``type``, documented in ``protocol/README.md``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .fields import (
    ArenaId,
    ArenaLeftReason,
    ArenaPhase,
    ArenaSeat,
    Cells,
    Message,
    MsEpoch,
    Name,
    PlayerId,
    RoomId,
    Seq,
    UnqueueReason,
    UnratedReason,
)


class Queued(Message):
    """You wait for a quick race of ``cells`` cells, at ``rating`` (that variant's).

    ``penalty_s``: seconds you wait before you can be paired at all, because you left
    paired races before their start (0 normally).
    """

    type: Literal["queued"]
    cells: Cells
    rating: int
    games: int
    provisional: bool = False
    penalty_s: int = Field(ge=0)
    now: MsEpoch


class Unqueued(Message):
    """You no longer wait for a quick race: you asked (``unqueue``), or you entered a room
    (``join``, ``create_room``, ``solo``, ``daily``, ``accept_bot``)."""

    type: Literal["unqueued"]
    cells: Cells
    reason: UnqueueReason


class Pairing(Message):
    """Others wait for this variant too: ``racers`` players ready to race (you among them,
    2 or 3), paired by ``pair_by`` (server ms) at the latest unless a fourth comes first.
    Sent again when either changes; never who they are."""

    type: Literal["pairing"]
    cells: Cells
    racers: int = Field(ge=2, le=3)
    pair_by: MsEpoch
    now: MsEpoch


class BotEntry(Message):
    """The bot racer a ``bot_offer`` proposes."""

    name: Name
    rating: int


class BotOffer(Message):
    """Nobody else waits for this variant: race a bot at about your pace (``accept_bot``)
    or keep waiting (you stay in the queue; a player who comes is paired with you and the
    offer lapses)."""

    type: Literal["bot_offer"]
    cells: Cells
    bot: BotEntry
    waited_s: int


class RatingChange(Message):
    """One racer's rating after a rated race: ``rating`` now, ``change`` from before,
    ``games`` rated races of that variant; ``unrated_reason`` when it did not change."""

    player_id: PlayerId
    name: Name
    rating: int
    change: int
    games: int
    unrated_reason: UnratedReason | None = None
    #: Not yet established (few rated races): shown with "?", on no public list.
    provisional: bool = False


class Ratings(Message):
    """After ``race_over`` of a rated race: each racer's rating change (variant ``cells``)."""

    type: Literal["ratings"]
    seq: Seq
    round: int
    cells: Cells
    changes: list[RatingChange] = Field(max_length=64)


class ArenaInfo(Message):
    """An arena: its variant, when it runs, and how many have joined. At ``ends_at`` no new
    race is paired; the races still running at ``closes_at`` end then (those still racing
    do not finish) and the podium comes."""

    arena_id: ArenaId
    cells: Cells
    minutes: int
    starts_at: MsEpoch
    ends_at: MsEpoch
    closes_at: MsEpoch | None = None
    phase: ArenaPhase
    private: bool
    players: int = Field(ge=0)


class ArenaLine(Message):
    """One player's line of an arena's standings: ``rank``, ``points``, their run of wins
    (``streak``; ``fire``: their next race counts double), races played and won, and the
    sum of their finish times (the tie-break)."""

    rank: int = Field(ge=1)
    player_id: PlayerId
    name: str = Field(max_length=24)
    points: int = Field(ge=0)
    streak: int = Field(ge=0)
    fire: bool
    races: int = Field(ge=0)
    wins: int = Field(ge=0)
    time_ms: int = Field(ge=0)
    #: In your own line alone: your races of the arena whose finish is held for review
    #: (each counts as not finished until an operator clears it).
    held: int = Field(default=0, ge=0)
    #: In your own line alone: your races of the arena that scored nothing because the only
    #: racers who contested them with you were of your own household (one address).
    household: int = Field(default=0, ge=0)


class ArenaMsg(Message):
    """An arena you joined or watch, and where you are in it (``seat``: waiting in its
    pool, in a race, out; ``room`` the race you are in). Sent on ``arena_join``,
    ``arena_watch``, ``create_arena`` (``invite``: the link's path), and each time you are
    back in the pool between races."""

    type: Literal["arena"]
    arena: ArenaInfo
    seat: ArenaSeat
    room: RoomId | None = None
    invite: str | None = Field(default=None, max_length=64)
    now: MsEpoch


class ArenaStandings(Message):
    """An arena's standings: the top 10 and your own line (None until you raced), pushed to
    its watchers and joined players at most once a second while they change."""

    type: Literal["arena_standings"]
    arena_id: ArenaId
    phase: ArenaPhase
    races: int = Field(ge=0)
    players: int = Field(ge=0)
    top: list[ArenaLine] = Field(max_length=10)
    you: ArenaLine | None = None
    now: MsEpoch


class ArenaOver(Message):
    """The arena ended (its last races finished and counted): the podium, first three."""

    type: Literal["arena_over"]
    arena_id: ArenaId
    podium: list[ArenaLine] = Field(max_length=3)
    you: ArenaLine | None = None


class ArenaLeft(Message):
    """You are out of the arena: you asked, entered another room or the quick race, or it
    ended."""

    type: Literal["arena_left"]
    arena_id: ArenaId
    reason: ArenaLeftReason


class ArenaPledged(Message):
    """Your no-take-backs pledge for the race of ``room`` is taken."""

    type: Literal["arena_pledged"]
    room: RoomId
