"""The daily deals of the test servers: those of the documented test key (DAILY.md).

A test server is given ``TEST_SECRET`` (:func:`tests.helpers.serverproc.start_server`) and certifies
today's and tomorrow's deals itself; :func:`daily_deal` runs the same certification here
(the solver decides these deals in milliseconds, well inside its budget, so both agree).
A past day was never certified by a fresh server: :func:`plant` writes its deal into the
server's Redis, as the certifier would have on that day.

A certification takes up to seconds (the optimal par's search), and every test process
needs the same few: each is kept in a file of the machine's temporary folder, named by a
hash of the code that computes it (the engine and ``server/daily/deal.py``), so a change
to that code computes them again.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

import redis as redis_sync

from server.daily.deal import KINDS, TEST_SECRET, DailyDeal, certify
from server.store.keys import Keys
from tests import ROOT
from tests.helpers.serverproc import ServerProc, redis_url
from tests.helpers.waits import API_STEP, until_sync


@cache
def _certified_by() -> str:
    """A hash of the code a certification runs: the engine and the daily's deal."""
    digest = hashlib.sha256()
    for path in sorted([*(ROOT / "server" / "engine").glob("*.py"), ROOT / "server/daily/deal.py"]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


@cache
def daily_deal(date: str, kind: str = "daily") -> DailyDeal:
    """The deal of a day and kind under the test key (computed once per machine and code)."""
    folder = Path(tempfile.gettempdir(), "seahaven-test-deals")
    folder.mkdir(exist_ok=True)
    kept = folder / f"{_certified_by()}-{date}-{kind}.json"
    with kept.with_suffix(".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test process may be computing it
        if kept.exists():
            return DailyDeal.from_json(date, kind, kept.read_text())
        deal = certify(TEST_SECRET, date, kind)
        part = kept.with_suffix(f".{os.getpid()}")
        part.write_text(deal.to_json())
        part.replace(kept)
        return deal


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

    def served() -> dict[str, object] | None:
        status, body = srv.get_json("/api/daily")
        return dict(body) if status == 200 else None

    return until_sync(served, timeout, "the server serving today's daily", step=API_STEP)
