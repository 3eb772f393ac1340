"""The daily deal: a documented pure function of the date, the same on every instance."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import subprocess
import sys

import pytest

from server.daily.deal import (
    FIRST_DAY,
    SPAN,
    DailyError,
    daily_deal,
    daily_index,
    daily_json,
    day_bounds,
    draw_open,
    is_running,
    parse_date,
    running_codes,
    today,
)
from server.engine import Board
from server.pools import PoolEntry, draw, load_pool
from tests import ROOT

NOON = dt.datetime(2026, 6, 15, 12, 0, tzinfo=dt.UTC)


def test_the_index_is_the_documented_function() -> None:
    # protocol/DAILY.md: first 8 bytes of SHA-256("SH1-daily-" + date + "-" + kind),
    # big-endian, modulo the pool size.
    digest = hashlib.sha256(b"SH1-daily-2026-03-14-daily").digest()
    assert daily_index("2026-03-14", "daily", 1000) == int.from_bytes(digest[:8], "big") % 1000
    digest = hashlib.sha256(b"SH1-daily-2026-03-14-hard").digest()
    assert daily_index("2026-03-14", "hard", 777) == int.from_bytes(digest[:8], "big") % 777


@pytest.mark.parametrize("kind,cells", [("daily", 4), ("hard", 1)])
def test_the_deal_is_the_pool_entry_at_the_index(kind: str, cells: int) -> None:
    pool = load_pool(cells)
    for day in range(0, 120, 7):
        date = (FIRST_DAY + dt.timedelta(days=day)).isoformat()
        deal = daily_deal(date, kind, now=NOON)
        entry = pool[daily_index(date, kind, min(len(pool), SPAN[kind]))]
        assert (deal.code, deal.par) == (entry.code, entry.par)
        assert Board.from_code(deal.code).cells.__len__() == cells


def test_the_same_date_gives_the_same_deal_and_dates_differ() -> None:
    dates = [(FIRST_DAY + dt.timedelta(days=d)).isoformat() for d in range(60)]
    first = [daily_deal(d, now=NOON).code for d in dates]
    again = [daily_deal(d, now=NOON).code for d in dates]
    assert first == again
    # 60 days drawn from a pool of hundreds or more: most are distinct.
    assert len(set(first)) >= min(40, len(load_pool(4)) // 2)
    # The hard deal of a day is another deal, with one cell.
    assert all(daily_deal(d, "hard", now=NOON).code.startswith("SH1-C1-") for d in dates[:5])


def test_another_process_computes_the_same_deals() -> None:
    dates = ["2026-01-01", "2026-02-28", "2026-06-15"]
    script = (
        "import json, datetime as dt, sys\n"
        "from server.daily.deal import daily_json\n"
        "now = dt.datetime(2026, 6, 15, 12, tzinfo=dt.UTC)\n"
        f"print(json.dumps([daily_json(d, now=now) for d in {dates!r}]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [daily_json(d, now=NOON) for d in dates]


def test_the_json_shape_hides_the_codes_while_the_day_runs() -> None:
    data = daily_json("2026-06-15", now=NOON)
    assert set(data) == {"date", "running", "ends_at", "par", "hard"}
    assert data["date"] == "2026-06-15" and data["running"] is True
    assert data["ends_at"] == int(dt.datetime(2026, 6, 16, tzinfo=dt.UTC).timestamp()) * 1000
    assert data["hard"] == {"par": daily_deal("2026-06-15", "hard", now=NOON).par}
    assert daily_json(now=NOON) == data  # no date: today (UTC)
    # Once the day is over (a second after midnight UTC), the codes are public.
    after = daily_json("2026-06-15", now=dt.datetime(2026, 6, 16, 0, 0, 1, tzinfo=dt.UTC))
    assert set(after) == {"date", "running", "ends_at", "code", "par", "hard"}
    assert after["running"] is False
    assert after["code"] == daily_deal("2026-06-15", now=NOON).code
    hard = after["hard"]
    assert isinstance(hard, dict) and set(hard) == {"code", "par"}


def test_a_day_runs_from_midnight_to_midnight_utc() -> None:
    start, end = day_bounds("2026-06-15")
    assert start == int(dt.datetime(2026, 6, 15, tzinfo=dt.UTC).timestamp()) * 1000
    assert end - start == 86_400_000
    assert is_running("2026-06-15", now=NOON)
    assert not is_running("2026-06-14", now=NOON)
    assert running_codes(now=NOON) == {
        daily_deal("2026-06-15", kind, now=NOON).code for kind in ("daily", "hard")
    }


def test_today_is_the_utc_date() -> None:
    late = dt.datetime(2026, 6, 15, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    assert today(late) == dt.date(2026, 6, 16)


@pytest.mark.parametrize(
    "text,reason",
    [
        ("2026-06-16", "future_date"),
        ("2030-01-01", "future_date"),
        ("2026-02-30", "bad_date"),
        ("2026-6-1", "bad_date"),
        ("20260601", "bad_date"),
        ("2025-12-31", "bad_date"),
        ("yesterday", "bad_date"),
    ],
)
def test_dates_without_a_challenge_are_refused(text: str, reason: str) -> None:
    with pytest.raises(DailyError) as info:
        daily_deal(text, now=NOON)
    assert info.value.reason == reason


def test_today_and_the_first_day_are_accepted() -> None:
    assert parse_date("2026-06-15", now=NOON) == dt.date(2026, 6, 15)
    assert parse_date(FIRST_DAY.isoformat(), now=NOON) == FIRST_DAY


def test_a_bad_kind_is_refused() -> None:
    with pytest.raises(DailyError) as info:
        daily_deal("2026-06-15", "easy", now=NOON)
    assert info.value.reason == "bad_kind"


def test_growing_a_pool_keeps_every_days_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    import server.pools

    dates = [(FIRST_DAY + dt.timedelta(days=d)).isoformat() for d in range(30)]
    before = [daily_deal(d, "hard", now=NOON) for d in dates]
    pool = load_pool(1)
    assert len(pool) >= SPAN["hard"]
    extra = tuple(server.pools.PoolEntry(10**9 + i, 99, f"SH1-C1-X{i}") for i in range(50))
    monkeypatch.setattr(server.pools, "load_pool", lambda cells: pool + extra)
    assert [daily_deal(d, "hard", now=NOON) for d in dates] == before


#: protocol/DAILY.md's vectors. If the codes change, the shipped pools were edited or
#: reordered, which changes past days' deals: keep the first SPAN entries of each pool.
VECTORS = [
    ("2026-01-01", "daily", 0xCE89AE61C59B223C, "SH1-C4-AAAAEAP"),
    ("2026-01-01", "hard", 0x7DBB1001CD011947, "SH1-C1-AAAA4SS"),
    ("2026-03-14", "daily", 0x2E7D7ACC12F179D7, "SH1-C4-AAAAETA"),
    ("2026-03-14", "hard", 0xE6407BA9D71DC8DE, "SH1-C1-AAAAF47"),
    ("2026-11-29", "daily", 0x507D897150BE7003, "SH1-C4-AAAAEVF"),
    ("2026-11-29", "hard", 0xBCF2720FB4C7A4C0, "SH1-C1-AAAAPIW"),
]


@pytest.mark.parametrize("date,kind,h,code", VECTORS)
def test_the_documented_vectors(date: str, kind: str, h: int, code: str) -> None:
    assert daily_index(date, kind, 2**64) == h
    later = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    assert daily_deal(date, kind, now=later).code == code


class Rigged(random.Random):
    """A random source whose first ``choice`` is ``first`` (a draw that hits it)."""

    def __init__(self, first: PoolEntry) -> None:
        super().__init__(7)
        self.first: PoolEntry | None = first

    def choice(self, seq: object) -> object:  # type: ignore[override]
        picked, self.first = self.first, None
        return picked if picked is not None else super().choice(seq)  # type: ignore[arg-type]


@pytest.mark.parametrize(("kind", "cells"), [("daily", 4), ("hard", 1)])
def test_a_drawn_deal_is_never_a_running_days_deal(kind: str, cells: int) -> None:
    # The daily deals come from the pools that solo games and races draw from: a draw that
    # hit today's deal showed it before its clock, and its refused hints named it.
    today_code = daily_deal(today().isoformat(), kind).code
    [entry] = [e for e in load_pool(cells) if e.code == today_code]
    assert draw(cells, Rigged(entry)).code == today_code  # what a plain draw can do
    drawn = draw_open(cells, Rigged(entry))
    assert drawn.code not in running_codes() and drawn in load_pool(cells)


def test_only_the_daily_draws_from_the_pools() -> None:
    """Every other module draws through ``draw_open``: a pool draw elsewhere (a new room, a
    rematch, a quick race's pairing) could hand out a running day's deal before its clock."""
    callers = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "server").rglob("*.py")
        if "pools import" in (text := path.read_text(encoding="utf-8"))
        and " draw" in text.split("pools import", 1)[1].split("\n", 1)[0]
    ]
    assert callers == ["server/daily/deal.py"]
