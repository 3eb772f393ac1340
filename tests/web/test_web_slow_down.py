"""Past the rooms an hour, the page says so in the player's language, with when to come
back (real Chromium, a real server with an allowance of two games an hour)."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from tests.helpers.pages import js_errors, new_page, shoot, wait_ready
from tests.helpers.serverproc import FAST, drop_keys, redis_url, running_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def another_game(page: Page) -> None:
    """Leave the game on screen (if any) and start a solo game, from the page's socket."""
    page.evaluate("seahaven.net.send('leave'); seahaven.net.send('solo', {})")


def test_past_the_rooms_an_hour_the_page_says_when_to_come_back(browser: Browser) -> None:
    prefix = f"webslow-{secrets.token_hex(4)}:"
    args = [*FAST, "--rooms-per-hour", "2"]
    try:
        with running_server(redis_url(), args=args, env={"SEAHAVEN_KEY_PREFIX": prefix}) as srv:
            page = new_page(browser, name="Quick", width=1366, height=768)
            page.goto(srv.http_url + "/")
            wait_ready(page)
            for _ in range(2):
                another_game(page)
                page.wait_for_function("seahaven.game.state === 'racing'", timeout=10_000)
            another_game(page)
            toast = page.locator("#toast")
            toast.wait_for(state="visible", timeout=10_000)
            text = toast.inner_text()
            assert "games" in text and "min" in text, text
            minutes = int("".join(ch for ch in text.split(" in ")[-1] if ch.isdigit()))
            assert 1 <= minutes <= 60
            shoot(page, "slow-down")
            for lang, word in (("de", "Min."), ("ru", "мин"), ("da", "min"), ("th", "นาที")):
                page.select_option("#lang", lang)
                page.wait_for_function(f"document.documentElement.lang === '{lang}'")
                another_game(page)
                page.wait_for_function(
                    f"document.getElementById('toast').textContent.includes('{word}')",
                    timeout=10_000,
                )
            assert js_errors(page) == []
    finally:
        drop_keys(prefix)
