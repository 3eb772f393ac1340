"""Perfect games: a deal's shortest winning line (proven the fewest actions) and a line one
action longer."""

from __future__ import annotations

from functools import cache

from server.engine import Board, Move, parse_action
from server.engine.optimal import optimal_par

#: Deal 1 with 4 cells: its par in the shipped pool is proven (69 actions).
CODE = "SH1-C4-AAAAAAB"


@cache
def shortest(code: str) -> tuple[str, ...]:
    """A proven shortest win of a deal."""
    found = optimal_par(Board.from_code(code), timeout=60)
    assert found.optimal, found.result
    return found.moves


def one_longer(code: str, line: tuple[str, ...]) -> tuple[str, ...]:
    """A win one action longer than ``line``: one single card goes by way of a free cell."""
    board = Board.from_code(code)
    for i, text in enumerate(line):
        action = parse_action(text)
        free = [n for n, card in enumerate(board.cells, 1) if card is None]
        if isinstance(action, Move) and free and text.startswith("col"):
            detour = (f"{text.split()[0]} cell{free[0]}", f"cell{free[0]} {text.split()[1]}")
            trial = board.copy()
            try:
                for step in detour:
                    trial.play(parse_action(step))
            except Exception:  # a group move, or a destination the cell cannot reach
                board.play(action)
                continue
            longer = (*line[:i], *detour, *line[i + 1 :])
            check = Board.from_code(code)
            for step in longer:
                check.play(parse_action(step))
            if check.is_won() and check.moves == len(line) + 1:
                return longer
        board.play(action)
    raise AssertionError("no single-card move to send by way of a cell")
