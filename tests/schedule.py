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
work again each time any test ends.
"""

from __future__ import annotations

import json
from collections import OrderedDict
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


class LongestFirstScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """``--dist loadscope`` with the longest module first and a cap on browser modules."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self.durations = load_durations()
        self.idle: set[WorkerController] = set()
        self.collection: list[str] | None

    def schedule(self) -> None:
        """Order the modules longest first, then distribute as loadscope does."""
        if self.collection is None and self.collection_is_completed:
            if not self._check_nodes_have_same_collection():
                self.log("**Different tests collected, aborting run**")
                return
            units: dict[str, dict[str, bool]] = {}
            for nodeid in next(iter(self.registered_collections.values())):
                units.setdefault(self._split_scope(nodeid), {})[nodeid] = False
            order = longest_first(units, self.durations)
            # loadscope reads its queue from here; ours is already in the order to hand out.
            self.config.option.loadscopereorder = False
            self.workqueue = OrderedDict((scope, units[scope]) for scope in order)
            self.collection = list(next(iter(self.registered_collections.values())))
            if not self.collection:
                return
            for node in self.nodes:
                self._assign_work_unit(node)
            for node in self.nodes:
                self._reschedule(node)
            if not self.workqueue:
                for node in self.nodes:
                    node.shutdown()
            return
        super().schedule()

    def _split_scope(self, nodeid: str) -> str:
        """A test's module (loadscope's own splits a module's classes apart)."""
        return nodeid.split("::", 1)[0]

    def _browsers_running(self) -> int:
        return sum(
            1
            for work in self.assigned_work.values()
            if any(
                is_browser_module(scope) and not all(done.values()) for scope, done in work.items()
            )
        )

    def _assign_work_unit(self, node: WorkerController) -> None:
        """Give ``node`` the first module it may take; none while only browser modules are
        left and :data:`BROWSER_AT_ONCE` of them run (the node waits, see
        :meth:`mark_test_complete`)."""
        mine = self.assigned_work.get(node, {})
        running_here = any(is_browser_module(s) and not all(d.values()) for s, d in mine.items())
        full = self._browsers_running() - running_here >= BROWSER_AT_ONCE
        for scope in self.workqueue:
            if not (full and is_browser_module(scope)):
                break
        else:
            self.idle.add(node)
            return
        self.idle.discard(node)
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
        scope = report.nodeid.split("::", 1)[0]
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
