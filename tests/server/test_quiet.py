"""The failure log that does not flood (server/quiet.py)."""

from __future__ import annotations

import logging

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from server.quiet import Quiet


def fail(quiet: Quiet, kind: str, error: Exception) -> None:
    try:
        raise error
    except Exception:
        quiet.failure(kind, "acting on %s failed", kind)


def test_a_lost_connection_is_one_line_and_a_bug_keeps_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    quiet = Quiet(logging.getLogger("test.quiet"), every=60.0)
    with caplog.at_level(logging.ERROR, logger="test.quiet"):
        fail(quiet, "janitor", RedisConnectionError("Error 111 connecting to redis.socket"))
        fail(quiet, "settle", KeyError("round"))
    lost, bug = caplog.records
    assert lost.getMessage() == (
        "acting on janitor failed: ConnectionError: Error 111 connecting to redis.socket"
    )
    assert lost.exc_info is None
    assert bug.getMessage() == "acting on settle failed"
    assert bug.exc_info is not None and bug.exc_info[0] is KeyError


def test_more_of_a_kind_within_the_period_are_counted_not_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    quiet = Quiet(logging.getLogger("test.quiet"), every=0.0)
    slow = Quiet(logging.getLogger("test.quiet"), every=60.0)
    with caplog.at_level(logging.ERROR, logger="test.quiet"):
        for _ in range(3):
            fail(slow, "pubsub", TimeoutError("read"))
        assert len(caplog.records) == 1
        fail(quiet, "hub", ValueError("x"))
        fail(quiet, "hub", ValueError("x"))
    assert caplog.records[-1].getMessage() == "acting on hub failed (0 more since the last report)"
