"""``seahaven solve --optimal`` and ``seahaven certify --optimal``, run as commands, and the
pool format that carries optimal par."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from server.engine import Board, parse_action
from server.pools import PoolEntry, format_entry, parse_pool
from tests.helpers.cli import run_in_process, run_seahaven

#: Seconds each command here may run (the machine may be busy).
TIMEOUT = 300


def wins(board: Board, moves: list[str]) -> bool:
    table = board.copy()
    for move in moves:
        table.play(parse_action(move))
    return table.is_won()


def test_solve_optimal_json_says_optimal_and_replays_to_a_win() -> None:
    run = run_seahaven("solve", "SH1-C4-AAAAAAJ", "--optimal", "--json", timeout=TIMEOUT)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["result"] == "solved" and data["optimal"] is True
    assert "lower_bound" not in data
    assert len(data["moves"]) == 77  # deal 9: par 87 before, optimum 77 (the issue)
    assert wins(Board.deal(9, 4), data["moves"])


def test_solve_optimal_text_replays_through_seahaven_replay() -> None:
    run = run_in_process("solve", "SH1-C4-AAAAAAA", "--optimal")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("# SH1-C4-AAAAAAA: solved in 78 actions, proven optimal")
    replayed = run_in_process("replay", "SH1-C4-AAAAAAA", "-", input=run.stdout)
    assert replayed.returncode == 0, replayed.stdout
    assert json.loads(replayed.stdout)["won"] is True


def test_solve_optimal_out_of_budget_gives_the_best_line_and_a_lower_bound() -> None:
    run = run_in_process("solve", "SH1-C4-AAAAAAE", "--optimal", "--json", "--max-states", "50")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["result"] == "solved" and data["optimal"] is False
    assert data["lower_bound"] < len(data["moves"])
    assert data["lower_bound"] <= 76  # deal 4's optimum
    assert wins(Board.deal(4, 4), data["moves"])


def test_solve_optimal_from_a_position_file(tmp_path: Path) -> None:
    board = Board.deal(1, 4)
    first = run_in_process("solve", "SH1-C4-AAAAAAB", "--optimal", "--json")
    line = json.loads(first.stdout)["moves"]
    for move in line[:30]:
        board.play(parse_action(move))
    path = tmp_path / "position.json"
    path.write_text(json.dumps(board.to_json()))
    run = run_in_process("solve", "--position", str(path), "--optimal", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    # What is left of a shortest line is a shortest win from where it has got to.
    assert data["optimal"] is True and len(data["moves"]) == len(line) - 30
    assert wins(board, data["moves"])


def test_pool_lines_of_all_three_forms() -> None:
    entries = parse_pool("# h\n5 80\n34 78 optimal\n36 81 best 77\n", 2)
    assert [(e.deal, e.par, e.optimal, e.lower_bound) for e in entries] == [
        (5, 80, False, None),
        (34, 78, True, None),
        (36, 81, False, 77),
    ]
    assert [format_entry(e) for e in entries] == ["5 80", "34 78 optimal", "36 81 best 77"]
    assert entries[1] == PoolEntry(34, 78, "SH1-C2-AAAAABC", True)


@pytest.mark.parametrize(
    "line", ["5 80 optimal 3", "5 80 best", "5 80 best x", "5 80 proven", "5 80 best 81"]
)
def test_bad_pool_lines_are_refused_naming_the_line(line: str) -> None:
    with pytest.raises(ValueError, match="line 2"):
        parse_pool(f"# h\n{line}\n", 4)


def test_certify_optimal_recertifies_a_pool_and_resumes(tmp_path: Path) -> None:
    source = tmp_path / "c4.txt"
    source.write_text("# A pool.\n# Each line: DEAL_NUMBER PAR\n0 84\n1 69\n9 87\n")
    out = tmp_path / "c4-optimal.txt"
    args = ("certify", "--cells", "4", "--optimal", "--recertify", str(source), "--out", str(out))
    run = run_in_process(*args, "--timeout", "60")
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "# A pool." in text and "--recertify" in text
    entries = parse_pool(text, 4)
    assert [(e.deal, e.par, e.optimal) for e in entries] == [
        (0, 78, True),
        (1, 69, True),
        (9, 77, True),
    ]
    # A second run finds every deal proven already and searches none again.
    again = run_in_process(*args, "--timeout", "60")
    assert again.returncode == 0, again.stderr
    assert "searched 0 deals" in out.read_text()
    assert parse_pool(out.read_text(), 4) == entries


def test_certify_optimal_walks_deals(tmp_path: Path) -> None:
    out = tmp_path / "c4.txt"
    run = run_in_process(
        "certify", "--cells", "4", "--optimal", "--count", "2", "--start", "0",
        "--out", str(out),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    entries = parse_pool(out.read_text(), 4)
    assert [(e.deal, e.par, e.optimal) for e in entries] == [(0, 78, True), (1, 69, True)]


def test_certify_recertify_needs_optimal(tmp_path: Path) -> None:
    run = run_in_process(
        "certify", "--cells", "4", "--recertify", "x.txt", "--out", str(tmp_path / "o.txt")
    )
    assert run.returncode == 2 and "--optimal" in run.stderr
