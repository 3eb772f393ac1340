"""Languages in a real browser: chosen from the browser, switched by hand, rules pages in
each, refusals explained in the player's language; and a phone-sized table."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from protocol.models import ERROR_CODES, SERVER_REJECT_REASONS, UNRANKED_REASONS
from server.engine.errors import REASONS
from tests import ROOT
from tests.helpers.pages import (
    SCREENSHOTS,
    Player,
    go,
    js_errors,
    needs_chromium,
    open_home,
    play_code,
    wait_ready,
)
from tests.helpers.serverproc import ServerProc

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Route

I18N = ROOT / "client_web" / "i18n"
LANGS = ["en", "da", "de", "ru", "th"]
NAV_PLAY = {"en": "Play", "da": "Spil", "de": "Spielen", "ru": "Игра", "th": "เล่น"}
RULES_TITLE = {
    "en": "How to play Seahaven Towers",
    "da": "Sådan spiller du Seahaven Towers",
    "de": "So spielt man Seahaven Towers",
    "ru": "Как играть в Seahaven Towers",
    "th": "วิธีเล่น Seahaven Towers",
}


#: The plural categories of the languages (CLDR): a text with plural forms has these keys.
PLURAL_FORMS = {
    "en": {"one", "other"},
    "da": {"one", "other"},
    "de": {"one", "other"},
    "ru": {"one", "few", "many", "other"},
    "th": {"other"},
}


def _plural(v: object) -> bool:
    return isinstance(v, dict) and isinstance(v.get("other"), str)


def _keys(d: dict[str, Any], prefix: str = "") -> set[str]:
    out: set[str] = set()
    for k, v in d.items():
        out |= _keys(v, f"{prefix}{k}.") if isinstance(v, dict) and not _plural(v) else {prefix + k}
    return out


def _plurals(d: dict[str, Any], prefix: str = "") -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for k, v in d.items():
        if _plural(v):
            out[prefix + k] = set(v)
        elif isinstance(v, dict):
            out |= _plurals(v, f"{prefix}{k}.")
    return out


def test_every_text_with_a_number_has_the_plural_forms_of_its_language() -> None:
    english = _plurals(json.loads((I18N / "en.json").read_text(encoding="utf-8")))
    assert english, "no text with plural forms"
    for lang in LANGS:
        forms = _plurals(json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8")))
        assert set(forms) == set(english), lang
        for key, cats in forms.items():
            assert cats == PLURAL_FORMS[lang], (lang, key, cats)


def test_every_language_explains_every_refusal_and_error() -> None:
    english = json.loads((I18N / "en.json").read_text(encoding="utf-8"))
    for lang in LANGS:
        texts = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
        missing = (set(REASONS) | set(SERVER_REJECT_REASONS)) - set(texts["reason"])
        assert not missing, f"{lang}.json lacks reasons {sorted(missing)}"
        assert not set(ERROR_CODES) - set(texts["error"]), lang
        assert not set(UNRANKED_REASONS) - set(texts["unranked"]), lang
        assert _keys(texts) == _keys(english), lang


@needs_chromium
def test_language_from_the_browser_then_the_switch(
    web_server: ServerProc, browser: Browser
) -> None:
    page = open_home(browser, web_server.http_url, lang="de-DE")
    go(page, "rules")
    assert page.locator('nav a[data-view="play"]').inner_text() == "Spielen"
    page.locator("article.rules h1").wait_for()
    assert page.locator("article.rules h1").inner_text() == RULES_TITLE["de"]
    for lang in LANGS:
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        assert page.locator('nav a[data-view="play"]').inner_text() == NAV_PLAY[lang]
        page.wait_for_function(
            "(t) => document.querySelector('article.rules h1')?.textContent === t",
            arg=RULES_TITLE[lang],
        )
        if lang in ("ru", "th"):
            page.screenshot(path=str(SCREENSHOTS / f"rules-{lang}.png"))
    # The choice is remembered across a reload.
    page.reload()
    wait_ready(page)
    assert page.locator('nav a[data-view="play"]').inner_text() == NAV_PLAY["th"]
    assert js_errors(page) == []


@needs_chromium
def test_the_last_language_chosen_wins_when_an_earlier_one_loads_slower(
    web_server: ServerProc, browser: Browser
) -> None:
    page = open_home(browser, web_server.http_url)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)  # German's texts wait until released

    page.route("**/i18n/de.json", hold)
    with page.expect_request("**/i18n/de.json"):
        page.select_option("#lang", "de")
    page.select_option("#lang", "ru")
    page.wait_for_function("document.documentElement.lang === 'ru'")
    assert len(held) == 1
    with page.expect_event("requestfinished", lambda r: r.url.endswith("/i18n/de.json")):
        held[0].continue_()
    page.unroute("**/i18n/de.json")
    # A round trip to the server, long after the page has read the German texts.
    page.evaluate("fetch('i18n/de.json', { cache: 'no-store' }).then((r) => r.json())")
    # German arrived last, but Russian was chosen last: the page stays Russian.
    assert page.evaluate("document.documentElement.lang") == "ru"
    assert page.locator('nav a[data-view="play"]').inner_text() == NAV_PLAY["ru"]
    assert page.locator("#lang").input_value() == "ru"
    assert js_errors(page) == []


@needs_chromium
def test_a_refusal_is_explained_in_the_players_language(
    web_server: ServerProc, browser: Browser
) -> None:
    page = open_home(
        browser,
        web_server.http_url,
        lang="ru-RU",
        width=390,
        height=844,
        is_mobile=True,
        has_touch=True,
    )
    play_code(page, "SH1-C4-AAAAAJ2")
    page.wait_for_function("!!seahaven.game.myBoard()")
    p = Player(page)
    # On a phone the ten columns fit the width.
    right = p.pile("col10").bounding_box()
    assert right is not None and right["x"] + right["width"] <= 390
    p.drag("col1", "col2")  # 6D onto 9D
    toast = page.locator("#toast")
    toast.wait_for(state="visible")
    assert (
        toast.inner_text() == json.loads((I18N / "ru.json").read_text())["reason"]["not_one_lower"]
    )
    assert p.top("col1").get_attribute("aria-label") == "6 бубен"
    # Two quick taps with a finger are a double tap: the 2D goes to the first free cell.
    p.double_tap("col5")
    p.wait_moves(1)
    assert p.pile("cell3").locator(".card").get_attribute("data-card") == "2D"
    page.screenshot(path=str(SCREENSHOTS / "phone-ru.png"))
    assert js_errors(page) == []


@needs_chromium
def test_plural_rules_and_dates_in_the_page_language(
    web_server: ServerProc, browser: Browser
) -> None:
    page = open_home(browser, web_server.http_url)
    go(page, "rules")
    said = page.evaluate(
        """async () => {
          const i18n = await import('./js/i18n.js');
          const out = {};
          for (const lang of ['en', 'da', 'de', 'ru', 'th']) {
            await i18n.setLang(lang);
            out[lang] = [1, 2, 5, 21].map((n) => i18n.t('race.movesN', {n}))
              .concat([i18n.formatDate('2026-12-01')]);
          }
          await i18n.setLang('en');
          return out;
        }"""
    )
    assert said["en"] == ["1 move", "2 moves", "5 moves", "21 moves", "1 December 2026"]
    assert said["de"] == ["1 Zug", "2 Züge", "5 Züge", "21 Züge", "1. Dezember 2026"]
    assert said["ru"][:4] == ["1 ход", "2 хода", "5 ходов", "21 ход"]
    assert said["ru"][4].startswith("1 декабря 2026")
    assert said["da"][4] == "1. december 2026"
    assert "2569" in said["th"][4] or "2026" in said["th"][4]  # the Thai calendar's year
    assert js_errors(page) == []
