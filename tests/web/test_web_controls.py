"""Small things of the page in a real browser: Hint only where the server gives hints, "Play
this code" on the deal being played starts it again, every label in the player's language,
and the mode tabs whole on a phone."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests import ROOT
from tests.helpers.pages import (
    Player,
    board_json,
    go,
    js_errors,
    needs_chromium,
    open_home,
    play_code,
)
from tests.helpers.serverproc import ServerProc

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium  # the browser marker comes from what a test uses (tests/conftest.py)

CODE = "SH1-C4-AAAAAJ2"
LANGS = ["en", "da", "de", "ru", "th"]


def _texts(lang: str) -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(
        (ROOT / "client_web" / "i18n" / f"{lang}.json").read_text(encoding="utf-8")
    )
    return data


def _hint_shown(page: Page) -> bool:
    return page.locator('.stats [data-act="hint"]').is_visible()


def test_hint_only_where_the_server_gives_hints(web_server: ServerProc, browser: Browser) -> None:
    page = open_home(browser, web_server.http_url, name="Hilda")
    assert _hint_shown(page)  # a game alone
    # Today's daily deal: no hints until the day is over.
    go(page, "daily")
    page.locator(".deal-tile").first.get_by_role("button", name="Start").click()
    page.wait_for_function("seahaven.game.mode === 'daily' && !!seahaven.game.myBoard()")
    page.locator('.board[data-board="mine"] .card').first.wait_for()
    assert not _hint_shown(page)
    assert "H gives a hint" not in page.locator("#kbd-help").inner_text()
    # A race: none before its end.
    page.once("dialog", lambda d: d.accept())  # leaving the ranked daily game
    go(page, "race")
    page.get_by_role("button", name="Create a room").click()
    page.wait_for_function("seahaven.game.state === 'lobby'")
    page.get_by_role("button", name="Start the race").click()
    page.wait_for_function("seahaven.game.state === 'racing' && !!seahaven.game.myBoard()")
    page.locator('.board[data-board="mine"] .card').first.wait_for()
    assert not _hint_shown(page)
    assert "H gives a hint" not in page.locator("#kbd-help").inner_text()
    assert js_errors(page) == []


def test_play_this_code_on_the_deal_being_played_starts_it_again(
    web_server: ServerProc, browser: Browser
) -> None:
    page = open_home(browser, web_server.http_url)
    play_code(page, CODE)
    page.wait_for_function("!!seahaven.game.myBoard()")
    opening = board_json(page)
    room = page.evaluate("seahaven.game.roomId")
    p = Player(page)
    p.double_click("col5")
    p.wait_moves(1)
    assert board_json(page) != opening
    page.get_by_placeholder("SH1-C4-AAAAAJ2").fill(CODE)
    page.get_by_role("button", name="Play this code").click()
    # A new game alone on the same deal: the opening table, no moves, a new room.
    page.wait_for_function(
        "(room) => seahaven.game.roomId && seahaven.game.roomId !== room"
        " && seahaven.game.me()?.moves === 0",
        arg=room,
    )
    assert page.evaluate("seahaven.game.code") == CODE
    assert page.evaluate("seahaven.game.mode") == "solo"
    assert board_json(page) == opening
    assert page.locator('[data-k="moves"]').inner_text() == "0"
    assert js_errors(page) == []


def test_every_label_in_the_players_language(web_server: ServerProc, browser: Browser) -> None:
    page = open_home(browser, web_server.http_url)
    page.wait_for_function("document.getElementById('conn').dataset.state === 'open'")
    for lang in [*LANGS[1:], "en"]:
        texts = _texts(lang)
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        labels = page.evaluate(
            """() => ({
              conn: document.getElementById('conn').getAttribute('aria-label'),
              connTitle: document.getElementById('conn').title,
              lang: document.getElementById('lang').getAttribute('aria-label'),
              modes: document.querySelector('nav.modes').getAttribute('aria-label'),
              title: document.title,
            })"""
        )
        assert labels == {
            "conn": texts["conn"]["open"],
            "connTitle": texts["conn"]["open"],
            "lang": texts["prefs"]["language"],
            "modes": texts["nav"]["modes"],
            "title": f"{texts['nav']['play']} · Seahaven Race",
        }, lang
    # The replay viewer's first and last step buttons are named in words, not symbols.
    # link: a shared replay's link is how people come to the viewer
    page.goto(web_server.http_url + "/#/replay/nothing-here")
    page.select_option("#lang", "de")
    page.wait_for_function("document.documentElement.lang === 'de'")
    texts = _texts("de")
    for act in ("first", "last"):
        label = page.locator(f'[data-act="{act}"]').get_attribute("aria-label")
        assert label == texts["replay"][act]
    assert js_errors(page) == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_mode_tabs_fit_a_phone(web_server: ServerProc, browser: Browser, lang: str) -> None:
    page = open_home(
        browser,
        web_server.http_url,
        lang=lang,
        width=390,
        height=844,
        is_mobile=True,
        has_touch=True,
    )
    page.locator(".modes a[data-view='rules']").tap()
    page.wait_for_function("location.hash === '#/rules'")
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    nav = page.evaluate(
        """() => {
          const nav = document.querySelector('nav.modes');
          const box = nav.getBoundingClientRect();
          return {scroll: nav.scrollWidth, client: nav.clientWidth, right: box.right,
            tabs: [...nav.querySelectorAll('a')].map(a => {
              const r = a.getBoundingClientRect();
              return {text: a.textContent, left: r.left, right: r.right};
            })};
        }"""
    )
    assert nav["scroll"] <= nav["client"], nav
    for tab in nav["tabs"]:
        assert tab["left"] >= 0 and tab["right"] <= min(nav["right"], 390) + 0.5, tab
    assert js_errors(page) == []
