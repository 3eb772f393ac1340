"""Fixtures of the server tests: a real server process on the machine's Redis
(``REDIS_URL``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.serverproc import FAST, ServerProc, redis_url, running_server


@pytest.fixture(scope="session")
def race_server() -> Iterator[ServerProc]:
    """One server for the session's race tests, on the machine's Redis."""
    with running_server(redis_url(), args=FAST) as srv:
        yield srv
