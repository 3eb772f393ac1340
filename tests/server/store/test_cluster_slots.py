"""On a Redis Cluster every script, transaction and multi-key command must touch one slot:
the keys used together share a hash tag (``server/store/keys.py``). The real cluster runs
each script in ``tests/server/transport/test_cluster.py`` (a CROSSSLOT error fails it); these checks
need no cluster and guard the key names and every script, a new one included. Also: the
settings of a cluster, and the renaming of keys written before the tags."""

from __future__ import annotations

import argparse
import re
import secrets
from collections.abc import Callable
from importlib import resources

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from server.commands.serve import register, settings_of
from server.settings import Settings
from server.store.families import FAMILIES
from server.store.keys import Keys
from server.store.retag import new_name, retag
from server.store.scripts import source
from tests.helpers.cli import run_seahaven
from tests.helpers.serverproc import redis_url

PREFIXES = ("", "test:race:123:", "x{y}:")
ROOMS = ("ABCD1234", "Z9", "ROOM7")
PLAYERS = ("p-1", "abc_DEF", "p{odd")
DAYS = (("2026-11-30", "daily"), ("2026-01-01", "hard"))


def slot(name: str) -> int:
    return key_slot(name.encode())


def room_keys(k: Keys, room: str) -> list[str]:
    """Every key and the channel of one room."""
    return [
        k.room(room),
        k.members(room),
        k.events(room),
        k.log(room, 3, "p1"),
        k.ids(room, 3, "p1"),
        k.results(room, 3),
        k.away(room, "p1"),
        k.here(room),
        k.daily_room(room),
        k.channel(room),
        k.review_claim(room, 3, "p1"),
        k.held_round(room, 3),
    ]


def player_keys(k: Keys, pid: str) -> list[str]:
    """A player's history keys (``history_record.lua`` writes three of them at once)."""
    return [
        *(k.player_races(pid), k.player_recent(pid), k.player_counted(pid), k.player_days(pid)),
        # ``server/store/follows.py`` asks whether any of these exists in one EXISTS.
        *(k.solo_stats(pid, c) for c in (4, 2, 1)),
        *(k.rating(pid, c) for c in (4, 2, 1)),
        k.follows(pid),
        k.solo_open(pid),
    ]


def day_keys(k: Keys, date: str, kind: str) -> list[str]:
    """A day's leaderboard keys (``leaderboard_submit.lua`` writes rank and entries)."""
    return [
        k.leaderboard_rank(date, kind),
        k.leaderboard_entries(date, kind),
        k.daily_attempts(date, kind),
    ]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_keys_used_together_share_a_slot(prefix: str) -> None:
    k = Keys(prefix)
    for room in ROOMS:
        assert len({slot(name) for name in room_keys(k, room)}) == 1, room
    for pid in PLAYERS:
        assert len({slot(name) for name in player_keys(k, pid)}) == 1, pid
    for date, kind in DAYS:
        assert len({slot(name) for name in day_keys(k, date, kind)}) == 1, date


def test_rooms_spread_over_slots() -> None:
    """The tag is the room id, not something every room shares: rooms land on many slots."""
    k = Keys("p:")
    assert len({slot(k.room(f"R{i}")) for i in range(200)}) > 150


#: Each script's keys, built as the store calls it (KEYS in its header's order).
SCRIPT_KEYS: dict[str, Callable[[Keys], list[str]]] = {
    "create": lambda k: [k.room("R1")],
    "join": lambda k: [k.room("R1"), k.members("R1"), k.events("R1")],
    "start": lambda k: [k.room("R1"), k.members("R1"), k.events("R1")],
    "rematch": lambda k: [k.room("R1"), k.members("R1"), k.events("R1")],
    "watch": lambda k: [k.room("R1"), k.members("R1"), k.events("R1")],
    "leave": lambda k: [k.room("R1"), k.members("R1"), k.events("R1"), k.results("R1", 2)],
    "begin": lambda k: [k.room("R1"), k.members("R1"), k.events("R1"), k.results("R1", 2)],
    "give_up": lambda k: [k.room("R1"), k.events("R1"), k.results("R1", 2)],
    "move": lambda k: [
        k.room("R1"),
        k.log("R1", 2, "p"),
        k.ids("R1", 2, "p"),
        k.events("R1"),
        k.results("R1", 2),
    ],
    "confirm": lambda k: [k.ids("R1", 2, "p"), k.log("R1", 2, "p")],
    "events_after": lambda k: [k.room("R1"), k.events("R1")],
    "claim_deadlines": lambda k: [k.deadlines()],
    "history_record": lambda k: [
        k.player_races("p"),
        k.player_recent("p"),
        k.player_counted("p"),
    ],
    "leaderboard_submit": lambda k: [
        k.leaderboard_rank("2026-11-30", "daily"),
        k.leaderboard_entries("2026-11-30", "daily"),
    ],
    "attempt_claim": lambda k: [k.daily_attempts("2026-11-30", "daily")],
    "queue_add": lambda k: [
        *(k.queue_wait(4), k.queue_info(4), k.queue_paired(4)),
        *(k.queue_wait(2), k.queue_wait(1)),
    ],
    "queue_pair": lambda k: [k.queue_wait(2), k.queue_info(2)],
    "rate_claim": lambda k: [k.room("R1"), k.events("R1"), k.room_rated("R1", 2)],
    "rate_apply": lambda k: [
        k.rating("p", 4),
        k.rating_history("p", 4),
        k.rating_applied("p"),
        k.rating_races("p"),
    ],
    "rated": lambda k: [k.room("R1"), k.members("R1"), k.events("R1")],
    "lease": lambda k: [k.review_claim("R1", 2, "p")],
    "solo_record": lambda k: [k.solo_stats("p", 4)],
    "follow": lambda k: [k.follows("p")],
    "arena_join": lambda k: [
        *(k.arena("S4-30-1"), k.arena_players("S4-30-1"), k.arena_pool("S4-30-1")),
        *(k.arena_since("S4-30-1"), k.arena_racing("S4-30-1"), k.arena_paired("S4-30-1")),
    ],
    "arena_back": lambda k: [
        *(k.arena("A1"), k.arena_players("A1"), k.arena_pool("A1")),
        *(k.arena_since("A1"), k.arena_racing("A1"), k.arena_paired("A1")),
    ],
    "arena_pair": lambda k: [
        *(k.arena_pool("A1"), k.arena_since("A1"), k.arena_last("A1")),
        *(k.arena_players("A1"), k.arena_racing("A1")),
    ],
    "arena_record": lambda k: [k.arena_counted("A1"), k.arena_results("A1"), k.arena_racing("A1")],
    "arena_amend": lambda k: [k.arena_results("A1")],
    "quota_take": lambda k: [k.rooms_made("p")],
    "room_done_alone": lambda k: [
        k.room("R1"),
        k.members("R1"),
        k.events("R1"),
        k.here("R1"),
        k.log("R1", 1, "p"),
        k.ids("R1", 1, "p"),
        k.results("R1", 1),
        k.hinted("R1", 1),
    ],
    # The largest batch of server/transport/atomic.py: a room read at one instant.
    "batch": lambda k: [
        k.room("R1"),
        k.members("R1"),
        k.results("R1", 2),
        k.log("R1", 2, "p"),
        k.log("R1", 2, "q"),
    ],
}


def test_every_script_touches_one_slot() -> None:
    scripts = {
        path.name.removesuffix(".lua")
        for path in (resources.files("server.store") / "lua").iterdir()
        if path.name.endswith(".lua") and path.name != "common.lua"
    }
    # A new script must be added above with its keys: it is then checked like the others.
    assert scripts == set(SCRIPT_KEYS)
    for prefix in PREFIXES:
        for name, build in SCRIPT_KEYS.items():
            keys = build(Keys(prefix))
            assert len({slot(key) for key in keys}) == 1, (name, keys)
            header = re.search(r"^--\s+KEYS:", source(name), re.MULTILINE)
            assert header, f"{name}.lua has no KEYS header"


def test_room_scripts_publish_on_the_shard_of_the_room() -> None:
    """On a cluster the scripts use SPUBLISH, whose channel is checked against the
    script's slot: it is the room's channel, tagged like its keys."""
    for name in SCRIPT_KEYS:
        text = source(name, sharded=True)
        assert "'PUBLISH', " not in text, name
        if "SPUBLISH" in text:
            assert slot(Keys().channel("R1")) == slot(SCRIPT_KEYS[name](Keys())[0]), name
    assert "'PUBLISH', " in source("move")  # a plain Redis (6.2 embedded): PUBLISH


def test_every_family_with_a_tag_names_it_in_braces() -> None:
    """The storage table shows each family's tag (the part in braces)."""
    tagged = {f.pattern for f in FAMILIES if "{" in f.pattern}
    assert {"room:{R}", "player:{P}:races", "daily:{D:K}:rank", "racing:{C}"} <= tagged


def test_a_redis_and_a_cluster_are_exclusive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("SEAHAVEN_REDIS_URL", raising=False)
    with pytest.raises(ValueError, match="not both"):
        Settings(redis_url="redis://127.0.0.1:6379/0", redis_cluster="redis://127.0.0.1:7000")
    with pytest.raises(ValueError, match="redis_cluster"):
        Settings(redis_cluster="127.0.0.1:7000")  # no scheme
    on = Settings(redis_cluster="redis://127.0.0.1:7000", durable=True)
    assert on.redis_cluster == "redis://127.0.0.1:7000" and on.durable
    assert not Settings().durable
    with pytest.raises(ValueError, match="waits for a replica"):
        Settings(durable=True)  # the embedded Redis has no replica


def test_serve_refuses_both_with_a_clear_message() -> None:
    done = run_seahaven(
        "serve",
        *("--redis-url", "redis://127.0.0.1:6379/0", "--redis-cluster", "redis://127.0.0.1:1"),
    )
    assert done.returncode == 2
    assert "--redis-url (REDIS_URL) or --redis-cluster, not both" in done.stdout


def test_durable_is_a_switch() -> None:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    given = parser.parse_args(["serve", "--durable", "--redis-url", "redis://127.0.0.1:1"])
    assert settings_of(given).durable is True
    args = parser.parse_args(["serve", "--redis-cluster", "redis://127.0.0.1:7000"])
    assert args.durable is None  # not given: the environment or the default decides


async def test_keys_of_the_old_names_are_renamed_with_their_ttl() -> None:
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    prefix = f"test-retag-{secrets.token_hex(4)}:"
    try:
        await r.hset(f"{prefix}player:p1:races", mapping={"played": 3})
        await r.expire(f"{prefix}player:p1:races", 1000)
        await r.zadd(f"{prefix}daily:2026-11-30:hard:rank", {"m": 1})
        await r.set(f"{prefix}player:{{p2}}:days", "new")  # written under the new name
        await r.set(f"{prefix}player:p2:days", "old")  # not over it
        await r.set(f"{prefix}player:p3:other", "x")  # not a family: left alone
        await r.zadd(f"{prefix}queue:{{q2}}:wait", {"p4": 25.0})  # a queue of one variant
        assert await retag(r, prefix) == 3
        assert await r.zscore(f"{prefix}queue:{{q}}:2:wait", "p4") == 25.0
        assert await r.hget(f"{prefix}player:{{p1}}:races", "played") == "3"
        assert 0 < await r.ttl(f"{prefix}player:{{p1}}:races") <= 1000
        assert await r.zscore(f"{prefix}daily:{{2026-11-30:hard}}:rank", "m") == 1
        assert await r.get(f"{prefix}player:{{p2}}:days") == "new"
        assert await r.get(f"{prefix}player:p3:other") == "x"
        assert await retag(r, prefix) == 0
        assert new_name("player:p1:races") == "player:{p1}:races"
        assert new_name("player:{p1}:races") is None
    finally:
        async for key in r.scan_iter(match=f"{prefix}*"):
            await r.delete(key)
        await r.aclose()
