"""A quick race is never an empty wait (waits lose players), in a real browser on a server with the
production bot offer and countdown: the wait shows how many play now (counts from
``GET /api/online``, never names), offers something to do meanwhile (the live races, our
statistics), and a player alone is offered a bot at once, raced in one tap."""

from __future__ import annotations

import json
import secrets
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.helpers.axe import axe as _axe
from tests.helpers.pages import (
    CLICK_TO_BOARD,
    SCREENSHOTS,
    SERVE_ARGS,
    go,
    js_errors,
    needs_chromium,
    open_home,
    resize,
)
from tests.helpers.serverproc import (
    REVIEW_OFF_ENV,
    ServerProc,
    drop_keys,
    redis_url,
    running_server,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium

#: The sizes of the screenshots: a phone upright and on its side, a laptop, a desktop.
SIZES = [("-phone", 390, 844), ("-landscape", 740, 360), ("", 1366, 768), ("-wide", 1920, 1080)]


@pytest.fixture
def server() -> Iterator[ServerProc]:
    """The production bot offer and countdown (their defaults); keys of its own."""
    prefix = f"webwait-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, **REVIEW_OFF_ENV}
    try:
        with running_server(
            redis_url(), args=[*SERVE_ARGS, "--countdown-ms", "3000"], env=env
        ) as srv:
            yield srv
    finally:
        drop_keys(prefix)


def shoot_all(page: Page, name: str) -> None:
    size = page.viewport_size
    for suffix, width, height in SIZES:
        resize(page, width, height)
        page.screenshot(path=str(SCREENSHOTS / f"{name}{suffix}.png"))
    if size is not None:
        resize(page, size["width"], size["height"])


def test_a_lone_quick_racer_sees_who_plays_and_races_a_bot_in_one_tap(
    server: ServerProc, browser: Browser
) -> None:
    # Someone else is online, watching the Race page: counted, never named.
    other = open_home(browser, server.http_url, name="Secretname")
    go(other, "race")
    page = lou = open_home(browser, server.http_url, name="Lou", width=1366, height=768)
    go(page, "race")
    # Before queueing, the entry says how many play now: both of us (the server counts
    # each instance's sockets at its heartbeat).
    entry = page.locator(".quick-entry")
    page.wait_for_function(
        "/^[2-9]\\d* players online · \\d+ in a race now$/"
        ".test(document.querySelector('.quick-entry [data-k=\"online\"]')?.textContent || '')",
        timeout=20_000,
    )
    with urllib.request.urlopen(server.http_url + "/api/online", timeout=5) as res:
        counts = json.load(res)
    assert set(counts) == {"online", "racing", "waiting"} and counts["online"] >= 2
    assert "Secretname" not in json.dumps(counts)
    page.evaluate(CLICK_TO_BOARD)
    entry.get_by_role("button", name="Quick race").click()
    wait = page.locator(".quick-wait")
    wait.wait_for()
    # Something to do meanwhile: the live races and our statistics; the counts again.
    assert wait.get_by_role("link", name="Watch live races").get_attribute("href") == "#/watch"
    assert wait.get_by_role("link", name="Your stats").get_attribute("href") == "#/player"
    # Nobody else waits: the bot is offered at once (the default offer), one tap races it.
    offer = wait.locator(".bot-offer")
    offer.wait_for(timeout=10_000)
    page.get_by_role("button", name="Race the bot").click()
    page.wait_for_function("window.__boardAt !== null", timeout=20_000)
    took = page.evaluate("window.__boardAt - window.__clickAt")
    print(f"quick race alone: click to the bot race's board {took / 1000:.1f} s")
    assert page.evaluate("seahaven.game.racers().length") == 2
    # The wait as it looks with its offer, for another player: screenshots and axe.
    page = open_home(browser, server.http_url, name="Mia", width=1366, height=768)
    go(page, "race")
    page.locator(".quick-entry").get_by_role("button", name="Quick race").click()
    page.locator(".quick-wait .bot-offer").wait_for(timeout=15_000)
    page.wait_for_function(
        "/players online/.test(document.querySelector('.quick-wait [data-k=\"online\"]')"
        "?.textContent || '')",
        timeout=20_000,
    )
    _axe(page, "Quick race wait with a bot offer")
    shoot_all(page, "quick-wait-online")
    for p in (page, lou, other):
        assert js_errors(p) == []
