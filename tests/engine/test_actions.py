"""Tap, double tap, undo, score, the end of a game, deltas and notation (RULES.md)."""

from __future__ import annotations

import pytest

from server.engine import (
    Board,
    NotationError,
    apply_delta,
    format_action,
    parse_action,
    parse_location,
)
from tests.helpers.positions import cards, full_cells, play, refused, table

# -- tap: RULES.md, "No automatic moves, tap and double tap" ----------------------------


def test_tap_sends_a_top_card_or_a_cell_card_to_its_foundation() -> None:
    board = table({1: "2C AS"}, cells=["AH", None, None, None])
    play(board, "tap col1")
    play(board, "tap cell1")
    assert board.foundations == [1, 1, 0, 0]
    assert board.score == 20


def test_tap_does_nothing_when_the_foundation_refuses() -> None:
    board = table({1: "2C 3S"}, cells=["KH", None, None, None])
    assert refused(board, "tap col1") == "no_foundation_move"
    assert refused(board, "tap cell1") == "no_foundation_move"
    assert refused(board, "tap col2") == "empty_source"
    assert refused(board, "tap cell2") == "empty_source"
    assert refused(board, "tap found:S") == "not_a_top_card"


# -- double tap -------------------------------------------------------------------------


def test_double_tap_tries_the_foundation_first() -> None:
    # The 2 of hearts could go on the 3 of hearts or a free cell; its foundation comes first.
    board = table({1: "3C 2H", 2: "4C 3H"}, foundations={"H": 1})
    play(board, "dtap col1")
    assert board.foundations[1] == 2 and board.columns[1] == cards("4C 3H")
    assert board.score == 10


def test_double_tap_then_the_column_that_accepts_the_card() -> None:
    board = table({1: "3C 7H", 2: "4C 5D 8H"}, cells=[None] * 4)
    play(board, "dtap col1")
    assert board.columns[1] == cards("4C 5D 8H 7H")
    assert board.cells == [None] * 4


def test_double_tap_prefers_the_longest_column_that_accepts_the_card() -> None:
    # Two 8s of hearts only on a hand-made table: the longer column wins, the leftmost on a tie.
    board = table({1: "3C 7H", 2: "4C 8H", 3: "5C 6D 8H"}, cells=[None] * 4)
    play(board, "dtap col1")
    assert board.columns[2] == cards("5C 6D 8H 7H") and board.columns[1] == cards("4C 8H")
    board = table({1: "3C 7H", 2: "4C 8H", 3: "5C 8H"}, cells=[None] * 4)
    play(board, "dtap col1")
    assert board.columns[1] == cards("4C 8H 7H") and board.columns[2] == cards("5C 8H")


def test_double_tap_a_king_goes_to_the_leftmost_empty_column() -> None:
    board = table({1: "3C KH", 2: "4C", 4: "5C"}, cells=[None] * 4)
    play(board, "dtap col1")
    assert board.columns[2] == cards("KH")


def test_double_tap_then_the_leftmost_free_cell() -> None:
    board = table({1: "3C 7H", 2: "4C"}, cells=["KS", None, None, None])
    play(board, "dtap col1")
    assert board.cells[1] == cards("7H")[0]
    # A non-King never goes into an empty column.
    board = table({1: "3C 7H"}, cells=["KS", "QS", None, "JS"])
    play(board, "dtap col1")
    assert board.cells[2] == cards("7H")[0]


def test_double_tap_moves_the_card_alone() -> None:
    board = table({1: "3C 9H 8H"}, cells=[None] * 4)
    play(board, "dtap col1")
    assert board.columns[0] == cards("3C 9H")
    assert board.cells[0] == cards("8H")[0]


def test_double_tap_with_nothing_accepting_does_nothing() -> None:
    board = table({1: "3C 7H"}, cells=["KS", "QS", "JS", "TS"])
    board.columns[1:] = [[c] for c in cards("2D 4D 6D 8D TD QD 3S 5S 9S")]
    assert refused(board, "dtap col1") == "no_destination"
    assert refused(board, "dtap col3") == "no_destination"
    assert refused(board, "dtap found:S") == "not_a_top_card"


def test_double_tap_on_a_cell_card() -> None:
    board = table({1: "3C 8H"}, cells=["7H", None, None, None])
    play(board, "dtap cell1")
    assert board.columns[0] == cards("3C 8H 7H") and board.score == 5
    board = table({1: "3C"}, cells=[None, "KH", None, None])
    play(board, "dtap cell2")
    assert board.columns[1] == cards("KH")
    # Nothing else takes the 7 of hearts: the leftmost free cell, as RULES.md orders.
    board = table({1: "3C"}, cells=[None, "7H", None, None])
    play(board, "dtap cell2")
    assert board.cells == [cards("7H")[0], None, None, None] and board.score == 0
    board = table({1: "3C"}, cells=["2S", "7H", "3S", "4S"])
    assert refused(board, "dtap cell2") == "no_destination"


def test_double_tap_a_lone_king_tries_an_empty_column_before_a_cell() -> None:
    board = table({1: "KH", 3: "3C"}, cells=[None] * 4)
    play(board, "dtap col1")
    assert board.columns[0] == [] and board.columns[1] == cards("KH")
    assert board.cells == [None] * 4
    board = table({1: "KH"} | {n: f"{n}C" for n in range(2, 11)}, cells=[None] * 4)
    play(board, "dtap col1")  # no empty column: the leftmost free cell
    assert board.cells[0] == cards("KH")[0]


# -- RULES.md, "Undo" -------------------------------------------------------------------


def test_undo_takes_back_the_most_recent_action_and_its_points() -> None:
    board = table({1: "3C AS"}, cells=[None, "8H", None, None])
    board.columns[1] = cards("4C 9H")
    start = board.key()
    play(board, "col1 found")
    play(board, "cell2 col2")
    assert board.score == 15
    delta = board.undo()
    assert delta.points == -5 and delta.undo and board.score == 10
    assert board.cells[1] == cards("8H")[0]
    board.undo()
    assert board.key() == start and board.score == 0
    assert refused(board, "undo") == "nothing_to_undo"


def test_undo_reaches_back_100_actions_and_refuses_the_101st() -> None:
    board = table({1: "3C 9H"}, cells=[None] * 4)
    start = board.key()
    for i in range(150):
        play(board, f"cell{(i - 1) % 4 + 1} cell{i % 4 + 1}" if i else "col1 cell1")
    for _ in range(100):
        play(board, "undo")
    assert refused(board, "undo") == "undo_limit"
    assert board.key() != start  # the first 50 actions stay done
    assert board.moves == 250


def test_undoing_a_take_back_and_farming() -> None:
    board = table({1: "3C"}, foundations={"S": 1})
    play(board, "found:S cell1")
    play(board, "cell1 found")
    play(board, "found:S cell1")
    play(board, "cell1 found")
    assert board.score == 20  # points can be farmed: races never rank by score
    for _ in range(4):
        play(board, "undo")
    assert board.score == 0 and board.foundations[0] == 1


def test_score_never_goes_below_zero() -> None:
    board = table({1: "3C AS"})
    play(board, "col1 found")
    board.score = 4  # e.g. a position loaded with a lower score
    delta = board.undo()
    assert board.score == 0 and delta.points == -4


# -- RULES.md, "Score" ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "points"),
    [
        ("col1 found", 10),  # a card on a foundation
        ("cell1 found", 10),
        ("tap col1", 10),
        ("cell2 col2", 5),  # a card from a cell onto the tableau
        ("cell2 col3", 5),  # a King from a cell into an empty column
        ("col1 cell3", 0),
        ("cell1 cell3", 0),
        ("col2 col4", 0),
        ("found:D col5", 0),  # a take-back
        ("found:D cell3", 0),
    ],
)
def test_points(action: str, points: int) -> None:
    board = table({1: "3C AS", 2: "4C QH 7D", 4: "5C 8D", 5: "6C 7S"}, foundations={"D": 6})
    board.cells = [cards("AS")[0] if action.startswith("cell1") else None, cards("KH")[0]]
    board.cells += [None, None]
    if action.startswith("cell1"):
        board.columns[0] = cards("3C")
    if action == "cell2 col2":
        board.cells[1] = cards("6D")[0]
    if action == "found:D col5":
        board.columns[4] = cards("6C 7D")
        board.columns[1] = cards("4C QH")
    play(board, action)
    assert board.score == points


# -- RULES.md, "The end of a game" ------------------------------------------------------


def test_won_when_all_52_cards_are_on_the_foundations() -> None:
    board = table({1: "KC"}, foundations={"S": 13, "H": 13, "D": 13, "C": 12})
    assert not board.is_won() and not board.is_lost()
    play(board, "tap col1")
    assert board.is_won() and not board.is_lost()


def test_lost_when_no_useful_move_is_left() -> None:
    # Every column is blocked: no same-suit home, no free cell, no empty column.
    board = Board(
        [
            cards(f"{a} {b}")
            for a, b in zip(
                "2D 3D 4D 5D 6D 7D 8D 9D TD JD".split(),
                "5S 7S 9S JS KC 4H 6H 8H TH QH".split(),
                strict=True,
            )
        ],
        full_cells("QD KD 2S 3S"),
        [0, 2, 0, 1],
    )
    assert board.legal_moves() == []
    assert board.is_lost()


def test_moves_that_are_not_useful_do_not_keep_a_game_alive() -> None:
    # Only a cell-to-cell move, a take-back and a whole King-led column into an empty column
    # are legal here, and RULES.md does not count them.
    board = Board(
        [cards("KS")] + [[c] for c in cards("2D 3D 4D 5D 6D 7D 8D 9D")] + [[]],
        [cards("TD")[0], None],
        [0, 0, 0, 1],
    )
    board.columns[1:9] = [
        cards(f"{a} {b}")
        for a, b in zip(
            "2D 3D 4D 5D 6D 7D 8D 9D".split(), "5H 7H 9H JH 4S 6S 8S TS".split(), strict=True
        )
    ]
    legal = {str(m) for m in board.legal_moves()}
    assert legal == {
        "cell1 cell2",
        "found:C cell2",
        "col1 col10",
        "col1 cell2",
        "col9 cell2",
        "col2 cell2",
        "col3 cell2",
        "col4 cell2",
        "col5 cell2",
        "col6 cell2",
        "col7 cell2",
        "col8 cell2",
    }
    assert not board.is_lost()  # a column card into the free cell is useful
    board.cells[1] = cards("QD")[0]
    legal = {str(m) for m in board.legal_moves()}
    assert legal == {"col1 col10"}
    assert board.useful_moves() == []
    assert board.is_lost()


# -- deltas -----------------------------------------------------------------------------


def test_a_delta_names_the_cards_their_places_and_the_points() -> None:
    board = table({1: "3C 9H 8H 7H", 2: "4C TH"}, cells=["AS", None, None, None])
    delta = board.play(parse_action("col1 col2"))
    assert delta.to_json() == {
        "changes": [{"cards": ["9H", "8H", "7H"], "src": "col1", "dst": "col2"}],
        "points": 0,
        "score": 0,
        "undo": False,
    }
    delta = board.play(parse_action("cell1 found"))
    assert delta.to_json()["changes"] == [{"cards": ["AS"], "src": "cell1", "dst": "found:S"}]
    assert delta.points == 10 and delta.score == 10
    undo = board.undo()
    assert undo.to_json() == {
        "changes": [{"cards": ["AS"], "src": "found:S", "dst": "cell1"}],
        "points": -10,
        "score": 0,
        "undo": True,
    }


def test_a_thin_client_applies_deltas_without_rules() -> None:
    board = table({1: "3C 9H 8H 7H", 2: "4C TH"}, cells=["AS", None, None, None])
    mirror = board.copy()
    for text in ("col1 col2", "cell1 found", "found:S cell3", "undo", "undo", "dtap col2"):
        apply_delta(mirror, board.play(parse_action(text)))
        assert mirror.key() == board.key() and mirror.score == board.score


# -- RULES.md, "Notation" ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "col3 found",
        "cell1 col7",
        "col2 col5",
        "found:H cell2",
        "tap col10",
        "dtap cell4",
        "undo",
        "col10 found:C",
    ],
)
def test_notation_round_trips(text: str) -> None:
    assert format_action(parse_action(text)) == text


def test_notation_is_forgiving_about_case_and_spaces() -> None:
    assert str(parse_action("  COL3   Found:h ")) == "col3 found:H"
    assert str(parse_location("CELL2")) == "cell2"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty action"),
        ("col11 found", "col1 to col10"),
        ("col0 found", "col1 to col10"),
        ("cell5 col1", "cell1 to cell4"),
        ("found:X cell1", "found or found:S/H/D/C"),
        ("found col1", "names its foundation"),
        ("col1", "expected 'SRC DST'"),
        ("col1 col2 col3", "expected 'SRC DST'"),
        ("tap", "takes one location"),
        ("undo now", "takes nothing"),
        ("pile1 col2", "is not colN"),
    ],
)
def test_bad_notation_says_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_action(text)
    assert words in str(info.value)
    assert info.value.reason == "bad_notation"


def test_moving_a_whole_king_led_column_does_not_keep_a_game_alive() -> None:
    # Column 1 is one King-led group (K♠ Q♠); two empty columns let it move, nothing else can.
    blocked = zip("2D 3D 4D 5D 6D 7D 8D".split(), "5H 7H 9H JH 4S 6S 8S".split(), strict=True)
    board = Board(
        [cards("KS QS")] + [cards(f"{a} {b}") for a, b in blocked] + [[], []],
        full_cells("TD QD"),
        [0, 0, 0, 1],
    )
    assert {str(m) for m in board.legal_moves()} == {"col1 col9", "col1 col10"}
    assert board.useful_moves() == [] and board.is_lost()
    # With a card under the King the same move uncovers it: useful, not lost.
    board.columns[0] = cards("9D KS QS")
    assert {str(m) for m in board.useful_moves()} == {"col1 col9", "col1 col10"}
    assert not board.is_lost()
