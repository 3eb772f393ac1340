"""The solver: replayed wins, proofs of loss, budgets, hints, the CLI and the shipped pools."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import Board, format_code, parse_action, parse_card
from server.engine.optimal import optimal_par
from server.engine.solver import Hint, hint, solve
from server.pools import draw, load_pool, parse_pool
from tests.helpers.cli import run_in_process, run_seahaven

#: Seconds each command here may run: solving takes longer than the helper's default.
SOLVER_TIMEOUT = 120

#: The sizes the issue asks of the shipped pools.
POOL_SIZES = {4: 2000, 2: 500, 1: 200}


def replay(board: Board, moves: tuple[str, ...] | list[str]) -> Board:
    """Play actions through the engine on a copy; the engine refuses any illegal one."""
    table = board.copy()
    for move in moves:
        table.play(parse_action(move))
    return table


def position(columns: list[str], cells: list[str | None], found: dict[str, int]) -> Board:
    """A board from card names: columns as space-separated strings, bottom card first."""
    return Board(
        [[parse_card(c) for c in col.split()] for col in columns],
        [None if c is None else parse_card(c) for c in cells],
        [found.get(s, 0) for s in "SHDC"],
    )


def stuck_position() -> Board:
    """A lost table: one cell, held by the King of diamonds; no empty column.

    The Queen of diamonds is buried and every top card's successor is buried too, so no
    card can ever move.
    """
    columns = [
        "2S 3H", "2H 3S", "4S 4H 5S", "6S 5H", "6H 7S",
        "8S 7H", "8H 9S", "TS 9H", "TH JH JS", "QD QS KS QH KH",
    ]  # fmt: skip
    return position(columns, ["KD"], {"S": 1, "H": 1, "D": 11, "C": 13})


def brute_force(board: Board, limit: int) -> str:
    """Exhaustive search with every legal engine move (take-backs, cell to cell included).

    It shares no code with the solver, so it checks the solver's pruning.
    """

    def canon(b: Board) -> object:
        cols, cells, found = b.key()
        return (tuple(sorted(cols)), tuple(sorted(c for c in cells if c is not None)), found)

    seen = {canon(board)}
    stack = [board]
    while stack:
        table = stack.pop()
        if table.is_won():
            return "solved"
        for move in table.legal_moves():
            nxt = table.copy()
            nxt.push(move)
            key = canon(nxt)
            if key not in seen:
                seen.add(key)
                stack.append(nxt)
                if len(seen) > limit:
                    return "unknown"
    return "unsolvable"


# -- solving ----------------------------------------------------------------------------


@pytest.mark.parametrize(("deal", "cells"), [(0, 4), (1, 4), (314, 4), (5, 2), (60, 1)])
def test_solutions_replay_to_a_win(deal: int, cells: int) -> None:
    board = Board.deal(deal, cells)
    before = board.key()
    answer = solve(board)
    assert answer.result == "solved"
    assert board.key() == before, "solve must not change the board"
    assert replay(board, answer.moves).is_won()
    assert answer.states >= 1 and answer.seconds >= 0


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**35 - 1), st.sampled_from([4, 2, 1]))
def test_any_solution_is_a_legal_win(deal: int, cells: int) -> None:
    board = Board.deal(deal, cells)
    answer = solve(board, max_states=20000)
    if answer.result == "solved":
        assert replay(board, answer.moves).is_won()
    else:
        assert answer.moves == ()


def test_solves_a_mid_game_position() -> None:
    board = Board.deal(314, 4)
    first = solve(board)
    midway = replay(board, first.moves[:30])
    answer = solve(midway)
    assert answer.result == "solved"
    assert replay(midway, answer.moves).is_won()


def test_a_constructed_stuck_position_is_proven_unsolvable() -> None:
    board = stuck_position()
    assert board.legal_moves() == []
    answer = solve(board)
    assert answer.result == "unsolvable"
    assert answer.moves == ()


@pytest.mark.parametrize("deal", range(12))
def test_one_cell_verdicts_agree_with_brute_force(deal: int) -> None:
    board = Board.deal(deal, 1)
    truth = brute_force(board, 50000)
    assert truth != "unknown"
    assert solve(board).result == truth


def test_a_four_cell_deal_is_proven_unsolvable() -> None:
    # Deal 1095 with 4 cells: the brute force above agrees (545 tables, take-backs included).
    board = Board.deal(1095, 4)
    assert solve(board).result == "unsolvable"
    assert brute_force(board, 20000) == "unsolvable"


def test_unknown_when_the_budget_runs_out() -> None:
    board = Board.deal(314, 4)
    answer = solve(board, max_states=5)
    assert answer.result == "unknown"
    assert answer.moves == ()
    assert answer.states <= 20


def test_a_won_board_is_solved_with_no_moves() -> None:
    board = position([""] * 10, [None] * 4, {"S": 13, "H": 13, "D": 13, "C": 13})
    assert solve(board).result == "solved"
    assert solve(board).moves == ()


# -- hints ------------------------------------------------------------------------------


def test_hint_on_a_position_won_in_one() -> None:
    board = position(["", "", "", "", "KS", "", "", "", "", ""], [None] * 4, {
        "S": 12, "H": 13, "D": 13, "C": 13,
    })  # fmt: skip
    assert hint(board) == Hint("move", "col5 found")


def test_hint_from_a_cell() -> None:
    board = position([""] * 10, [None, "KH"], {"S": 13, "H": 12, "D": 13, "C": 13})
    assert hint(board) == Hint("move", "cell2 found")


def test_hint_says_lost_on_a_proven_lost_position() -> None:
    assert hint(stuck_position()) == Hint("lost", None)
    assert hint(Board.deal(1095, 4)).status == "lost"


def test_hint_is_unknown_when_its_time_runs_out() -> None:
    # Deal 25074896365 takes an exhaustive search of about 138,000 tables to prove lost.
    assert hint(Board.deal(25074896365, 4), timeout=0.01) == Hint("unknown", None)


def test_hint_is_the_first_action_of_a_win() -> None:
    board = Board.deal(2, 4)
    answer = hint(board)
    assert answer.status == "move" and answer.move is not None
    after = replay(board, [answer.move])
    assert solve(after).result == "solved"


def test_hints_in_worker_threads_match_hints_in_turn() -> None:
    # The server calls hint() through asyncio.to_thread: calls must share no state.
    boards = [Board.deal(d, cells) for d in range(8) for cells in (4, 2)]
    alone = [hint(b, timeout=30) for b in boards]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda b: hint(b, timeout=30), boards))
    assert together == alone
    assert {h.status for h in alone} == {"move", "lost"}


# -- the command line -------------------------------------------------------------------


def test_solve_json_has_the_fixed_shape() -> None:
    run = run_seahaven("solve", "sh1-c4-aaaaaj2", "--json", timeout=SOLVER_TIMEOUT)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert set(data) == {"code", "result", "moves", "states", "seconds"}
    assert data["code"] == "SH1-C4-AAAAAJ2" and data["result"] == "solved"
    assert isinstance(data["states"], int) and isinstance(data["seconds"], float)
    assert replay(Board.deal(314, 4), data["moves"]).is_won()


def test_solve_text_output_replays_to_a_win() -> None:
    run = run_in_process("solve", "SH1-C4-AAAAAJ2")
    assert run.returncode == 0
    assert run.stdout.startswith("# SH1-C4-AAAAAJ2: solved in ")
    replayed = run_in_process("replay", "SH1-C4-AAAAAJ2", "-", input=run.stdout)
    assert replayed.returncode == 0, replayed.stdout
    assert json.loads(replayed.stdout)["won"] is True


def test_solve_a_position_file(tmp_path: Path) -> None:
    board = replay(Board.deal(314, 4), solve(Board.deal(314, 4)).moves[:20])
    path = tmp_path / "position.json"
    path.write_text(json.dumps(board.to_json()))
    run = run_in_process("solve", "--position", str(path), "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["result"] == "solved"
    assert replay(board, data["moves"]).is_won()

    lost = tmp_path / "lost.json"
    lost.write_text(json.dumps(stuck_position().to_json()))
    run = run_in_process("solve", "--position", str(lost), "--json")
    assert run.returncode == 1
    assert json.loads(run.stdout)["result"] == "unsolvable"


def test_solve_unknown_under_a_state_budget() -> None:
    run = run_in_process("solve", "SH1-C4-AAAAAJ2", "--json", "--max-states", "3")
    assert run.returncode == 1
    assert json.loads(run.stdout)["result"] == "unknown"


@pytest.mark.parametrize(
    "args",
    [
        ("solve", "SH1-C4-AAAAAJ"),
        ("solve", "SH9-C4-AAAAAJ2"),
        ("solve", "--position", "/nonexistent/position.json"),
        ("solve",),
    ],
)
def test_solve_bad_input_exits_2(args: tuple[str, ...]) -> None:
    run = run_in_process(*args)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.startswith("seahaven: ")


def test_solve_a_malformed_position_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"cells": [null], "columns": []}')
    run = run_in_process("solve", "--position", str(path))
    assert run.returncode == 2
    assert "columns" in run.stderr


def test_certify_writes_a_loadable_pool(tmp_path: Path) -> None:
    out = tmp_path / "c1.txt"
    run = run_in_process(
        "certify",
        "--cells",
        "1",
        "--count",
        "3",
        "--start",
        "40",
        "--out",
        str(out),
    )
    assert run.returncode == 0, run.stderr
    assert "kept 3/3" in run.stderr
    text = out.read_text()
    assert text.startswith("# ")
    assert "seahaven certify --cells 1 --count 3 --start 40" in text
    entries = parse_pool(text, 1)
    assert len(entries) == 3
    assert all(e.deal >= 40 for e in entries)
    for entry in entries:
        answer = solve(Board.deal(entry.deal, 1))
        assert answer.result == "solved" and len(answer.moves) == entry.par
    # Every deal passed over between the first and the last kept one is not winnable.
    kept = {e.deal for e in entries}
    for deal in range(40, max(kept)):
        if deal not in kept:
            assert solve(Board.deal(deal, 1)).result == "unsolvable"


# -- the shipped pools ------------------------------------------------------------------


@pytest.mark.parametrize("cells", [4, 2, 1])
@pytest.mark.slow
def test_shipped_pool_sample_replays_to_a_win_at_par(cells: int) -> None:
    pool = load_pool(cells)
    assert len(pool) >= POOL_SIZES[cells]
    assert len({e.deal for e in pool}) == len(pool)
    for entry in random.Random(f"pool-{cells}").sample(pool, 5):
        assert entry.code == format_code(entry.deal, cells)
        board = Board.from_code(entry.code)
        if entry.optimal:  # the par is the proven fewest actions
            best = optimal_par(board, timeout=120, max_states=None)
            assert best.result == "optimal" and len(best.moves) == entry.par
            assert replay(board, best.moves).is_won()
            continue
        answer = solve(board)
        assert answer.result == "solved"
        assert replay(board, answer.moves).is_won()
        if entry.lower_bound is not None:  # the optimal search's best line, from this one
            assert entry.lower_bound <= entry.par <= len(answer.moves)
        else:
            assert len(answer.moves) == entry.par


def test_draw_takes_entries_from_the_pool() -> None:
    pool = set(load_pool(2))
    rng = random.Random(7)
    drawn = [draw(2, rng) for _ in range(50)]
    assert all(entry in pool for entry in drawn)
    assert len({entry.deal for entry in drawn}) > 10
    assert draw(2, random.Random(7)) == drawn[0]  # a seeded source draws the same deal


def test_pool_errors_are_clear() -> None:
    with pytest.raises(ValueError, match="cell count 3"):
        load_pool(3)
    with pytest.raises(ValueError, match="line 2"):
        parse_pool("# header\n12 x\n", 4)
    with pytest.raises(ValueError, match="listed twice"):
        parse_pool("5 80\n5 81\n", 4)
    with pytest.raises(ValueError, match="out of range"):
        parse_pool(f"{2**35} 80\n", 4)
    assert parse_pool("# only a header\n\n", 1) == ()
