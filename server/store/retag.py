"""Give the keys written before they had their hash tags their new names.

``player:PID:races`` became ``player:{PID}:races`` and ``daily:DATE:KIND:rank`` became
``daily:{DATE:KIND}:rank`` (and the same for their siblings), so that the keys a script
writes together share a Redis Cluster slot; later the quick-race queues'
``queue:{qC}:wait`` became ``queue:{q}:C:wait`` (every variant's queue in one slot). On a
plain Redis, at start, each key under the old name is renamed (``RENAMENX``: its value and
TTL kept, never over a key written under the new name since), so that leaderboards,
histories and waiting players written before stay; instances starting together (workers)
each rename what the others have not. A cluster starts with the new names (its keys were
never written under the old ones).
"""

from __future__ import annotations

import re
from typing import Any, Final

from redis.exceptions import ResponseError

#: Old names (after the prefix) and how to tag them.
_OLD: Final = (
    (re.compile(r"^player:([^:{}]+):(races|recent|counted|days)$"), r"player:{\1}:\2"),
    (
        re.compile(r"^daily:(\d{4}-\d{2}-\d{2}):(daily|hard):(rank|entries|attempts)$"),
        r"daily:{\1:\2}:\3",
    ),
    (re.compile(r"^queue:\{q([421])\}:(wait|info|paired)$"), r"queue:{q}:\1:\2"),
)


def new_name(name: str) -> str | None:
    """The tagged name of a key of the old form (after the prefix), or None."""
    for pattern, replacement in _OLD:
        if pattern.match(name):
            return pattern.sub(replacement, name)
    return None


async def retag(redis: Any, prefix: str) -> int:
    """Rename every key of the old form under ``prefix``; returns how many were renamed."""
    renamed = 0
    for stem in ("player:", "daily:", "queue:"):
        async for key in redis.scan_iter(match=f"{_glob(prefix)}{stem}*", count=1000):
            name = key[len(prefix) :]
            target = new_name(name)
            if target is None:
                continue
            try:
                renamed += bool(await redis.renamenx(key, prefix + target))
            except ResponseError as exc:  # renamed since the scan, by another instance
                if "no such key" not in str(exc).lower():
                    raise
    return renamed


def _glob(text: str) -> str:
    """``text`` as a literal in a SCAN pattern."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)
