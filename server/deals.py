"""Where a new room's deal comes from: the certified pools of winnable deals."""

from __future__ import annotations

import random

from .pools import draw


def draw_code(cells: int, rng: random.Random | None = None) -> str:
    """The game code of a certified (proven winnable) deal with ``cells`` cells."""
    return draw(cells, rng).code
