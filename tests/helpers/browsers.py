"""One Chromium for each pytest worker, kept from one browser test to the next, modules
included, while nothing else runs between them.

A launch starts Playwright's Node driver (about 1.5 CPU-s on a 2-core machine, with the
Python side) and Chromium's browser, GPU and network processes, once per module before.
The scheduler sends a worker that runs a browser module the next browser module too
(:mod:`tests.helpers.schedule`), so most modules find Chromium running. Each test's pages are
contexts of their own, closed when it ends (:func:`tests.helpers.pages.close_pages`), so a test
finds no other's page, storage or socket.

Playwright's synchronous API keeps its event loop marked as running between its calls, so
an asyncio test (pytest-asyncio) cannot run while it is open: ``tests/conftest.py``
releases Chromium before any test that does not use it, and at the end of the session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.helpers.pages import CHROMIUM, CHROMIUM_ARGS

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright
    from playwright.sync_api._context_manager import PlaywrightContextManager

#: The driver's context manager, the driver and the browser, while one runs.
_held: list[tuple[PlaywrightContextManager, Playwright, Browser]] = []


def held() -> Browser:
    """The worker's headless Chromium (Debian's, never a downloaded one), launched if none
    runs."""
    if _held and not _held[0][2].is_connected():  # it crashed: launch another
        release()
    if not _held:
        from playwright.sync_api import sync_playwright

        manager = sync_playwright()
        driver = manager.__enter__()
        try:
            launched = driver.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
        except BaseException:
            manager.__exit__(None, None, None)
            raise
        _held.append((manager, driver, launched))
    return _held[0][2]


def release() -> None:
    """Close the worker's Chromium and its driver, if they run."""
    if not _held:
        return
    manager, _, launched = _held.pop()
    try:
        launched.close()
    finally:
        manager.__exit__(None, None, None)
