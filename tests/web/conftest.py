"""Fixtures of the browser tests: a real server serving client_web/, and Debian's Chromium."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.helpers import browsers
from tests.helpers.pages import DAILY_ARGS, close_pages
from tests.helpers.serverproc import ServerProc, drop_keys, redis_url, running_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def web_server() -> Iterator[ServerProc]:
    """A real server process on the machine's Redis, serving client_web/, its keys under a
    prefix of its own: under the default (none) it met every other server of the machine
    that has none, and a race of theirs on a deal of these pages (left racing on after its
    test, or run beside it) refused this module's hints on that deal (``hints_off``)."""
    prefix = f"test:web:{secrets.token_hex(4)}:"
    with running_server(redis_url(), args=DAILY_ARGS, env={"SEAHAVEN_KEY_PREFIX": prefix}) as srv:
        yield srv
    drop_keys(prefix)


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
