"""The daily deals of the test servers: those of the documented test key (DAILY.md).

A test server is given ``TEST_SECRET`` (:func:`tests.serverproc.start_server`) and certifies
today's and tomorrow's deals itself; :func:`daily_deal` runs the same certification here
(the solver decides these deals in milliseconds, well inside its budget, so both agree).
A past day was never certified by a fresh server: :func:`plant` writes its deal into the
server's Redis, as the certifier would have on that day.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from functools import cache

import redis as redis_sync

from server.daily.deal import KINDS, TEST_SECRET, DailyDeal, certify
from server.store.keys import Keys
from tests.serverproc import ServerProc, redis_url


@cache
def daily_deal(date: str, kind: str = "daily") -> DailyDeal:
    """The deal of a day and kind under the test key."""
    return certify(TEST_SECRET, date, kind)


def plant(prefix: str, *dates: str, url: str | None = None) -> None:
    """Store the test key's deals of ``dates`` (both kinds) under ``prefix``, as a server
    would have certified them (kept an hour; a deal already stored is kept)."""
    client = redis_sync.Redis.from_url(url or redis_url(), decode_responses=True)
    keys = Keys(prefix)
    for date in dates:
        for kind in KINDS:
            client.set(
                keys.daily_deal(date, kind), daily_deal(date, kind).to_json(), nx=True, ex=3600
            )
    client.close()


def prefix_of(args: Sequence[str], env: Mapping[str, str]) -> str:
    """The key prefix a server is started with: ``--key-prefix``, else its environment's."""
    for i, arg in enumerate(args):
        if arg == "--key-prefix" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--key-prefix="):
            return arg.split("=", 1)[1]
    return env.get("SEAHAVEN_KEY_PREFIX", "")


def wait_daily(srv: ServerProc, timeout: float = 60) -> dict[str, object]:
    """Wait until the server serves today's daily (its deals are certified); its body.

    Raises:
        AssertionError: not within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        status, body = srv.get_json("/api/daily")
        if status == 200:
            return dict(body)
        assert time.monotonic() < deadline, f"no daily after {timeout} s: {status} {body}"
        time.sleep(0.05)
