"""Send home (RULES.md): every card left reaches the foundations by foundation moves alone;
and the legal destinations the server hands a player with their own board (``targets``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import CELL, COL, FOUND, Board, IllegalAction, Loc, Move, Tap
from server.engine.cards import Card
from server.engine.codes import MAX_DEAL
from tests.helpers.positions import games, refused, table


def all_home_by_dependencies(board: Board) -> bool:
    """An independent reading of "every card left can reach the foundations by foundation
    moves alone": a card goes home after every card above it in its column and after the
    next lower card of its suit; that is possible exactly when this "goes first" relation
    has no cycle (a topological sort takes every card)."""
    left = [c for col in board.columns for c in col] + [c for c in board.cells if c is not None]
    if not left:
        return False  # won: nothing to send
    first: dict[Card, set[Card]] = {c: set() for c in left}
    for col in board.columns:
        for i, card in enumerate(col):
            first[card] |= set(col[i + 1 :])
    for card in left:
        if card % 13 and card - 1 in first:
            first[card].add(card - 1)
    done: set[Card] = set()
    while True:
        ready = [c for c in first if c not in done and first[c] <= done]
        if not ready:
            return len(done) == len(first)
        done.update(ready)


@st.composite
def endgames(draw: st.DrawFn) -> Board:
    """A table built backwards from the won one: cards taken off random foundations onto
    random columns and free cells, so that sending home works; now and then two cards
    swapped, which mostly breaks it (either way is tested against the independent check)."""
    n_cells = draw(st.sampled_from([4, 2, 1]))
    columns: list[list[Card]] = [[] for _ in range(10)]
    cells: list[Card | None] = [None] * n_cells
    found = [13, 13, 13, 13]
    for _ in range(draw(st.integers(1, 52))):
        suit = draw(st.sampled_from([s for s in range(4) if found[s]]))
        found[suit] -= 1
        card = suit * 13 + found[suit]
        free = [i for i, c in enumerate(cells) if c is None]
        if free and draw(st.integers(0, 5)) == 0:
            cells[draw(st.sampled_from(free))] = card
        else:
            columns[draw(st.integers(0, 9))].append(card)
    if draw(st.booleans()):
        spots = [(i, j) for i, col in enumerate(columns) for j in range(len(col))]
        if len(spots) > 1:
            (a, b), (c, d) = draw(st.lists(st.sampled_from(spots), min_size=2, max_size=2))
            columns[a][b], columns[c][d] = columns[c][d], columns[a][b]
    return Board(columns, cells, found)


def test_send_home_taps_the_lowest_card_first_and_wins() -> None:
    board = table({1: "KH QH", 2: "JH", 3: "KS"}, cells=["QS", None, None, None])
    board.foundations = [11, 10, 13, 13]  # S up to the J, H up to the 10
    assert board.can_send_home()
    taps = board.send_home_taps()
    # J; then the Queens, the cell first; then the Kings, left to right.
    assert [str(t) for t in taps] == ["tap col2", "tap cell1", "tap col1", "tap col1", "tap col3"]
    for tap in taps:
        board.play(tap)
    assert board.is_won()


def test_send_home_is_refused_while_a_card_blocks_its_own_suit() -> None:
    # The 9 of hearts lies under the 10 of hearts: foundation moves alone cannot free it.
    board = table({1: "9H TH", 2: "JH QH KH"})
    board.foundations = [13, 8, 13, 13]
    assert not board.can_send_home()
    with pytest.raises(IllegalAction) as info:
        board.send_home_taps()
    assert info.value.reason == "cannot_send_home"
    assert refused(board, "tap col1") == "no_foundation_move"  # and nothing changed


def test_nothing_to_send_on_a_won_board_nor_at_the_deal() -> None:
    won = Board([[] for _ in range(10)], [None] * 4, [13, 13, 13, 13])
    assert not won.can_send_home()
    assert not Board.from_code("SH1-C4-AAAAAJ2").can_send_home()


@settings(max_examples=300, deadline=None)
@given(endgames())
def test_send_home_is_possible_exactly_when_no_card_blocks_another(board: Board) -> None:
    possible = all_home_by_dependencies(board)
    assert board.can_send_home() == possible
    if not possible:
        before = board.key()
        with pytest.raises(IllegalAction, match="foundation moves alone"):
            board.send_home_taps()
        assert board.key() == before
        return
    for tap in board.send_home_taps():
        assert isinstance(tap, Tap)
        board.play(tap)  # each tap is accepted: a foundation move
    assert board.is_won()


def check_targets(board: Board) -> None:
    """``targets()`` lists exactly the moves the rules accept, foundations by suit."""
    targets = board.targets()
    cells = [CELL[i] for i in range(len(board.cells))]
    sources: list[Loc] = [*COL, *cells, *FOUND]
    destinations: list[Loc] = [*COL, *cells, *FOUND]
    for src in sources:
        listed = targets.get(src, [])
        assert len(set(listed)) == len(listed), src  # each destination once
        accepted = [dst for dst in destinations if board.is_legal(Move(src, dst))]
        assert sorted(listed, key=str) == sorted(accepted, key=str), src
        # A top card can go home exactly when a tap sends it there.
        if src.kind != "found":
            tapped = board.copy()
            try:
                tapped.tap(src)
                home = True
            except IllegalAction:
                home = False
            assert home == any(d.kind == "found" for d in listed), src
    assert set(targets) <= set(sources)
    assert all(targets.values())  # a source without a legal move is left out


@settings(max_examples=100, deadline=None)
@given(games)
def test_targets_are_exactly_the_destinations_the_rules_accept(
    game: tuple[int, int, list[tuple[int, int]]],
) -> None:
    deal, cells, picks = game
    board = Board.deal(deal % (MAX_DEAL + 1), cells)
    for pick, _ in picks[:40]:
        check_targets(board)
        legal = board.legal_moves()
        if not legal:
            break
        board.push(legal[pick % len(legal)])


@settings(max_examples=100, deadline=None)
@given(endgames())
def test_targets_in_endgames_too(board: Board) -> None:
    check_targets(board)
