"""Every Redis key and channel name the server uses, built in this one place.

A :class:`Keys` carries the instance's key prefix (empty in production; tests give each
server a unique one so that they share a Redis safely), and every name starts with it.
:data:`server.store.families.FAMILIES` lists every key family the server writes, with its
Redis type, what bounds its size and how long it lives (docs/server.md shows the table;
``tests/server/test_house.py`` checks that each key a method here builds belongs to exactly
one family and that each family is built, and a test of a busy server checks every key it
wrote). Each method's docstring
says what its key holds; :mod:`server.store.events` and ``lua/common.lua`` say how a room's
keys are written.

**Slots.** Room keys share the hash tag ``{R}`` so that a room lives in one Redis Cluster
slot and its scripts touch one slot only; its channel ``room:{R}:ch`` carries the same tag
(sharded pub/sub on the room's shard). On a Redis Cluster no script, atomic batch or
multi-key command may touch two slots, so the keys a script takes together share a hash
tag: a room's (``{R}``), a day's leaderboard (``{DATE:KIND}``: ``leaderboard_submit.lua``
writes its rank and entries), a player's history and ratings (``{PID}``), an arena's
(``{A}``, the arena id), the quick race's queues (``{q}``). The keys without a tag are
always used alone, one key a command or script: ``deadlines`` (``claim_deadlines.lua``
claims the due members; the room each names is then changed by the room's own scripts,
separate calls that check the room's state themselves), ``racing:{CODE}`` (a mark names a
candidate only; each room's fields are then read separately, and decide), ``rooms:live``
(the index is read, then each room in its own slot), ``daily:certifier``, ``instance:ID``,
``session:T``, ``replay:ID``, ``passkey:ID``, ``transfer:ID``, ``transfer_tries:A``, the
``review:`` and ``admin:`` keys. Atomic batches
(:mod:`server.transport.atomic`, one script call in place of ``MULTI``) hold the keys of one
tag; the pipelines that read many rooms or days at once (``listing.live_rooms``, the daily
store's reads of several days) are not atomic and hold one key a command, which the cluster
client sends node by node. ``tests/server/store/test_cluster_slots.py`` checks the tags.
"""

from __future__ import annotations

import hashlib
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

    def hinted(self, room: str, round_: int) -> str:
        """Set of the players who were sent a hint in round N (their win there is never
        perfect: a hint names a move of a shortest line)."""
        return f"{self.room(room)}:hinted:{round_}"

    def here(self, room: str) -> str:
        """Hash connection id -> player id of the sockets in a room, on any instance."""
        return f"{self.room(room)}:here"

    def instance(self, instance_id: str) -> str:
        """Set while an instance runs (it renews the key as a heartbeat)."""
        return f"{self.prefix}instance:{instance_id}"

    def presence(self) -> str:
        """Hash instance id -> ``ONLINE:RACING:AT_MS``: each instance's count of open sockets
        and of sockets in a race in play, as of its last heartbeat (counts, never names)."""
        return f"{self.prefix}presence"

    def daily_room(self, room: str) -> str:
        """``{date, kind}`` of a daily game's room."""
        return f"{self.room(room)}:daily"

    def channel(self, room: str) -> str:
        """The room's pub/sub channel (the scripts derive it as ``room .. ':ch'``)."""
        return f"{self.room(room)}:ch"

    def own_channel(self, room: str, pid: str) -> str:
        """A player's own channel in a room, on the room's shard: the legal moves of each
        of their actions, followed by the instances where they have a socket in the room
        (the move script derives it as ``ch .. ':' .. pid``)."""
        return f"{self.channel(room)}:{pid}"

    @staticmethod
    def room_of_channel(name: str) -> str:
        """The room id in a room channel's name."""
        return name[name.index("{") + 1 : name.index("}")]

    def deadlines(self) -> str:
        """Sorted set of what is due when (race starts, away graces), scored in ms; any
        instance acts on them (see ``lua/claim_deadlines.lua``)."""
        return f"{self.prefix}deadlines"

    def racing(self, code: str) -> str:
        """The rooms racing deal ``code`` now (sorted set, scored by the mark's end in ms)."""
        return f"{self.prefix}racing:{{{code}}}"

    def lobby_rooms(self) -> str:
        """Sorted set room id -> when listed (ms), of the public rooms in their lobby."""
        return f"{self.prefix}rooms:lobby"

    def address_lobbies(self, mark: str) -> str:
        """Sorted set room id -> when made (ms), of the public rooms one address opened."""
        return f"{self.prefix}lobbies:{{{mark}}}"

    def player_lobby(self, pid: str) -> str:
        """The room id of the lobby a player opened last (while it may be open)."""
        return f"{self.prefix}player:{{{pid}}}:lobby"

    def live_rooms(self) -> str:
        """Sorted set of the public rooms that may be live (score: ms listed)."""
        return f"{self.prefix}rooms:live"

    # -- players --------------------------------------------------------------------------

    def session(self, token: str) -> str:
        """A token's player: hash ``{pid, name}``."""
        return f"{self.prefix}session:{token}"

    def sign_out_channel(self, pid: str) -> str:
        """Announces that a player signed out everywhere (every instance tells its sockets)."""
        return f"{self.prefix}signout:{pid}"

    def sign_out_pattern(self) -> str:
        """The pattern of every sign-out channel."""
        return f"{self.prefix}signout:*"

    def parse_sign_out_channel(self, name: str) -> str | None:
        """The player id of a sign-out channel, or None."""
        head = f"{self.prefix}signout:"
        if not name.startswith(head) or ":" in name[len(head) :]:
            return None
        return name[len(head) :] or None

    def player_days(self, pid: str) -> str:
        """Sorted set of the days a player ranked (score: day number)."""
        return f"{self.prefix}player:{{{pid}}}:days"

    def player_races(self, pid: str) -> str:
        """Hash of race counters and best times."""
        return f"{self.prefix}player:{{{pid}}}:races"

    def player_recent(self, pid: str) -> str:
        """List of recent race results (JSON)."""
        return f"{self.prefix}player:{{{pid}}}:recent"

    def player_counted(self, pid: str) -> str:
        """Set of the ``ROOM/ROUND`` already counted in the history."""
        return f"{self.prefix}player:{{{pid}}}:counted"

    def solo_stats(self, pid: str, cells: int) -> str:
        """Hash of a player's solo statistics of one variant (``lua/solo_record.lua``)."""
        return f"{self.prefix}player:{{{pid}}}:solo:{cells}"

    def player_perfect(self, pid: str) -> str:
        """Hash mode -> a player's perfect games of that mode (:mod:`server.records.perfect`)."""
        return f"{self.prefix}player:{{{pid}}}:perfect"

    def solo_open(self, pid: str) -> str:
        """The room of a player's latest solo game (to count it when another replaces it)."""
        return f"{self.prefix}player:{{{pid}}}:solo:open"

    def follows(self, pid: str) -> str:
        """Hash player id -> ms followed: the players someone follows (theirs alone)."""
        return f"{self.prefix}player:{{{pid}}}:follows"

    # -- the daily challenge --------------------------------------------------------------

    def leaderboard_rank(self, date: str, kind: str) -> str:
        """Sorted set of a day's ranked members."""
        return f"{self.prefix}daily:{{{date}:{kind}}}:rank"

    def leaderboard_fewest(self, date: str, kind: str) -> str:
        """Sorted set of a day's ranked members by fewest actions, then time."""
        return f"{self.prefix}daily:{{{date}:{kind}}}:fewest"

    def leaderboard_entries(self, date: str, kind: str) -> str:
        """Hash player id -> leaderboard entry JSON."""
        return f"{self.prefix}daily:{{{date}:{kind}}}:entries"

    def daily_attempts(self, date: str, kind: str) -> str:
        """Hash player id -> the room of their ranked attempt (the first game they began)."""
        return f"{self.prefix}daily:{{{date}:{kind}}}:attempts"

    def daily_deal(self, date: str, kind: str) -> str:
        """The certified deal of a day and kind (JSON ``{code, par, counter, sid}``), set once."""
        return f"{self.prefix}daily:{{{date}:{kind}}}:deal"

    def daily_certifier(self) -> str:
        """The lease of the instance that certifies the days' deals (its id)."""
        return f"{self.prefix}daily:certifier"

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

    # -- quick race and ratings -----------------------------------------------------------
    # Every variant's queue keys share the tag ``{q}`` (one slot: joining one queue checks
    # the others in the same script); a player's rating keys share ``{P}`` (one slot: the
    # script that applies a race to them).

    def queue_wait(self, cells: int) -> str:
        """Sorted set of the players waiting for a quick race (score: their skill ``mu``)."""
        return f"{self.prefix}queue:{{q}}:{cells}:wait"

    def queue_info(self, cells: int) -> str:
        """Hash player id -> ``{since, ready, inst}`` of each waiting player."""
        return f"{self.prefix}queue:{{q}}:{cells}:info"

    def queue_paired(self, cells: int) -> str:
        """Hash player id -> the room a pairing put them in, until their instance takes it."""
        return f"{self.prefix}queue:{{q}}:{cells}:paired"

    def room_rated(self, room: str, round_: int) -> str:
        """The ratings of a room's round, once applied (the marker that it counted)."""
        return f"{self.room(room)}:rated:{round_}"

    def rating(self, pid: str, cells: int) -> str:
        """Hash ``{mu, sigma, rating, games, name}``: a player's rating of a variant."""
        return f"{self.prefix}rating:{{{pid}}}:{cells}"

    def rating_history(self, pid: str, cells: int) -> str:
        """List of a player's rating points of a variant (JSON), oldest first."""
        return f"{self.prefix}rating:{{{pid}}}:{cells}:hist"

    def rating_applied(self, pid: str) -> str:
        """Sorted set of the ``ROOM/ROUND`` already applied to a player (score: ms)."""
        return f"{self.prefix}rating:{{{pid}}}:applied"

    def rating_races(self, pid: str) -> str:
        """List of a player's recent public (rated) races (JSON), newest first."""
        return f"{self.prefix}rating:{{{pid}}}:races"

    def rating_rivals(self, pid: str, cells: int) -> str:
        """Set of the distinct established rivals a player's rated results of a variant
        counted against (its size is the rating's ``rivals``)."""
        return f"{self.prefix}rating:{{{pid}}}:{cells}:rivals"

    def rating_met(self, pid: str) -> str:
        """Sorted set other player id -> when a rated result of both last counted (ms)."""
        return f"{self.prefix}rating:{{{pid}}}:met"

    def rating_repeats(self, pid: str) -> str:
        """Sorted set ``RIVAL\tROOM/ROUND`` -> when (ms): the rated results of the player
        that counted against each rival (what a repeated result is worth)."""
        return f"{self.prefix}rating:{{{pid}}}:repeats"

    def arena_beaten(self, pid: str) -> str:
        """Sorted set ``RIVAL\tROOM/ROUND`` -> when (ms): the arena races in which the
        player placed ahead of each rival (what a repeated win is worth)."""
        return f"{self.prefix}player:{{{pid}}}:beaten"

    def name_skeletons(self) -> str:
        """Hash UTS #39 skeleton of an established player's name -> their player id: the
        names nobody else may take (:func:`protocol.names.skeleton`)."""
        return f"{self.prefix}names:skeletons"

    def ratings_top(self, cells: int) -> str:
        """Sorted set player id -> shown rating of a variant (``/api/ratings``)."""
        return f"{self.prefix}ratings:{cells}"

    def barred(self) -> str:
        """Set of the player ids an operator barred from ranked play."""
        return f"{self.prefix}admin:barred"

    def stash(self, pid: str) -> str:
        """Hash ``DATE:KIND`` -> a barred player's leaderboard entry taken off (and
        ``ratings:V`` -> their rating), put back when they are unbarred."""
        return f"{self.prefix}admin:stash:{{{pid}}}"

    def admin_log(self) -> str:
        """List of operator actions (JSON), newest first."""
        return f"{self.prefix}admin:log"

    def held(self) -> str:
        """Hash result (replay id) -> a held finish (JSON), until an operator acts."""
        return f"{self.prefix}review:held"

    def held_order(self) -> str:
        """Sorted set result -> when it was held (ms): the held list's order, for its pages."""
        return f"{self.prefix}review:held:at"

    def review_claim(self, room: str, round_: int, pid: str) -> str:
        """The instance reviewing a finish now (a claim that expires unless renewed), in the
        room's slot: two instances never both score or settle one finish."""
        return f"{self.room(room)}:claim:{round_}:{pid}"

    def held_round(self, room: str, round_: int) -> str:
        """What a rated round whose finisher is held needs to settle later (JSON: the
        standings and the ratings it waits on), in the room's slot but outliving the room."""
        return f"{self.prefix}review:round:{{{room}}}:{round_}"

    def reviewed(self, result: str) -> str:
        """A finish's review once decided (JSON: its status and score)."""
        return f"{self.prefix}review:done:{result}"

    def resettle(self) -> str:
        """Set of ``ROOM/ROUND`` of rated races whose held finishers an operator decided:
        a server settles their ratings."""
        return f"{self.prefix}review:resettle"

    def evidence(self, pid: str) -> str:
        """List of a player's latest ranked finishes' evidence (JSON), newest first."""
        return f"{self.prefix}review:evidence:{{{pid}}}"

    def suspects(self) -> str:
        """Sorted set player id -> their score over recent finishes (the operator's list)."""
        return f"{self.prefix}review:suspects"

    def flagged(self) -> str:
        """Hash player id -> why their ranked results are held (JSON), until an operator
        lifts it."""
        return f"{self.prefix}review:flagged"

    def practice(self, code: str, mark: str) -> str:
        """Hash player id -> replay id: who of one address (its mark) finished a deal, and
        where their line is. The deal is named by a digest of its code (a running day's code
        is in no key)."""
        deal = hashlib.sha256(f"seahaven-deal:{code}".encode()).hexdigest()[:16]
        return f"{self.prefix}review:practice:{deal}:{{{mark}}}"

    def review_field(self, date: str, kind: str) -> str:
        """Hash player id -> [time ms, solver agreement]: the day's reviewed finishers of a
        daily kind that passed, the field a finish is weighed against."""
        return f"{self.prefix}review:field:{date}:{kind}"

    def review_tables(self, code: str) -> str:
        """Hash table digest -> the ids of the few identities whose won line of a deal
        reached it, or ``*`` (many did: a common table). The deal is named by a digest."""
        deal = hashlib.sha256(f"seahaven-deal:{code}".encode()).hexdigest()[:16]
        return f"{self.prefix}review:tables:{deal}"

    def address_identities(self, address: str) -> str:
        """Sorted set player id -> ms: the identities a client address made lately."""
        return f"{self.prefix}ident:{address}"

    def rooms_made(self, pid: str) -> str:
        """How many rooms a player made in the current window (a counter: ``slow_down``)."""
        return f"{self.prefix}player:{{{pid}}}:rooms_made"

    def address_rooms(self, mark: str) -> str:
        """How many rooms the players of one address made in the current window."""
        return f"{self.prefix}rooms_made:{{{mark}}}"

    def dodges(self, pid: str) -> str:
        """How often a player left a paired room before its start lately (a counter)."""
        return f"{self.prefix}player:{{{pid}}}:dodges"

    # -- arenas ---------------------------------------------------------------------------
    # Every key of an arena shares the tag ``{A}`` (one slot: its scripts touch one slot);
    # the index ``arenas`` and a player's ``player:{P}:arena`` are used alone.

    def arena(self, arena: str) -> str:
        """Hash of an arena's fields (``cells``, ``minutes``, ``starts_at``, ``ends_at``,
        ``private``, ``over``); the stem of its other keys."""
        return f"{self.prefix}arena:{{{arena}}}"

    def arena_players(self, arena: str) -> str:
        """Hash player id -> ``{name, addr, rating}`` of everyone who joined."""
        return f"{self.arena(arena)}:players"

    def arena_pool(self, arena: str) -> str:
        """Sorted set of the players waiting to be paired (score: points, then rating)."""
        return f"{self.arena(arena)}:pool"

    def arena_since(self, arena: str) -> str:
        """Hash player id -> when (ms) they came into the pool."""
        return f"{self.arena(arena)}:since"

    def arena_last(self, arena: str) -> str:
        """Hash player id -> JSON list of their last race's rivals."""
        return f"{self.arena(arena)}:last"

    def arena_paired(self, arena: str) -> str:
        """Hash player id -> the room a pairing put them in, until their instance takes it."""
        return f"{self.arena(arena)}:paired"

    def arena_racing(self, arena: str) -> str:
        """Hash player id -> the room of the race they are in."""
        return f"{self.arena(arena)}:racing"

    def arena_results(self, arena: str) -> str:
        """List of the arena's recorded races (JSON), in the order recorded."""
        return f"{self.arena(arena)}:results"

    def arena_counted(self, arena: str) -> str:
        """Set of the ``ROOM/ROUND`` already recorded."""
        return f"{self.arena(arena)}:counted"

    def arena_pledges(self, arena: str) -> str:
        """Hash ``ROOM:PID`` -> 1: the no-take-backs pledges of its races."""
        return f"{self.arena(arena)}:pledges"

    def arena_lease(self, arena: str) -> str:
        """The instance pairing the arena now (its id), for a short lease."""
        return f"{self.arena(arena)}:lease"

    def arenas(self) -> str:
        """Sorted set arena id -> its end (ms): every arena, scheduled and private."""
        return f"{self.prefix}arenas"

    def arenas_awaiting(self) -> str:
        """Sorted set ``ARENA ROOM/ROUND`` -> when last asked (ms): the arenas' recorded
        races whose finishers' review has not amended the record yet."""
        return f"{self.prefix}arenas:awaiting"

    def arena_made(self, pid: str) -> str:
        """The private arena a player made, until it ends (one at a time)."""
        return f"{self.prefix}player:{{{pid}}}:arena_made"

    def address_arenas(self, mark: str) -> str:
        """Sorted set arena id -> its end (ms), of the private arenas one address made."""
        return f"{self.prefix}arenas_made:{{{mark}}}"

    def player_arena(self, pid: str) -> str:
        """The arena a player is in (one at most)."""
        return f"{self.prefix}player:{{{pid}}}:arena"

    # -- devices (:mod:`server.store.accounts`) -------------------------------------------

    def player_sessions(self, pid: str) -> str:
        """Set of a player's session tokens (sign out everywhere deletes each)."""
        return f"{self.prefix}player:{{{pid}}}:sessions"

    def player_passkeys(self, pid: str) -> str:
        """Hash credential id -> a passkey of the player (JSON: name, public key, counter)."""
        return f"{self.prefix}player:{{{pid}}}:passkeys"

    def passkey(self, credential: str) -> str:
        """A passkey's player id, by credential id (base64url): how a sign-in finds them."""
        return f"{self.prefix}passkey:{credential}"

    def transfer(self, locator: str) -> str:
        """Hash of a transfer code, by its first half: player, secret's hash, tries, state."""
        return f"{self.prefix}transfer:{locator}"

    def player_transfer(self, pid: str) -> str:
        """The locator of a player's live transfer code (a new code replaces it)."""
        return f"{self.prefix}player:{{{pid}}}:transfer"

    def transfer_tries(self, address: str) -> str:
        """Counter of the transfer codes an address tried in the current window."""
        return f"{self.prefix}transfer_tries:{address}"
