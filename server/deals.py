"""Where a new room's deal comes from: the certified pools of winnable deals."""

from __future__ import annotations

import random

from .engine import format_code


def temporary_uncertified_draw(cells: int, rng: random.Random | None = None) -> str:
    """TEMPORARY, until ``server.pools`` exists: a random deal, not certified winnable."""
    r = rng or random.SystemRandom()
    return format_code(r.randrange(0, 2**35), cells)


def draw_code(cells: int, rng: random.Random | None = None) -> str:
    """The game code of a certified deal with ``cells`` cells."""
    try:
        from . import pools  # type: ignore[attr-defined,unused-ignore]

        return str(pools.draw(cells, rng).code)
    except (ImportError, FileNotFoundError):  # the pools are still being certified
        return temporary_uncertified_draw(cells, rng)
