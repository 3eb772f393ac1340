"""A socket's checks of what a client sends, without a socket: every frame counts against
the rate, then its size, its JSON and the protocol's models are checked before the handler
of its type sees it; bad input is answered with one clear error and reaches no handler (so
nothing changes), and whatever a handler raises is an error, never the socket's end.

On :class:`server.net.session.Conn` with a fake of the narrow
:class:`server.net.session.Instance` (``tests/helpers/fakes_session.py``). Through a server
(``test_server_input.py``): a frame past the hard cap closing the socket (1009), the
sockets of an address, the hello timeout, and frames thrown at a live game that stays
whole.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redis.exceptions import ConnectionError as RedisConnectionError

from server.net.session import AFTER_SIGN_OUT, BEFORE_HELLO
from tests.helpers.fakes_session import FakeInstance, Handlers, Sent
from tests.helpers.fuzz_frames import frames
from tests.helpers.inproc import settings as serve_settings

HELLO = '{"type": "hello", "name": "ann"}'
MOVE = '{"type": "move", "id": 1, "src": "col1", "dst": "cell3"}'


#: Settings whose per-socket rate is out of the way.
ROOMY = serve_settings(["--rate", "1000", "--burst", "1000"])


@pytest.fixture(scope="module")
def instance() -> Iterator[FakeInstance]:
    """An instance whose per-socket rate is out of the way (its sockets are each test's)."""
    made = FakeInstance(ROOMY)
    yield made
    made.close()


async def hello(conn: Sent, handlers: Handlers) -> None:
    await conn.handle(HELLO, handlers)
    assert conn.pid == "p1" and conn.answers == []


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2, 3]", "bad_json"),
        ('"just a string"', "bad_json"),
        ('{"type": "teleport"}', "unknown_type"),
        ('{"no_type": 1}', "unknown_type"),
        ('{"type": "ping", "extra": true}', "invalid_message"),
        ('{"type": "move", "id": "one", "src": "col1", "dst": "found"}', "invalid_message"),
        ('{"type": "move", "id": 1, "src": "col0", "dst": "found"}', "invalid_message"),
        ('{"type": "hello", "name": "' + "n" * 100 + '"}', "invalid_message"),
        # A leaderboard view the server does not rank.
        ('{"type": "watch_leaderboard", "date": "2026-03-14", "by": "luck"}', "invalid_message"),
        ("x" * 5000, "too_large"),
        ("♠" * 1500, "too_large"),  # 1500 characters, 4500 bytes: the cap is in bytes
        (b"\xff\xfe\x00", "bad_json"),
        (b'{"type":"ping"}', "bad_json"),  # binary: frames are JSON text
    ],
)
async def test_a_malformed_frame_is_one_error_and_reaches_no_handler(
    instance: FakeInstance, frame: str | bytes, code: str
) -> None:
    conn, handlers = Sent.on(instance), Handlers()
    await hello(conn, handlers)
    await conn.handle(frame, handlers)
    assert conn.codes() == [code] and handlers.seen == ["hello"]
    # The socket is served on: the next frame reaches its handler.
    await conn.handle(MOVE, handlers)
    assert handlers.seen == ["hello", "move"] and len(conn.answers) == 1


@pytest.mark.parametrize("bad", ['"1"', "1.0", "true"])
async def test_action_ids_are_integers(instance: FakeInstance, bad: str) -> None:
    conn, handlers = Sent.on(instance), Handlers()
    await hello(conn, handlers)
    await conn.handle('{"type":"undo","id":' + bad + "}", handlers)
    (error,) = conn.answers
    assert error["code"] == "invalid_message" and "id" in error["message"]
    assert handlers.seen == ["hello"]


async def test_hello_first(instance: FakeInstance) -> None:
    conn, handlers = Sent.on(instance), Handlers()
    await conn.handle('{"type": "create_room", "cells": 4}', handlers)
    await conn.handle(MOVE, handlers)
    assert conn.codes() == ["hello_first", "hello_first"] and handlers.seen == []
    for kind in ("ping", "resume"):  # what a socket may send before it says who it is
        assert kind in BEFORE_HELLO
    await conn.handle('{"type": "ping"}', handlers)
    await conn.handle(HELLO, handlers)
    await conn.handle('{"type": "create_room", "cells": 4}', handlers)
    assert handlers.seen == ["ping", "hello", "create_room"] and len(conn.answers) == 2


async def test_a_socket_signed_out_may_only_sign_in_again_or_leave(
    instance: FakeInstance,
) -> None:
    conn, handlers = Sent.on(instance), Handlers()
    await hello(conn, handlers)
    conn.signed_out = True
    await conn.handle('{"type": "create_room", "cells": 4}', handlers)
    await conn.handle('{"type": "solo", "cells": 4}', handlers)
    assert conn.codes() == ["signed_out", "signed_out"] and handlers.seen == ["hello"]
    assert "leave" in AFTER_SIGN_OUT
    await conn.handle('{"type": "leave"}', handlers)
    await conn.handle(HELLO, handlers)
    assert handlers.seen == ["hello", "leave", "hello"]


async def test_a_type_this_server_does_not_offer_is_unavailable(instance: FakeInstance) -> None:
    conn, handlers = Sent.on(instance), Handlers(absent=frozenset({"arena_join"}))
    await hello(conn, handlers)
    await conn.handle('{"type": "arena_join", "arena": "S4-30-29000000"}', handlers)
    assert conn.codes() == ["unavailable"] and handlers.seen == ["hello"]
    assert "arena_join" in conn.answers[0]["message"]


async def test_a_handler_that_fails_is_an_error_and_the_socket_is_served_on(
    instance: FakeInstance,
) -> None:
    conn, handlers = Sent.on(instance), Handlers()
    await hello(conn, handlers)
    redis_errors = instance.metrics.redis_errors._value.get()
    handlers.raises["move"] = RedisConnectionError("gone")
    await conn.handle(MOVE, handlers)
    handlers.raises["move"] = TimeoutError()
    await conn.handle(MOVE, handlers)
    handlers.raises["move"] = ValueError("a bug")
    await conn.handle(MOVE, handlers)
    assert conn.codes() == ["busy", "busy", "internal"]
    assert instance.metrics.redis_errors._value.get() == redis_errors + 2
    await conn.handle('{"type": "ping"}', handlers)
    assert handlers.seen[-1] == "ping" and len(conn.answers) == 3


async def test_a_flood_is_rate_limited_and_the_bucket_refills() -> None:
    instance = FakeInstance(serve_settings(["--rate", "5", "--burst", "10"]))
    try:
        conn, handlers = Sent.on(instance), Handlers()
        await hello(conn, handlers)  # one token of the burst
        for _ in range(30):
            await conn.handle('{"type": "ping"}', handlers)
        served = handlers.seen.count("ping")
        assert 9 <= served <= 10, served  # the rest of the burst (a token may refill)
        assert set(conn.codes()) == {"rate_limited"} and len(conn.answers) == 30 - served
        conn.last_check -= 0.5  # half a second later: 2.5 tokens more
        await conn.handle('{"type": "ping"}', handlers)
        await conn.handle('{"type": "ping"}', handlers)
        assert handlers.seen.count("ping") == served + 2
    finally:
        instance.close()


async def test_binary_and_oversized_frames_count_against_the_rate() -> None:
    instance = FakeInstance(serve_settings(["--rate", "2", "--burst", "2"]))
    try:
        conn, handlers = Sent.on(instance), Handlers()
        await conn.handle(b'{"type":"ping"}', handlers)  # binary: refused, and counted
        await conn.handle("x" * 5000, handlers)  # over the 4 KiB cap: refused, and counted
        await conn.handle('{"type": "ping"}', handlers)  # the burst of 2 is spent
        assert conn.codes() == ["bad_json", "too_large", "rate_limited"]
        assert handlers.seen == []
    finally:
        instance.close()


@settings(max_examples=200, deadline=None)
@given(batch=st.lists(frames, min_size=1, max_size=12))
def test_any_frame_is_one_error_or_reaches_its_handler_once(
    instance: FakeInstance, batch: list[str | bytes]
) -> None:
    async def throw() -> None:
        conn, handlers = Sent.on(instance), Handlers()
        await hello(conn, handlers)
        for frame in batch:
            before = (len(conn.answers), len(handlers.seen))
            await conn.handle(frame, handlers)
            answered = len(conn.answers) - before[0], len(handlers.seen) - before[1]
            assert answered in ((1, 0), (0, 1)), (frame, conn.answers[before[0] :])
            if answered == (1, 0):
                error = conn.answers[-1]
                assert error["type"] == "error" and error["code"] and error["message"]
                json.dumps(error)
        await conn.handle('{"type": "ping"}', handlers)
        assert handlers.seen[-1] == "ping"

    asyncio.run(throw())
