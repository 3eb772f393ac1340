"""The peer room of ``bench/peer.py`` plays by our rules: ``bench/peer/rules.js`` deals the
same tables, accepts and refuses the same actions and lists the same legal destinations
as the engine (else the Colyseus room would do other work a move than our server). And the
bench, run small, prints its table with a CPU cost for each of the three servers."""

from __future__ import annotations

import contextlib
import json
import random
import re
import shutil
import subprocess
import sys

import pytest

from server.engine import Board, parse_action
from server.engine.errors import IllegalAction
from tests import ROOT

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")

#: Deals of each cell count; the last one's walk clears columns and moves groups.
CODES = ("SH1-C4-AAAAAJ2", "SH1-C4-BCDEFGH", "SH1-C2-AAAAAJ2", "SH1-C1-ZZZZZZ7", "SH1-C4-AB3CD7E")
#: Actions that are often refused, beside the legal moves of the walk.
TRIES = ("col1 col2", "tap cell3", "dtap col4", "dtap cell1", "undo", "found:S col1", "col7 col1")


def walk(code: str, seed: int, steps: int = 300) -> list[str]:
    """A random game: mostly legal moves, those that clear the table first (so that columns
    empty and groups grow), and some actions the table may refuse."""
    board = Board.from_code(code)
    rnd = random.Random(seed)
    line = []
    for _ in range(steps):
        legal = [str(m) for m in board.legal_moves()]
        onward = [m for m in legal if m.endswith("found") or (" col" in m and "found:" not in m)]
        if rnd.random() < 0.8:
            text = rnd.choice(onward or legal or TRIES)
        else:
            text = rnd.choice([*legal, *TRIES])
        line.append(text)
        with contextlib.suppress(IllegalAction):
            board.play(parse_action(text))
    return line


def seen(board: Board) -> dict[str, object]:
    """The table as check.js writes it."""
    table = board.to_json()
    del table["code"]
    return {**table, "score": board.score, "targets": board.target_names()}


def test_the_peer_rules_are_the_engines() -> None:
    lines = [walk(code, seed) for seed, code in enumerate(CODES)]
    cases = [{"code": code, "line": line} for code, line in zip(CODES, lines, strict=True)]
    done = subprocess.run(
        ["node", str(ROOT / "bench" / "peer" / "check.js")],
        input=json.dumps(cases).encode(),
        capture_output=True,
        check=True,
        timeout=60,
    )
    steps_of = json.loads(done.stdout)
    refused = 0
    for code, line, steps in zip(CODES, lines, steps_of, strict=True):
        board = Board.from_code(code)
        assert steps[0] == seen(board), code
        for text, step in zip(line, steps[1:], strict=True):
            try:
                board.play(parse_action(text))
            except IllegalAction:
                assert "refused" in step, (code, text, step)
                refused += 1
                continue
            assert step == seen(board), (code, text)
    assert refused > 10  # the walks tried actions the rules refuse


@pytest.mark.slow
def test_the_bench_prints_a_cost_for_each_server() -> None:
    # CPU times tick in 10 ms: fewer moves would read no CPU at all on the floor.
    done = subprocess.run(
        [sys.executable, "bench/peer.py", "--racers", "40", "--seconds", "4", "--rounds", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {
        line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:-1]]
        for line in done.stdout.splitlines()
        if line.startswith("| ")
    }
    for name in ("server CPU per move (ms)", "bytes to the room per move", "ack p50 (ms)"):
        ours, floor, colyseus = (float(x) for x in rows[name][:3])
        assert ours > 0 and floor > 0 and colyseus > 0, (name, rows[name])
    assert not re.search(r"rooms failed [1-9]", done.stdout), done.stdout
