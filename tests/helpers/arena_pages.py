"""Arenas as people reach them in the browser tests: from the Race page's "See the arenas",
a private arena made on its page, and its invite link, the one way a friend finds a private
arena (it is on no list), read off the maker's page and opened by the friend."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tests.helpers.pages import go, wait_ready

if TYPE_CHECKING:
    from playwright.sync_api import Page


def to_arenas(page: Page) -> None:
    """From anywhere: the top bar's Race, then "See the arenas" (in any language)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    go(page, "race")
    # The Race page draws its top again when the game it came from is left: a click on the
    # link it replaced is lost, and a person clicks again.
    for _ in range(3):
        page.locator('.arena-entry a[href="#/arena"]').click()
        try:
            page.wait_for_function("location.hash === '#/arena'", timeout=10_000)
            return
        except PlaywrightTimeout:
            continue
    page.wait_for_function("location.hash === '#/arena'")


def make_arena(page: Page, minutes: int, starts_in_s: int) -> str:
    """On the Arenas page: a private 4-cell arena of ``minutes`` arena minutes starting in
    ``starts_in_s``; the page goes to it. Its id.

    The page's own calls, as its button makes them (out of the solo game, then the arena):
    the form's menus count in real minutes, and an arena minute is a second here."""
    page.locator('.arena-make [data-act="create"]').wait_for()
    page.evaluate(f"seahaven.leaveRoom(); seahaven.arena.create(4, {minutes}, {starts_in_s})")
    page.wait_for_function("location.hash.startsWith('#/arena/A')")
    return str(page.evaluate("location.hash.split('/')[2]"))


def invite_link(page: Page) -> str:
    """The invite link a private arena's page shows its players (to copy to friends)."""
    shown = page.locator('.arena-invite [data-k="invite"]')
    shown.wait_for()
    found = re.search(r"https?://\S+/#/arena/\S+", shown.inner_text())
    assert found, shown.inner_text()
    return found.group(0)


def open_invite(page: Page, link: str) -> None:
    """A friend opens an arena's invite link (the flow is the link) in ``page``; returns once
    its page is welcomed on the arena."""
    # link: the arena's invite link, copied by a player of it to this one
    page.goto(link)
    wait_ready(page)
    page.wait_for_function("location.hash.startsWith('#/arena/')")
    page.locator(".arena-one").wait_for()


def join_by_link(page: Page, link: str) -> None:
    """A friend opens the arena's invite link and clicks Join."""
    open_invite(page, link)
    page.locator('.arena-one [data-act="join"]').click()
    page.wait_for_function("seahaven.arena.joined")
