"""The move script's keys and arguments are named once on each side, in the same order:
``lua/move.lua`` unpacks them into locals of the names the server's ``MOVE_KEYS`` and
``MOVE_ARGV`` give, and the server builds them by those names (a script that read an
argument at another position than the server puts it would commit garbage without an
error)."""

from __future__ import annotations

import re
from pathlib import Path

from server.store.commit import MOVE_ARGV, MOVE_KEYS, BoardLimits, MoveCommit, move_keys
from server.store.keys import Keys

MOVE_LUA = Path(__file__).resolve().parents[3] / "server" / "store" / "lua" / "move.lua"


def lua_names(source: str, table: str) -> tuple[str, ...]:
    """The locals the script unpacks ``table`` (KEYS or ARGV) into, in order:
    ``local a, b, ... = unpack(TABLE)``."""
    found = re.search(r"^local ([\w,\s]+?) = unpack\(" + table + r"\)", source, re.M)
    assert found, f"move.lua unpacks its {table} into named locals"
    return tuple(name.strip() for name in found.group(1).split(","))


def header_names(source: str, table: str) -> tuple[str, ...]:
    """The names the script's header lists for ``table``: each item's first word."""
    header = "".join(line[2:] for line in source.splitlines() if line.startswith("--"))
    text = re.search(table + r": (.*?)(?:KEYS:|ARGV:|Returns)", header)
    assert text, f"move.lua's header lists its {table}"
    items = re.sub(r"\([^)]*\)", "", text.group(1)).replace(".", "").split(",")
    return tuple(item.split()[0] for item in items)


def commit() -> MoveCommit:
    entries, bodies, legal = ("1\t7.1\ttap col1", "1\t7.2\ttap col2"), ("{", "{"), ("{}", "{}")
    return MoveCommit("R", 1, "p", 7, 3, entries, bodies, bodies, legal, True, 0, 0, "", "c", 99)


def test_the_script_and_the_server_name_the_same_keys_and_arguments_in_order() -> None:
    source = MOVE_LUA.read_text(encoding="utf-8")
    assert lua_names(source, "KEYS") == MOVE_KEYS
    assert lua_names(source, "ARGV") == MOVE_ARGV
    assert header_names(source, "KEYS") == MOVE_KEYS
    assert header_names(source, "ARGV") == MOVE_ARGV


def test_the_script_reads_them_by_name_alone() -> None:
    source = MOVE_LUA.read_text(encoding="utf-8")
    body = "\n".join(line for line in source.splitlines() if not line.startswith("--"))
    assert not re.findall(r"(?:KEYS|ARGV)\[", body)  # no position: a name of the lists


def test_the_server_builds_every_named_value_and_nothing_else() -> None:
    assert set(commit().arguments(60, BoardLimits())) == set(MOVE_ARGV)
    assert set(move_keys(Keys(), "R", 1, "p")) == set(MOVE_KEYS)
    values = commit().argv(ttl=60, limits=BoardLimits(5.0, 9, 100))
    at = dict(zip(MOVE_ARGV, values, strict=True))
    assert at["entries"] == "1\t7.1\ttap col1\n1\t7.2\ttap col2"
    assert at["legal"] == "{}\n{}" and at["perfect"] == 0 and at["finishing"] == 1
    assert (at["pid"], at["version"], at["id"], at["ttl"]) == ("p", 3, 7, 60)
    assert (at["now"], at["rate"], at["burst"], at["max_actions"]) == (99, 5.0, 9, 100)


def test_the_checks_see_a_swap() -> None:
    source = MOVE_LUA.read_text(encoding="utf-8")
    swapped = source.replace("time_ms, moves, result,", "moves, time_ms, result,")
    assert swapped != source and lua_names(swapped, "ARGV") != MOVE_ARGV
