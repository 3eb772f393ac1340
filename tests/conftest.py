"""Shared fixtures: a real server process on the machine's Redis (``REDIS_URL``)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import redis

from server.store.keys import Keys
from tests.serverproc import ServerProc, redis_url, running_server

#: Serve flags for tests: a short countdown and a generous rate limit.
FAST = ["--countdown-ms", "300", "--rate", "500", "--burst", "500"]

#: The race tests' keys, under a prefix of this session's own: rooms a test session leaves
#: behind (racing on, say, since their sockets closed) never meet another session's, whose
#: deals they would keep "being raced" (no hints for them). The process id, because pytest
#: imports this file twice (as ``conftest`` and as ``tests.conftest``).
RACE_PREFIX = f"test:race:{os.getpid()}:"
RACE_KEYS = Keys(RACE_PREFIX)


@pytest.fixture(scope="session")
def race_server() -> Iterator[ServerProc]:
    """One server for the session's race tests, on the machine's Redis."""
    with running_server(redis_url(), args=FAST, env={"SEAHAVEN_KEY_PREFIX": RACE_PREFIX}) as srv:
        yield srv
    client = redis.Redis.from_url(redis_url(), decode_responses=True)
    keys = list(client.scan_iter(match=RACE_PREFIX + "*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()
