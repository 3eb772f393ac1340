"""The evidence record and the score: pure parts, on real lines of the pool."""

from __future__ import annotations

from server.engine import Board, format_code
from server.engine.optimal import optimal_par
from server.engine.solver import solve
from server.ranked.evidence import flags, player_score
from server.review.evidence import Weights, gather, kept_tables, marks, suspicion

T0 = 1_780_000_000_000
CODE = format_code(1, 4)


def _times(n: int) -> list[int]:
    return [T0 + 3_000 + 1_500 * i for i in range(n)]


def test_the_optimal_line_agrees_with_the_optimal_search() -> None:
    line = optimal_par(Board.from_code(CODE), timeout=60, max_states=1_000_000).moves
    record = gather(CODE, T0, line, _times(len(line)), 0.8, states=100_000).to_json()
    assert record["optimal"] >= 0.9 and record["optimal_scored"] >= 20, record
    assert record["excess"] is not None and record["excess"] <= 0
    assert record["known"] == 0.0 and record["field"] is None
    assert suspicion(record, Weights()) == 1.0


def test_a_line_known_from_practice_is_a_full_suspicion() -> None:
    line = list(solve(Board.from_code(CODE), max_states=100_000).moves)
    assert kept_tables(CODE, line)
    record = gather(CODE, T0, line, _times(len(line)), None, practised=[line], searches=0)
    data = record.to_json()
    assert data["known"] == 1.0 and data["optimal"] is None and data["optimal_searches"] == 0
    assert suspicion(data, Weights()) == 1.0
    fresh = gather(CODE, T0, line, _times(len(line)), None, searches=0).to_json()
    assert fresh["known"] == 0.0 and suspicion(fresh, Weights()) == 0.0


def test_the_suspicion_and_the_score() -> None:
    w = Weights()
    base = {"solver": 0.6, "optimal": None, "optimal_scored": 0, "known": 0.0, "field": None}
    assert suspicion(base, w) == 0.0
    assert suspicion({**base, "solver": 0.95}, w) == 1.0
    assert 0.4 < suspicion({**base, "solver": 0.8}, w) < 0.7
    # A few early decisions agreeing with the optimal search count for nothing.
    assert suspicion({**base, "optimal": 1.0, "optimal_scored": 5}, w) == 0.0
    assert suspicion({**base, "optimal": 1.0, "optimal_scored": 25}, w) == 1.0
    assert suspicion({**base, "field": 0.5}, w) == w.field_weight
    assert suspicion({**base, "field": 0.9}, w) == 0.0
    assert player_score([{"suspicion": 1.0}, {"suspicion": 0.5}]) == 0.75
    assert player_score([]) == 0.0
    # One game of a person's never flags: a score flags over 3 finishes, or a full one.
    assert not flags(0.9, 1, 0.6, 3) and not flags(0.9, 2, 0.6, 3)
    assert flags(0.6, 3, 0.6, 3) and not flags(0.59, 5, 0.6, 3)
    assert flags(1.0, 1, 0.6, 3)


def test_the_marks_of_a_replay() -> None:
    line = list(solve(Board.from_code(CODE), max_states=100_000).moves)
    rows = marks(CODE, [line[0], "undo", *line], hold_agreement=0.9)
    assert rows[0]["kept"] is False and rows[1]["kept"] is False
    decided = [r for r in rows if r["kept"] and not r["forced"]]
    assert decided and all(r["solver"] is True for r in decided)
    assert all("optimal" in r for r in decided)
    # The review off (its agreement above 1): nothing is asked.
    off = marks(CODE, line, hold_agreement=2)
    assert all(r.get("solver") is None and r.get("optimal") is None for r in off)
