"""Lines for the fair play tests: a player's own (a seeded search that finds its win its
own way, the solver never asked) and a solver's with deliberate deviations."""

from __future__ import annotations

import random

from server.engine import Board, parse_action
from server.engine.solver import solve
from server.review.scoring import table_key


def own_line(code: str, seed: int, max_tables: int = 200_000) -> tuple[str, ...]:
    """A win found by a seeded depth-first search (cards home first, the rest in a random
    order): a line of its own, which no solver chose; its kept actions only."""
    rng = random.Random(seed)

    def options(board: Board) -> list[str]:
        moves = [str(m) for m in board.useful_moves()]
        rng.shuffle(moves)
        return sorted(moves, key=lambda t: "found" not in t)

    start = Board.from_code(code)
    seen = {table_key(start)}
    stack: list[tuple[Board, list[str]]] = [(start, options(start))]
    path: list[str] = []
    while stack and len(seen) < max_tables:
        board, moves = stack[-1]
        if board.can_send_home():
            break
        if not moves:
            stack.pop()
            if path:
                path.pop()
            continue
        text = moves.pop(0)
        after = board.copy()
        after.play(parse_action(text))
        if table_key(after) in seen:
            continue
        seen.add(table_key(after))
        path.append(text)
        stack.append((after, options(after)))
    assert stack, f"no win found from seed {seed}"
    board = stack[-1][0].copy()
    while board.can_send_home():  # the cards home one move at a time, as the solver's
        home = next(str(m) for m in board.legal_moves() if "found" in str(m))
        board.play(parse_action(home))
        path.append(home)
    assert board.is_won(), f"no win found from seed {seed}"
    return tuple(path)


def noisy_line(code: str, rate: float, seed: int) -> tuple[str, ...]:
    """The solver's line, a random useful move kept instead on ``rate`` of the decisions,
    the solver asked again after each (a deviation that loses is not played)."""
    rng = random.Random(seed)
    board = Board.from_code(code)
    line = list(solve(board, max_states=200_000).moves)
    out: list[str] = []
    while line and not board.is_won():
        useful = board.useful_moves()
        if useful and rng.random() < rate:
            move = rng.choice(useful)
            trial = board.copy()
            trial.play(move)
            fresh = solve(trial, max_states=200_000)
            if fresh.result == "solved":
                board = trial
                out.append(str(move))
                line = list(fresh.moves)
                continue
        text = line.pop(0)
        board.play(parse_action(text))
        out.append(text)
    assert board.is_won()
    return tuple(out)
