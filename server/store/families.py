"""The table of every key family the server writes: its name pattern, Redis type, what
bounds its size and how long it lives. docs/server.md shows it; the house test ties it to the
names :class:`server.store.keys.Keys` builds, and a test of a busy server checks every key
it wrote against it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Family:
    """A family of keys: its name pattern (after the prefix), Redis type, size bound and
    lifetime. :data:`FAMILIES` lists every family the server writes; the storage table of
    docs/server.md shows it and a test checks every key of a busy server against it.

    Attributes:
        pattern: the key's name, ``R`` a room, ``N`` a round, ``P`` a player, ``T`` a token,
            ``D`` a date, ``K`` a daily kind, ``ID`` a replay id, ``C`` a game code, ``V``
            a variant (cells), ``{P}`` a player's hash tag, ``A`` a client address, ``{A}``
            the mark of a client address (:func:`server.ranked.ratings.address_mark`), ``{Z}``
            an arena's hash tag (its id).
        kind: the Redis type.
        bound: what its size is bounded by.
        lifetime: how long it lives; ``expires`` says whether Redis expires it.
    """

    pattern: str
    kind: str
    bound: str
    lifetime: str
    expires: bool = True

    def regex(self) -> re.Pattern[str]:
        """A pattern matching the names of this family (after the prefix)."""
        parts = re.split(
            r"(\{R\}|\{Z\}|\{C\}|\{P\}|\{A\}|\bR\b|\bN\b|\bP\b|\bT\b|\bD\b|\bK\b|\bID\b|\bV\b|\bA\b)",
            self.pattern,
        )
        out = []
        for part in parts:
            if part == "{R}":
                out.append(r"\{[A-Z0-9]+\}")
            elif part == "{Z}":
                out.append(r"\{[A-Za-z0-9-]+\}")
            elif part == "{C}":
                out.append(r"\{SH1-C[421]-[A-Z2-7]{7}\}")
            elif part == "{P}":
                out.append(r"\{[A-Za-z0-9_-]+\}")
            elif part == "{A}":
                out.append(r"\{[0-9a-f]{16}\}")
            elif part == "V":
                out.append("[421]")
            elif part == "A":
                out.append(r"[0-9A-Za-z:./]+")
            elif part in ("R", "N", "P", "T", "D", "K", "ID"):
                out.append(
                    {"N": r"\d+", "D": r"\d{4}-\d{2}-\d{2}", "K": r"(daily|hard)"}.get(
                        part, r"[A-Za-z0-9_-]+"
                    )
                )
            else:
                out.append(re.escape(part))
        return re.compile("".join(out))


#: Every key family the server writes.
FAMILIES: Final = (
    Family(
        "room:{R}",
        "hash",
        "room fields + 4 per racer",
        "room TTL after the last change; a game alone over: finished-room-ttl",
    ),
    Family(
        "room:{R}:members",
        "hash",
        "racers (8) + spectator cap",
        "room TTL after the last change; a game alone over: finished-room-ttl",
    ),
    Family(
        "room:{R}:events",
        "list",
        "2000 events (MAX_EVENTS)",
        "room TTL after the last change; a game alone over: finished-room-ttl",
    ),
    Family(
        "room:{R}:log:N:P",
        "list",
        "max-actions per board",
        "room TTL after the last change; a game alone over: finished-room-ttl",
    ),
    Family(
        "room:{R}:ids:N:P",
        "hash",
        "max-actions per board",
        "room TTL after the last change; a game alone over: finished-room-ttl",
    ),
    Family(
        "room:{R}:res:N",
        "hash",
        "2 fields per racer",
        "room TTL after the last change; a game alone over: finished-room-ttl",
    ),
    Family("room:{R}:away:P", "string", "one nonce", "away grace + 60 s"),
    Family(
        "room:{R}:here",
        "hash",
        "sockets in the room",
        "room TTL after the last change; a game alone over: finished-room-ttl",
    ),
    Family("room:{R}:hinted:N", "set", "racers (8)", "room TTL after the last hint"),
    Family("instance:ID", "string", "one flag", "15 s after the instance's last heartbeat"),
    Family(
        "presence",
        "hash",
        "one field per instance: `ONLINE:RACING:AT_MS` (counts, never names)",
        "60 s after the last heartbeat; a field 15 s old is dropped by the next read",
    ),
    Family("room:{R}:daily", "string", "date and kind", "twice max(room TTL, 1 day)"),
    Family(
        "deadlines",
        "zset",
        "one per countdown + one per racer away",
        "permanent key; each member removed once acted on",
        expires=False,
    ),
    Family(
        "racing:{C}",
        "zset",
        "rooms racing that deal",
        "the racing lease (5 min) after its last mark",
    ),
    Family("session:T", "hash", "player id and name", "7 days after its last use"),
    Family("player:{P}:races", "hash", "6 counters and best times", "history-days after last race"),
    Family("player:{P}:recent", "list", "20 results", "history-days after last race"),
    Family(
        "player:{P}:counted", "zset", "results of the last 7 days", "history-days after last race"
    ),
    Family("player:{P}:days", "zset", "400 days", "history-days after last ranked day"),
    Family("player:{P}:perfect", "hash", "3 counters", "history-days after last perfect game"),
    Family("daily:{D:K}:deal", "string", "code, par, counter", "history-days after the day"),
    Family("daily:certifier", "string", "an instance id", "the lease (30 s) unless renewed"),
    Family(
        "player:{P}:solo:V", "hash", "8 fields (30 games, 16 ids)", "history-days after last game"
    ),
    Family("player:{P}:solo:open", "string", "one room id", "room TTL"),
    Family(
        "player:{P}:follows", "hash", "200 players (MAX_FOLLOWS)", "history-days after last change"
    ),
    Family("daily:{D:K}:attempts", "hash", "one per player of that day", "two days after the day"),
    Family(
        "daily:{D:K}:rank", "zset", "one per player of that day", "history-days after last entry"
    ),
    Family(
        "daily:{D:K}:fewest", "zset", "one per player of that day", "history-days after last entry"
    ),
    Family(
        "daily:{D:K}:entries", "hash", "one per player of that day", "history-days after last entry"
    ),
    Family(
        "replay:ID", "string", "one game (max-actions)", "replay-ttl (30 d); ranked: history-days"
    ),
    Family(
        "rooms:live", "zset", "500 public rooms (MAX_LISTED)", "room TTL after the last listing"
    ),
    Family("rooms:lobby", "zset", "500 public lobbies (MAX_LISTED)", "lobby-ttl-s after the last"),
    Family("lobbies:{A}", "zset", "the public lobbies of an address", "lobby-ttl-s after the last"),
    Family("player:{P}:lobby", "string", "a room id", "lobby-ttl-s"),
    Family(
        "queue:{q}:V:wait",
        "zset",
        "5000 waiting players (MAX_WAITING)",
        "1 h after its last change",
    ),
    Family("queue:{q}:V:info", "hash", "one per waiting player", "1 h after its last change"),
    Family(
        "queue:{q}:V:paired", "hash", "players paired, until taken", "1 h after its last change"
    ),
    Family("room:{R}:rated:N", "string", "one round's rating changes", "room TTL"),
    Family(
        "rating:{P}:V",
        "hash",
        "mu, sigma, rating, games, name, rivals",
        "history-days after last race",
    ),
    Family(
        "rating:{P}:V:rivals", "set", "distinct established rivals", "history-days after last race"
    ),
    Family("rating:{P}:V:hist", "list", "100 points (MAX_HISTORY)", "history-days after last race"),
    Family("rating:{P}:applied", "zset", "50 races (MAX_APPLIED)", "history-days after last race"),
    Family(
        "rating:{P}:races", "list", "20 public races (MAX_RACES)", "history-days after last race"
    ),
    Family("rating:{P}:met", "zset", "the players met in rated races", "rated-pair-window-s (6 h)"),
    Family(
        "rating:{P}:repeats",
        "zset",
        "2000 rated results against rivals (MAX_REPEATS)",
        "contest-repeat-days (7) after the last",
    ),
    Family(
        "player:{P}:beaten",
        "zset",
        "2000 arena wins over rivals (MAX_REPEATS)",
        "contest-repeat-days (7) after the last",
    ),
    Family("ratings:V", "zset", "10000 best players (MAX_RATED)", "history-days after last race"),
    Family("names:skeletons", "hash", "one per established name", "history-days after the last"),
    Family("player:{P}:dodges", "string", "a counter", "1 h after the last dodge"),
    Family("player:{P}:rooms_made", "string", "a counter", "1 h after the window's first room"),
    Family("rooms_made:{A}", "string", "a counter", "1 h after the window's first room"),
    Family("admin:barred", "set", "the players barred", "until unbarred", expires=False),
    Family("admin:stash:{P}", "hash", "a barred player's entries", "until unbarred", expires=False),
    Family("admin:log", "list", "10000 operator actions (MAX_LOG)", "permanent", expires=False),
    Family(
        "review:held",
        "hash",
        "held-max finishes (1000)",
        "until decided, or settled past held-days (30)",
        expires=False,
    ),
    Family(
        "review:held:at",
        "zset",
        "held-max finishes (1000)",
        "until decided, or settled past held-days (30)",
        expires=False,
    ),
    Family("review:done:ID", "string", "one review's outcome", "history-days"),
    Family("room:{R}:claim:N:P", "string", "an instance id", "60 s unless its reviewer renews it"),
    Family("review:round:{R}:N", "string", "a held round's standings", "history-days"),
    Family("review:resettle", "set", "races to settle again", "until settled", expires=False),
    Family(
        "review:evidence:{P}",
        "list",
        "20 ranked finishes' evidence (KEPT)",
        "history-days after the latest",
    ),
    Family(
        "review:suspects",
        "zset",
        "50000 players by score (MAX_SUSPECTS)",
        "history-days after the latest score",
    ),
    Family(
        "review:flagged",
        "hash",
        "the players flagged, until unflagged",
        "history-days after the latest flag",
    ),
    Family(
        "review:field:D:K",
        "hash",
        "2000 finishers of a day's kind (FIELD_MAX)",
        "2 days after the latest",
    ),
    Family(
        "review:tables:ID",
        "hash",
        "20000 tables of a deal's won lines, 3 identities each (TABLES_MAX)",
        "3 days after the latest",
    ),
    Family(
        "review:practice:ID:{A}",
        "hash",
        "8 identities of an address that won a deal (PRACTICE_MAX)",
        "3 days after the latest",
    ),
    Family("ident:A", "zset", "200 identities (MAX_IDENTITIES)", "7 days after the last one"),
    Family("arena:{Z}", "hash", "7 fields", "a day after the arena's end"),
    Family("arena:{Z}:players", "hash", "its players", "a day after the arena's end"),
    Family("arena:{Z}:pool", "zset", "its players", "a day after the arena's end"),
    Family("arena:{Z}:since", "hash", "its players", "a day after the arena's end"),
    Family("arena:{Z}:last", "hash", "its players", "a day after the arena's end"),
    Family("arena:{Z}:paired", "hash", "its players", "a day after the arena's end"),
    Family("arena:{Z}:racing", "hash", "its players", "a day after the arena's end"),
    Family("arena:{Z}:results", "list", "its races", "a day after the arena's end"),
    Family("arena:{Z}:counted", "set", "its races", "a day after the arena's end"),
    Family("arena:{Z}:pledges", "hash", "racers of its races", "a day after the arena's end"),
    Family("arena:{Z}:lease", "string", "an instance id", "the lease (3 s) unless renewed"),
    Family("arenas", "zset", "scheduled and private arenas", "a day after the last one's end"),
    Family(
        "arenas:awaiting",
        "zset",
        "recorded arena races whose review is not in yet",
        "until reviewed",
        expires=False,
    ),
    Family("player:{P}:arena", "string", "an arena id", "15 min after the arena's end"),
    Family("player:{P}:arena_made", "string", "an arena id", "the arena's end"),
    Family("arenas_made:{A}", "zset", "an address's private arenas", "the last one's end"),
    Family("player:{P}:sessions", "set", "the player's tokens", "7 days after the last sign-in"),
    Family(
        "player:{P}:passkeys",
        "hash",
        "10 passkeys (MAX_PASSKEYS)",
        "until removed or the player deleted",
        expires=False,
    ),
    Family("passkey:ID", "string", "a player id", "as long as its passkey", expires=False),
    Family("transfer:ID", "hash", "6 fields", "1 h (the code itself works 10 min)"),
    Family("player:{P}:transfer", "string", "a code's first half", "10 min"),
    Family("transfer_tries:A", "string", "a counter", "10 min after the first try"),
)
