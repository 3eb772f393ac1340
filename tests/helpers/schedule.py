"""How ``./scripts/test`` hands modules to its pytest-xdist workers: the longest first, and
never more than two browser modules at once.

Each module stays on one worker (as ``--dist loadscope``: its server, Chromium or cluster
starts once). Two things matter on a 2-core machine with more workers than cores:

- **The longest modules first.** A long module handed out last runs alone at the end while
  the other workers sit idle. The modules are handed out in the order of their time in
  ``tests/durations.json`` (worker-seconds per module, written by ``--store-durations``);
  a module missing there counts its tests at the table's mean time per test. A stale table
  only changes the order, never what runs.
- **At most** :data:`BROWSER_AT_ONCE` **browser modules at a time.** A browser module keeps
  about a core busy (Chromium's renderers), while most other modules wait on sockets,
  servers and clocks. Two browser modules beside the rest keep both cores busy; a third
  would only slow all three, and with them the waits they time.

A worker that finds only browser modules left while two run elsewhere waits; it is offered
work again each time any test ends. A worker running a browser module takes the longest
browser module left next, so that it keeps its Chromium (:mod:`tests.helpers.browsers`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController

from tests import ROOT

#: Worker-seconds per test module, from a run with ``--store-durations``.
DURATIONS = ROOT / "tests" / "durations.json"
#: Browser modules that may run at the same time.
BROWSER_AT_ONCE = 2


def is_browser_module(scope: str) -> bool:
    """Whether a module (its node id, ``tests/web/test_x.py``) drives Chromium: the browser
    tests live in tests/web/ (the few there that do not are short)."""
    return scope.startswith("tests/web/")


def module_of(nodeid: str) -> str:
    """A test's module, the unit of scheduling and of the table (``tests/x.py::C::t``:
    ``tests/x.py``)."""
    return nodeid.split("::", 1)[0]


def load_durations(path: Path = DURATIONS) -> dict[str, float]:
    """The table of worker-seconds per module (empty when there is none or it is unreadable:
    the order then falls back to the number of tests)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, int | float)}


def longest_first(units: dict[str, dict[str, bool]], durations: dict[str, float]) -> list[str]:
    """The modules (``units``: module -> its tests) in the order to hand them out: by their
    time in ``durations``, else their number of tests times the table's mean per test."""
    known = [(durations[s], len(t)) for s, t in units.items() if s in durations]
    per_test = sum(d for d, _ in known) / max(1, sum(n for _, n in known)) if known else 1.0

    def weight(scope: str) -> float:
        return durations.get(scope, per_test * len(units[scope]))

    return sorted(units, key=lambda scope: (-weight(scope), scope))


def _runs_browser(work: dict[str, dict[str, bool]]) -> bool:
    """Whether a worker's modules (module -> its tests, done or not) hold a browser module
    with a test still to run."""
    return any(is_browser_module(scope) and not all(done.values()) for scope, done in work.items())


class LongestFirstScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """``--dist loadscope`` with the longest module first and a cap on browser modules:
    loadscope queues the modules and hands them out; each worker takes the longest it may."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self.durations = load_durations()
        self.idle: set[WorkerController] = set()
        self.rank: dict[str, int] | None = None

    def _split_scope(self, nodeid: str) -> str:
        """A test's module (loadscope's own splits a module's classes apart)."""
        return module_of(nodeid)

    def _browsers_running(self) -> int:
        """Workers running a browser module now."""
        return sum(1 for work in self.assigned_work.values() if _runs_browser(work))

    def _assign_work_unit(self, node: WorkerController) -> None:
        """Give ``node`` the longest module it may take; none while only browser modules are
        left and :data:`BROWSER_AT_ONCE` of them run (the node waits, see
        :meth:`mark_test_complete`)."""
        running_here = _runs_browser(self.assigned_work.get(node, {}))
        full = self._browsers_running() - running_here >= BROWSER_AT_ONCE
        allowed = [s for s in self.workqueue if not (full and is_browser_module(s))]
        if not allowed:
            self.idle.add(node)
            return
        self.idle.discard(node)
        if self.rank is None:  # the first call: every module is still queued
            order = longest_first(dict(self.workqueue), self.durations)
            self.rank = {scope: i for i, scope in enumerate(order)}
        rank = self.rank
        # A worker running a browser module takes the next browser module it may: it
        # finds Chromium running (tests/helpers/browsers.py) instead of launching another.
        browser_next = [s for s in allowed if is_browser_module(s)] if running_here else []
        scope = min(browser_next or allowed, key=lambda s: rank.get(s, len(rank)))
        work_unit = self.workqueue.pop(scope)
        self.assigned_work.setdefault(node, {})[scope] = work_unit
        collection = self.registered_collections[node]
        node.send_runtest_some(
            [collection.index(nodeid) for nodeid, done in work_unit.items() if not done]
        )

    def mark_test_complete(
        self, node: WorkerController, item_index: int, duration: float = 0
    ) -> None:
        """As loadscope; then a waiting worker is offered work again (a browser module may
        just have ended)."""
        super().mark_test_complete(node, item_index, duration)
        for waiting in list(self.idle):
            if waiting is not node and not waiting.shutting_down:
                self._reschedule(waiting)


class DurationStore:
    """Adds up each module's worker-seconds over a run (setup, call and teardown of every
    test) and writes them into :data:`DURATIONS` at its end (``--store-durations``; a run of
    some modules updates theirs)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        scope = module_of(report.nodeid)
        self.seconds[scope] = self.seconds.get(scope, 0.0) + report.duration

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if getattr(session.config, "workerinput", None) is not None or not self.seconds:
            return  # a worker's own session: the controller writes the table
        # Modules this run left out keep their time; modules that are gone are dropped.
        table = load_durations() | {scope: round(s, 1) for scope, s in self.seconds.items()}
        root = DURATIONS.parent.parent
        kept = {scope: table[scope] for scope in sorted(table) if (root / scope).is_file()}
        DURATIONS.write_text(json.dumps(kept, indent=1) + "\n")
