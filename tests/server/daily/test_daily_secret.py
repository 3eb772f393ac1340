"""The secret deal on real servers: certified once under a lease, read back by every
instance and after a restart, refused without a secret; and today's deals played only in
the daily (reading the deal ahead, replaying a day, forging a date)."""

from __future__ import annotations

import datetime as dt
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis as redis_sync

from server.daily.deal import KINDS, DailyDeal, certify, today
from server.engine import format_code, parse_code
from server.pools import load_pool
from server.records.replays import replay_id
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal, wait_daily
from tests.helpers.daily_server import get, line_of, wire
from tests.helpers.serverproc import (
    FAST,
    ServerProc,
    WsClient,
    drop_keys,
    redis_url,
    running_server,
)
from tests.helpers.waits import until, until_sync

#: A secret of these tests' own (not the test key): its deals are certified by the servers.
SECRET = "a deployment of the tests, " + secrets.token_hex(8)


@pytest.fixture
def prefix() -> Iterator[str]:
    name = f"test:secret:{secrets.token_hex(6)}:"
    yield name
    drop_keys(name)


def stored(prefix: str, date: str, kind: str) -> DailyDeal | None:
    client = redis_sync.Redis.from_url(redis_url(), decode_responses=True)
    text = client.get(Keys(prefix).daily_deal(date, kind))
    client.close()
    return None if text is None else DailyDeal.from_json(date, kind, str(text))


def certified_lines(srv: ServerProc) -> list[str]:
    return [line for line in srv.log().splitlines() if "certified the" in line]


# -- 1. a secret deal ------------------------------------------------------------------------


@pytest.mark.slow
async def test_a_fresh_server_certifies_today_and_tomorrow_under_its_secret(prefix: str) -> None:
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_DAILY_SECRET": SECRET}
    began = time.monotonic()
    with running_server(redis_url(), args=FAST, env=env) as srv:
        body = wait_daily(srv)
        took = time.monotonic() - began
        print(f"\ntoday's daily served {took:.2f} s after the server was started")
        date = today().isoformat()
        expected = {kind: certify(SECRET, date, kind) for kind in KINDS}
        assert body["par"] == expected["daily"].par and "code" not in body
        assert body["hard"] == {
            "par": expected["hard"].par,
            "par_optimal": expected["hard"].optimal,
        }
        for kind, hard in (("daily", False), ("hard", True)):
            ann = await WsClient.connect(srv.ws_url, "ann")
            await ann.send({"type": "daily", "hard": hard})
            snap = await ann.expect("snapshot")
            assert snap["code"] == expected[kind].code  # the secret's, not the test key's
            assert snap["code"] != daily_deal(date, kind).code
            await ann.close()
        # Tomorrow's is certified ahead of its day, stored for every instance.
        tomorrow = (today() + dt.timedelta(days=1)).isoformat()
        # The optimal par: seconds of CPU, more on a busy host.
        await until(lambda: stored(prefix, tomorrow, "hard"), 120, "tomorrow's hard deal")
        assert stored(prefix, tomorrow, "daily") == certify(SECRET, tomorrow, "daily")
        # Tomorrow is not out yet: the API refuses it, whatever Redis holds.
        assert get(srv, f"/api/daily/{tomorrow}")[1]["error"] == "future_date"


@pytest.mark.slow
def test_two_servers_on_one_redis_certify_once_and_serve_the_same(prefix: str) -> None:
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_DAILY_SECRET": SECRET}
    with (
        running_server(redis_url(), args=FAST, env=env) as one,
        running_server(redis_url(), args=FAST, env=env) as two,
    ):
        first, second = wait_daily(one), wait_daily(two)
        assert first == second
        tomorrow = (today() + dt.timedelta(days=1)).isoformat()
        # The optimal par: seconds of CPU, more on a busy host.
        until_sync(lambda: stored(prefix, tomorrow, "hard"), 120, "tomorrow's hard deal")
        # Four deals (today's and tomorrow's, both kinds), each certified by one server (the
        # log line follows the write).
        until_sync(lambda: len(certified_lines(one) + certified_lines(two)) >= 4, 30, "4 lines")
        lines = certified_lines(one) + certified_lines(two)
        assert len(lines) == 4, lines
        assert len({line.split("certified the", 1)[1].split(" in ")[0] for line in lines}) == 4


@pytest.mark.slow
def test_an_instance_with_another_secret_serves_the_stored_deal_and_says_so(
    prefix: str,
) -> None:
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_DAILY_SECRET": SECRET}
    with running_server(redis_url(), args=FAST, env=env) as one:
        first = wait_daily(one)
        other = {**env, "SEAHAVEN_DAILY_SECRET": "a misconfigured instance"}
        with running_server(redis_url(), args=FAST, env=other) as two:
            assert wait_daily(two) == first  # one deal a day for the deployment
            until_sync(lambda: "another daily secret" in two.log(), 10, "the warning logged")
        assert "another daily secret" not in one.log()


@pytest.mark.slow
def test_a_restart_reuses_the_stored_deal(prefix: str) -> None:
    """What is stored wins: a restarted server (or one whose secret or solver timing
    differ) serves the day's stored deal and certifies nothing again."""
    date = today().isoformat()
    keys, client = Keys(prefix), redis_sync.Redis.from_url(redis_url(), decode_responses=True)
    planted = {
        "daily": DailyDeal(date, "daily", load_pool(4)[7].code, load_pool(4)[7].par, 0),
        "hard": DailyDeal(date, "hard", load_pool(1)[7].code, load_pool(1)[7].par, 0),
    }
    for kind, deal in planted.items():
        client.set(keys.daily_deal(date, kind), deal.to_json(), ex=3600)
    client.close()
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_DAILY_SECRET": SECRET}
    tomorrow = (today() + dt.timedelta(days=1)).isoformat()
    with running_server(redis_url(), args=FAST, env=env) as srv:
        assert wait_daily(srv)["par"] == planted["daily"].par
        # It certifies tomorrow's deals (none stored), never today's (stored).
        watch = redis_sync.Redis.from_url(redis_url(), decode_responses=True)
        until_sync(
            lambda: all(watch.exists(keys.daily_deal(tomorrow, kind)) for kind in planted),
            120,
            "tomorrow's deals certified",
        )
        watch.close()
        assert not any(f"deal of {date}" in line for line in certified_lines(srv))
    with running_server(redis_url(), args=FAST, env=env) as again:
        hard = wait_daily(again)["hard"]
        assert isinstance(hard, dict) and hard["par"] == planted["hard"].par
        time.sleep(1)
        assert certified_lines(again) == []  # today's and tomorrow's: all stored already


async def test_a_server_without_a_secret_serves_no_daily(prefix: str) -> None:
    date = today().isoformat()
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_DAILY_SECRET": ""}
    with running_server(redis_url(), args=FAST, env=env) as srv:
        status, body = get(srv, "/api/daily")
        assert (status, body["error"]) == (503, "unavailable")
        assert "secret" in body["message"]
        ann = await WsClient.connect(srv.ws_url, "ann")
        await ann.send({"type": "daily"})
        refused = await ann.expect("error")
        assert refused["code"] == "unavailable" and ann.find("snapshot") is None
        await ann.close()
        time.sleep(0.5)
        assert stored(prefix, date, "daily") is None  # and it certifies nothing
        assert "no --daily-secret" in srv.log()


@pytest.mark.slow
async def test_the_embedded_default_keeps_its_secret_in_the_data_folder(tmp_path: Path) -> None:
    with running_server(None, data_dir=tmp_path, args=FAST) as srv:
        first = wait_daily(srv)
        ann = await WsClient.connect(srv.ws_url, "ann")
        await ann.send({"type": "daily"})
        code = (await ann.expect("snapshot"))["code"]
        await ann.close()
    path = tmp_path / "daily-secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    secret = path.read_text().strip()
    assert len(secret) >= 40
    assert code == certify(secret, today().isoformat(), "daily").code
    with running_server(None, data_dir=tmp_path, args=FAST) as srv:
        assert wait_daily(srv) == first
        assert path.read_text().strip() == secret


# -- 2. today's deals are played only in the daily ---------------------------------------------


@pytest.fixture
def server(prefix: str) -> Iterator[ServerProc]:
    with running_server(redis_url(), args=FAST, env={"SEAHAVEN_KEY_PREFIX": prefix}) as srv:
        wait_daily(srv)
        yield srv


async def test_a_running_days_deal_is_refused_as_a_typed_code_in_any_cell_count(
    server: ServerProc,
) -> None:
    """Route 3: "Play this code" took today's code as a solo game (undos, hints, a public
    replay), and a race room took it too; every cell count of its deal number is refused."""
    date = today().isoformat()
    eve = await WsClient.connect(server.ws_url, "eve")
    for kind in KINDS:
        number = parse_code(daily_deal(date, kind).code).deal
        for cells in (4, 2, 1):
            code = format_code(number, cells)
            for msg in ({"type": "solo", "code": code}, {"type": "create_room", "code": code}):
                await eve.send(msg)
                refused = await eve.expect("error")
                assert refused["code"] == "daily_only", (msg, refused)
                assert eve.find("snapshot") is None
    # An ordinary code is played as before.
    await eve.send({"type": "solo", "code": load_pool(4)[3].code})
    assert (await eve.expect("snapshot"))["code"] == load_pool(4)[3].code
    await eve.close()


async def test_a_solo_replay_of_a_running_days_deal_is_not_public(prefix: str) -> None:
    """A solo win's replay was public at once and cached for a year; on a deal that is a
    running day's (a game begun before its day was certified) it is its player's alone."""
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_DAILY_SECRET": ""}  # certifies nothing
    entry = load_pool(4)[11]
    with running_server(redis_url(), args=FAST, env=env) as srv:
        ann = await WsClient.connect(srv.ws_url, "ann")
        await ann.send({"type": "solo", "code": entry.code})
        room = (await ann.expect("snapshot"))["room_id"]
        for i, action in enumerate(line_of(entry.code), start=1):
            await ann.send(wire(action, i))
        await ann.expect("finished", timeout=20)
        rid = replay_id(room, 1, ann.player_id)

        # The replay is kept just after the finish is announced (a busy host: later).
        def kept() -> Any:
            status, body = get(srv, f"/api/replay/{rid}")
            return body if status == 200 else None

        public = await until(kept, what="the public replay")
        assert public["kind"] == "solo"
        # Its deal number becomes today's hard deal (another cell count, too).
        date = today().isoformat()
        client = redis_sync.Redis.from_url(redis_url(), decode_responses=True)
        twin = DailyDeal(date, "hard", format_code(entry.deal, 1), 80, 0)
        client.set(Keys(prefix).daily_deal(date, "hard"), twin.to_json(), ex=3600)
        client.close()
        assert get(srv, f"/api/replay/{rid}")[0] == 404
        status, mine = get(srv, f"/api/replay/{rid}", ann.token)
        assert status == 200 and mine["code"] == entry.code
        # And even a server without a secret refuses the deal as a typed code.
        await ann.send({"type": "leave"})
        await ann.expect("left")
        await ann.send({"type": "solo", "code": entry.code})
        assert (await ann.expect("error", code="daily_only"))["code"] == "daily_only"
        await ann.close()
