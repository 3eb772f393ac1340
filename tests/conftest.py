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
longest first, two browser modules at most at once (:mod:`tests.helpers.schedule`).
(``--dist loadgroup`` with ``xdist_group`` marks would be the tool to gather tests across
modules, but pytest-xdist 3.8 cannot mark a test's id under pytest 9, so its groups do
nothing.) Two workers may run clusters at once: each draws its ports from a slice of its own
(``tests/helpers/rediscluster.py``).
``tests/test_markers.py`` checks the rule.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from tests.helpers.markers import launches_chromium, starts_cluster


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
        "at once (tests/helpers/schedule.py; ./scripts/test passes it)",
    )
    group.addoption(
        "--store-durations",
        action="store_true",
        help="write each module's worker-seconds to tests/durations.json at the end",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("store_durations"):
        from tests.helpers.schedule import DurationStore

        config.pluginmanager.register(DurationStore(), "seahaven-durations")


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--longest-first``: :class:`tests.helpers.schedule.LongestFirstScheduling`."""
    if not config.getoption("longest_first"):
        return None
    from tests.helpers.schedule import LongestFirstScheduling

    return LongestFirstScheduling(config, log)
