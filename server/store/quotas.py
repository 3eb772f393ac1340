"""How many rooms an identity and a client address made lately: the bound that keeps one
client from filling the store (``slow_down``).

Each is a counter of a fixed window (``lua/quota_take.lua``): the first room of a window
starts it, and once the window's allowance is spent nothing more is taken until it ends.
A refused attempt takes nothing, from either counter: the identity's is taken first and
given back if the address's is spent. The counters name an identity by its id and an
address by its mark (:func:`server.ranked.ratings.address_mark`), never the address, and
nothing shows them but the caller's own ``slow_down``.
"""

from __future__ import annotations

from typing import Final

from .scripts import script
from .store import Store

#: The window the room allowances count over, in seconds.
ROOMS_WINDOW_S: Final = 3600


async def take_room(store: Store, pid: str, mark: str, per_player: int, per_address: int) -> int:
    """Count a new room of ``pid`` from the address of mark ``mark``.

    Returns:
        0 when both allow it (it is counted); else the seconds until the one that is spent
        allows one again (nothing is counted).
    """
    take = script(store.redis, "quota_take")
    k = store.keys
    wait = int(await take(keys=[k.rooms_made(pid)], args=[per_player, ROOMS_WINDOW_S]))
    if wait:
        return wait
    wait = int(await take(keys=[k.address_rooms(mark)], args=[per_address, ROOMS_WINDOW_S]))
    if wait:
        await store.redis.decr(k.rooms_made(pid))  # not made after all
    return wait
