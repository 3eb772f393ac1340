"""The daily deal: drawn under the deployment's secret from the whole deal-number space,
by the documented function (protocol/DAILY.md), and certified winnable."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import random
import re

import pytest

from server.daily.deal import (
    FIRST_DAY,
    TEST_SECRET,
    DailyDeal,
    DailyError,
    candidate,
    certify,
    certify_candidate,
    daily_json,
    day_bounds,
    draw_open,
    is_running,
    parse_date,
    today,
)
from server.engine import Board, format_code, parse_code
from server.engine.codes import MAX_DEAL
from server.engine.solver import solve
from server.pools import PoolEntry, draw, load_pool
from tests import ROOT

NOON = dt.datetime(2026, 6, 15, 12, 0, tzinfo=dt.UTC)


def test_a_candidate_is_the_documented_function() -> None:
    # protocol/DAILY.md: the first 8 bytes of HMAC-SHA256(SECRET, DATE|KIND|COUNTER),
    # big-endian, modulo 2^35 (the number of deal numbers).
    mac = hmac.new(b"s3cret", b"2026-03-14|daily|7", hashlib.sha256).digest()
    assert candidate("s3cret", "2026-03-14", "daily", 7) == int.from_bytes(mac[:8], "big") % 2**35
    assert MAX_DEAL + 1 == 2**35


#: protocol/DAILY.md's vectors under the documented test key: the first candidate (its MAC's
#: first 8 bytes and its code), then the candidate certified (its counter and code).
VECTORS = [
    ("2026-01-01", "daily", "915d00a3a39310b3", "SH1-C4-ORZGEFT", 0, "SH1-C4-ORZGEFT"),
    ("2026-01-01", "hard", "9ca99d5fcb788909", "SH1-C1-7FXRCIJ", 35, "SH1-C1-FZT24ZP"),
    ("2026-03-14", "daily", "69d1be29ad4ee315", "SH1-C4-GWU5YYV", 0, "SH1-C4-GWU5YYV"),
    ("2026-03-14", "hard", "4b26f539649e2585", "SH1-C1-FSJ4JMF", 9, "SH1-C1-2WDLQX7"),
    ("2026-11-29", "daily", "69e605a3caf1f764", "SH1-C4-PFPD53E", 0, "SH1-C4-PFPD53E"),
    ("2026-11-29", "hard", "f16a422585610a7e", "SH1-C1-WCWCCT6", 47, "SH1-C1-LYMJ3Y2"),
]


@pytest.mark.parametrize("date,kind,mac,first,counter,code", VECTORS)
@pytest.mark.slow
def test_the_documented_vectors(
    date: str, kind: str, mac: str, first: str, counter: int, code: str
) -> None:
    cells = 4 if kind == "daily" else 1
    digest = hmac.new(TEST_SECRET.encode(), f"{date}|{kind}|0".encode(), hashlib.sha256).digest()
    assert digest[:8].hex() == mac
    assert format_code(candidate(TEST_SECRET, date, kind, 0), cells) == first
    deal = certify(TEST_SECRET, date, kind)
    assert (deal.counter, deal.code, deal.date, deal.kind) == (counter, code, date, kind)
    # Every candidate before it is not winnable (proven: these are decided in milliseconds).
    for earlier in range(counter):
        number = candidate(TEST_SECRET, date, kind, earlier)
        assert solve(Board.deal(number, cells), timeout=10).result == "unsolvable"
    # DAILY.md shows the same rows.
    doc = (ROOT / "protocol" / "DAILY.md").read_text(encoding="utf-8")
    row = rf"\| {date} \| {kind} \| `{mac}` \| `{first}` \| {counter} \| `{code}` \|"
    assert re.search(row, doc), row


def test_the_par_is_no_longer_than_the_certifying_line_and_it_wins() -> None:
    deal = certify(TEST_SECRET, "2026-03-14", "daily")
    found = solve(Board.from_code(deal.code), timeout=10)
    assert found.result == "solved" and deal.par <= len(found.moves)
    assert DailyDeal.from_json(deal.date, deal.kind, deal.to_json()) == deal


def test_the_deal_cannot_be_computed_without_the_secret() -> None:
    dates = [(FIRST_DAY + dt.timedelta(days=d)).isoformat() for d in range(40)]
    for kind in ("daily", "hard"):
        ours = [candidate(TEST_SECRET, d, kind, 0) for d in dates]
        theirs = [candidate("another deployment", d, kind, 0) for d in dates]
        assert all(a != b for a, b in zip(ours, theirs, strict=True))
    # Certified deals differ too: two deployments' days are unrelated.
    mine = certify(TEST_SECRET, "2026-06-15", "daily")
    other = certify("another deployment", "2026-06-15", "daily")
    assert mine.code != other.code


def test_candidates_span_the_whole_deal_space_not_the_pools() -> None:
    """Neither the source nor the published par narrows the deal: the candidates are spread
    over all 2^35 deal numbers, and none of these is a shipped pool's deal (the pools hold
    numbers below 50,000: a candidate falls there about once in 700,000)."""
    numbers = [
        candidate(TEST_SECRET, (FIRST_DAY + dt.timedelta(days=d)).isoformat(), kind, c)
        for d in range(365)
        for kind in ("daily", "hard")
        for c in range(3)
    ]
    assert len(set(numbers)) == len(numbers)
    pooled = {e.deal for cells in (4, 2, 1) for e in load_pool(cells)}
    assert not pooled & set(numbers)
    # Spread over the space: each eighth of it gets about an eighth of the candidates.
    eighths = [0] * 8
    for n in numbers:
        eighths[n * 8 // 2**35] += 1
    assert min(eighths) > len(numbers) / 8 * 0.75
    # And a certified deal is not a pool's.
    for kind in ("daily", "hard"):
        assert certify(TEST_SECRET, "2026-06-15", kind).deal not in pooled


def test_a_candidate_not_proven_winnable_is_passed_over() -> None:
    # 2026-03-14's hard candidates 0..8 are proven unsolvable: none is certified, and the
    # search takes the next counter.
    assert all(certify_candidate(TEST_SECRET, "2026-03-14", "hard", c) is None for c in range(9))
    assert certify(TEST_SECRET, "2026-03-14", "hard").counter == 9


def test_a_bad_kind_is_refused() -> None:
    with pytest.raises(DailyError) as info:
        certify(TEST_SECRET, "2026-06-15", "easy")
    assert info.value.reason == "bad_kind"


def test_the_json_shape_hides_the_codes_while_the_day_runs() -> None:
    main = DailyDeal("2026-06-15", "daily", "SH1-C4-AAAAAAB", 80, 0, optimal=True)
    hard = DailyDeal("2026-06-15", "hard", "SH1-C1-AAAAAAC", 90, 3)
    data = daily_json(main, hard, now=NOON)
    assert data == {
        "date": "2026-06-15",
        "running": True,
        "ends_at": int(dt.datetime(2026, 6, 16, tzinfo=dt.UTC).timestamp()) * 1000,
        "par": 80,
        "par_optimal": True,
        "hard": {"par": 90, "par_optimal": False},
    }
    # Once the day is over (a second after midnight UTC), the codes are public.
    after = daily_json(main, hard, now=dt.datetime(2026, 6, 16, 0, 0, 1, tzinfo=dt.UTC))
    assert after["running"] is False and after["code"] == "SH1-C4-AAAAAAB"
    assert after["hard"] == {"code": "SH1-C1-AAAAAAC", "par": 90, "par_optimal": False}


def test_a_day_runs_from_midnight_to_midnight_utc() -> None:
    start, end = day_bounds("2026-06-15")
    assert start == int(dt.datetime(2026, 6, 15, tzinfo=dt.UTC).timestamp()) * 1000
    assert end - start == 86_400_000
    assert is_running("2026-06-15", now=NOON)
    assert not is_running("2026-06-14", now=NOON)


class Rigged(random.Random):
    """A random source whose first ``choice`` is ``first`` (a draw that hits it)."""

    def __init__(self, first: PoolEntry) -> None:
        super().__init__(7)
        self.first: PoolEntry | None = first

    def choice(self, seq: object) -> object:  # type: ignore[override]
        picked, self.first = self.first, None
        return picked if picked is not None else super().choice(seq)  # type: ignore[arg-type]


@pytest.mark.parametrize("cells", [4, 2, 1])
def test_a_drawn_deal_is_never_a_running_days_deal(cells: int) -> None:
    # A pool deal whose number is a running day's (any cell count) is never drawn.
    entry = load_pool(cells)[5]
    assert draw(cells, Rigged(entry)) == entry  # what a plain draw can do
    drawn = draw_open(cells, frozenset({entry.deal}), Rigged(entry))
    assert drawn.deal != entry.deal and drawn in load_pool(cells)


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


def test_a_code_names_its_deal_number_whatever_its_cells() -> None:
    deal = DailyDeal("2026-06-15", "daily", format_code(12345, 4), 80, 0)
    assert deal.deal == 12345 == parse_code(format_code(12345, 1)).deal


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
        parse_date(text, now=NOON)
    assert info.value.reason == reason


def test_today_and_the_first_day_are_accepted() -> None:
    assert parse_date("2026-06-15", now=NOON) == dt.date(2026, 6, 15)
    assert parse_date(FIRST_DAY.isoformat(), now=NOON) == FIRST_DAY


def test_a_days_par_is_the_proven_fewest_actions() -> None:
    """The certified par is the optimal search's (an action is a move, tap or double tap):
    never longer than the certifying solver's line, proven on a deal the search finishes, and
    the deal's line of that length replays to a win."""
    from server.daily.deal import certify_candidate
    from server.engine import Board, parse_action
    from server.engine.optimal import optimal_par
    from server.engine.solver import solve

    deal = certify_candidate(TEST_SECRET, "2026-12-01", "daily", 0)
    assert deal is not None and deal.optimal
    board = Board.from_code(deal.code)
    assert deal.par <= len(solve(board, timeout=10).moves)
    shortest = optimal_par(board, timeout=None, max_states=300_000)
    assert shortest.optimal and len(shortest.moves) == deal.par
    for text in shortest.moves:
        board.play(parse_action(text))
    assert board.is_won()
    # A record of an older server (no "optimal") still reads, as a solver line's par.
    old = DailyDeal.from_json(
        "2026-12-01", "daily", '{"code":"SH1-C4-AAAAAAB","par":80,"counter":0}'
    )
    assert old.par == 80 and not old.optimal
