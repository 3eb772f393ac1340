"""Identity changes from any screen, and signed out means out, in real Chromium as people
take them: a fresh context opens ``/`` (which deals a solo game), then by clicks goes to
Profile and signs in with a transfer code another context made, or deletes its player; the
page says what became of the game it was playing. "Sign out everywhere" on one device
reaches the other's open page at once: it says so, starts no game, and offers to sign in
again or to start as a new player (never silently a new player with the same name)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.helpers.pages import js_errors, new_page, resize, until_page, wait_ready
from tests.helpers.serverproc import (
    QUICK,
    REVIEW_OFF_ENV,
    ServerProc,
    drop_keys,
    redis_url,
    running_server,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

#: Where this module's screenshots go (looked at by hand).
SHOTS = Path("/tmp/shots-identity")
SIZES = ((1366, 768), (740, 360), (390, 844), (1920, 1080))


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    prefix = f"webtest-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, **REVIEW_OFF_ENV}
    with running_server(redis_url(), args=QUICK, env=env) as srv:
        yield srv
    drop_keys(prefix)


def shoot_all(page: Page, name: str, selector: str | None = None) -> None:
    """Screenshots of the page at every size, scrolled to ``selector`` if given."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        resize(page, width, height)
        if selector:
            # A resize may redraw the panel under the locator: find it again.
            until_page(page, lambda: _scrolled_to(page, selector), what=f"{selector} in view")
        page.screenshot(path=str(SHOTS / f"{name}-{width}x{height}.png"))
    resize(page, 1280, 860)


def _scrolled_to(page: Page, selector: str) -> bool:
    """Scroll the first element of ``selector`` into view; False when it was redrawn
    meanwhile (detached), to be tried again."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        page.locator(selector).first.scroll_into_view_if_needed(timeout=5_000)
    except PlaywrightError:
        return False
    return True


def arrive(browser: Browser, url: str, name: str) -> Page:
    """A fresh context opens the site: a solo game is dealt."""
    page = new_page(browser, name=name)
    page.on("dialog", lambda d: d.accept())
    page.goto(url + "/")
    wait_ready(page)
    page.locator("#main .board").first.wait_for()
    page.wait_for_function("seahaven.game.roomId !== null")
    return page


def to_devices(page: Page) -> None:
    page.get_by_role("link", name="Profile").click()
    page.locator(".devices").wait_for()


def me(page: Page) -> str:
    return str(page.evaluate("seahaven.net.playerId"))


def transfer_code(page: Page) -> str:
    page.get_by_role("button", name="Show a transfer code").click()
    page.locator(".transfer-code b").wait_for()
    return page.locator(".transfer-code b").inner_text()


def test_a_transfer_code_signs_in_a_device_that_was_dealt_a_game(
    server: ServerProc, browser: Browser
) -> None:
    url = f"http://localhost:{server.port}"
    ann = arrive(browser, url, "Ann")
    to_devices(ann)
    code = transfer_code(ann)
    phone = arrive(browser, url, "Phone")
    to_devices(phone)
    phone.locator('.devices input[name="code"]').fill(code)
    phone.get_by_role("button", name="Sign in", exact=True).click()
    phone.wait_for_function(f"seahaven.net.playerId === {me(ann)!r}")
    # Not "Leave your room first": the game was left, and the page says so.
    phone.locator("#toast").get_by_text("Your solo game was left.").wait_for()
    phone.locator('[data-k="game-left"]').get_by_text("Your solo game was left.").wait_for()
    assert phone.evaluate("seahaven.game.roomId") is None
    shoot_all(phone, "game-left-notice", '[data-k="game-left"]')
    # Play goes on as Ann: a new game is dealt.
    phone.get_by_role("link", name="Play", exact=True).click()
    phone.locator("#main .board").first.wait_for()
    phone.wait_for_function("seahaven.game.roomId !== null")
    for page in (ann, phone):
        assert js_errors(page) == []


def test_delete_my_player_from_a_device_that_was_dealt_a_game(
    server: ServerProc, browser: Browser
) -> None:
    url = f"http://localhost:{server.port}"
    page = arrive(browser, url, "Gone")
    before = me(page)
    to_devices(page)
    page.get_by_role("button", name="Delete my player").click()
    page.wait_for_function(f"seahaven.net.playerId && seahaven.net.playerId !== {before!r}")
    page.locator("#toast").get_by_text("Your solo game was left.").wait_for()
    page.locator("#main .board").first.wait_for()  # on Play, as a new player
    assert js_errors(page) == []


def test_sign_out_everywhere_reaches_an_open_page_at_once(
    server: ServerProc, browser: Browser
) -> None:
    url = f"http://localhost:{server.port}"
    ann = arrive(browser, url, "Ann")
    to_devices(ann)
    phone = arrive(browser, url, "Phone")
    to_devices(phone)
    phone.locator('.devices input[name="code"]').fill(transfer_code(ann))
    phone.get_by_role("button", name="Sign in", exact=True).click()
    phone.wait_for_function(f"seahaven.net.playerId === {me(ann)!r}")
    phone.get_by_role("link", name="Play", exact=True).click()
    phone.locator("#main .board").first.wait_for()
    phone.wait_for_function("seahaven.game.roomId !== null")
    # Ann signs out everywhere on her first device: the phone's page says so at once.
    ann.get_by_role("button", name="Sign out everywhere").click()
    ann.locator("#toast").get_by_text("Every other device is signed out").wait_for()
    signed_out = phone.locator(".signed-out")
    signed_out.get_by_text("Signed out on this device").wait_for()
    assert "Ann" in signed_out.inner_text()
    assert phone.evaluate("seahaven.game.roomId") is None
    shoot_all(phone, "signed-out")
    # No game starts from it (every link leads back here), and a reload stays signed out.
    phone.get_by_role("link", name="Daily").click()
    signed_out.wait_for()
    phone.get_by_role("link", name="Race", exact=True).click()
    signed_out.wait_for()
    phone.reload()
    phone.locator(".signed-out").wait_for()
    assert phone.evaluate("seahaven.net.playerId") is None or not phone.evaluate(
        "seahaven.welcomed"
    )
    # Signing in again with a new code from Ann brings the phone back as Ann.
    code = transfer_code(ann)
    phone.locator('.signed-out input[name="code"]').fill(code)
    phone.get_by_role("button", name="Sign in", exact=True).click()
    phone.wait_for_function(f"seahaven.net.playerId === {me(ann)!r}")
    phone.locator(".signed-out").wait_for(state="detached")
    for page in (ann, phone):
        assert js_errors(page) == []
