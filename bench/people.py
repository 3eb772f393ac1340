"""Strong honest players who never consult a solver, for ``bench/fairplay.py``.

The fair-play rule must leave the best people alone, not only slow ones. These models play
the way strong players are seen to play: they look a few moves ahead over their own liking
of the table, think long before a hard decision, and once a plan is seen they play its moves
in a quick run. Neither ever asks the engine's solver or its optimal search for anything: a
move is chosen from the table alone.

- :func:`planner`: a strong, fast player. A bounded look-ahead (a beam of the best few moves,
  four plies deep), think times log-normal with a median of 1.5 s before each plan (longer
  when there is more to choose from, or when no plan looks good), then the plan's moves at
  a median of 0.6 s each. Games of about 90 to 150 s.
- :func:`club`: a careful club player. Two plies ahead, a median think of 3 s, runs of at
  most two quick moves, a slip now and then. Games of about 200 to 300 s.

Both keep a set of the tables they reached and never go back to one; at a dead end they
take back their last moves, as the web client lets anyone do.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from bench.review import T0, Game, send_home
from server.engine import Board, parse_action
from server.engine.moves import Move
from server.review.scoring import TableKey, table_key


@dataclass(frozen=True, slots=True)
class Style:
    """How one kind of player looks ahead and how fast they press.

    Attributes:
        depth, beam: plies looked ahead, and moves kept at each ply.
        think_ms, think_sigma: the median and spread (log) of a think before a plan.
        run_ms, run_sigma: the same for a move of a plan already seen.
        run_most: the most moves of one plan played in a run.
        slip: the chance of a plan's first move being a lesser one.
        noise: the spread of the player's liking (their judgement is not exact).
    """

    depth: int
    beam: int
    think_ms: int
    think_sigma: float
    run_ms: int
    run_sigma: float
    run_most: int
    slip: float
    noise: float


PLANNER = Style(4, 4, 1500, 0.55, 600, 0.35, 5, 0.0, 0.6)
CLUB = Style(2, 5, 3000, 0.5, 1000, 0.35, 2, 0.03, 1.2)


def liking(board: Board) -> float:
    """A strong player's view of a table: cards home, free cells, empty columns, ordered
    groups at the foot of the columns, and how deep the next cards to go home are buried."""
    home = board.foundations
    value = 12.0 * sum(home)
    value += 3.0 * board.free_cells()
    value += 6.0 * sum(1 for col in board.columns if not col)
    for col in board.columns:
        if not col:
            continue
        run = 1
        while run < len(col) and col[-run - 1] == col[-run] + 1 and col[-run] % 13 != 12:
            run += 1
        if len(col) == run and col[0] % 13 == 12:
            value += 2.0 * run  # a King's group on the bottom: settled
        for depth, card in enumerate(reversed(col)):
            need = card % 13 - home[card // 13]
            if need < 3:
                value -= (3 - need) * 0.9 * depth
    return value


def _plan(
    board: Board, seen: set[TableKey], style: Style, rng: random.Random
) -> tuple[list[Move], int]:
    """The best line the player sees from ``board`` (its moves) and how many moves there
    were to choose from at its start."""
    start = board.useful_moves()
    frontier: list[tuple[float, Board, list[Move]]] = [(liking(board), board, [])]
    best: tuple[float, list[Move]] = (-math.inf, [])
    for ply in range(style.depth):
        children: list[tuple[float, Board, list[Move]]] = []
        for _value, node, path in frontier:
            for move in node.useful_moves():
                after = node.copy()
                after.push(move)
                key = table_key(after)
                if key in seen:
                    continue
                value = liking(after) + rng.gauss(0.0, style.noise) - 0.3 * ply
                children.append((value, after, [*path, move]))
        if not children:
            break
        children.sort(key=lambda c: c[0], reverse=True)
        frontier = children[: style.beam]
        if frontier[0][0] > best[0]:
            best = (frontier[0][0], frontier[0][2])
    return best[1], len(start)


def _player(code: str, rng: random.Random, style: Style, max_actions: int = 1500) -> Game | None:
    board = Board.from_code(code)
    game = Game(code, [], [])
    now = T0 + rng.randint(3_000, 8_000)  # reading the table
    first = True
    seen = {table_key(board)}
    depth = 0

    def press(median_ms: float, sigma: float) -> int:
        nonlocal now, first
        if first:
            first = False
            return now
        now += max(150, round(median_ms * math.exp(rng.gauss(0.0, sigma))))
        return now

    while len(game.actions) < max_actions:
        if board.can_send_home():
            at = press(style.think_ms * 0.5, style.think_sigma)
            game_clock = _Fixed(at)
            send_home(board, game, game_clock)  # type: ignore[arg-type]
            return game
        plan, options = _plan(board, seen, style, rng)
        if plan and style.slip and rng.random() < style.slip:
            others = [
                m
                for m in board.useful_moves()
                if m != plan[0] and table_key(_after(board, m)) not in seen
            ]
            if others:
                plan = [rng.choice(others)]
        if not plan:
            if depth > 0 and board.can_undo():
                board.play(parse_action("undo"))
                game.actions.append("undo")
                game.times.append(press(style.think_ms * 0.7, style.think_sigma))
                depth -= 1
                continue
            return None
        # A hard decision (many moves, or a plan that gains little) takes longer to see.
        gain = liking(_after_all(board, plan)) - liking(board)
        scale = 0.7 + 0.06 * options + (0.8 if gain <= 0 else 0.0)
        for i, move in enumerate(plan[: style.run_most]):
            if not board.is_legal(move) or table_key(_after(board, move)) in seen:
                break
            board.push(move)
            seen.add(table_key(board))
            game.actions.append(str(move))
            if i == 0:
                game.times.append(press(style.think_ms * scale, style.think_sigma))
            else:
                game.times.append(press(style.run_ms, style.run_sigma))
            depth += 1
            if board.can_send_home():
                break
    return None


class _Fixed:
    """A clock that presses at one given time (the send home is one press)."""

    def __init__(self, at: int) -> None:
        self.at = at

    def press(self) -> int:
        return self.at


def _after(board: Board, move: Move) -> Board:
    after = board.copy()
    after.push(move)
    return after


def _after_all(board: Board, moves: list[Move]) -> Board:
    after = board.copy()
    for move in moves:
        after.push(move)
    return after


def planner(code: str, rng: random.Random) -> Game | None:
    """A strong, fast player (see the module docstring)."""
    return _player(code, rng, PLANNER)


def club(code: str, rng: random.Random) -> Game | None:
    """A careful club player (see the module docstring)."""
    return _player(code, rng, CLUB)
