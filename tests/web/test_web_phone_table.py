"""A phone-first table in a real browser (most players hold a phone):

- held upright (390x844), the controls are in a bar at the foot where a thumb reaches, and
  the columns are fanned into the height the table has;
- on its side (740x360), the win banner keeps off most of the table and can be closed (and
  opened again); the introduction covers none of the cells, the foot of any column or Hint;
- no control of the top bar, the new-game bar or the table is cut off or wraps, in every
  language, upright and on its side (the top bar one row on its side, in Russian too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from server.engine import Board
from server.engine.solver import solve
from tests.helpers.axe import axe as _axe
from tests.helpers.pages import (
    js_errors,
    load_home,
    needs_chromium,
    new_page,
    send_line,
    wait_ready,
)
from tests.helpers.serverproc import ServerProc
from tests.helpers.waits import until_sync

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium

LANGS = ["en", "da", "de", "ru", "th"]

#: Every control of the top bar, the new-game bar and the table: its box, whether it shows,
#: and whether its text runs on one line (a control's height against its line's).
CONTROLS = """(() => {
  const sel = '.topbar a, .topbar select, .topbar label, .newgame .btn, .newgame .seg label,'
    + ' .newgame .field, .table-view .bar .btn:not(.away)';
  // Shown ones (not a label kept for screen readers alone, one pixel wide).
  return [...document.querySelectorAll(sel)]
    .filter((el) => el.offsetParent !== null && el.getBoundingClientRect().width > 2)
    .map((el) => {
      const r = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.3;
      const pad = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom)
        + parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
      return {text: el.textContent.trim().slice(0, 30), left: r.left, right: r.right,
        height: r.height, lines: (r.height - pad) / line,
        clipped: el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'SELECT'};
    });
})()"""

#: The boxes of the pieces the introduction's steps ask to touch, and of Hint.
TOUCHED = """(() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const cells = [...document.querySelectorAll('.board[data-board="mine"] .pile.cell')];
  const feet = [...document.querySelectorAll('.board[data-board="mine"] .pile.col')]
    .map((p) => p.querySelector('.card:last-child')).filter(Boolean);
  const hint = document.querySelector('.table-view [data-act="hint"]');
  return {intro: box(document.querySelector('.intro')),
    touched: [...cells, ...feet, hint].map(box)};
})()"""


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and (b["top"] < a["bottom"])
    )


def new_game(page: Page, url: str) -> None:
    load_home(page, url)
    page.locator('[data-act="new"]').click()
    page.wait_for_function("!!seahaven.game.me()?.legal")


def test_upright_the_controls_sit_at_the_foot_and_the_columns_use_the_height(
    web_server: ServerProc, browser: Browser
) -> None:
    page = new_page(browser, width=390, height=844, is_mobile=True, has_touch=True)
    new_game(page, web_server.http_url)
    for act in ("undo", "hint"):
        box = page.locator(f'.table-view [data-act="{act}"]').bounding_box()
        assert box is not None and box["y"] > 844 * 0.85, (act, box)  # where a thumb is
        assert box["y"] + box["height"] <= 844 and box["height"] >= 36, (act, box)
    # The fan: each covered card shows more than half its height (the usual fan a third).
    fan = page.evaluate(
        """(() => { const cards = document.querySelectorAll(
          '.board[data-board="mine"] .pile.col[data-loc="col1"] .card');
          const a = cards[0].getBoundingClientRect(), b = cards[1].getBoundingClientRect();
          return {step: b.top - a.top, height: a.height}; })()"""
    )
    assert fan["step"] > fan["height"] * 0.5, fan
    _axe(page, "Play upright on a phone")
    assert js_errors(page) == []


@pytest.mark.parametrize("lang", LANGS)
def test_no_control_is_cut_off_or_wraps(
    web_server: ServerProc, browser: Browser, lang: str
) -> None:
    page = new_page(browser, lang=lang, width=390, height=844)
    new_game(page, web_server.http_url)
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    for width, height in ((390, 844), (740, 360)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        controls: list[dict[str, Any]] = page.evaluate(CONTROLS)
        assert controls
        for c in controls:
            assert c["left"] >= -0.5 and c["right"] <= width + 0.5, (lang, width, c)
            assert not c["clipped"] and c["lines"] < 1.6, (lang, width, c)
        if width == 740:  # on its side, the top bar is one row
            bar = page.locator(".topbar").bounding_box()
            assert bar is not None and bar["height"] < 48, (lang, bar)
    assert js_errors(page) == []


def test_on_its_side_the_win_banner_closes_and_the_intro_leaves_the_cards_free(
    web_server: ServerProc, browser: Browser
) -> None:
    for width, height in ((740, 360), (390, 844)):
        first = new_page(browser, intro=True, width=width, height=height)
        first.goto(web_server.http_url + "/")
        wait_ready(first)
        first.locator(".intro").wait_for()
        first.wait_for_function("!!seahaven.game.me()?.legal")
        got = first.evaluate(TOUCHED)
        for box in got["touched"]:
            assert not overlaps(got["intro"], box), (width, got["intro"], box)
    page = new_page(browser, width=740, height=360, is_mobile=True, has_touch=True)
    new_game(page, web_server.http_url)
    line = list(solve(Board.from_code(page.evaluate("seahaven.game.code")), timeout=20).moves)
    send_line(page, line)
    banner = page.locator(".banners .banner.win")
    banner.wait_for()

    # The banner is drawn again when the game's result follows the winning move: measure
    # the one on screen once it has settled (a box of None is one just replaced).
    def wait(seconds: float) -> None:
        page.wait_for_timeout(seconds * 1000)

    box = until_sync(
        banner.bounding_box,
        what="the win banner's box",
        sleep=wait,
    )
    # What covers the table is the banners' frame (its content scrolls inside it): a longer
    # par line or a new best must not make it grow over the table or off the screen.
    frame = page.locator(".table-view > .banners").bounding_box()
    assert frame is not None and frame["width"] * frame["height"] < 740 * 360 * 0.4, frame
    assert frame["y"] >= 0 and frame["y"] + frame["height"] <= 360, frame
    assert box["width"] <= frame["width"] + 1, (box, frame)
    # The most a banner may hold (a long par line, new bests, a streak, in German): the frame
    # stays as it is bound, the rest scrolls.
    page.evaluate(
        "document.querySelector('.banners .banner.win')"
        ".insertAdjacentHTML('beforeend', '<p style=\"height: 400px\">tall</p>')"
    )
    tall = page.locator(".table-view > .banners").bounding_box()
    assert tall is not None and tall["width"] * tall["height"] < 740 * 360 * 0.4, tall
    assert tall["y"] + tall["height"] <= 360, tall
    page.locator('.banners [data-win="close"]').click()
    pill = page.locator('.banners [data-win="open"]')
    pill.wait_for()
    small = until_sync(
        page.locator(".banners .banner.win").bounding_box,
        what="the closed banner's box",
        sleep=wait,
    )
    assert small["width"] * small["height"] < 740 * 360 * 0.08, small
    pill.click()
    page.locator('.banners [data-win="close"]').wait_for()
    _axe(page, "A won game on a phone on its side")
    assert js_errors(page) == []
