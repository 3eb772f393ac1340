"""A delta's ``legal_change``, applied as protocol/README.md says, gives the board's legal
moves after the action, over random games (take-backs included), and it is small: it names
only the sources whose destinations changed."""

from __future__ import annotations

import json

from hypothesis import given, settings

from protocol.models import LegalChange
from server.engine import Board, parse_action
from server.net import wire
from tests.helpers.legal import changed, view
from tests.helpers.positions import played


@settings(max_examples=80, deadline=None)
@given(played)
def test_changes_applied_in_order_give_the_legal_moves(game: tuple[int, int, list[int]]) -> None:
    deal, cells, picks = game
    board = Board.deal(deal, cells)
    held = view(board)  # what the started carried
    for pick in picks:
        legal = board.legal_moves()
        if not legal:
            break
        before = wire.legal_view(board)
        board.push(legal[pick % len(legal)])
        text = wire.legal_change(before, wire.legal_view(board))
        change = json.loads(text)
        LegalChange.model_validate(change)  # what the protocol's model accepts
        held = changed(held, change)
        assert held == view(board)
        # Only what changed is named: every listed source differs from before.
        assert all(before["moves"].get(src) != dsts for src, dsts in change["moves"].items())
        assert all(src in before["moves"] for src in change.get("gone", []))
        assert "gone" not in change or change["gone"]


def test_a_change_is_a_fraction_of_the_listing() -> None:
    board = Board.from_code("SH1-C4-AAAAAAB")
    before = wire.legal_view(board)
    board.play(parse_action("col4 found"))
    change = wire.legal_change(before, wire.legal_view(board))
    assert json.loads(change) == {
        "moves": {
            "col4": ["cell3", "cell4"],
            "col5": ["col4", "cell3", "cell4"],
            "found:S": ["cell3", "cell4"],
        },
        "send_home": False,
    }
    assert len(change) * 3 < len(wire.legal(board))


def test_a_source_left_without_moves_is_gone() -> None:
    before = {"moves": {"col1": ["cell3"], "cell1": ["col2"]}, "send_home": False}
    after = {"moves": {"col1": ["cell3"]}, "send_home": True}
    assert json.loads(wire.legal_change(before, after)) == {
        "moves": {},
        "gone": ["cell1"],
        "send_home": True,
    }
    assert changed(before, json.loads(wire.legal_change(before, after))) == after
