"""Most of the server's decisions are tested without starting a server: each concern
depends on a narrow Protocol of what it uses and its decisions are tested with small fakes
(``tests/helpers/fakes_*.py``); the modules that start one keep the journeys through real
sockets. This counts them, so that a new module that could test a decision directly does
not start a server out of habit."""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: What starts a server in a test module: the helpers that run one (a process forked from
#: the zygote, or one in the test's own process) and the shared fixtures built on them.
STARTERS = frozenset(
    {
        "running_server",
        "start_server",
        "serving",
        "serving_two",
        "daily_server",
        "race_server",
        "ServerProc",
        "InProc",
    }
)

#: The share of server test modules that may start a server.
AT_MOST = 0.40


def starts_a_server(path: Path) -> bool:
    """Whether a test module uses a server-starting helper or fixture (by the names it
    imports, calls or asks for as a fixture)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.alias) and node.name.rsplit(".", 1)[-1] in STARTERS:
            return True
        if isinstance(node, ast.Name) and node.id in STARTERS:
            return True
        if isinstance(node, ast.arg) and node.arg in STARTERS:
            return True
    return False


def test_starts_a_server_reads_what_a_module_uses(tmp_path: Path) -> None:
    fixture = tmp_path / "test_a.py"
    fixture.write_text("def test_x(race_server):\n    assert race_server\n")
    assert starts_a_server(fixture)
    helper = tmp_path / "test_b.py"
    helper.write_text("from tests.helpers.serverproc import running_server\n")
    assert starts_a_server(helper)
    plain = tmp_path / "test_c.py"
    plain.write_text("from tests.helpers.fakes_rooms import FakeRooms\n")
    assert not starts_a_server(plain)


def test_at_most_two_in_five_server_test_modules_start_a_server() -> None:
    modules = sorted(HERE.rglob("test_*.py"))
    starting = [p.relative_to(HERE).as_posix() for p in modules if starts_a_server(p)]
    share = len(starting) / len(modules)
    assert share <= AT_MOST, (
        f"{len(starting)} of {len(modules)} server test modules start a server "
        f"({share:.0%}, at most {AT_MOST:.0%}): " + ", ".join(starting)
    )
