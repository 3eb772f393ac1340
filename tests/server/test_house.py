"""The shape of the server: one registry of handlers that refuses duplicates, one Settings
that alone reads the environment, every Redis key under the instance's prefix, every Lua
script with its KEYS/ARGV header, and the move script's arguments as a named structure."""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest
import redis.asyncio as aioredis

from protocol.models import ClientMessage
from server.app import HANDLER_MODULES, build_registry
from server.clients.bot import action_message
from server.engine import Board
from server.engine.solver import solve
from server.net.registry import DuplicateHandler, Registry, Routes
from server.settings import Settings
from server.store import scripts
from server.store.families import FAMILIES
from server.store.keys import Keys
from tests import ROOT
from tests.helpers.cli import run_seahaven
from tests.helpers.serverproc import QUICK, WsClient, redis_url, running_server

CODE = "SH1-C4-AAAAAAB"


def client_types() -> set[str]:
    """Every ``type`` a client may send, from the protocol's tagged union."""
    union = get_args(get_args(ClientMessage)[0])
    return {get_args(model.model_fields["type"].annotation)[0] for model in union}


def test_every_client_message_has_exactly_one_handler() -> None:
    registry = build_registry()
    assert set(registry.ws) == client_types()


def test_a_second_handler_for_a_message_is_refused() -> None:
    registry = Registry()
    first, second = Routes(), Routes()

    @first.ws("hello")
    async def one(*args: object) -> None: ...

    @second.ws("hello")
    async def two(*args: object) -> None: ...

    registry.include(first)
    with pytest.raises(DuplicateHandler, match="hello"):
        registry.include(second)
    assert registry.ws["hello"] is one
    with pytest.raises(DuplicateHandler):
        first.ws("hello")(two)


def test_a_second_route_is_refused() -> None:
    api = next(m for m in HANDLER_MODULES if m.__name__ == "server.http.api")
    registry = Registry()
    registry.include(api.routes)
    with pytest.raises(DuplicateHandler, match="/api/daily"):
        registry.include(api.routes)


def test_handlers_do_not_depend_on_import_order() -> None:
    # A fresh interpreter that imports the handler modules in reverse builds the same table.
    code = (
        "import importlib, sys\n"
        "names = [m.__name__ for m in __import__('server.app').app.HANDLER_MODULES]\n"
        "for name in reversed(names): importlib.import_module(name)\n"
        "from server.app import build_registry\n"
        "r = build_registry()\n"
        "print(sorted((k, v.__module__ + '.' + v.__qualname__) for k, v in r.ws.items()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    mine = sorted((k, v.__module__ + "." + v.__qualname__) for k, v in build_registry().ws.items())
    assert out == str(mine)


def test_settings_come_from_flags_then_environment_then_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SEAHAVEN_COUNTDOWN_MS", "1234")
    monkeypatch.setenv("SEAHAVEN_ALLOWED_ORIGINS", "https://a.example, https://b.example")
    monkeypatch.setenv("REDIS_URL", "redis://elsewhere:6379/0")
    monkeypatch.delenv("SEAHAVEN_REDIS_URL", raising=False)
    from_env = Settings()
    assert from_env.countdown_ms == 1234
    assert from_env.allowed_origins == ("https://a.example", "https://b.example")
    assert from_env.redis_url == "redis://elsewhere:6379/0"
    assert from_env.room_ttl == 6 * 3600  # the default
    assert Settings(countdown_ms=5).countdown_ms == 5  # a flag beats the environment
    with pytest.raises(ValueError, match="frozen"):
        from_env.port = 1


def test_bad_settings_are_refused_with_the_field_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEAHAVEN_RATE_BURST", "0")
    with pytest.raises(ValueError, match="rate_burst"):
        Settings()


def test_serve_help_shows_every_setting_with_its_default() -> None:
    out = run_seahaven("serve", "--help", env={"COLUMNS": "200"}).stdout
    for name, field in Settings.model_fields.items():
        assert f"SEAHAVEN_{name.upper()}" in out, name
        if isinstance(field.default, int | float | str) and name != "static_dir":
            assert f"default: {field.default}" in out, name


def test_only_settings_reads_the_environment() -> None:
    readers = []
    for path in (ROOT / "server").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if re.search(r"os\.environ|getenv\(", text) and path.name != "settings.py":
            readers.append(path.relative_to(ROOT).as_posix())
    assert readers == []


def test_every_lua_script_says_its_keys_and_argv() -> None:
    folder = ROOT / "server" / "store" / "lua"
    for path in sorted(folder.glob("*.lua")):
        if path.name == "common.lua":
            continue
        head = path.read_text(encoding="utf-8").split("\n")[:8]
        comments = "\n".join(line for line in head if line.startswith("--"))
        assert "KEYS:" in comments and "ARGV:" in comments, path.name
        source = scripts.source(path.stem)
        uses_common = head[0] == "-- uses: common"
        assert ("local function emit(" in source) == uses_common, path.name


def _python_sources(*bases: str) -> list[Path]:
    return sorted(
        p for base in bases for p in (ROOT / base).rglob("*.py") if ".venv" not in p.parts
    )


def _server_sources_but(*skipped: str) -> list[Path]:
    """The server's modules but those under (or at) each of ``skipped``, paths from the
    repository's root (``server/store/``, ``server/fairplay/standing.py``)."""
    return [
        p
        for p in _python_sources("server")
        if not p.relative_to(ROOT).as_posix().startswith(skipped)
    ]


#: Split, so that this module's own source is no finding.
LUA_CALLS = ("redis" + ".call(", "redis" + ".pcall(")
REGISTER = "register" + "_script("


def lines_with(paths: list[Path], needles: tuple[str, ...]) -> list[str]:
    """``path:line`` of every line of ``paths`` holding one of ``needles``."""
    return [
        f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p.name}:{n}"
        for p in paths
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if any(needle in line for needle in needles)
    ]


def test_no_lua_is_written_in_a_python_string() -> None:
    """Lua lives in ``*.lua`` files (the server's in ``server/store/lua``, read by
    :mod:`server.store.scripts`): a script in a Python string is out of sight of the
    KEYS/ARGV check above and of the registry."""
    assert (
        lines_with(_python_sources("server", "protocol", "bench", "tests", "scripts"), LUA_CALLS)
        == []
    )


def test_scripts_are_registered_only_by_the_registry() -> None:
    """One registry (:func:`server.store.scripts.script`) registers each script once per
    client; a module that registers its own keeps a second cache of the same scripts."""
    registry = ROOT / "server" / "store" / "scripts.py"
    found = lines_with(
        [p for p in _python_sources("server", "bench") if p != registry], (REGISTER,)
    )
    assert found == []


def test_the_checks_above_see_a_script_in_a_string(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    lua = "return " + LUA_CALLS[0] + "'GET', KEYS[1])"
    bad.write_text(f"S = {lua!r}\n\n\nr.{REGISTER}S)\n")
    assert lines_with([bad], LUA_CALLS) == ["bad.py:1"]
    assert lines_with([bad], (REGISTER,)) == ["bad.py:4"]


def commands_sent(path: Path) -> list[str]:
    """The Redis commands a module sends itself: calls on a client named ``redis`` (or an
    attribute ``redis``), and pipelines or pub/sub connections it opens (closing a client is
    no command)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value
        on_client = (isinstance(owner, ast.Name) and owner.id == "redis") or (
            isinstance(owner, ast.Attribute) and owner.attr == "redis"
        )
        opens = node.func.attr in ("pipeline", "pubsub", "register_script")
        if (on_client and node.func.attr != "aclose") or opens:
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node.func)}")
    return found


def test_redis_is_called_only_from_the_store_and_the_transport() -> None:
    """The concern packages call named operations of :mod:`server.store` (which know the
    keys) or :mod:`server.transport` (which know the connections), never Redis itself."""
    outside = _server_sources_but("server/store/", "server/transport/")
    assert [call for p in outside for call in commands_sent(p)] == []


def test_the_command_check_sees_a_call(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "async def f(ctx, redis):\n"
        "    await ctx.redis.hget('k', 'f')\n"
        "    await redis.aclose()\n"
        "    async with ctx.store.redis.pipeline() as pipe:\n"
        "        pipe.get('k')\n"
    )
    assert commands_sent(bad) == ["bad.py:2 ctx.redis.hget", "bad.py:4 ctx.store.redis.pipeline"]


#: The store's reads of a bar or a flag: only the standing gate asks them.
BAR_AND_FLAG_READS = frozenset({"is_barred", "barred_among", "flagged", "flagged_among"})


def bar_and_flag_checks(path: Path) -> list[str]:
    """Calls in a module that read a bar or a flag straight from a store."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno} {ast.unparse(node.func)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in BAR_AND_FLAG_READS
    ]


def test_a_bar_or_a_flag_is_asked_only_through_the_standing_gate() -> None:
    """Whether a player may rank or show is :mod:`server.fairplay.standing`'s question: the
    store's bar and flag reads are called there and nowhere else in the server."""
    outside = _server_sources_but("server/fairplay/standing.py", "server/store/")
    assert [call for p in outside for call in bar_and_flag_checks(p)] == []


def test_the_gate_check_sees_a_call(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "async def f(ctx, pid):\n"
        "    if await ctx.reviews.is_barred(pid):\n"
        "        return await store.flagged(pid)\n"
    )
    assert bar_and_flag_checks(bad) == ["bad.py:2 ctx.reviews.is_barred", "bad.py:3 store.flagged"]


#: The loops of the server that sleep and are not timers: a pub/sub reader's reconnection,
#: a cluster call's redirects (bounded by its timeout), the serve parent's worker keeper,
#: the bot client's socket. Every other loop that waits is :func:`server.periodic.periodic`.
NOT_TIMERS = frozenset(
    {
        "server/transport/feed.py",
        "server/transport/announcements.py",
        "server/transport/batch.py",
        "server/commands/serve/workers.py",
        "server/clients/bot.py",
        "server/periodic.py",
    }
)


def sleeping_loops(path: Path) -> list[str]:
    """``while True`` loops of a module that sleep: a timer that owns its wait."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.While)
            and isinstance(node.test, ast.Constant)
            and node.test.value is True
        ):
            continue
        if any(
            isinstance(inner, ast.Call) and ast.unparse(inner.func) == "asyncio.sleep"
            for inner in ast.walk(node)
        ):
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_every_timer_loop_is_periodic() -> None:
    """A background loop owns no sleep, ``try`` or shutdown of its own: it is a step given
    to :func:`server.periodic.periodic` (a loop with its own sleep and catch is the one
    that swallows a cancellation and holds the shutdown)."""
    own = _server_sources_but(*NOT_TIMERS)
    assert [loop for p in own for loop in sleeping_loops(p)] == []


def test_the_loop_check_sees_a_timer(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "async def renew(lease):\n"
        "    while True:\n"
        "        await asyncio.sleep(10)\n"
        "        await lease.renew()\n"
        "    while lease.held:\n"
        "        await asyncio.sleep(1)\n"
    )
    assert sleeping_loops(bad) == ["bad.py:2"]


#: A sample value for each parameter of a key method.
SAMPLES = {
    "room": "R7",
    "round_": 2,
    "pid": "p_9",
    "cells": 4,
    "date": "2026-12-03",
    "kind": "daily",
    "code": "SH1-C4-AAAAAAB",
    "token": "tok",
    "replay_id": "R7-2-p_9",
    "result": "R7-2-p_9",
    "instance_id": "inst",
    "arena": "S4-30-9",
    "mark": "0123456789abcdef",
    "address": "10.0.0.1",
    "credential": "AbC_-12",
    "locator": "K7QF",
}
#: Key methods that name a channel or read a name, not a key.
NOT_KEYS = {"channel", "leaderboard_channel", "leaderboard_pattern", "room_of_channel"}
NOT_KEYS |= {"parse_leaderboard_channel", "own_channel"}
NOT_KEYS |= {"sign_out_channel", "sign_out_pattern", "parse_sign_out_channel"}


def built_keys() -> dict[str, str]:
    """Every key method of :class:`Keys` with the name it builds from sample values."""
    keys = Keys("")
    out = {}
    for name, method in inspect.getmembers(Keys, inspect.isfunction):
        if name.startswith("_") or name in NOT_KEYS:
            continue
        params = [p for p in inspect.signature(method).parameters if p != "self"]
        out[name] = method(keys, *(SAMPLES[p] for p in params))
    return out


def test_the_key_table_lists_exactly_the_keys_the_code_builds() -> None:
    """``server.store.keys.FAMILIES`` is the list of every key family (docs/server.md shows
    it): each key the code can build belongs to exactly one family, and each family is built
    by the code."""
    built = built_keys()
    owners = {
        name: [f.pattern for f in FAMILIES if f.regex().fullmatch(key)]
        for name, key in built.items()
    }
    assert {name: found for name, found in owners.items() if len(found) != 1} == {}
    used = {found[0] for found in owners.values()}
    assert sorted(f.pattern for f in FAMILIES if f.pattern not in used) == []


async def test_every_key_of_a_game_is_under_the_prefix() -> None:
    prefix = f"house-{secrets.token_hex(4)}:"
    line = solve(Board.from_code(CODE)).moves
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        env = {"SEAHAVEN_KEY_PREFIX": prefix}
        with running_server(redis_url(), env=env, args=QUICK) as srv:
            ann = await WsClient.connect(srv.ws_url, "Ann")
            await ann.send({"type": "solo", "code": CODE})
            room = (await ann.expect("snapshot"))["room_id"]
            for i, text in enumerate(line, 1):
                await ann.send(action_message(text, i))
                await ann.expect("ack", id=i)
            await ann.expect("finished")
            await ann.close()
            # The finish is recorded in the background: wait for the replay.
            for _ in range(100):
                if [k async for k in r.scan_iter(match=f"{prefix}replay:*")]:
                    break
                await asyncio.sleep(0.05)
        names = [room, ann.player_id, ann.token]
        found = {n: [k async for k in r.scan_iter(match=f"*{n}*", count=1000)] for n in names}
        assert all(found.values()), found
        for name, keys in found.items():
            assert all(k.startswith(prefix) for k in keys), (name, keys)
        assert [k async for k in r.scan_iter(match=f"{prefix}replay:*")]
    finally:
        async for key in r.scan_iter(match=f"{prefix}*", count=1000):
            await r.delete(key)
        await r.aclose()
