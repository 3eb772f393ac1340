"""The evidence record and the score: pure parts, on real lines of the pool."""

from __future__ import annotations

import pytest

from server.app import reviewer_of
from server.engine import Board, format_code, parse_action
from server.engine.optimal import optimal_par
from server.engine.solver import solve
from server.fairplay.decide import suspicion
from server.fairplay.policy import Policy
from server.review.evidence import evidence_job, gather, kept_tables, line_digests, marks
from server.settings import Settings
from tests.helpers.fairplay_lines import noisy_line

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
    assert suspicion(record, Policy()) == 1.0


def test_a_line_known_from_practice_is_a_full_suspicion() -> None:
    line = list(solve(Board.from_code(CODE), max_states=100_000).moves)
    assert kept_tables(CODE, line)
    record = gather(CODE, T0, line, _times(len(line)), None, practised=[line], searches=0)
    data = record.to_json()
    assert data["known"] == 1.0 and data["optimal"] is None and data["optimal_searches"] == 0
    assert suspicion(data, Policy()) == 1.0
    fresh = gather(CODE, T0, line, _times(len(line)), None, searches=0).to_json()
    assert fresh["known"] == 0.0 and suspicion(fresh, Policy()) == 0.0


def test_the_digests_of_a_line_name_its_kept_tables() -> None:
    line = list(solve(Board.from_code(CODE), max_states=100_000).moves)
    kept, decided = line_digests(CODE, line)
    assert len(kept) == len(kept_tables(CODE, line)) and set(decided) <= set(kept)
    # An undone action's table is not kept.
    again, _ = line_digests(CODE, [line[0], "undo", *line])
    assert again == kept


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


@pytest.mark.parametrize(("deal", "seed"), [(3, 2), (6, 2)])
def test_what_is_played_once_the_cards_can_all_go_home_is_no_evidence(deal: int, seed: int) -> None:
    """A solver's line played to its end by hand weighs as the same line ended by the send
    home button. The solver's own line moves cards aside on the way home (11 and 6 such
    moves here), in an order the review's search need not share: scored, they read as
    deviations the solver never recovered from, and wiped out the evidence of the whole
    game (a line of a solver re-asked after each deviation scored 0 instead of 0.8)."""
    code = format_code(deal, 4)
    line = list(noisy_line(code, 0.2, seed))
    board, cut = Board.from_code(code), 0
    while not board.can_send_home():
        board.play(parse_action(line[cut]))
        cut += 1
    aside = [t for t in line[cut:] if "found" not in t and not t.startswith("tap ")]
    assert len(aside) >= 6, aside  # the line does move cards aside once they can go home
    button = line[:cut] + [str(tap) for tap in board.send_home_taps()]
    settings = reviewer_of(Settings(), None).settings
    by_hand, pressed = (
        evidence_job(code, T0, played, _times(len(played)), dict(settings), [], None)
        for played in (line, button)
    )
    for key in ("agreement", "scored", "decisions", "recovery"):
        assert by_hand[key] == pressed[key], (key, by_hand[key], pressed[key])
    assert by_hand["evidence"]["optimal"] == pressed["evidence"]["optimal"]
    assert suspicion(by_hand["evidence"], Policy()) == suspicion(pressed["evidence"], Policy())
