"""Accessibility in a real browser: axe-core (vendored, see vendor/README.md) on every page of
the client, at a laptop's and a phone's size, finds no violation at all (WCAG AA colour
contrast among it); and the placeholders of empty piles, which axe does not see
(they are CSS-generated), are measured here."""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

from server.engine import Board
from server.engine.solver import solve
from server.records.replays import replay_id
from tests.helpers.axe import AXE, axe, axe_sizes, pinned
from tests.helpers.pages import (
    Player,
    go,
    join_race,
    js_errors,
    needs_chromium,
    open_home,
    play_code,
    send_line,
    watch_room,
)
from tests.helpers.serverproc import ServerProc

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = needs_chromium  # the browser marker comes from what a test uses (tests/conftest.py)

CODE = "SH1-C4-AAAAAJ2"


def test_the_vendored_axe_is_the_pinned_one() -> None:
    version, digest = pinned()
    data = AXE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == digest
    assert data.startswith(f"/*! axe v{version}".encode())


def test_axe_finds_nothing_serious_on_any_page(web_server: ServerProc, browser: Browser) -> None:
    base = web_server.http_url + "/"
    # Play: a game alone, one move made (a card in a cell, an empty cell or two).
    solo = open_home(browser, base, name="Sol")
    play_code(solo, CODE)
    solo.wait_for_function("!!seahaven.game.myBoard()")
    Player(solo).double_click("col5")
    Player(solo).wait_moves(1)
    axe_sizes(solo, "Play")
    # Rules, in English and in Thai.
    go(solo, "rules")
    solo.locator("article.rules h1").wait_for()
    axe_sizes(solo, "Rules")
    solo.select_option("#lang", "th")
    solo.wait_for_function("document.querySelector('article.rules').lang === 'th'")
    solo.locator("article.rules h1").wait_for()
    axe(solo, "Rules in Thai")
    solo.select_option("#lang", "en")
    # Daily: the deals behind Start and the leaderboard.
    go(solo, "daily")
    solo.locator(".deal-tile").first.wait_for()
    solo.locator(".lb-body > *:not([data-i18n='msg.loading'])").first.wait_for()
    axe_sizes(solo, "Daily")
    # The replay viewer: a game alone won to the end, its replay.
    winner = open_home(browser, base, name="Win")
    play_code(winner, CODE)
    winner.wait_for_function("!!seahaven.game.myBoard()")
    send_line(winner, list(solve(Board.from_code(CODE), timeout=20).moves))
    winner.wait_for_function("seahaven.game.me().status === 'finished'")
    axe(winner, "Play, won")
    room, round_, pid = winner.evaluate(
        "[seahaven.game.roomId, seahaven.game.round, seahaven.game.you]"
    )
    # link: a replay's shared link (a game alone's replay has no button of its own)
    winner.goto(base + f"#/replay/{replay_id(room, round_, pid)}")
    winner.wait_for_function("document.querySelector('[data-board=\"replay\"] .pile') !== null")
    winner.locator('[data-act="next"]').click()
    axe_sizes(winner, "Replay")
    # Race: the host's lobby (with the watch mode picker), a racer's table, a spectator.
    host = open_home(browser, base, name="Hana")
    go(host, "race")
    axe(host, "Race, create")
    host.get_by_role("button", name="Create a room").click()
    host.locator(".invite input").wait_for()
    room = host.evaluate("seahaven.game.roomId")
    guest = open_home(browser, base, name="Gus")
    join_race(guest, room)
    host.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    watcher = open_home(browser, base, name="Wanda")
    watch_room(watcher, room)
    watcher.wait_for_function("seahaven.game.role === 'spectator'")
    axe_sizes(host, "Race lobby (host)")
    axe(guest, "Race lobby (guest)")
    axe(watcher, "Watch, lobby")
    host.get_by_role("button", name="Start the race").click()
    for page in (host, guest, watcher):
        page.wait_for_function("seahaven.game.state === 'racing'", timeout=10_000)
    host.locator('.board[data-board="mine"] .card').first.wait_for()
    code = host.evaluate("seahaven.game.code")
    send_line(host, list(solve(Board.from_code(code), timeout=20).moves[:6]))
    watcher.wait_for_function("seahaven.game.racers().some(p => p.moves >= 6)")
    axe_sizes(host, "Race running")
    axe_sizes(watcher, "Watch, running")
    go(watcher, "watch")
    watcher.wait_for_function("location.hash === '#/watch'")
    axe(watcher, "Watch, no room")
    for page in (solo, winner, host, guest, watcher):
        assert js_errors(page) == []


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _over(
    top: tuple[float, float, float, float], under: tuple[float, float, float]
) -> tuple[float, float, float]:
    r, g, b, a = top
    return (r * a + under[0] * (1 - a), g * a + under[1] * (1 - a), b * a + under[2] * (1 - a))


def _rgba(css: str) -> tuple[float, float, float, float]:
    nums = [float(x) for x in re.findall(r"[\d.]+", css)]
    return (nums[0], nums[1], nums[2], nums[3] if len(nums) > 3 else 1.0)


def _ratio(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_empty_pile_placeholders_meet_contrast(web_server: ServerProc, browser: Browser) -> None:
    """The suit of an empty foundation, the K of an empty column and their outlines stand
    out from the felt: 4.5:1 for the symbols (text), 3:1 for the outlines (WCAG 1.4.11), on
    the lightest felt of the page."""
    page = open_home(browser, web_server.http_url)
    play_code(page, CODE)
    page.wait_for_function("!!seahaven.game.myBoard()")
    # The opening table has empty foundations and cells but no empty column: one is drawn
    # beside the columns with the classes the board gives an empty column.
    styles = page.evaluate(
        """() => {
          const board = document.querySelector('.board[data-board="mine"]');
          const found = board.querySelector('.pile.found.slot');
          const col = document.createElement('div');
          col.className = 'pile col empty';
          board.querySelector('.tableau').append(col);
          const cell = board.querySelector('.pile.cell.slot');
          const felt = getComputedStyle(document.documentElement).getPropertyValue('--felt-light');
          const s = (el, pseudo) => getComputedStyle(el, pseudo);
          const out = {
            felt: felt.trim(),
            found: {bg: s(found).backgroundColor, border: s(found).borderTopColor,
                    symbol: s(found, '::before').color, text: s(found, '::before').content},
            col: {bg: s(col).backgroundColor, border: s(col).borderTopColor,
                  symbol: s(col, '::before').color, text: s(col, '::before').content},
            cell: {bg: s(cell).backgroundColor, border: s(cell).borderTopColor},
          };
          col.remove();
          return out;
        }"""
    )
    felt_hex = styles["felt"].lstrip("#")
    felt = (int(felt_hex[0:2], 16), int(felt_hex[2:4], 16), int(felt_hex[4:6], 16))
    for kind in ("found", "col", "cell"):
        st = styles[kind]
        ground = _over(_rgba(st["bg"]), felt)
        border = _over(_rgba(st["border"]), ground)
        assert min(_ratio(border, ground), _ratio(border, felt)) >= 3, (kind, st)
        if "symbol" in st:
            assert st["text"] not in ("none", "normal", '""'), (kind, st)
            symbol = _over(_rgba(st["symbol"]), ground)
            assert _ratio(symbol, ground) >= 4.5, (kind, st, _ratio(symbol, ground))
    assert js_errors(page) == []
