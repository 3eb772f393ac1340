"""Instant input in a real browser against a real server: a tap on a card that can go home
is sent at once (a double tap still works), a drag lights up only the server's legal
destinations, a flying card lets taps through, and the send home button."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest

from server.engine import COL, Board, IllegalAction, Move, Tap, card_name, parse_action
from server.engine.cards import RANKS
from server.engine.solver import solve
from tests.helpers.legal import view
from tests.helpers.pages import (
    DOUBLE_TAP_WINDOW_MS,
    Player,
    board_json,
    js_errors,
    let_timers_run,
    load_home,
    needs_chromium,
    new_page,
    play_code,
    send_line,
)
from tests.helpers.serverproc import ServerProc

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium  # the browser marker comes from what a test uses (tests/conftest.py)

CODE = "SH1-C4-AAAAAAB"  # the AS on top of column 4 can go home at once; 2D (col6) onto 3D
ENDGAME_CODE = "SH1-C4-AAAAAJ2"

# Every message the page sends, and whether it left while the pointer or key event that
# asked for it was still being handled (a flag set by a capturing listener, cleared by the
# next task): a tap sent "at once" leaves inside its pointerup.
RECORD_SENDS = """(() => {
  window.sent = [];
  let inEvent = false;
  const mark = () => { inEvent = true; setTimeout(() => { inEvent = false; }, 0); };
  window.addEventListener('pointerup', mark, true);
  window.addEventListener('keydown', mark, true);
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    const msg = JSON.parse(data);
    if (msg.type !== 'ping') window.sent.push({type: msg.type, at: msg.at, inEvent});
    return send.call(this, data);
  };
})()"""


def _open(page: Page, url: str, code: str) -> Player:
    """Open ``/`` in ``page`` (a fresh context: its game alone dealt), type ``code`` on
    Play, and start recording what the page sends from that deal on."""
    page.add_init_script(RECORD_SENDS)
    load_home(page, url)
    play_code(page, code)
    page.wait_for_function("!!seahaven.game.myBoard()", timeout=10_000)
    _settled(page)
    page.evaluate("window.sent = []")  # the deal's own messages are not the tests'
    return Player(page)


def _settled(page: Page) -> None:
    """Until the server's legal moves came with the board and no action of ours is open."""
    page.wait_for_function("!!seahaven.game.me()?.legal && seahaven.net.pending.size === 0")


def _legal(page: Page) -> Any:
    """The legal moves the page holds for its own board."""
    return page.evaluate("seahaven.game.me().legal")


def _sent(page: Page) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = page.evaluate("window.sent")
    return [m for m in sent if m["type"] in ("move", "tap", "double_tap", "send_home")]


def test_a_tap_that_can_go_home_is_sent_at_once(web_server: ServerProc, browser: Browser) -> None:
    page = new_page(browser)
    p = _open(page, web_server.http_url, CODE)
    p.top("col4").click()  # the AS
    assert _sent(page) == [{"type": "tap", "at": "col4", "inEvent": True}]
    p.wait_moves(1)
    assert board_json(page)["foundations"]["S"] == 1
    # A single click on a card that cannot go home sends nothing and says nothing.
    _settled(page)
    p.top("col1").click()
    let_timers_run(page, DOUBLE_TAP_WINDOW_MS)  # the click waited for a second one: none
    assert len(_sent(page)) == 1 and p.moves() == 1
    assert page.locator("#toast").is_hidden()
    assert js_errors(page) == []


def test_a_double_tap_still_works(web_server: ServerProc, browser: Browser) -> None:
    page = new_page(browser)
    p = _open(page, web_server.http_url, CODE)
    # The 9H (column 1) cannot go home: two clicks in the window are a double tap, which
    # puts it in the leftmost free cell.
    p.double_click("col1")
    p.wait_moves(1)
    assert _sent(page) == [{"type": "double_tap", "at": "col1", "inEvent": True}]
    assert p.pile("cell3").locator(".card").get_attribute("data-card") == "9H"
    # A double click on a card that can go home: its first click sends the tap at once, and
    # the second completes a double tap that would have done the same (the card uncovered
    # is left alone).
    _settled(page)
    p.double_click("col4")
    p.wait_moves(2)
    let_timers_run(page, DOUBLE_TAP_WINDOW_MS)
    assert _sent(page)[1:] == [{"type": "tap", "at": "col4", "inEvent": True}]
    assert p.moves() == 2 and p.top("col4").get_attribute("data-card") == "5S"
    assert js_errors(page) == []


def _lit(page: Page, kind: str) -> set[str]:
    locs: list[str] = page.evaluate(
        f"[...document.querySelectorAll('.board[data-board=\"mine\"] .pile.{kind}')]"
        ".map((p) => p.dataset.loc)"
    )
    return set(locs)


def test_a_drag_lights_only_the_legal_destinations(
    web_server: ServerProc, browser: Browser
) -> None:
    page = new_page(browser)
    p = _open(page, web_server.http_url, CODE)
    legal = {str(d) for d in Board.from_code(CODE).targets()[COL[5]]}
    assert legal == {"col9", "cell3", "cell4"}
    card = p.top("col6").bounding_box()
    assert card is not None
    m = page.mouse
    m.move(card["x"] + card["width"] / 2, card["y"] + 12)
    m.down()
    m.move(card["x"] + card["width"] / 2 + 12, card["y"] + 24)
    assert _lit(page, "drop-target") == legal  # the 2D: onto the 3D, or a free cell
    # Over a pile that does not take it, nothing lights up as the drop; over one that does,
    # that pile.
    for loc, lit in (("col1", set()), ("col9", {"col9"})):
        box = p.pile(loc).bounding_box()
        assert box is not None
        m.move(box["x"] + box["width"] / 2, box["y"] + 40)
        assert _lit(page, "drop-ok") == lit, loc
    m.up()
    p.wait_moves(1)
    assert p.top("col9").get_attribute("data-card") == "2D"
    assert _lit(page, "drop-target") == set() and _lit(page, "drop-ok") == set()
    assert js_errors(page) == []


def test_a_flying_card_takes_no_pointer_events(web_server: ServerProc, browser: Browser) -> None:
    page = new_page(browser, motion=True)
    p = _open(page, web_server.http_url, CODE)
    page.evaluate("""(() => {
      window.flying = [];
      new MutationObserver((records) => {
        for (const r of records) {
          const el = r.target;
          if (el.classList && el.classList.contains('flying')) {
            window.flying.push([el.dataset.card, getComputedStyle(el).pointerEvents]);
          }
        }
      }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['class']});
    })()""")
    p.top("col4").click()  # the AS flies home
    p.wait_moves(1)
    page.wait_for_function("window.flying.length > 0")
    assert ["AS", "none"] in page.evaluate("window.flying")
    # Once landed it is an ordinary card again.
    page.wait_for_function(
        "!document.querySelector('.board[data-board=\"mine\"] .card.flying')", timeout=2000
    )
    assert js_errors(page) == []


def _line_to_send_home() -> tuple[list[str], int]:
    board = Board.from_code(ENDGAME_CODE)
    played = []
    for text in solve(board.copy()).moves:
        if board.can_send_home():
            break
        board.play(parse_action(text))
        played.append(text)
    return played, len(board.send_home_taps())


def test_the_send_home_button(web_server: ServerProc, browser: Browser) -> None:
    page = new_page(browser)
    p = _open(page, web_server.http_url, ENDGAME_CODE)
    button = page.get_by_role("button", name="Send all home")
    assert button.is_hidden()
    before, taps = _line_to_send_home()
    # Play the line up to the endgame through the page's own connection (quicker than
    # dragging 55 cards; the drags and taps are tested above).
    for n, text in enumerate(before, 1):
        move = parse_action(text)
        assert isinstance(move, Move)
        page.evaluate(f"seahaven.net.send('move', {{src: '{move.src}', dst: '{move.dst}'}})")
        p.wait_moves(n)
        if n < len(before):
            assert button.is_hidden() or page.evaluate("seahaven.game.me().legal.send_home")
    button.wait_for(state="visible")
    button.click()
    p.wait_moves(len(before) + taps)
    sent = _sent(page)
    assert sent[-1] == {"type": "send_home", "at": None, "inEvent": True}
    assert sum(1 for m in sent if m["type"] == "send_home") == 1
    assert board_json(page)["foundations"] == {"S": 13, "H": 13, "D": 13, "C": 13}
    page.wait_for_function("seahaven.game.me().status === 'finished'")
    assert button.is_hidden()
    assert js_errors(page) == []


def _line_to_three_home_from_one_column() -> tuple[list[str], str, list[str]]:
    """The solver's line of ENDGAME_CODE up to where one column's three top cards can go
    home one after the other; that column and its three cards, the top first."""
    board = Board.from_code(ENDGAME_CODE)
    played: list[str] = []
    for text in solve(board.copy()).moves:
        for i, col in enumerate(COL):
            trial = board.copy()
            cards = []
            try:
                for _ in range(3):
                    cards.append(trial.card_at(col))
                    trial.play(Tap(col))
            except IllegalAction:
                continue
            return played, f"col{i + 1}", [card_name(c) for c in cards if c is not None]
        board.play(parse_action(text))
        played.append(text)
    raise AssertionError("no column sends three cards home in a row")


def test_taps_150_ms_apart_on_one_column_each_send_their_card_home(
    web_server: ServerProc, browser: Browser
) -> None:
    page = new_page(browser)
    p = _open(page, web_server.http_url, ENDGAME_CODE)
    line, col, cards = _line_to_three_home_from_one_column()
    send_line(page, line)
    _settled(page)
    assert p.top(col).get_attribute("data-card") == cards[0]
    # Three clicks on the column, 150 ms apart: each lands on the card then on top. The
    # second and third are on the same pile inside the double-tap window, but on a new card.
    start = time.monotonic()
    for n in range(3):
        time.sleep(max(0.0, start + 0.15 * n - time.monotonic()))
        page.mouse.click(*p.top_centre(col))
    p.wait_moves(len(line) + 3)
    taps = [m for m in _sent(page) if m["type"] != "move"]
    assert taps == [{"type": "tap", "at": col, "inEvent": True}] * 3
    home = board_json(page)["foundations"]
    for card in cards:
        assert home[card[-1]] >= RANKS.index(card[:-1]) + 1, (card, home)
    assert js_errors(page) == []


def _table_box(page: Page) -> list[float]:
    box: list[float] = page.evaluate(
        """(() => {
          const b = document.querySelector('.board[data-board="mine"]').getBoundingClientRect();
          const c = document.querySelector('.board[data-board="mine"] .pile.col')
            .getBoundingClientRect();
          return [b.top, b.left, b.width, c.top, c.width];
        })()"""
    )
    return box


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)])
def test_the_table_stays_put_when_send_home_comes(
    web_server: ServerProc, browser: Browser, size: tuple[int, int]
) -> None:
    page = new_page(browser, width=size[0], height=size[1])
    p = _open(page, web_server.http_url, ENDGAME_CODE)
    before, _taps = _line_to_send_home()
    send_line(page, before[:-1])
    button = page.locator('[data-act="sendHome"]')
    assert not button.is_visible()
    where = _table_box(page)
    send_line(page, before[-1:])
    button.wait_for(state="visible")
    p.wait_moves(len(before))
    # The button came; the table (and its columns) did not move or change size.
    assert _table_box(page) == where
    assert js_errors(page) == []


def test_the_legal_moves_the_page_holds_follow_its_board(
    web_server: ServerProc, browser: Browser
) -> None:
    # Each delta brings only the change of the legal moves: the page's listing after each
    # action of a whole game is the engine's for the board as it then is.
    page = new_page(browser)
    _open(page, web_server.http_url, CODE)
    board = Board.from_code(CODE)
    line = list(solve(Board.from_code(CODE), timeout=20).moves)
    assert _legal(page) == view(board)
    for n, text in enumerate(line, 1):
        send_line(page, [text])
        board.play(parse_action(text))
        _settled(page)
        assert _legal(page) == view(board), (n, text)
    assert js_errors(page) == []


def test_a_page_without_legal_moves_to_change_asks_for_the_board_again(
    web_server: ServerProc, browser: Browser
) -> None:
    # A page that somehow lost its listing does not guess from a change: it asks for a
    # snapshot, and holds the server's whole listing again.
    page = new_page(browser)
    _open(page, web_server.http_url, CODE)
    board = Board.from_code(CODE)
    page.evaluate("seahaven.game.me().legal = null")
    # (A statement, not the expression: playwright would call the function it returns.)
    page.evaluate("window.gaps = 0; void seahaven.net.on('gap', () => { window.gaps += 1; })")
    send_line(page, ["col4 found"])
    board.play(parse_action("col4 found"))
    page.wait_for_function("!!seahaven.game.me()?.legal", timeout=10_000)
    assert page.evaluate("window.gaps") == 1
    assert _legal(page) == view(board)
    assert page.evaluate("seahaven.game.me().moves") == 1
    assert js_errors(page) == []
