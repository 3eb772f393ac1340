"""The optimal solver: its moves are the engine's, its optimum is breadth-first search's,
its bound never overestimates, and its lines replay to a win."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from server.engine import Board, parse_action
from server.engine.optimal import optimal_hint, optimal_par, state_of_board
from server.engine.solver import solve
from server.engine.solver_bound import ColumnBound, chain_bound, column_bound, lower_bound
from server.engine.solver_optimal import State, expand, key_of, search, settle, state_of


def walk(deal: int, cells: int, steps: int, seed: int) -> Board:
    """A table reached from a deal by random legal engine moves (take-backs included)."""
    rng = random.Random(seed)
    board = Board.deal(deal, cells)
    for _ in range(steps):
        legal = board.legal_moves()
        if not legal:
            break
        board.push(rng.choice(legal))
    return board


def engine_successors(board: Board) -> set[State]:
    """The sorted tables the engine's legal moves lead to, moves that change none left out."""
    here = state_of_board(board)
    out = set()
    for move in board.legal_moves():
        nxt = board.copy()
        nxt.push(move)
        out.add(state_of_board(nxt))
    out.discard(here)
    return out


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**35 - 1), st.sampled_from([4, 2, 1]), st.integers(0, 60), st.integers())
def test_compact_successors_are_the_engines(deal: int, cells: int, steps: int, seed: int) -> None:
    board = walk(deal, cells, steps, seed)
    state = state_of_board(board)
    listed = expand(state, len(board.cells), full=True)
    mine = [nxt for _, nxt in listed]
    assert state not in mine, "a listed move must change the sorted table"
    assert len(set(mine)) == len(mine), "each move once"
    assert set(mine) == engine_successors(board)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**35 - 1), st.sampled_from([4, 2, 1]), st.integers(0, 40), st.integers())
def test_search_moves_are_the_full_list_less_foundation_moves_and_take_backs(
    deal: int, cells: int, steps: int, seed: int
) -> None:
    settled, _ = settle(state_of_board(walk(deal, cells, steps, seed)))
    full = expand(settled, cells, full=True)
    kept = {nxt for move, nxt in full if move[0] != 255 and move[1] != 52}
    assert {nxt for _, nxt in expand(settled, cells)} == kept


def test_keys_round_trip() -> None:
    state = state_of_board(walk(7, 4, 30, 1))
    assert state_of(key_of(state)) == state


@cache
def proven_line(deal: int, cells: int) -> tuple[str, ...]:
    answer = optimal_par(Board.deal(deal, cells), timeout=30)
    assert answer.result == "optimal", (deal, cells, answer.result)
    return answer.moves


# -- exhaustive breadth-first search on small tables ----------------------------------------


def bfs(board: Board, limit: int) -> int | None:
    """The fewest actions that win, by breadth-first search over every legal engine move
    (take-backs and cell-to-cell moves too); -1 when no win exists, None past ``limit``.

    It shares nothing with the optimal search but the sorted table used to tell tables
    apart."""
    if board.is_won():
        return 0
    seen = {state_of_board(board)}
    frontier = [board]
    depth = 0
    while frontier:
        depth += 1
        nxt_frontier = []
        for table in frontier:
            for move in table.legal_moves():
                nxt = table.copy()
                nxt.push(move)
                if nxt.is_won():
                    return depth
                key = state_of_board(nxt)
                if key not in seen:
                    seen.add(key)
                    nxt_frontier.append(nxt)
            if len(seen) > limit:
                return None
        frontier = nxt_frontier
    return -1


@st.composite
def small_tables(draw: st.DrawFn) -> Board:
    """A table with few cards left: foundations high, the rest dealt at random.

    At most 7 cards: the exhaustive search of a table of 8 or more passes its 5,000 tables
    almost always (it had 1 answer in 41 such tables), and costs a second to find that out.
    """
    cells = draw(st.sampled_from([4, 2, 1]))
    found = [draw(st.integers(10, 13)) for _ in range(4)]
    left = [s * 13 + r for s in range(4) for r in range(found[s], 13)]
    assume(3 <= len(left) <= 7)
    left = draw(st.permutations(left))
    in_cells = draw(st.integers(0, min(cells, len(left))))
    table_cells: list[int | None] = [*left[:in_cells], *[None] * (cells - in_cells)]
    columns: list[list[int]] = [[] for _ in range(10)]
    for card in left[in_cells:]:
        columns[draw(st.integers(0, 3))].append(card)
    return Board(columns, table_cells, found)


def compact_bfs(board: Board, limit: int) -> int | None:
    """As :func:`bfs`, on the compact table with its full move list (foundation moves and
    take-backs one at a time: no auto-play, no pruning, no bound), which
    :func:`test_compact_successors_are_the_engines` holds to the engine's."""
    start = state_of_board(board)
    if sum(start.found) == 52:
        return 0
    seen = {start}
    frontier = [start]
    depth = 0
    while frontier:
        depth += 1
        nxt_frontier = []
        for state in frontier:
            for _, nxt in expand(state, len(board.cells), full=True):
                if sum(nxt.found) == 52:
                    return depth
                if nxt not in seen:
                    seen.add(nxt)
                    nxt_frontier.append(nxt)
        if len(seen) > limit:
            return None
        frontier = nxt_frontier
    return -1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(small_tables())
@pytest.mark.slow
def test_the_optimum_is_breadth_first_searchs(board: Board) -> None:
    # About one table in four passes the limit: the compact search, ten times faster and
    # held to the engine's moves, turns those away before the engine's search is paid.
    assume(compact_bfs(board, 5_000) is not None)
    exact = bfs(board, 5_000)
    assume(exact is not None)
    answer = optimal_par(board, timeout=None, max_states=None)
    if exact == -1:
        assert answer.result == "unsolvable"
        return
    assert answer.result == "optimal"
    assert len(answer.moves) == answer.lower_bound == exact
    table = board.copy()
    for move in answer.moves:
        table.play(parse_action(move))
    assert table.is_won()
    state = state_of_board(board)
    assert lower_bound(state.cols, sum(state.found), {}) <= exact


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(st.sampled_from([(0, 4), (1, 4), (5, 4), (9, 4), (5, 2), (60, 1)]), st.integers())
@pytest.mark.slow
def test_the_optimal_search_from_a_late_table_of_a_deal_agrees_with_bfs(
    deal_cells: tuple[int, int], seed: int
) -> None:
    line = proven_line(*deal_cells)
    late = Board.deal(*deal_cells)
    # Six actions before the end, then three random moves, take-backs included, to leave
    # the line: 4 in 5 such tables are within the exhaustive search's 20,000 (ten actions
    # before the end, 1 in 8, each costing a second to find out).
    for move in line[: len(line) - 6]:
        late.play(parse_action(move))
    rng = random.Random(seed)
    for _ in range(3):
        late.push(rng.choice(late.legal_moves()))
    exact = compact_bfs(late, 20_000)
    assume(exact is not None)
    again = optimal_par(late, timeout=None, max_states=None)
    assert again.result == "optimal" and len(again.moves) == exact


# -- the bound ------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from([(0, 4), (1, 4), (5, 4), (9, 4), (7, 4), (5, 2), (34, 2), (60, 1)]), st.data()
)
def test_the_bound_never_exceeds_the_remaining_optimum(
    deal_cells: tuple[int, int], data: st.DataObject
) -> None:
    line = proven_line(*deal_cells)
    i = data.draw(st.integers(0, len(line)))
    board = Board.deal(*deal_cells)
    for move in line[:i]:
        board.play(parse_action(move))
    state = state_of_board(board)
    # Along a shortest line, what is left of it is a shortest win from there.
    assert lower_bound(state.cols, sum(state.found), {}) <= len(line) - i


def test_a_card_above_a_lower_card_of_its_suit_forces_its_chain() -> None:
    # 5H under 7S 6S: the spades' chain is free, 8H over 5H must move (one chain).
    col = bytes([13 + 4, 6, 5, 13 + 7])
    assert column_bound(col).forced == 1


def test_a_cycle_across_two_columns_counts_one_chain() -> None:
    # col A: 5H under 7S; col B: 4S under 6H. If 7S and 6H both stay, 7S goes home before
    # 5H, which goes before 6H, which goes before 4S, which goes before 7S: a cycle.
    a = bytes([13 + 4, 6])
    b = bytes([3, 13 + 5])
    memo: dict[bytes, ColumnBound] = {}
    assert column_bound(a).forced == column_bound(b).forced == 0
    assert chain_bound([a, b], memo) == 1


@pytest.mark.parametrize(("deal", "optimum"), [(0, 78), (3, 80), (9, 77)])
def test_the_issues_deals_have_their_optimum(deal: int, optimum: int) -> None:
    answer = optimal_par(Board.deal(deal, 4), timeout=60)
    assert answer.result == "optimal"
    assert len(answer.moves) == optimum
    table = Board.deal(deal, 4)
    for move in answer.moves:
        table.play(parse_action(move))
    assert table.is_won()


def test_out_of_budget_gives_the_best_line_and_a_lower_bound() -> None:
    board = Board.deal(4, 4)
    answer = optimal_par(board, timeout=30, max_states=50)
    assert answer.result == "best"
    assert answer.lower_bound < len(answer.moves)
    table = board.copy()
    for move in answer.moves:
        table.play(parse_action(move))
    assert table.is_won()
    full = optimal_par(board, timeout=60)
    assert answer.lower_bound <= len(full.moves) <= len(answer.moves)


def test_search_alone_without_a_seed_line() -> None:
    board = Board.deal(1, 4)
    found = search(state_of_board(board), 4)
    assert found.outcome == "optimal" and len(found.moves) == 69


def test_a_hint_names_a_move_on_a_shortest_line_and_the_actions_left() -> None:
    board = Board.deal(1, 4)
    hint = optimal_hint(board, timeout=60)
    assert hint.status == "move" and hint.move is not None and hint.remaining == 69
    board.play(parse_action(hint.move))
    after = optimal_par(board, timeout=60)
    assert after.optimal and len(after.moves) == 68


def test_a_hint_without_time_for_a_proof_is_the_fast_solvers() -> None:
    board = Board.deal(4, 4)
    hint = optimal_hint(board, timeout=1.0, max_states=50)
    assert hint.status == "move" and hint.remaining is None


def test_a_hint_with_no_time_for_a_proof_still_names_the_fast_solvers_move() -> None:
    # The budget in seconds is the proof's: the fast solver's is in tables, so a busy
    # machine (here: no seconds at all) delays the move but never loses it.
    board = Board.deal(2, 4)
    hint = optimal_hint(board, timeout=0.0)
    assert hint.status == "move" and hint.source == "solver" and hint.remaining is None
    assert hint.move is not None
    board.play(parse_action(hint.move))
    assert solve(board, timeout=30).result == "solved"


def test_a_proven_hint_names_its_source() -> None:
    hint = optimal_hint(Board.deal(1, 4), timeout=60)
    assert hint.source == "proven" and hint.remaining == 69
    assert optimal_hint(Board.deal(1, 4), timeout=0.0, fast_states=10).source is None
