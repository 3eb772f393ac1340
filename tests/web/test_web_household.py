"""A household's race in the real browser (a family is no cheat): two pages behind one address queue
for the quick race while nobody else waits, are paired together, and the race page says
plainly, before the race, that the race counts for no rating between them (in the page's
language: English and Russian here; every language's text is in the i18n tables). With
screenshots at 1366x768 and 390x844 (``household-race``)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests import ROOT
from tests.helpers.pages import (
    SCREENSHOTS,
    SERVE_ARGS,
    go,
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

#: A long countdown, so that the page is read (and shot) before the start.
ARGS = ["--pair-fourth-ms", "500", "--bot-offer-ms", "120000", "--countdown-ms", "30000"]
HOME = {"X-Forwarded-For": "198.51.100.77"}


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    prefix = f"webhome-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, **REVIEW_OFF_ENV}
    try:
        with running_server(redis_url(), args=[*SERVE_ARGS, *ARGS], env=env) as srv:
            yield srv
    finally:
        drop_keys(prefix)


def text_of(lang: str) -> str:
    """The household notice in ``lang``, from the client's table."""
    table = json.loads((ROOT / "client_web" / "i18n" / f"{lang}.json").read_text("utf-8"))
    return str(table["rating"]["household"])


def queue(page: Page) -> None:
    """Start a quick race from the Race page's own panel."""
    page.locator(".quick-entry").get_by_role("button").first.click()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_household_is_paired_and_told_before_the_race(
    server: ServerProc, browser: Browser, lang: str
) -> None:
    base = server.http_url + "/"
    mum = open_home(
        browser, base, name="Mum", lang=lang, width=1366, height=768, extra_http_headers=HOME
    )
    kid = open_home(browser, base, name="Kid", lang=lang, extra_http_headers=HOME)
    for page in (mum, kid):
        go(page, "race")
        queue(page)
    for page in (mum, kid):
        page.wait_for_function("seahaven.game.roomId && seahaven.game.household", timeout=10_000)
        note = page.locator(".household-note")
        note.wait_for()
        assert note.inner_text().strip() == text_of(lang)
        assert page.evaluate("seahaven.game.state") in ("lobby", "countdown")  # before it
    if lang == "en":
        # Shot in the countdown: the lobby's panel is drawn anew when the race is started
        # (its note too), which could happen under a scroll begun in the lobby.
        mum.wait_for_function("seahaven.game.state === 'countdown'", timeout=10_000)
        mum.mouse.move(2, 2)
        for suffix, width, height in (("", 1366, 768), ("-phone", 390, 844)):
            resize(mum, width, height)
            mum.locator(".household-note").scroll_into_view_if_needed()
            mum.screenshot(path=str(SCREENSHOTS / f"household-race{suffix}.png"))
    for page in (mum, kid):
        page.context.close()
