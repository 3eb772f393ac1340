"""Shared fixtures: a real server process on the machine's Redis (``REDIS_URL``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.serverproc import ServerProc, redis_url, running_server

#: Serve flags for tests: a short countdown and a generous rate limit.
FAST = ["--countdown-ms", "300", "--rate", "500", "--burst", "500"]


@pytest.fixture(scope="session")
def race_server() -> Iterator[ServerProc]:
    """One server for the session's race tests, on the machine's Redis."""
    with running_server(redis_url(), args=FAST) as srv:
        yield srv
