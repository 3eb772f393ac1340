"""What the suite's markers are put from: whether a test launches Chromium or starts a Redis
Cluster, read from its fixtures and its code (tests/conftest.py puts the markers,
tests/test_markers.py checks them), and the gate of the tests on a Redis Cluster."""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path

import pytest

from tests.helpers.rediscluster import available

#: Tests on a real Redis Cluster: skipped where ``redis-server`` is missing, failing instead
#: under ``SEAHAVEN_REQUIRE_CLUSTER=1`` (CI).
needs_cluster = pytest.mark.skipif(
    not available() and not os.environ.get("SEAHAVEN_REQUIRE_CLUSTER"),
    reason="redis-server and redis-cli are needed for a Redis Cluster",
)

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
    names = set(getattr(item, "fixturenames", ()))
    gated = any(mark == needs_cluster.mark for mark in item.iter_markers("skipif"))
    return gated or bool(names & CLUSTER_FIXTURES) or _calls(item, CLUSTER_CALLS)
