"""The race in a real browser, as racers and spectators see it: nothing in the racer's room
panel leaves the race unasked, one board per racer for a spectator whatever the window does,
cards in proportion, and the whole table on the screen at laptop and phone sizes even with
the longest column a game can make."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from server.engine import Board, parse_action
from tests.helpers.pages import (
    Player,
    board_json,
    create_race,
    go,
    join_race,
    js_errors,
    needs_chromium,
    open_home,
    play_code,
    resize,
    send_line,
    wait_ready,
    watch_room,
)
from tests.helpers.serverproc import ServerProc

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium  # the browser marker comes from what a test uses (tests/conftest.py)

#: A deal whose fifth card in column 5 is the King of clubs: the line below, found with the
#: engine (a best-first search over legal moves that never moves column 5), lays the King of
#: diamonds ... the Ace of diamonds on it, the last six taken back from the foundation. That
#: is 17 cards, four dealt under a King and the thirteen of a suit, the longest a column can
#: grow; columns of 11 and 8 cards stand beside it.
LONG_CODE = "SH1-C4-AAAAA7O"
LONG_LINE = [
    *("cell2 found", "col4 found", "col4 cell2", "cell1 col4", "col8 col4", "col10 col7"),
    *("col2 col10", "col2 col8", "col2 cell1", "col2 found", "col2 col5", "col9 col5"),
    *("col10 cell3", "col10 cell4", "cell1 col10", "col1 col10", "col10 col6", "col10 col1"),
    *("col10 found", "col9 found", "cell3 found", "cell4 found", "col6 col8", "col6 col1"),
    *("col6 cell1", "col6 col9", "col6 found", "col7 cell3", "col7 cell4", "col7 col9"),
    *("col7 found", "col7 found", "col7 col5", "cell4 col5", "cell3 col5", "cell1 found"),
    *("col4 col2", "col1 col4", "col1 found", "col1 found", "col1 found", "col4 found"),
    *("col4 found", "col4 found", "col4 found", "cell2 found", "col3 col2", "col3 col4"),
    *("col9 col3", "col4 col9", "col3 col9", "col3 col2", "col3 cell1", "col8 col2"),
    *("col8 found", "col8 found", "col8 col5", "found:D col5", "found:D col5"),
    *("found:D col5", "found:D col5", "found:D col5", "found:D col5"),
]
#: A deal with a first move onto a column (a random one may have none: every first move
#: then goes to a cell).
OPEN_CODE = "SH1-C4-AAAAAJ2"

#: Laptop, small laptop, phone upright, phone on its side, a small phone on its side.
VIEWPORTS = [(1366, 768), (1280, 720), (390, 844), (844, 390), (740, 360)]


def _long_board() -> Board:
    board = Board.from_code(LONG_CODE)
    for text in LONG_LINE:
        board.play(parse_action(text))
    return board


def _race(
    browser: Browser, base: str, *, code: str | None = None, spectator: bool = True, **kw: Any
) -> tuple[Page, Page, Page | None, str]:
    """A running race: Alice hosts (with a typed code if given), Bob races, Carol watches."""
    alice = open_home(browser, base, name="Alice", **kw)
    bob = open_home(browser, base, name="Bob")
    go(alice, "race")
    if code:
        # A room of a chosen deal has no button: sent as Create does, out of her game first.
        alice.evaluate(
            "(code) => { seahaven.leaveRoom();"
            " seahaven.net.send('create_room', {cells: 4, code}); }",
            code,
        )
    else:
        alice.get_by_role("button", name="Create a room").click()
    alice.wait_for_function("seahaven.game.state === 'lobby' && !!seahaven.game.roomId")
    room = str(alice.evaluate("seahaven.game.roomId"))
    join_race(bob, room)
    alice.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    carol = None
    if spectator:
        carol = open_home(browser, base, name="Carol")
        watch_room(carol, room)
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
    alice = open_home(browser, base, name="Alice", permissions=perms)
    room = create_race(alice)
    alice.locator(".invite input").wait_for()
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
    bob = open_home(browser, base, name="Bob")
    join_race(bob, room)
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
    alice.goto(watch_link)  # link: the watch link she copied, pasted in her own tab
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
    alice, bob, carol, _room = _race(browser, web_server.http_url + "/", code=OPEN_CODE)
    assert carol is not None
    alice_id = alice.evaluate("seahaven.game.you")
    carol.wait_for_selector(f'.mini .board[data-board="{alice_id}"] .card')
    assert _mini_counts(carol) == (2, 2)
    # Resizing, turning the phone, switching language: still one board per racer.
    for width, height in [(1366, 768), (390, 844), (844, 390), (1280, 860)]:
        resize(carol, width, height)
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
        resize(carol, width, height)
        seen = _card_ratios(carol, ".mini .board .card")
        assert len(seen) == 104
        assert all(abs(r - own[0]) < 0.03 for r in seen), (width, seen[:3])
    for page in (alice, bob, carol):
        assert js_errors(page) == []


#: Every card of the player's own board, with what must show of it (its corner: rank and
#: suit) and how much of it does: up to the next card of its column, or all of it.
_MEASURE = """() => {
  const board = document.querySelector('.board[data-board="mine"]');
  const out = [];
  for (const pile of board.querySelectorAll('.pile')) {
    const cards = [...pile.querySelectorAll(':scope > .card')];
    cards.forEach((card, i) => {
      const box = card.getBoundingClientRect();
      const corner = card.querySelector('.corner');
      const glyphs = [...corner.querySelectorAll('.r, .s')].map(g => g.getBoundingClientRect());
      const next = cards[i + 1]?.getBoundingClientRect();
      out.push({
        card: card.dataset.card, loc: pile.dataset.loc,
        left: box.left, top: box.top, right: box.right, bottom: box.bottom,
        width: box.width, height: box.height,
        shownHeight: next ? next.top - box.top : box.height,
        needHeight: Math.max(...glyphs.map(g => g.bottom)) - box.top,
        needWidth: Math.max(...glyphs.map(g => g.right)) - box.left,
        rankHeight: glyphs[0].height,
      });
    });
  }
  const page = document.scrollingElement;
  return {cards: out, scrollY: window.scrollY, w: innerWidth, h: innerHeight,
    pageH: page.scrollHeight, pageW: page.scrollWidth};
}"""


def _check_fits(page: Page, where: str) -> None:
    got = page.evaluate(_MEASURE)
    w, h = got["w"], got["h"]
    assert got["scrollY"] == 0, where
    # The page itself does not scroll: nothing under the table or beside it either.
    assert got["pageH"] <= h and got["pageW"] <= w, (where, got["pageH"], got["pageW"])
    cards = got["cards"]
    assert len(cards) == 52 - sum(board_json(page)["foundations"].values()) + sum(
        1 for n in board_json(page)["foundations"].values() if n
    ), where
    for c in cards:
        what = f"{where}: {c['card']} in {c['loc']}"
        # On the screen, no scrolling needed.
        assert c["left"] >= 0 and c["right"] <= w + 0.5, what
        assert c["top"] >= 0 and c["bottom"] <= h + 0.5, what
        # Not distorted: the shape of a card.
        assert abs(c["height"] / c["width"] - 1.4) < 0.03, (what, c["width"], c["height"])
        # Its rank and suit show, large enough to read.
        assert c["shownHeight"] >= c["needHeight"] - 0.5, (what, c["shownHeight"], c["needHeight"])
        assert c["needWidth"] <= c["width"] + 0.5, (what, c["needWidth"], c["width"])
        assert c["rankHeight"] >= 12, (what, c["rankHeight"])


@pytest.mark.slow
def test_the_whole_table_fits_laptops_and_phones_with_the_longest_columns(
    web_server: ServerProc, browser: Browser
) -> None:
    longest = _long_board()
    assert max(len(col) for col in longest.columns) == 17
    alice, bob, _carol, _room = _race(
        browser, web_server.http_url + "/", code=LONG_CODE, spectator=False
    )
    send_line(alice, LONG_LINE)
    assert board_json(alice)["columns"] == longest.to_json()["columns"]
    for width, height in VIEWPORTS:
        resize(alice, width, height)
        _check_fits(alice, f"race {width}x{height}")
    # The Play view fits the same table.
    solo = open_home(browser, web_server.http_url, name="Solo")
    play_code(solo, LONG_CODE)
    solo.wait_for_function("!!seahaven.game.myBoard()")
    send_line(solo, LONG_LINE)
    for width, height in VIEWPORTS:
        resize(solo, width, height)
        _check_fits(solo, f"play {width}x{height}")
    for page in (alice, bob, solo):
        assert js_errors(page) == []


def test_leaving_a_running_race_always_asks(web_server: ServerProc, browser: Browser) -> None:
    alice, bob, _carol, room = _race(browser, web_server.http_url + "/", spectator=False)
    answers = {"yes": False}
    dialogs: list[str] = []

    def answer(dialog: Any) -> None:
        dialogs.append(dialog.message)
        if answers["yes"]:
            dialog.accept()
        else:
            dialog.dismiss()

    alice.on("dialog", answer)
    # Every link out of the race asks; "no" keeps her racing, on the race's page, its table
    # still there.
    for link in (".modes a[data-view=play]", ".modes a[data-view=daily]", "a.brand"):
        before = len(dialogs)
        alice.locator(link).click()
        alice.wait_for_timeout(200)
        assert dialogs[before:] == ["Leave the race? You will give up."], link
        assert alice.url.endswith(f"#/race/{room}"), link
        assert _racing(alice), link
        assert alice.locator('.board[data-board="mine"] .card').count() > 40, link
    # Finished while Bob races on: "Next game" asks too (she would miss the end and the
    # rematch, and pass the host's seat on).
    send_line(alice, [str(m) for m in _solution(alice)])
    alice.wait_for_function("seahaven.game.me().status === 'finished'")
    next_game = alice.locator(".banner.win").get_by_role("button", name="Next game")
    next_game.click()
    alice.wait_for_timeout(200)
    assert dialogs[-1].startswith("Leave the race? The others are still racing"), dialogs
    assert alice.evaluate("seahaven.game.roomId") == room
    assert alice.evaluate("seahaven.game.host") == alice.evaluate("seahaven.net.playerId")
    # "Yes" leaves.
    answers["yes"] = True
    next_game.click()
    alice.wait_for_function("!seahaven.game.roomId && location.hash === '#/race'")
    bob.wait_for_function("seahaven.game.racers().some(p => p.gone)")
    for page in (alice, bob):
        assert js_errors(page) == []


def _solution(page: Page) -> list[str]:
    from server.engine.solver import solve

    return list(solve(Board.from_code(str(page.evaluate("seahaven.game.code"))), timeout=20).moves)


#: Every card of a spectator's boards, and the page's extent.
_MINI = """() => {
  const cards = [...document.querySelectorAll('.mini .board .card')].map((c) => {
    const r = c.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width};
  });
  const page = document.scrollingElement;
  return {cards, w: innerWidth, h: innerHeight, pageH: page.scrollHeight, pageW: page.scrollWidth};
}"""


def test_a_watched_race_fits_every_screen_with_the_longest_columns(
    web_server: ServerProc, browser: Browser
) -> None:
    alice, bob, carol, _room = _race(browser, web_server.http_url + "/", code=LONG_CODE)
    assert carol is not None
    send_line(alice, LONG_LINE)
    send_line(bob, LONG_LINE)
    carol.wait_for_function(
        "Math.max(...[...document.querySelectorAll('.mini .board .pile.col')]"
        ".map((p) => p.querySelectorAll('.card').length)) === 17"
    )
    for width, height in [*VIEWPORTS, (1920, 1080)]:
        resize(carol, width, height)
        got = carol.evaluate(_MINI)
        where = f"watch {width}x{height}"
        assert got["pageH"] <= height and got["pageW"] <= width, (where, got["pageH"])
        assert len(got["cards"]) == 2 * (52 - 15 + 2), where  # two boards, each 37 + 2 tops
        for c in got["cards"]:
            assert c["left"] >= 0 and c["right"] <= width + 0.5, (where, c)
            assert c["top"] >= 0 and c["bottom"] <= height + 0.5, (where, c)
    for page in (alice, bob, carol):
        assert js_errors(page) == []


def test_cards_grow_with_the_screen_and_the_table_fills_it(
    web_server: ServerProc, browser: Browser
) -> None:
    solo = open_home(browser, web_server.http_url, name="Solo")
    play_code(solo, LONG_CODE)
    solo.wait_for_function("!!seahaven.game.myBoard()")
    widths = []
    for width, height in [(1366, 768), (1920, 1080), (2560, 1440)]:
        resize(solo, width, height)
        box = solo.locator('.board[data-board="mine"]').bounding_box()
        card = solo.locator('.board[data-board="mine"] .card').first.bounding_box()
        assert box is not None and card is not None
        widths.append(card["width"])
        used = (box["y"] + box["height"]) - box["y"]
        print(f"{width}x{height}: card {card['width']:.1f} px wide, table {used / height:.0%} high")
        if width >= 1920:
            assert used >= 0.8 * height, (width, used)
        assert box["y"] + box["height"] <= height
    assert widths[0] >= 90 and widths[0] < widths[1] < widths[2], widths
    assert widths[1] >= 130, widths
    assert js_errors(solo) == []
