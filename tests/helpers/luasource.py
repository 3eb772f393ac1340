"""Reading the store's Lua scripts in tests that hold a Python declaration to a script."""

from __future__ import annotations

from tests import ROOT

#: The store's scripts (server/store/lua).
LUA = ROOT / "server" / "store" / "lua"


def lua(name: str) -> str:
    """The text of ``lua/NAME.lua``."""
    return (LUA / f"{name}.lua").read_text(encoding="utf-8")


def top_level_split(text: str) -> list[str]:
    """Lua call arguments or table items, split at the commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts
