"""The winning lines kept for hints: every position along a line answers its move, a proven
line keeps counting down what remains, other positions answer nothing, and the oldest go
past the bound."""

from __future__ import annotations

from server.engine import Board, parse_action
from server.engine.optimal import optimal_par
from server.engine.solver import Hint, solve
from server.play.hint_lines import HintLines


def test_every_position_of_a_line_answers_its_move() -> None:
    board = Board.deal(4, 4)
    line = solve(board, timeout=30).moves
    lines = HintLines()
    lines.learn(board, Hint("move", line[0], line=line))
    table = board.copy()
    for text in line:
        assert lines.hint(table) == Hint("move", text)
        table.play(parse_action(text))
    assert table.is_won() and lines.hint(table) is None
    assert lines.hint(Board.deal(5, 4)) is None


def test_a_proven_line_counts_down_what_remains() -> None:
    board = Board.deal(1, 4)
    best = optimal_par(board, timeout=60)
    assert best.optimal
    lines = HintLines()
    lines.learn(board, Hint("move", best.moves[0], len(best.moves), best.moves))
    table = board.copy()
    table.play(parse_action(best.moves[0]))
    found = lines.hint(table)
    assert found is not None and found.remaining == len(best.moves) - 1
    assert found.source == "proven"


def test_the_oldest_positions_go_past_the_bound_and_a_bad_line_stops() -> None:
    board = Board.deal(4, 4)
    line = solve(board, timeout=30).moves
    lines = HintLines(most=10)
    lines.learn(board, Hint("move", line[0], line=line))
    assert len(lines) == 10 and lines.hint(board) is None  # the opening was first in
    other = HintLines()
    other.learn(board, Hint("move", line[0], line=(line[0], "col1 col1", *line[1:])))
    assert len(other) == 2  # the opening and the position after the first move
    assert other.hint(board) == Hint("move", line[0])
