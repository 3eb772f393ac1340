"""The fixed contracts of the ``seahaven`` command line: deal, replay, new."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.engine import Board, parse_code
from tests.helpers.cli import run_in_process, run_seahaven


def test_deal_json_has_the_fixed_shape() -> None:
    run = run_in_process("deal", "sh1-c4-aaaaaj2", "--json")
    assert run.returncode == 0
    data = json.loads(run.stdout)
    assert set(data) == {"code", "cells", "columns", "foundations"}
    assert data["code"] == "SH1-C4-AAAAAJ2"
    assert len(data["cells"]) == 4 and data["cells"][2:] == [None, None]
    assert len(data["columns"]) == 10 and all(len(c) == 5 for c in data["columns"])
    assert data["foundations"] == {"S": 0, "H": 0, "D": 0, "C": 0}
    assert data == Board.from_code("SH1-C4-AAAAAJ2").to_json()


def test_deal_prints_a_picture_of_the_table() -> None:
    run = run_seahaven("deal", "SH1-C1-AAAAAJ2")  # the command's own process: it starts
    assert run.returncode == 0
    assert "SH1-C1-AAAAAJ2" in run.stdout
    assert "\x1b[" not in run.stdout  # no colours when stdout is not a terminal
    rows = [line for line in run.stdout.splitlines() if line.startswith("  ") and line.strip()]
    assert len(rows) == 1 + 6  # the column numbers, then six rows (column 2 holds 6 cards)


@pytest.mark.parametrize("code", ["SH1-C3-AAAAAJ2", "SH9-C4-AAAAAJ2", "SH1-C4-AAAA", "nonsense"])
def test_bad_codes_exit_2_with_a_message(code: str) -> None:
    for args in (("deal", code), ("deal", code, "--json"), ("replay", code, "-")):
        run = run_in_process(*args, input="")
        assert run.returncode == 2
        assert run.stdout == ""
        assert "bad game code" in run.stderr


def _replay_file(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "actions.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_replay_plays_a_file_and_prints_one_json_object(tmp_path: Path) -> None:
    code = "SH1-C4-AAAAAJ2"
    board = Board.from_code(code)
    first = board.legal_moves()[0]
    run = run_in_process("replay", code, _replay_file(tmp_path, [str(first), "undo", str(first)]))
    assert run.returncode == 0
    out = json.loads(run.stdout)
    board.push(first)
    assert out == {
        "ok": True,
        "applied": 3,
        "score": board.score,
        "won": False,
        "state": board.to_json(),
        "rejected": [],
    }


def test_replay_stops_at_the_first_refused_action(tmp_path: Path) -> None:
    # In SH1-C4-AAAAAJ2 cell 1 holds 3C and no Ace is home yet.
    lines = ["col1 cell3", "tap cell1", "col1 cell4", "bogus"]
    run = run_in_process("replay", "SH1-C4-AAAAAJ2", _replay_file(tmp_path, lines))
    assert run.returncode == 1
    out = json.loads(run.stdout)
    assert out["ok"] is False and out["applied"] == 1
    assert out["rejected"] == [{"line": 2, "action": "tap cell1", "reason": "no_foundation_move"}]
    assert out["state"]["cells"][2] == "6D" and out["state"]["cells"][3] is None


def test_replay_skip_illegal_goes_on(tmp_path: Path) -> None:
    lines = ["col1 cell3", "tap cell1", "col1 cell4", "bogus", "undo"]
    run = run_in_process(
        "replay", "SH1-C4-AAAAAJ2", _replay_file(tmp_path, lines), "--skip-illegal"
    )
    assert run.returncode == 0
    out = json.loads(run.stdout)
    assert out["ok"] is False and out["applied"] == 3
    assert [r["line"] for r in out["rejected"]] == [2, 4]
    assert out["rejected"][1]["reason"] == "bad_notation"
    assert out["state"]["cells"] == ["3C", "4H", "6D", None]


def test_replay_reads_actions_from_stdin() -> None:
    run = run_in_process("replay", "SH1-C4-AAAAAJ2", "-", input="col4 cell3\ncol4 cell4\n")
    out = json.loads(run.stdout)
    assert run.returncode == 0 and out["applied"] == 2 and out["won"] is False


def test_replay_of_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    run = run_in_process("replay", "SH1-C4-AAAAAJ2", str(tmp_path / "missing.txt"))
    assert run.returncode == 2 and "cannot read" in run.stderr


@pytest.mark.parametrize("cells", ["4", "2", "1"])
def test_new_prints_a_fresh_code(cells: str) -> None:
    codes = {run_in_process("new", "--cells", cells).stdout.strip() for _ in range(3)}
    assert len(codes) == 3
    for code in codes:
        assert parse_code(code).cells == int(cells)


def test_new_refuses_other_cell_counts() -> None:
    assert run_in_process("new", "--cells", "3").returncode == 2
