"""Leases in Redis: one holder at a time does a job, on whichever instance.

The daily certifier (``daily:certifier``), an arena's pairing (``arena:{A}:lease``) and the
review of one finish (``review:claim:...``) are each held by one instance under a lease
(``lua/lease.lua``): taken only when free (or by its holder again, which renews it), renewed
and dropped only by its holder, and expiring on its own when the holder dies.
"""

from __future__ import annotations

from typing import Any

from .scripts import script


async def _lease(redis: Any, key: str, op: str, holder: str, ms: int = 0) -> bool:
    return bool(await script(redis, "lease")(keys=[key], args=[op, holder, ms]))


async def take(redis: Any, key: str, holder: str, ms: int) -> bool:
    """Take the lease ``key`` for ``ms`` (renew it if ``holder`` holds it): True when
    ``holder`` holds it now."""
    return await _lease(redis, key, "take", holder, ms)


async def renew(redis: Any, key: str, holder: str, ms: int) -> bool:
    """Renew the lease for ``ms``; False when ``holder`` no longer holds it."""
    return await _lease(redis, key, "renew", holder, ms)


async def drop(redis: Any, key: str, holder: str) -> bool:
    """Give the lease back (only if ``holder`` still holds it)."""
    return await _lease(redis, key, "drop", holder)
