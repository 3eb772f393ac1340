"""The markers hold what they say, over the whole collection of this run (the full suite
under ``./scripts/test``, the fast loop's under ``--fast``): every test that
launches Chromium is ``browser`` and every test that starts a Redis Cluster is ``cluster``,
so ``./scripts/test --fast`` (``-m "not browser and not cluster and not slow"``) neither
opens a browser nor starts a cluster; and no test carries either marker without the reason
for it, so none is left out of the fast loop for nothing."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests import ROOT
from tests.helpers.markers import launches_chromium, names_any, starts_cluster


def _module_calls(path: Path, names: tuple[str, ...]) -> bool:
    """Whether the module's code names any of ``names``."""
    return names_any(ast.parse(path.read_text()), names)


def test_every_chromium_and_cluster_test_is_marked(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    assert items, "no collection to check"
    for item in items:
        marks = {m.name for m in item.iter_markers()}
        assert launches_chromium(item) == ("browser" in marks), item.nodeid
        assert starts_cluster(item) == ("cluster" in marks), item.nodeid


def test_the_rule_sees_the_fixtures_that_launch_chromium_and_start_clusters() -> None:
    # The fixtures the rule keys on are the ones that launch Chromium and start a cluster:
    # a fixture renamed or a new one would leave its tests unmarked.
    web = ROOT / "tests" / "web" / "conftest.py"
    launcher = ROOT / "tests" / "helpers" / "browsers.py"
    server = ROOT / "tests" / "server" / "conftest.py"
    assert _module_calls(launcher, ("sync_playwright",)) and "def browser(" in web.read_text()
    assert _module_calls(web, ("browsers.held",))
    assert _module_calls(server, ("RedisClusterProc.start",))
    assert "def cluster(" in server.read_text()
    # No other support module launches either (tests launch them through the fixtures, or
    # by themselves, which the rule sees in their code).
    for path in (ROOT / "tests").rglob("*.py"):
        if path.name.startswith("test_") or path in (launcher, server) or "vendor" in path.parts:
            continue
        if path.name in ("conftest.py", "rediscluster.py"):  # the rule itself; the cluster
            continue
        assert not _module_calls(path, ("sync_playwright", "chromium.launch")), path
        assert not _module_calls(path, ("RedisClusterProc.start",)), path
