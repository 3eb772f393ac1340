"""A player's devices in Redis: their sessions, passkeys and transfer codes, and the keys
deleting a player removes.

- ``player:{P}:sessions``: the player's tokens (:meth:`Store.save_session` adds each), so
  that signing out everywhere can end them all;
- ``player:{P}:passkeys`` (credential id -> JSON: name, public key, sign counter, dates) and
  ``passkey:ID`` (credential id -> player id): a sign-in finds the player by the credential
  the authenticator names, then checks its signature with the key kept here;
- ``transfer:LOC`` (a code's first half -> player, name, the second half's hash, wrong
  tries, state, expiry), ``player:{P}:transfer`` (their live code) and
  ``transfer_tries:A`` (what an address tried lately).

**A transfer code** is 8 characters of :data:`ALPHABET` (no 0/O, 1/I/L), shown
``ABCD-EFGH``: the first half finds the code, the second proves it. A code works once, for
:data:`TRANSFER_LIVE_S`; its record stays an hour longer so that a late try of the whole
code hears "used" or "expired" rather than "unknown". A code with a wrong second half is
answered exactly as one nobody has ("unknown"), so no try tells a live first half.
Guessing is bounded twice: an address tries at most :data:`TRIES_PER_ADDRESS` codes in
:data:`TRIES_WINDOW_S`, and a code dies after
:data:`MAX_WRONG` wrong second halves (one in 923,521 each).

Nothing here decides who may do what; :mod:`server.play.devices` does.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from ..clock import now_ms
from ..transport.announcements import Announcements
from .store import Store

#: Passkeys one player may have.
MAX_PASSKEYS: Final = 10
#: The letters of a transfer code: no 0/O, 1/I/L, to read aloud and type without doubt.
ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: How long a transfer code signs a device in (seconds).
TRANSFER_LIVE_S: Final = 600
#: How long a code's record answers "used" or "expired" (seconds).
TRANSFER_KEPT_S: Final = 3600
#: Wrong second halves after which a code dies.
MAX_WRONG: Final = 5
#: Transfer codes one address may try in a window, and the window (seconds).
TRIES_PER_ADDRESS: Final = 20
TRIES_WINDOW_S: Final = 600


# -- sessions ---------------------------------------------------------------------------------


async def end_sessions(store: Store, pid: str) -> int:
    """End every session of a player (each token stops working); how many there were."""
    index = store.keys.player_sessions(pid)
    tokens = [str(t) for t in await store.redis.smembers(index)]
    for token in tokens:
        await store.redis.delete(store.keys.session(token))
    await store.redis.delete(index)
    return len(tokens)


async def announce_sign_out(store: Store, pid: str) -> None:
    """Tell every instance that ``pid`` signed out everywhere (their open sockets hear it)."""
    await store.redis.publish(store.keys.sign_out_channel(pid), "1")


def sign_out_announcements(
    store: Store, on_channel: Callable[[str], Awaitable[None]]
) -> Announcements:
    """A reader of every sign-out announcement, calling ``on_channel`` with the channel of
    each (:meth:`Announcements.start` starts it; ``Keys.parse_sign_out_channel`` reads it)."""
    return Announcements(store.redis, store.keys.sign_out_pattern(), on_channel)


async def session_count(store: Store, pid: str) -> int:
    """How many of a player's sessions still work."""
    tokens = [str(t) for t in await store.redis.smembers(store.keys.player_sessions(pid))]
    alive = 0
    for token in tokens:
        alive += int(await store.redis.exists(store.keys.session(token)))
    return alive


def new_token() -> str:
    """A fresh session token (as ``hello`` makes)."""
    return secrets.token_urlsafe(24)


# -- passkeys ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Passkey:
    """One passkey of a player, as kept: ``public_key`` is the COSE key (base64url)."""

    id: str
    name: str
    public_key: str
    sign_count: int
    created: int
    used: int | None = None
    #: The player's name when this passkey last signed in or was made (``welcome``'s).
    player_name: str = ""

    def to_json(self) -> str:
        """The stored form."""
        return json.dumps(
            {
                "name": self.name,
                "public_key": self.public_key,
                "sign_count": self.sign_count,
                "created": self.created,
                "used": self.used,
                "player_name": self.player_name,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, cid: str, text: str) -> Passkey:
        """From the stored form."""
        data: dict[str, Any] = json.loads(text)
        return cls(
            cid,
            str(data.get("name", "")),
            str(data["public_key"]),
            int(data.get("sign_count", 0)),
            int(data.get("created", 0)),
            data.get("used"),
            str(data.get("player_name", "")),
        )

    def shown(self) -> dict[str, Any]:
        """What its owner sees (``passkeys``): never the key."""
        out: dict[str, Any] = {"id": self.id, "name": self.name or "Passkey"}
        out["created"] = self.created
        if self.used is not None:
            out["used"] = self.used
        return out


async def passkeys(store: Store, pid: str) -> list[Passkey]:
    """A player's passkeys, the newest first."""
    raw: dict[str, str] = await store.redis.hgetall(store.keys.player_passkeys(pid))
    keys = [Passkey.from_json(cid, text) for cid, text in raw.items()]
    return sorted(keys, key=lambda k: (-k.created, k.id))


async def passkey_owner(store: Store, cid: str) -> str | None:
    """The player a credential id belongs to, or None."""
    found = await store.redis.get(store.keys.passkey(cid))
    return None if found is None else str(found)


async def passkey_of(store: Store, pid: str, cid: str) -> Passkey | None:
    """One passkey of a player, or None."""
    text = await store.redis.hget(store.keys.player_passkeys(pid), cid)
    return None if text is None else Passkey.from_json(cid, str(text))


async def add_passkey(store: Store, pid: str, key: Passkey) -> str:
    """Keep a new passkey of a player: ``added``, ``full`` (:data:`MAX_PASSKEYS`) or
    ``taken`` (the credential is a player's already: it stays theirs)."""
    mine = store.keys.player_passkeys(pid)
    if int(await store.redis.hlen(mine)) >= MAX_PASSKEYS:
        return "full"
    # SET NX: of two players offering one credential, the first keeps it.
    if not await store.redis.set(store.keys.passkey(key.id), pid, nx=True):
        return "taken"
    await store.redis.hset(mine, key.id, key.to_json())
    return "added"


async def save_passkey(store: Store, pid: str, key: Passkey) -> None:
    """Write back a passkey of a player (its name, counter or dates changed)."""
    await store.redis.hset(store.keys.player_passkeys(pid), key.id, key.to_json())


async def remove_passkey(store: Store, pid: str, cid: str, *, keep_bound: bool = False) -> bool:
    """Remove a player's passkey; whether it was theirs. ``keep_bound`` (a barred player):
    the credential stays bound to them, so it signs nobody in and no other identity can
    take it (a bar is not escaped by moving one's passkey to a fresh identity)."""
    if not await store.redis.hdel(store.keys.player_passkeys(pid), cid):
        return False
    if not keep_bound and await passkey_owner(store, cid) == pid:
        await store.redis.delete(store.keys.passkey(cid))
    return True


async def forget_passkey_names(store: Store, pid: str) -> None:
    """Blank the names of a player's passkeys (a barred player deleted: the keys stay, to
    keep the bar, without anything the player wrote)."""
    for key in await passkeys(store, pid):
        key.name, key.player_name = "", ""
        await save_passkey(store, pid, key)


async def remove_passkeys(store: Store, pid: str) -> int:
    """Remove every passkey of a player; how many."""
    keys = await passkeys(store, pid)
    for key in keys:
        await remove_passkey(store, pid, key.id)
    await store.redis.delete(store.keys.player_passkeys(pid))
    return len(keys)


# -- transfer codes ---------------------------------------------------------------------------


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


#: What an unknown code's second half is compared with (no second half hashes to it), so
#: that it is hashed and compared as a real code's is.
_UNKNOWN: Final = "0" * 64


def normal_code(text: str) -> str | None:
    """A typed code as 8 characters of :data:`ALPHABET` (case, dashes and spaces dropped), or
    None when it cannot be one."""
    code = "".join(text.split()).replace("-", "").upper()
    if len(code) != 8 or any(ch not in ALPHABET for ch in code):
        return None
    return code


async def new_transfer(store: Store, pid: str, name: str) -> tuple[str, int]:
    """Make a player's transfer code (their previous one stops working): ``(code shown as
    ABCD-EFGH, expiry in ms)``."""
    k = store.keys
    await drop_transfer(store, pid)
    expires = now_ms() + TRANSFER_LIVE_S * 1000
    for _ in range(20):  # a first half in use (of ~923,521) is drawn again
        locator = "".join(secrets.choice(ALPHABET) for _ in range(4))
        secret = "".join(secrets.choice(ALPHABET) for _ in range(4))
        record = {
            "pid": pid,
            "name": name,
            "hash": _digest(secret),
            "wrong": 0,
            "uses": 0,
            "state": "live",
            "expires": expires,
        }
        if await store.redis.hsetnx(k.transfer(locator), "pid", pid):
            await store.redis.hset(k.transfer(locator), mapping=record)
            await store.redis.expire(k.transfer(locator), TRANSFER_LIVE_S + TRANSFER_KEPT_S)
            await store.redis.set(k.player_transfer(pid), locator, ex=TRANSFER_LIVE_S)
            return f"{locator}-{secret}", expires
    raise RuntimeError("no free transfer code")  # pragma: no cover - 20 draws all in use


async def drop_transfer(store: Store, pid: str) -> None:
    """End a player's live transfer code, if any."""
    locator = await store.redis.get(store.keys.player_transfer(pid))
    if locator is not None:
        await store.redis.hset(store.keys.transfer(str(locator)), "state", "replaced")
        await store.redis.delete(store.keys.player_transfer(pid))


@dataclass(slots=True)
class Claim:
    """What a tried code gave: ``ok`` (with the player), else the error code of the
    refusal (``transfer_unknown``: no such code, or a wrong second half; for the whole
    right code ``transfer_used``, ``transfer_expired``, ``transfer_dead``; and
    ``transfer_limited`` with ``retry_s``)."""

    status: str
    pid: str = ""
    name: str = ""
    retry_s: int = 0


async def claim_transfer(store: Store, text: str, address: str) -> Claim:
    """Try a transfer code from a client address (see the module docstring)."""
    k = store.keys
    tries = k.transfer_tries(address or "unknown")
    count = int(await store.redis.incr(tries))
    if count == 1:
        await store.redis.expire(tries, TRIES_WINDOW_S)
    if count > TRIES_PER_ADDRESS:
        ttl = int(await store.redis.ttl(tries))
        if ttl < 0:  # no expiry (a crash between INCR and EXPIRE): give it one
            await store.redis.expire(tries, TRIES_WINDOW_S)
            ttl = TRIES_WINDOW_S
        return Claim("transfer_limited", retry_s=max(1, ttl))
    code = normal_code(text) or "-" * 8
    key = k.transfer(code[:4])
    record: dict[str, str] = await store.redis.hgetall(key)
    # A code nobody has and a real code's wrong second half take the same path and get
    # the same answer: trying first halves finds no live code. Its state (used, expired,
    # dead) is told only to the whole right code.
    known = bool(record) and "hash" in record
    right = hmac.compare_digest(record.get("hash", _UNKNOWN), _digest(code[4:]))
    if not (known and right):
        # One round trip either way; a code tried wrong MAX_WRONG times is dead (read so
        # below, with no write of its own that would take longer).
        if known:
            await store.redis.hincrby(key, "wrong", 1)
        else:
            await store.redis.exists(key)
        return Claim("transfer_unknown")
    state = record.get("state", "live")
    if state == "used":
        return Claim("transfer_used")
    if state == "dead" or int(record.get("wrong", 0)) >= MAX_WRONG:
        return Claim("transfer_dead")
    if state == "replaced" or now_ms() > int(record.get("expires", 0)):
        return Claim("transfer_expired")
    # HINCRBY is atomic: of two devices with the same code at once, one is first.
    if int(await store.redis.hincrby(key, "uses", 1)) != 1:
        return Claim("transfer_used")
    await store.redis.hset(key, "state", "used")
    await store.redis.delete(k.player_transfer(record["pid"]))
    return Claim("ok", record["pid"], record.get("name", ""))


# -- deleting a player ------------------------------------------------------------------------


def player_keys(store: Store, pid: str) -> list[str]:
    """Every key of a player's own (``{P}``-tagged: history, statistics, ratings, friends,
    devices), which deleting the player removes."""
    k = store.keys
    keys = [
        k.player_races(pid),
        k.player_recent(pid),
        k.player_counted(pid),
        k.player_days(pid),
        k.player_perfect(pid),
        k.solo_open(pid),
        k.follows(pid),
        k.player_lobby(pid),
        k.dodges(pid),
        k.player_arena(pid),
        k.arena_made(pid),
        k.rating_applied(pid),
        k.rating_races(pid),
        k.rating_met(pid),
        k.player_transfer(pid),
    ]
    for cells in (4, 2, 1):
        keys += [k.solo_stats(pid, cells), k.rating(pid, cells), k.rating_history(pid, cells)]
    return keys


async def erase_keys(store: Store, pid: str) -> int:
    """Delete a player's own keys (one at a time: on a cluster they share a slot, but a
    plain DEL of many keys is refused there anyway when a script holds one); how many
    existed."""
    gone = 0
    for key in player_keys(store, pid):
        gone += int(await store.redis.delete(key))
    return gone


async def replay_refs(store: Store, pid: str) -> tuple[list[str], list[tuple[str, int]]]:
    """What a player's own keys say of their replays: the replay ids of their recent
    results, and the ``(room, round)`` of their solo games counted (a replay id is made
    from room, round and player)."""
    k = store.keys
    ids: list[str] = []
    for text in await store.redis.lrange(k.player_recent(pid), 0, -1):
        rid = json.loads(text).get("replay_id")
        if isinstance(rid, str):
            ids.append(rid)
    games: list[tuple[str, int]] = []
    for cells in (4, 2, 1):
        seen = await store.redis.hget(k.solo_stats(pid, cells), "seen")
        for game in str(seen or "").split():
            room, _, round_ = game.partition("/")
            if round_.isdigit():
                games.append((room, int(round_)))
    return ids, games


async def delete_replay(store: Store, replay_id: str) -> bool:
    """Delete a stored replay; whether it existed."""
    return bool(await store.redis.delete(store.keys.replay(replay_id)))


async def drop_attempt(store: Store, date: str, kind: str, pid: str) -> None:
    """Forget which room was a player's ranked attempt of a day."""
    await store.redis.hdel(store.keys.daily_attempts(date, kind), pid)
