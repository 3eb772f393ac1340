"""The move path lists a board's legal moves once and hands them to ``targets`` and
``is_lost``: given the list or not, both answer exactly what the plain definitions say."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import FOUND, OWN_FOUNDATION, Board, Loc
from server.engine.codes import MAX_DEAL

games = st.tuples(
    st.integers(0, MAX_DEAL),
    st.sampled_from([4, 2, 1]),
    st.lists(st.integers(0, 10_000), min_size=1, max_size=150),
)


def plain_targets(board: Board) -> list[tuple[Loc, list[Loc]]]:
    """Each source's destinations, grouped with a dict in the order of the legal moves."""
    out: dict[Loc, list[Loc]] = {}
    for src, dst in board.legal_moves():
        if dst == OWN_FOUNDATION:
            card = board.card_at(src)
            assert card is not None
            dst = FOUND[card // 13]
        out.setdefault(src, []).append(dst)
    return list(out.items())


def plain_is_lost(board: Board) -> bool:
    """Not won, and no legal move is useful."""
    return not board.is_won() and not any(board.is_useful(m) for m in board.legal_moves())


@settings(max_examples=100, deadline=None)
@given(games)
def test_targets_and_is_lost_agree_with_their_definitions(
    game: tuple[int, int, list[int]],
) -> None:
    deal, cells, picks = game
    board = Board.deal(deal, cells)
    for pick in picks:
        legal = board.legal_moves()
        expected = plain_targets(board)
        # Same sources, same destinations, in the same order (the JSON the player gets).
        assert list(board.targets().items()) == expected
        assert list(board.targets(legal).items()) == expected
        named = [(src.name, [dst.name for dst in dsts]) for src, dsts in expected]
        assert list(board.target_names().items()) == named
        assert board.is_lost() == board.is_lost(legal) == plain_is_lost(board)
        if not legal:
            break
        board.push(legal[pick % len(legal)])


def test_a_location_names_itself_once_and_compares_by_place() -> None:
    made = Loc("col", 3)
    assert made.name == str(made) == "col4"
    assert str(Loc("found", -1)) == "found" and str(Loc("found", 2)) == "found:D"
    assert str(Loc("cell", 0)) == "cell1"
    # The name is not part of the value: equal places are equal and hash alike.
    assert made == Loc("col", 3) and hash(made) == hash(Loc("col", 3))
    assert made != Loc("col", 4) and repr(made) == "Loc(kind='col', index=3)"
