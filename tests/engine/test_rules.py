"""Every rule of RULES.md's "Moves" section, with constructed tables."""

from __future__ import annotations

import json

import pytest

from server.engine import Board, IllegalAction, Move, card_name, parse_location
from server.engine.cards import card_label
from tests.helpers.positions import cards, play, refused, table

# -- RULES.md, "Cards and table" -------------------------------------------------------


@pytest.mark.parametrize("cells", [4, 2, 1])
def test_one_deck_face_up_on_ten_columns_the_cells_and_four_foundations(cells: int) -> None:
    board = Board.deal(314, cells)
    assert len(board.columns) == 10 and len(board.cells) == cells
    assert len(board.foundations) == 4
    # One deck, no joker, nothing hidden: the table's picture names each of the 52 cards.
    shown = [card_name(c) for col in board.columns for c in col]
    shown += [card_name(c) for c in board.cells if c is not None]
    assert sorted(shown) == sorted(rank + suit for suit in "SHDC" for rank in "A23456789TJQK")
    assert all(f'"{name}"' in json.dumps(board.to_json()) for name in shown)


def test_ranks_run_from_the_ace_up_to_the_king_in_four_suits() -> None:
    assert [card_label(c) for c in (0, 1, 9, 10, 11, 12)] == [
        "Ace of spades", "2 of spades", "10 of spades", "Jack of spades", "Queen of spades",
        "King of spades",
    ]  # fmt: skip
    assert [card_label(13 * s) for s in range(4)] == [
        "Ace of spades", "Ace of hearts", "Ace of diamonds", "Ace of clubs",
    ]  # fmt: skip
    # The foundations' order is the ranks': a foundation's count is the rank of its top card.
    board = table({1: "3H 2H AH"})
    for rank in (1, 2, 3):
        play(board, "tap col1")
        assert board.foundations[1] == rank


# -- onto a column: same suit, exactly one rank lower --------------------------------------


def test_a_card_goes_on_the_same_suit_one_rank_higher() -> None:
    board = table({1: "2C 7H", 2: "3C 8H"})
    play(board, "col1 col2")
    assert board.columns[1] == cards("3C 8H 7H")
    assert board.columns[0] == cards("2C")


@pytest.mark.parametrize(
    ("onto", "reason"),
    [
        ("8D", "not_same_suit"),  # the 7 of hearts never goes on the 8 of diamonds
        ("8S", "not_same_suit"),  # nor on a black 8
        ("8C", "not_same_suit"),
        ("9H", "not_one_lower"),
        ("7H", "not_one_lower"),  # (a different 7: impossible, kept for the order check)
        ("6H", "not_one_lower"),
        ("AH", "not_one_lower"),
    ],
)
def test_the_seven_of_hearts_goes_only_on_the_eight_of_hearts(onto: str, reason: str) -> None:
    board = table({1: "2C 7H", 2: f"3C {onto}"})
    assert refused(board, "col1 col2") == reason


def test_an_ace_on_a_column_takes_nothing() -> None:
    board = table({1: "2C KD", 2: "3C AD"})
    assert refused(board, "col1 col2") == "not_one_lower"  # a King is no rank below an Ace
    board = table({1: "2C KH", 2: "3C AD"})
    assert refused(board, "col1 col2") == "not_same_suit"


def test_only_the_top_card_or_a_group_moves_from_a_column() -> None:
    # 5H lies under 2C: it is covered, so it cannot go onto the 6H.
    board = table({1: "5H 2C", 2: "3S 6H"})
    assert refused(board, "col1 col2") == "not_same_suit"


def test_from_a_cell_onto_a_column() -> None:
    board = table({1: "3C 8H"}, cells=["7H", None, None, None])
    play(board, "cell1 col1")
    assert board.cells[0] is None and board.columns[0] == cards("3C 8H 7H")
    board = table({1: "3C 8H"}, cells=["7D", None, None, None])
    assert refused(board, "cell1 col1") == "not_same_suit"
    board = table({1: "3C 8H"}, cells=["6H", None, None, None])
    assert refused(board, "cell1 col1") == "not_one_lower"


# -- cells ------------------------------------------------------------------------------


def test_any_card_goes_into_an_empty_cell() -> None:
    board = table({1: "2C 9D"})
    play(board, "col1 cell3")
    assert board.cells == [None, None, cards("9D")[0], None]


def test_a_cell_holds_one_card() -> None:
    board = table({1: "2C 9D"}, cells=["KS", None, None, None])
    assert refused(board, "col1 cell1") == "cell_occupied"


def test_a_card_may_move_from_one_cell_to_another_empty_cell() -> None:
    board = table({1: "2C"}, cells=["KS", None, None, None])
    play(board, "cell1 cell4")
    assert board.cells == [None, None, None, cards("KS")[0]]


@pytest.mark.parametrize(("cells", "cell"), [(2, "cell3"), (2, "cell4"), (1, "cell2")])
def test_removed_cells_are_not_on_the_table(cells: int, cell: str) -> None:
    board = table({1: "2C 9D"}, cells=[None] * cells)
    assert refused(board, f"col1 {cell}") == "no_such_cell"
    assert refused(board, f"{cell} col1") == "no_such_cell"
    assert refused(board, f"tap {cell}") == "no_such_cell"


# -- foundations ------------------------------------------------------------------------


def test_foundations_build_up_from_the_ace_one_card_at_a_time() -> None:
    board = table({1: "2S AS", 2: "3S"})
    assert refused(board, "col2 found") == "not_next_on_foundation"
    play(board, "col1 found")
    assert board.foundations == [1, 0, 0, 0]
    play(board, "col1 found:S")
    play(board, "col2 found")
    assert board.foundations == [3, 0, 0, 0]
    assert board.columns[0] == [] and board.columns[1] == []


def test_a_group_goes_to_the_foundation_one_card_at_a_time() -> None:
    board = table({1: "KD 3S 2S AS"})
    play(board, "col1 found")
    assert board.columns[0] == cards("KD 3S 2S")
    assert board.foundations[0] == 1


def test_a_card_goes_only_on_its_own_foundation() -> None:
    board = table({1: "AS"})
    assert refused(board, "col1 found:H") == "wrong_foundation"
    assert refused(board, "col1 found:C") == "wrong_foundation"
    play(board, "col1 found:S")


def test_the_king_closes_a_foundation() -> None:
    board = table({1: "KH"}, foundations={"H": 12})
    play(board, "tap col1")
    assert board.foundations == [0, 13, 0, 0]
    assert refused(board, "found:H found") == "foundation_to_foundation"


# -- RULES.md, "Empty columns take only a King" -----------------------------------------


def test_an_empty_column_takes_a_king() -> None:
    board = table({1: "2C KS", 3: "3C"})
    play(board, "col1 col2")
    assert board.columns[1] == cards("KS")


def test_an_empty_column_takes_a_king_led_group() -> None:
    board = table({1: "2C KS QS JS", 3: "3C"})
    play(board, "col1 col2")
    assert board.columns[1] == cards("KS QS JS")
    assert board.columns[0] == cards("2C")


@pytest.mark.parametrize("src", ["col1", "cell1", "found:H"])
def test_no_other_card_goes_into_an_empty_column(src: str) -> None:
    board = table({1: "2C QS JS", 3: "3C"}, cells=["QD", None, None, None], foundations={"H": 5})
    assert refused(board, f"{src} col2") == "empty_column_needs_king"


def test_a_covered_king_cannot_go_anywhere_but_with_its_group() -> None:
    board = table({1: "KS 4H", 3: "5C"})
    assert refused(board, "col1 col2") == "empty_column_needs_king"


def test_a_king_from_a_cell_into_an_empty_column_scores_five() -> None:
    board = table({1: "3C"}, cells=[None, "KD", None, None])
    play(board, "cell2 col5")
    assert board.columns[4] == cards("KD") and board.score == 5


# -- RULES.md, "Group moves" ------------------------------------------------------------


def test_the_whole_group_moves_when_its_bottom_card_fits() -> None:
    board = table({1: "2D 9C 8C 7C 6C", 2: "3D 9D", 3: "4D TC"})
    play(board, "col1 col3")
    assert board.columns[2] == cards("4D TC 9C 8C 7C 6C")
    assert board.columns[0] == cards("2D")


def test_a_group_fits_only_through_its_own_cards() -> None:
    board = table({1: "2D 6C 5C 4C", 2: "3D 7C"})
    play(board, "col1 col2")
    assert board.columns[1] == cards("3D 7C 6C 5C 4C")
    board = table({1: "2D 9C 8C 7C 6C", 2: "3D 8D"})
    assert refused(board, "col1 col2") == "not_same_suit"
    # A 9C destination needs the 8C, which is not in the group 6C 5C.
    board = table({1: "2D 6C 5C", 2: "3D 9C"})
    assert refused(board, "col1 col2") == "not_one_lower"


def test_a_group_splits_at_the_card_that_fits_the_destination() -> None:
    # A hand-made table (two 7s of spades) where only 6S 5S of the group 9S..5S fit.
    board = Board([cards("2D 9S 8S 7S 6S 5S"), cards("3D 7S")] + [[] for _ in range(8)], [None])
    play(board, "col1 col2")
    assert board.columns[0] == cards("2D 9S 8S 7S")
    assert board.columns[1] == cards("3D 7S 6S 5S")


def test_cards_of_other_suits_break_a_group() -> None:
    board = table({1: "2D 8C 7H 6C", 2: "3D 9C"}, cells=["AS", "2S", "3S", None])
    board.columns[2] = cards("4D 8H")
    play(board, "col1 cell4")  # 6C alone to the cell: 7H 6C is no group
    assert refused(board, "col1 col2") == "not_same_suit"


FILLERS = cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD 2S 3S 4S")


def _group_table(free: int, empty: int, size: int, into_empty: bool) -> tuple[Board, str]:
    """A table with ``free`` free cells and ``empty`` empty columns and a ``size`` group.

    Onto an occupied column: Q♥ downwards onto the K♥ of column 2. Into an empty column:
    a K♥-led group. Columns 3 to 10 hold filler cards of other suits except the empty ones.
    """
    fill = iter(FILLERS)
    group = cards("KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H AH")
    columns: list[list[int]] = [[] for _ in range(10)]
    if into_empty:
        columns[0] = [cards("3C")[0], *group[:size]]
        others = range(1, 10)
        dst = "col2"
        columns_to_fill = [i for i in others if i != 1][: 9 - empty]
    else:
        columns[0] = [cards("3C")[0], *group[1 : 1 + size]]
        columns[1] = [cards("4C")[0], group[0]]
        dst = "col2"
        columns_to_fill = list(range(2, 10))[: 8 - empty]
    for i in columns_to_fill:
        columns[i] = [next(fill)]
    cell_cards: list[int | None] = [None if i < free else next(fill) for i in range(4)]
    board = Board(columns, cell_cards)
    assert board.free_cells() == free
    assert board.empty_columns() == empty
    return board, f"col1 {dst}"


GROUP_TABLE = {
    # free cells: (0 empty, 1 empty, 2 empty onto an occupied column,
    #              King-led into an empty column with 1 and 2 empty columns in all)
    0: (1, 2, 4, 1, 2),
    1: (2, 4, 8, 2, 4),
    2: (3, 6, 12, 3, 6),
    3: (4, 8, 16, 4, 8),
    4: (5, 10, 20, 5, 10),
}
ENTRIES = [
    (free, column, limit) for free, row in GROUP_TABLE.items() for column, limit in enumerate(row)
]


@pytest.mark.parametrize(("free", "column", "limit"), ENTRIES)
def test_group_size_table(free: int, column: int, limit: int) -> None:
    """All 30 entries of RULES.md's table, each through the real move path.

    The largest possible group is 12 cards onto a King, 13 led by a King: entries above
    that are checked through the capacity and the largest group that exists.
    """
    into_empty = column >= 3
    empty = (0, 1, 2, 1, 2)[column]
    longest = 13 if into_empty else 12
    board, move = _group_table(free, empty, min(limit, longest), into_empty)
    assert board.capacity(into_empty=into_empty) == limit
    play(board, move)
    assert len(board.columns[1]) == min(limit, longest) + (0 if into_empty else 2)
    if limit + 1 <= longest:
        board, move = _group_table(free, empty, limit + 1, into_empty)
        assert refused(board, move) == "group_too_large"


def test_example_one_free_cell_two_empty_columns() -> None:
    # RULES.md, "Group moves": up to 8 cards onto an occupied column, a King-led group of
    # at most 4 into one of the empty columns.
    board, move = _group_table(1, 2, 8, into_empty=False)
    play(board, move)
    board, move = _group_table(1, 2, 4, into_empty=True)
    play(board, move)
    board, move = _group_table(1, 2, 5, into_empty=True)
    assert refused(board, move) == "group_too_large"


def test_removed_cells_do_not_count_towards_group_sizes() -> None:
    board = Board([cards("3C QH JH"), cards("4C KH")] + [[c] for c in FILLERS[:8]], [None])
    assert board.capacity(into_empty=False) == 2
    play(board, "col1 col2")
    board = Board([cards("3C QH JH TH"), cards("4C KH")] + [[c] for c in FILLERS[:8]], [None])
    assert refused(board, "col1 col2") == "group_too_large"


# -- RULES.md, "Take-back" --------------------------------------------------------------


def test_take_back_to_a_column_that_accepts_it() -> None:
    board = table({1: "2C 6D"}, foundations={"D": 5})
    play(board, "found:D col1")
    assert board.foundations == [0, 0, 4, 0]
    assert board.columns[0] == cards("2C 6D 5D")
    assert board.score == 0


def test_take_back_to_a_free_cell() -> None:
    board = table({1: "2C"}, cells=["KS", None, None, None], foundations={"H": 3})
    play(board, "found:H cell2")
    assert board.cells[1] == cards("3H")[0] and board.foundations[1] == 2


def test_take_back_refusals() -> None:
    board = table({1: "2C 6D"}, cells=["KS", "QS", "JS", "TS"], foundations={"D": 4, "H": 3})
    assert refused(board, "found:D col1") == "not_one_lower"
    assert refused(board, "found:H col1") == "not_same_suit"
    assert refused(board, "found:D cell1") == "cell_occupied"
    assert refused(board, "found:S cell1") == "empty_source"
    assert refused(board, "found:D found") == "foundation_to_foundation"
    assert refused(board, "found:D found:H") == "foundation_to_foundation"
    with pytest.raises(IllegalAction) as info:
        board.push(Move(parse_location("found"), parse_location("col2")))
    assert info.value.reason == "foundation_needs_suit"


def test_take_back_of_a_king_into_an_empty_column() -> None:
    board = table({1: "2C"}, foundations={"S": 13})
    play(board, "found:S col4")
    assert board.columns[3] == cards("KS")


# -- misc -------------------------------------------------------------------------------


def test_source_and_destination_must_differ_and_hold_a_card() -> None:
    board = table({1: "2C"}, cells=["KS", None, None, None])
    assert refused(board, "col1 col1") == "same_location"
    assert refused(board, "cell1 cell1") == "same_location"
    assert refused(board, "col2 col1") == "empty_source"
    assert refused(board, "cell2 col1") == "empty_source"


def test_no_card_ever_moves_to_a_foundation_by_itself() -> None:
    # RULES.md, "No automatic moves, tap and double tap": only a tap or a move sends it.
    board = table({1: "AS 2H", 2: "2S"})
    play(board, "col1 cell1")  # uncovers the Ace of spades
    assert board.foundations == [0, 0, 0, 0]
    assert board.columns[0] == cards("AS")
    play(board, "tap col1")
    assert board.foundations == [1, 0, 0, 0]
    assert board.columns[1] == cards("2S")  # the 2 stays until asked
