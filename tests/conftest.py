"""The markers of the whole suite, put on each test from what it uses rather than by hand, so
that ``-m "not browser and not cluster"`` (``./scripts/test --fast``) can trust them:

- ``browser``: the test uses the ``browser`` fixture (Debian's Chromium through Playwright)
  or launches Chromium itself;
- ``cluster``: the test uses the ``cluster`` fixture (a Redis Cluster of six
  ``redis-server`` processes), starts a cluster itself (``RedisClusterProc.start``) or is
  gated on the cluster's tools (``needs_cluster``);
- ``slow``: put by hand on the tests that take more than a few seconds on their own.

Under pytest-xdist ``./scripts/test`` runs ``--dist loadscope --longest-first``: each module
stays on one worker, so its server, Chromium or cluster starts once, and the modules go out
longest first, two browser modules at most at once (:mod:`tests.schedule`).
(``--dist loadgroup`` with ``xdist_group`` marks would be the tool to gather tests across
modules, but pytest-xdist 3.8 cannot mark a test's id under pytest 9, so its groups do
nothing.) Two workers may run clusters at once: each draws its ports from a slice of its own
(``tests/helpers/rediscluster.py``).
``tests/test_markers.py`` checks the rule.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path
from typing import Any

import pytest

#: Fixtures that launch Chromium, and code that does.
BROWSER_FIXTURES = frozenset({"browser"})
BROWSER_CALLS = ("sync_playwright", "async_playwright", "chromium.launch")
#: Fixtures that start a Redis Cluster, and code that does.
CLUSTER_FIXTURES = frozenset({"cluster", "cluster_client"})
CLUSTER_CALLS = ("RedisClusterProc.start",)


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def names_any(tree: ast.AST, names: tuple[str, ...]) -> bool:
    """Whether the code ``tree`` names any of ``names`` (as ``x.y`` or a name ending so;
    strings and docstrings do not count)."""
    return any(
        isinstance(node, ast.Attribute | ast.Name)
        and any(_dotted(node).endswith(name) for name in names)
        for node in ast.walk(tree)
    )


@functools.cache
def _naming(path: Path, names: tuple[str, ...]) -> frozenset[str]:
    """The functions of the module at ``path`` whose code names any of ``names`` (each
    module parsed once; most are not parsed at all, for none of the names is in them)."""
    text = path.read_text()
    if not any(name.rsplit(".", 1)[-1] in text for name in names):
        return frozenset()
    return frozenset(
        node.name
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and names_any(node, names)
    )


def _calls(item: pytest.Item, names: tuple[str, ...]) -> bool:
    function = getattr(item, "function", None)
    return function is not None and function.__name__ in _naming(item.path, names)


def launches_chromium(item: pytest.Item) -> bool:
    """Whether the test runs a Chromium (through the fixture or by itself)."""
    names = set(getattr(item, "fixturenames", ()))
    return bool(names & BROWSER_FIXTURES) or _calls(item, BROWSER_CALLS)


def starts_cluster(item: pytest.Item) -> bool:
    """Whether the test runs on a Redis Cluster of its own processes, or on the cluster's
    tools (``needs_cluster``: those of test_cluster.py that start replicas of their own)."""
    from tests.server.conftest import needs_cluster

    names = set(getattr(item, "fixturenames", ()))
    gated = any(mark == needs_cluster.mark for mark in item.iter_markers("skipif"))
    return gated or bool(names & CLUSTER_FIXTURES) or _calls(item, CLUSTER_CALLS)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if starts_cluster(item):
            item.add_marker(pytest.mark.cluster)
        if launches_chromium(item):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(tryfirst=True)  # before the test's fixtures are set up
def pytest_runtest_setup(item: pytest.Item) -> None:
    """The worker's Chromium, kept from one browser test to the next, is released before a
    test that does not use it (:mod:`tests.helpers.browsers`: an asyncio test cannot run while
    Playwright's synchronous API is open)."""
    if "browser" not in getattr(item, "fixturenames", ()):
        _release_chromium()


def pytest_unconfigure(config: pytest.Config) -> None:
    _release_chromium()


def _release_chromium() -> None:
    browsers = sys.modules.get("tests.helpers.browsers")  # not imported: no Chromium runs
    if browsers is not None:
        browsers.release()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("seahaven")
    group.addoption(
        "--longest-first",
        action="store_true",
        help="hand modules to the xdist workers longest first, two browser modules at most "
        "at once (tests/schedule.py; ./scripts/test passes it)",
    )
    group.addoption(
        "--store-durations",
        action="store_true",
        help="write each module's worker-seconds to tests/durations.json at the end",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("store_durations"):
        from tests.schedule import DurationStore

        config.pluginmanager.register(DurationStore(), "seahaven-durations")


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--longest-first``: :class:`tests.schedule.LongestFirstScheduling`."""
    if not config.getoption("longest_first"):
        return None
    from tests.schedule import LongestFirstScheduling

    return LongestFirstScheduling(config, log)
