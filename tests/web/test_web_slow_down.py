"""Past the rooms an hour, the page says so in the player's language, with when to come
back (real Chromium, a real server with an allowance of two games an hour)."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from tests.helpers.pages import js_errors, new_page, shoot, wait_ready
from tests.helpers.serverproc import FAST, drop_keys, redis_url, running_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def new_game(page: Page) -> None:
    """Click the Play page's New game (a question to leave the game on screen: yes)."""
    page.locator('button[data-act="new"]').click()


def test_past_the_rooms_an_hour_the_page_says_when_to_come_back(browser: Browser) -> None:
    prefix = f"webslow-{secrets.token_hex(4)}:"
    args = [*FAST, "--rooms-per-hour", "2"]
    try:
        with running_server(redis_url(), args=args, env={"SEAHAVEN_KEY_PREFIX": prefix}) as srv:
            page = new_page(browser, name="Quick", width=1366, height=768)
            page.on("dialog", lambda dialog: dialog.accept())
            page.goto(srv.http_url + "/")
            wait_ready(page)
            # The first game of a server just started: on a busy host (the whole suite, four
            # workers on two cores) its first answers take longer than a page's later ones.
            page.wait_for_function("seahaven.game.state === 'racing'", timeout=30_000)
            first = page.evaluate("seahaven.game.roomId")
            new_game(page)  # the second game of the hour
            page.wait_for_function(
                f"seahaven.game.roomId && seahaven.game.roomId !== '{first}'", timeout=10_000
            )
            new_game(page)  # one too many
            toast = page.locator("#toast")
            toast.wait_for(state="visible", timeout=10_000)
            page.wait_for_function(
                "document.getElementById('toast').textContent.includes('games')", timeout=10_000
            )
            text = toast.inner_text()
            assert "min" in text, text
            minutes = int("".join(ch for ch in text.split(" in ")[-1] if ch.isdigit()))
            assert 1 <= minutes <= 60
            shoot(page, "slow-down")
            for lang, word in (("de", "Min."), ("ru", "мин"), ("da", "min"), ("th", "นาที")):
                page.select_option("#lang", lang)
                page.wait_for_function(f"document.documentElement.lang === '{lang}'")
                new_game(page)
                page.wait_for_function(
                    f"document.getElementById('toast').textContent.includes('{word}')",
                    timeout=10_000,
                )
            assert js_errors(page) == []
    finally:
        drop_keys(prefix)
