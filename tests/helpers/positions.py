"""Build tables for rule tests from short strings, like ``"KH QH"`` for a column."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

from server.engine import Board, IllegalAction, parse_action, parse_card
from server.engine.cards import Card
from server.engine.codes import MAX_DEAL


def cards(text: str) -> list[Card]:
    """Cards of a space-separated string, bottom first."""
    return [parse_card(word) for word in text.split()]


def full_cells(text: str) -> list[Card | None]:
    """Cells holding the cards of a space-separated string, one each: none of them free."""
    return [*cards(text)]


def table(
    columns: dict[int, str] | None = None,
    cells: list[str | None] | None = None,
    foundations: dict[str, int] | None = None,
) -> Board:
    """A board with the given columns (1-based numbers), cells and foundation counts.

    Columns not named are empty; ``cells`` defaults to four free cells. The table need not
    hold all 52 cards: the rules under test look only at what is there.
    """
    cols: list[list[Card]] = [[] for _ in range(10)]
    for number, text in (columns or {}).items():
        cols[number - 1] = cards(text)
    cell_cards: list[Card | None] = [
        None if c is None else parse_card(c) for c in (cells or [None] * 4)
    ]
    found = [0, 0, 0, 0]
    for suit, count in (foundations or {}).items():
        found["SHDC".index(suit)] = count
    return Board(cols, cell_cards, found)


def play(board: Board, text: str) -> None:
    """Play one action in RULES.md notation."""
    board.play(parse_action(text))


def refused(board: Board, text: str) -> str:
    """The reason an action is refused; also checks that it changed nothing."""
    before, score, moves = board.key(), board.score, board.moves
    with pytest.raises(IllegalAction) as info:
        play(board, text)
    assert board.key() == before and board.score == score and board.moves == moves
    return info.value.reason


games = st.tuples(
    st.integers(0, MAX_DEAL),
    st.sampled_from([4, 2, 1]),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 9)), min_size=1, max_size=120),
)

#: A deal, its cells and the picks of a random game: each pick chooses one of the board's
#: legal moves (modulo their number).
played = st.tuples(
    st.integers(0, MAX_DEAL),
    st.sampled_from([4, 2, 1]),
    st.lists(st.integers(0, 10_000), min_size=1, max_size=120),
)
