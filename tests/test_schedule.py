"""How ``./scripts/test`` hands modules to its workers (tests/helpers/schedule.py): the longest
first, and never a third browser module while two run."""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

from tests.helpers.schedule import (
    BROWSER_AT_ONCE,
    DURATIONS,
    LongestFirstScheduling,
    load_durations,
    longest_first,
)


def test_the_longest_module_goes_first_and_an_unknown_one_by_its_tests() -> None:
    units = {
        "tests/a.py": dict.fromkeys(["tests/a.py::t1", "tests/a.py::t2"], False),
        "tests/b.py": dict.fromkeys(["tests/b.py::t1"], False),
        "tests/new.py": dict.fromkeys([f"tests/new.py::t{i}" for i in range(10)], False),
    }
    # The table's mean is 9 s a test (a: 2 tests, 8 s; b: 1 test, 19 s): the new module's
    # 10 tests count 90 s.
    assert longest_first(units, {"tests/a.py": 8.0, "tests/b.py": 19.0}) == [
        "tests/new.py",
        "tests/b.py",
        "tests/a.py",
    ]
    # Without a table, the most tests first.
    assert longest_first(units, {}) == ["tests/new.py", "tests/a.py", "tests/b.py"]


def test_the_table_names_test_modules_and_a_broken_one_is_ignored(tmp_path: Path) -> None:
    table = load_durations()
    assert table, "tests/durations.json is missing or empty"
    root = DURATIONS.parent.parent
    assert all((root / module).is_file() for module in table), "a module the table names is gone"
    broken = tmp_path / "durations.json"
    broken.write_text("{not json")
    assert load_durations(broken) == {}
    broken.write_text(json.dumps(["a list"]))
    assert load_durations(broken) == {}


class Node:
    """A worker as the scheduler sees it: what it was sent to run."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sent: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent += indices

    def shutdown(self) -> None:
        self.shutting_down = True


def scheduler(nodes: list[Node], collection: list[str], order: list[str]) -> Any:
    """The scheduler with ``nodes`` registered, all of ``collection`` collected, its modules
    queued in ``order`` (no pytest session needed)."""
    sched = LongestFirstScheduling.__new__(LongestFirstScheduling)
    sched.collection = collection
    sched.registered_collections = {node: collection for node in nodes}
    sched.assigned_work = {node: {} for node in nodes}
    sched.idle = set()
    sched.rank = None
    sched.durations = {}
    sched.workqueue = OrderedDict(
        (module, {t: False for t in collection if t.startswith(module + "::")}) for module in order
    )
    sched.log = lambda *args: None
    return sched


def test_a_third_browser_module_waits_until_one_of_two_ends() -> None:
    assert BROWSER_AT_ONCE == 2
    web = [f"tests/web/test_{n}.py" for n in ("a", "b", "c")]
    collection = [f"{m}::t{i}" for m in web for i in range(2)] + ["tests/server/test_x.py::t0"]
    one, two, three = Node("gw0"), Node("gw1"), Node("gw2")
    sched = scheduler([one, two, three], collection, [*web, "tests/server/test_x.py"])
    sched._assign_work_unit(one)
    sched._assign_work_unit(two)
    # Two browser modules run: the third worker skips the third one for the server module.
    sched._assign_work_unit(three)
    assert [collection[i] for i in three.sent] == ["tests/server/test_x.py::t0"]
    sched.mark_test_complete(three, collection.index("tests/server/test_x.py::t0"))
    # Only a browser module is left, and two run: the third worker waits, and is not shut.
    assert three in sched.idle and not three.shutting_down
    assert list(sched.workqueue) == [web[2]]
    # One of them ends: the waiting worker takes the third.
    for test in ("tests/web/test_a.py::t0", "tests/web/test_a.py::t1"):
        sched.mark_test_complete(one, collection.index(test))
    assert not sched.workqueue
    assert {collection[i] for i in one.sent + three.sent} >= {f"{web[2]}::t0", f"{web[2]}::t1"}
    assert sched._browsers_running() == 2


def test_a_module_with_classes_stays_on_one_worker() -> None:
    sched = scheduler([], [], [])
    assert sched._split_scope("tests/a.py::TestX::test_y[1]") == "tests/a.py"
    assert sched._split_scope("tests/a.py::test_z") == "tests/a.py"


def test_a_worker_running_a_browser_module_takes_the_next_one_and_keeps_its_chromium() -> None:
    # Queued longest first: server, browser, server, browser.
    x, a, y, b = (
        "tests/server/test_x.py",
        "tests/web/test_a.py",
        "tests/server/test_y.py",
        "tests/web/test_b.py",
    )
    collection = [f"{m}::t{i}" for m in (x, a, y, b) for i in range(2)]
    one, two = Node("gw0"), Node("gw1")
    sched = scheduler([one, two], collection, [x, a, y, b])
    sched.durations = {x: 40.0, a: 30.0, y: 20.0, b: 10.0}
    sched._assign_work_unit(one)  # the longest: x
    sched._assign_work_unit(two)  # the longest left: a, a browser module
    assert [collection[i] for i in two.sent] == [f"{a}::t0", f"{a}::t1"]
    # The worker running a browser module takes the other one next, not the longer y: its
    # Chromium is still open for it. The other worker takes y.
    sched._assign_work_unit(two)
    assert [collection[i] for i in two.sent][2:] == [f"{b}::t0", f"{b}::t1"]
    sched._assign_work_unit(one)
    assert [collection[i] for i in one.sent][2:] == [f"{y}::t0", f"{y}::t1"]
    assert not sched.workqueue
