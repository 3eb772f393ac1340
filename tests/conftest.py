"""The markers of the whole suite, put on each test from what it uses rather than by hand, so
that ``-m "not browser and not cluster"`` (``./scripts/test --fast``) can trust them:

- ``browser``: the test uses the ``browser`` fixture (Debian's Chromium through Playwright)
  or launches Chromium itself;
- ``cluster``: the test uses the ``cluster`` fixture (a Redis Cluster of six
  ``redis-server`` processes) or starts a cluster itself (``RedisClusterProc.start``);
- ``slow``: put by hand on the tests that take more than a few seconds on their own.

Under pytest-xdist (``--dist loadgroup``, as ``./scripts/test`` runs) the cluster tests run
on one worker, one cluster at a time, and each browser module stays on one worker, so its
server and Chromium start once. ``tests/test_markers.py`` checks the rule.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

import pytest

#: Fixtures that launch Chromium, and code that does.
BROWSER_FIXTURES = frozenset({"browser"})
BROWSER_CALLS = ("sync_playwright", "async_playwright", "chromium.launch")
#: Fixtures that start a Redis Cluster, and code that does.
CLUSTER_FIXTURES = frozenset({"cluster", "cluster_client"})
CLUSTER_CALLS = ("RedisClusterProc.start",)


def names_any(source: str, names: tuple[str, ...]) -> bool:
    """Whether the code ``source`` names any of ``names`` (as ``x.y`` or a name ending so;
    strings and docstrings do not count)."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return False
    return any(
        isinstance(node, ast.Attribute | ast.Name)
        and any(ast.unparse(node).endswith(name) for name in names)
        for node in ast.walk(tree)
    )


def _calls(item: pytest.Item, names: tuple[str, ...]) -> bool:
    function = getattr(item, "function", None)
    try:
        source = inspect.getsource(function) if function is not None else ""
    except (OSError, TypeError):
        return False
    return names_any(source, names)


def launches_chromium(item: pytest.Item) -> bool:
    """Whether the test runs a Chromium (through the fixture or by itself)."""
    names = set(getattr(item, "fixturenames", ()))
    return bool(names & BROWSER_FIXTURES) or _calls(item, BROWSER_CALLS)


def starts_cluster(item: pytest.Item) -> bool:
    """Whether the test runs on a Redis Cluster of its own processes."""
    names = set(getattr(item, "fixturenames", ()))
    return bool(names & CLUSTER_FIXTURES) or _calls(item, CLUSTER_CALLS)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if starts_cluster(item):
            item.add_marker(pytest.mark.cluster)
            item.add_marker(pytest.mark.xdist_group("cluster"))
        if launches_chromium(item):
            item.add_marker(pytest.mark.browser)
            if item.get_closest_marker("xdist_group") is None:
                item.add_marker(pytest.mark.xdist_group(f"browser:{item.path.name}"))
