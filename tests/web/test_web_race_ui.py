"""The race in a real browser, as racers and spectators see it: nothing in the racer's room
panel leaves the race unasked, one board per racer for a spectator whatever the window does,
and cards in proportion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from server.engine import Board
from tests.serverproc import ServerProc
from tests.web.pages import (
    Player,
    board_json,
    js_errors,
    needs_chromium,
    new_page,
    wait_ready,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, needs_chromium]


def _race(
    browser: Browser, base: str, *, code: str | None = None, spectator: bool = True, **kw: Any
) -> tuple[Page, Page, Page | None, str]:
    """A running race: Alice hosts (with a typed code if given), Bob races, Carol watches."""
    alice = new_page(browser, name="Alice", **kw)
    bob = new_page(browser, name="Bob")
    alice.goto(base + "#/race")
    wait_ready(alice)
    if code:
        alice.evaluate("(code) => seahaven.net.send('create_room', {cells: 4, code})", code)
    else:
        alice.get_by_role("button", name="Create a room").click()
    alice.wait_for_function("seahaven.game.state === 'lobby' && !!seahaven.game.roomId")
    room = str(alice.evaluate("seahaven.game.roomId"))
    bob.goto(base + f"#/race/{room}")
    wait_ready(bob)
    alice.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    carol = None
    if spectator:
        carol = new_page(browser, name="Carol")
        carol.goto(base + f"#/watch/{room}")
        wait_ready(carol)
        carol.wait_for_function("seahaven.game.role === 'spectator'")
    alice.get_by_role("button", name="Start the race").click()
    for page in (alice, bob, carol):
        if page is not None:
            page.wait_for_function("seahaven.game.state === 'racing'", timeout=10_000)
    return alice, bob, carol, room


def _racing(page: Page) -> bool:
    return bool(
        page.evaluate(
            "seahaven.game.role === 'player' && seahaven.game.state === 'racing'"
            " && seahaven.game.me()?.status === 'playing'"
        )
    )


def test_nothing_in_the_racers_panel_leaves_the_race_unasked(
    web_server: ServerProc, browser: Browser
) -> None:
    base = web_server.http_url + "/"
    perms = ["clipboard-read", "clipboard-write"]
    alice = new_page(browser, name="Alice", permissions=perms)
    alice.goto(base + "#/race")
    wait_ready(alice)
    alice.get_by_role("button", name="Create a room").click()
    alice.locator(".invite input").wait_for()
    room = alice.evaluate("seahaven.game.roomId")
    watch_link = f"{web_server.http_url}/#/watch/{room}"
    # In the lobby the racer's panel offers the watch link to copy, not a way to watch.
    panel = alice.locator(".race-top")
    assert panel.locator('a[href*="#/watch"]').count() == 0
    panel.get_by_role("button", name="Copy watch link").click()
    alice.locator("#toast").wait_for(state="visible")
    assert alice.evaluate("navigator.clipboard.readText()") == watch_link
    assert alice.evaluate("seahaven.game.role") == "player"
    # Leaving the lobby asks first; saying no keeps the seat.
    dialogs: list[str] = []

    def dismiss(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    alice.on("dialog", dismiss)
    panel.get_by_role("button", name="Leave").click()
    assert dialogs == ["Leave this room?"]
    assert alice.evaluate("seahaven.game.roomId") == room
    bob = new_page(browser, name="Bob")
    bob.goto(base + f"#/race/{room}")
    wait_ready(bob)
    alice.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    alice.get_by_role("button", name="Start the race").click()
    alice.wait_for_function("seahaven.game.state === 'racing'", timeout=10_000)
    # Racing: every control of the panel, tapped (and any question answered no), leaves
    # Alice racing.
    controls = panel.locator("a, button")
    names = [controls.nth(i).inner_text() for i in range(controls.count())]
    assert "Copy watch link" in names and "Leave" in names
    for i in range(controls.count()):
        controls.nth(i).click()
        alice.wait_for_timeout(150)
        assert _racing(alice), names[i]
        assert alice.url.endswith(f"#/race/{room}")
    assert dialogs[-1] == "Leave the race? You will give up."
    assert alice.evaluate("navigator.clipboard.readText()") == watch_link
    # The watch link opened in the racer's own tab does not make her a spectator either:
    # it says she is racing here and leads back.
    alice.goto(watch_link)
    wait_ready(alice)
    alice.wait_for_function("seahaven.game.state === 'racing'")
    note = alice.locator(".watch-head")
    note.get_by_role("link", name="Back to the race").wait_for()
    assert "You are racing in this room" in note.inner_text()
    assert _racing(alice)
    bob.wait_for_timeout(300)
    assert bob.evaluate("seahaven.game.racers().every(p => p.status === 'playing' && !p.gone)"), (
        "Bob sees Alice gone or given up"
    )
    note.get_by_role("link", name="Back to the race").click()
    alice.wait_for_selector('.board[data-board="mine"] .card')
    assert _racing(alice)
    for page in (alice, bob):
        assert js_errors(page) == []


def _mini_counts(page: Page) -> tuple[int, int]:
    counts: list[int] = page.evaluate(
        "[document.querySelectorAll('.mini').length,"
        " document.querySelectorAll('.mini .board').length]"
    )
    return counts[0], counts[1]


def test_a_spectator_has_one_board_per_racer_whatever_the_window_does(
    web_server: ServerProc, browser: Browser
) -> None:
    alice, bob, carol, _room = _race(browser, web_server.http_url + "/")
    assert carol is not None
    alice_id = alice.evaluate("seahaven.game.you")
    carol.wait_for_selector(f'.mini .board[data-board="{alice_id}"] .card')
    assert _mini_counts(carol) == (2, 2)
    # Resizing, turning the phone, switching language: still one board per racer.
    for width, height in [(1366, 768), (390, 844), (844, 390), (1280, 860)]:
        carol.set_viewport_size({"width": width, "height": height})
        carol.wait_for_timeout(120)
        assert _mini_counts(carol) == (2, 2), (width, height)
    for lang in ("de", "ru", "en"):
        carol.select_option("#lang", lang)
        carol.wait_for_function(f"document.documentElement.lang === '{lang}'")
        assert _mini_counts(carol) == (2, 2), lang
    # ... and that one board still follows the racer's moves.
    board = Board.from_code(alice.evaluate("seahaven.game.code"))
    move = next(m for m in board.legal_moves() if m.dst.kind != "cell")
    Player(alice).play(board, f"{move.src} {move.dst}", prefer_double=False)
    carol.wait_for_function(f"seahaven.game.players.get('{alice_id}').moves === 1", timeout=10_000)
    mine = board_json(alice)
    shown = carol.evaluate(
        """(pid) => [...Array(10).keys()].map(i => [...document.querySelectorAll(
             `.mini .board[data-board="${pid}"] .pile[data-loc="col${i + 1}"] .card`)]
             .map(c => c.dataset.card))""",
        alice_id,
    )
    assert shown == mine["columns"]
    assert _mini_counts(carol) == (2, 2)
    for page in (alice, bob, carol):
        assert js_errors(page) == []


def _card_ratios(page: Page, selector: str) -> list[float]:
    ratios: list[float] = page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].map(c => {
             const r = c.getBoundingClientRect(); return r.height / r.width; })""",
        selector,
    )
    return ratios


def test_spectator_cards_keep_the_card_shape(web_server: ServerProc, browser: Browser) -> None:
    alice, bob, carol, _room = _race(browser, web_server.http_url + "/")
    assert carol is not None
    carol.wait_for_selector(".mini .board .card")
    own = _card_ratios(alice, '.board[data-board="mine"] .card')
    assert own and all(abs(r - 1.4) < 0.03 for r in own), own[:3]
    for width, height in [(1280, 860), (390, 844)]:
        carol.set_viewport_size({"width": width, "height": height})
        carol.wait_for_timeout(120)
        seen = _card_ratios(carol, ".mini .board .card")
        assert len(seen) == 104
        assert all(abs(r - own[0]) < 0.03 for r in seen), (width, seen[:3])
    for page in (alice, bob, carol):
        assert js_errors(page) == []
