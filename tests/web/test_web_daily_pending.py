"""The finisher always knows, in a real browser: a player opens `/`, goes to the Daily page
by its link, starts today's deal and wins it while the server's review waits for its solver
(paused here, as on a host whose spare CPU is taken). The page says "pending review" at
once, in the game's banner and on the Daily page's "Done for today" card; when the review
decides, the card says the rank; at no moment does it say the game was over without a win."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from server.engine import Board
from server.engine.solver import solve
from tests import ROOT
from tests.helpers.dailies import daily_deal, plant, wait_daily
from tests.helpers.pages import (
    DAILY_ARGS,
    SCREENSHOTS,
    js_errors,
    needs_chromium,
    new_page,
    resize,
    send_line,
    wait_ready,
)
from tests.helpers.serverproc import (
    REVIEW_OFF_ENV,
    ServerProc,
    drop_keys,
    redis_url,
    running_server,
)
from tests.helpers.solver_procs import paused_solver

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = needs_chromium

#: The card at a laptop's, a phone's on its side, a phone's and a desktop's size.
SIZES = [("", 1366, 768), ("-side", 740, 360), ("-phone", 390, 844), ("-wide", 1920, 1080)]

#: Records, from the moment it is installed, whether the page ever said the ranked game
#: was over without a win (the card's state, or its words anywhere on the page).
WATCH_OVER = """(words) => {
  window.sawOver = window.sawOver || [];
  const look = () => {
    if (document.querySelector('[data-done="over"]')) window.sawOver.push('card over');
    if (document.body.innerText.includes(words)) window.sawOver.push('text over');
  };
  new MutationObserver(look).observe(document.body,
    {childList: true, subtree: true, characterData: true, attributes: true});
  look();
}"""


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    """A server of its own key prefix with today's deals; the review on but never holding
    (the browser plays the solver's line at a script's pace)."""
    prefix = f"webtest-{secrets.token_hex(4)}:"
    plant(prefix, "2026-03-14")
    env = {"SEAHAVEN_KEY_PREFIX": prefix, **REVIEW_OFF_ENV}
    with running_server(redis_url(), args=DAILY_ARGS, env=env) as srv:
        wait_daily(srv)
        yield srv
    drop_keys(prefix)


def _shoot_card(page: Page, name: str) -> None:
    """The page at each of :data:`SIZES`, the card scrolled into view."""
    folder = Path(os.environ.get("SEAHAVEN_CARD_SHOTS") or SCREENSHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for suffix, width, height in SIZES:
        resize(page, width, height)
        page.locator('.done-card[data-kind="daily"]').scroll_into_view_if_needed()
        page.screenshot(path=str(folder / f"{name}{suffix}.png"))
    if size is not None:
        resize(page, size["width"], size["height"])


def test_a_won_daily_says_pending_review_at_once_then_its_rank(
    server: ServerProc, browser: object
) -> None:
    page = new_page(browser, name="Finn", width=1366, height=768)  # type: ignore[arg-type]
    page.goto(server.http_url + "/")
    wait_ready(page)
    page.locator('nav.modes a[data-view="daily"]').click()
    tile = page.locator('.deal-tile[data-kind="daily"]')
    tile.get_by_role("button", name="Start").click()
    page.wait_for_function("seahaven.game.mode === 'daily' && !!seahaven.game.myBoard()")
    date = page.evaluate("seahaven.game.daily.date")
    line = list(solve(Board.from_code(daily_deal(date).code), timeout=20).moves)
    words = json.loads((ROOT / "client_web/i18n/en.json").read_text())["done"]["notWon"]
    assert "without a win" in words
    page.evaluate(WATCH_OVER, words)
    with paused_solver(server):
        # Above the physical floor of 50 ms an action (a replay under it is refused).
        send_line(page, line, gap_ms=60)
        page.wait_for_function("seahaven.game.me().status === 'finished'")
        # The game's banner says it at once: the time stands, the rank is pending review.
        banner = page.locator('[data-daily="held"]')
        banner.wait_for(timeout=5_000)
        assert "pending review" in banner.inner_text()
        banner.get_by_role("link", name="Daily").click()
        card = page.locator('.done-card[data-kind="daily"]')
        card.wait_for()
        page.wait_for_function(
            "document.querySelector('.done-card[data-kind=\"daily\"]')?.dataset.done === 'held'"
        )
        status = card.locator('[data-k="done-status"]').inner_text()
        assert "pending review" in status, status
        assert "Rank" not in card.locator(".done-facts").inner_text()
        _shoot_card(page, "daily-card-pending")
    # The review runs: its decision replaces "pending review" on the open page.
    page.wait_for_function(
        "document.querySelector('.done-card[data-kind=\"daily\"]')?.dataset.done === 'ranked'",
        timeout=120_000,
    )
    assert "1 of 1" in card.locator(".done-facts").inner_text()
    assert card.locator('[data-k="done-status"]').count() == 0
    _shoot_card(page, "daily-card-ranked")
    assert page.evaluate("window.sawOver") == []
    assert js_errors(page) == []
