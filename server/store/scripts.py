"""The Lua scripts of the store, read from ``lua/*.lua`` beside this module.

Each file starts with a comment giving its ``KEYS`` and ``ARGV``. A file whose first line
is ``-- uses: common`` gets ``common.lua`` (the event helpers) put in front of it.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

_USES_COMMON = "-- uses: common"


def _read(name: str) -> str:
    return (resources.files(__package__) / "lua" / f"{name}.lua").read_text(encoding="utf-8")


@cache
def source(name: str) -> str:
    """The full source of the script ``name`` (``lua/NAME.lua``), helpers included.

    Raises:
        FileNotFoundError: there is no such script.
    """
    text = _read(name)
    if text.startswith(_USES_COMMON):
        return _read("common") + text
    return text
