"""Fixtures of the browser tests: a real server serving client_web/, and Debian's Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.serverproc import ServerProc, redis_url, running_server
from tests.web.pages import CHROMIUM, CHROMIUM_ARGS, DAILY_ARGS, close_pages

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def web_server() -> Iterator[ServerProc]:
    """A real server process on the machine's Redis, serving client_web/."""
    with running_server(redis_url(), args=DAILY_ARGS) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium (Debian's, never a downloaded one)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(autouse=True)
def _close_pages() -> Iterator[None]:
    """Each test's pages close when it ends (see :func:`tests.web.pages.close_pages`)."""
    yield
    close_pages()
