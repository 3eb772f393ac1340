"""Positions from outside (``deal --json`` shape) are checked before they are played."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from server.engine import Board, PositionError

#: The JSON form of an opening table (read as JSON is: any value under each key).
OPENING: dict[str, Any] = Board.from_code("SH1-C4-AAAAAJ2").to_json()


def broken(**changes: object) -> dict[str, object]:
    data = copy.deepcopy(OPENING)
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "JSON object"),
        ({"columns": []}, "needs 'cells'"),
        (broken(cells=["3C", "4H", None]), "1, 2 or 4"),
        (broken(columns=OPENING["columns"][:9]), "10 lists"),
        (broken(foundations={"X": 1}), "S, H, D, C"),
        (broken(foundations={"S": 14}), "0 to 13"),
        (broken(foundations={"S": True}), "0 to 13"),
        (broken(cells=["3C", "3C", None, None]), "exactly once"),
        (broken(cells=["ZZ", "4H", None, None]), "'ZZ'"),
        (broken(foundations={"S": 1}), "exactly once"),  # AS is on the table already
    ],
)
def test_impossible_positions_are_refused(data: object, words: str) -> None:
    with pytest.raises(PositionError) as info:
        Board.from_json(data)
    assert words in str(info.value)
    assert info.value.reason == "bad_position"


def test_a_mid_game_position_loads() -> None:
    board = Board.from_code("SH1-C4-AAAAAJ2")
    board.play(board.legal_moves()[0])
    data = board.to_json()
    assert Board.from_json(data).key() == board.key()
