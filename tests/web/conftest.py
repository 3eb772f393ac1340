"""Fixtures of the browser tests: a real server serving client_web/, and Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.helpers import browsers
from tests.helpers.pages import DAILY_ARGS, close_pages
from tests.helpers.serverproc import ServerProc, redis_url, running_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def web_server() -> Iterator[ServerProc]:
    """A real server process on the machine's Redis, serving client_web/."""
    with running_server(redis_url(), args=DAILY_ARGS) as srv:
        yield srv


@pytest.fixture
def browser() -> Browser:
    """Headless Chromium (Debian's), the worker's own, kept from one browser test to the
    next (:mod:`tests.helpers.browsers`)."""
    return browsers.held()


@pytest.fixture(autouse=True)
def _close_pages() -> Iterator[None]:
    """Each test's pages close when it ends (see :func:`tests.helpers.pages.close_pages`)."""
    yield
    close_pages()
