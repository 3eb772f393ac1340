"""The web client's board code (client_web/js/board.js, run by Node) against the engine:
applying the engine's deltas of random games gives exactly the engine's table, and a delta
that does not fit the table is refused (so the client resyncs instead of drifting)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from typing import Any

import pytest

from server.engine import Action, Board, IllegalAction, Undo
from tests import ROOT

SCRIPT = ROOT / "client_web" / "tests" / "apply_deltas.mjs"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None and not os.environ.get("SEAHAVEN_REQUIRE_BROWSER"),
    reason="Node.js is not installed",
)


def _random_game(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    cells = rng.choice([4, 2, 1])
    board = Board.deal(rng.randrange(2**35), cells)
    start = board.to_json()
    deltas = []
    for _ in range(rng.randrange(20, 120)):
        if board.can_undo() and rng.random() < 0.15:
            action: Action = Undo()
        else:
            moves = board.legal_moves()
            if not moves:
                break
            action = rng.choice(moves)
        try:
            deltas.append(board.play(action).to_json())
        except IllegalAction:
            continue
    return {"start": start, "deltas": deltas, "end": board.to_json()}


def _run(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    assert NODE is not None
    res = subprocess.run(
        [NODE, str(SCRIPT)],
        input=json.dumps({"games": games}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out: list[dict[str, Any]] = json.loads(res.stdout)
    return out


def test_client_applies_engine_deltas_exactly() -> None:
    games = [_random_game(seed) for seed in range(60)]
    assert sum(len(g["deltas"]) for g in games) > 800
    results = _run(games)
    assert [r["ok"] for r in results] == [True] * len(games)


def test_a_delta_that_does_not_fit_is_refused() -> None:
    game = _random_game(7)
    first = game["deltas"][0]
    # Claim the moved cards came from another place: the client must notice.
    wrong = json.loads(json.dumps(first))
    change = wrong["changes"][0]
    change["src"] = "col10" if change["src"] != "col10" else "col9"
    bad = {"start": game["start"], "deltas": [wrong], "end": game["start"]}
    assert _run([bad]) == [{"ok": False, "why": "a delta did not fit"}]
