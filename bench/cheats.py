"""The cheating players of ``bench/fairplay.py``: the server's solver with deliberate
deviations (kept, or vetted on a copy first), the optimal search's line, and a line
practised on another identity, each at a person's pace (:class:`PaceClock`, which the
honest ``human2`` of the bench shares).
"""

from __future__ import annotations

import math
import random

from bench.review import Clock, Game, human, send_home
from server.engine import Board, parse_action
from server.engine.optimal import optimal_par
from server.engine.solver import solve


class PaceClock(Clock):
    """Think times log-normal with a median of ``median_ms``."""

    def __init__(self, rng: random.Random, sigma: float, median_ms: int) -> None:
        super().__init__(rng, sigma)
        self.median_ms = median_ms

    def press(self, scale: float = 1.0) -> int:
        if self.first:
            self.first = False
            return self.now
        think = self.median_ms * scale * math.exp(self.rng.gauss(0.0, self.sigma))
        self.now += max(80, round(think))
        return self.now


def noisy(code: str, rng: random.Random, rate: float, vet: bool = False) -> Game | None:
    """The solver re-asked after each deliberate deviation (see ``bench/fairplay.py``'s
    docstring): a deviation that loses is taken back at once, or, with ``vet``, tried on a
    copy first and never played."""
    board = Board.from_code(code)
    game, clock = Game(code, [], []), PaceClock(rng, 0.5, 1300)
    line: list[str] = list(solve(board, max_states=200_000).moves)
    if not line:
        return None
    while len(game.actions) < 1000:
        if board.is_won():
            return game
        if board.can_send_home():
            send_home(board, game, clock)
            return game
        useful = board.useful_moves()
        if useful and rng.random() < rate:
            move = rng.choice(useful)
            trial = board.copy()
            trial.play(move)
            fresh = solve(trial, max_states=200_000)
            if fresh.result == "solved":
                board = trial
                game.actions.append(str(move))
                game.times.append(clock.press())
                line = list(fresh.moves)
                continue
            if not vet:  # played, then taken back
                game.actions += [str(move), "undo"]
                game.times += [clock.press(), clock.press()]
                continue
        text = line.pop(0)
        board.play(parse_action(text))
        game.actions.append(text)
        game.times.append(clock.press())
    return None


def vetted(code: str, rng: random.Random, rate: float) -> Game | None:
    """:func:`noisy` with each deviation tried on a copy first."""
    return noisy(code, rng, rate, vet=True)


def optimal(code: str, rng: random.Random) -> Game | None:
    """The optimal search's line at a person's pace."""
    board = Board.from_code(code)
    found = optimal_par(board, timeout=30, max_states=1_000_000)
    if not found.moves:
        return None
    game, clock = Game(code, [], []), PaceClock(rng, 0.5, 1300)
    for text in found.moves:
        if board.can_send_home():
            send_home(board, game, clock)
            return game
        board.play(parse_action(text))
        game.actions.append(text)
        game.times.append(clock.press())
    return game


def kept_line(code: str, actions: list[str]) -> list[str]:
    """A line without what was undone."""
    board = Board.from_code(code)
    stack: list[str] = []
    for text in actions:
        board.play(parse_action(text))
        if text == "undo":
            stack.pop()
        else:
            stack.append(text)
    return stack


def practised(code: str, rng: random.Random) -> tuple[Game, list[str]] | None:
    """Identity B replays identity A's kept line; returns B's game and A's line."""
    first = human(code, rng, 0.6, 3000)
    if first is None:
        return None
    line = kept_line(code, first.actions)
    board = Board.from_code(code)
    game, clock = Game(code, [], []), PaceClock(rng, 0.5, 1300)
    for text in line:
        if board.can_send_home():
            send_home(board, game, clock)
            return game, first.actions
        board.play(parse_action(text))
        game.actions.append(text)
        game.times.append(clock.press())
    return game, first.actions
