"""Helpers for the browser tests: Debian's Chromium through Playwright, and a real server
(the fixtures ``browser`` and ``web_server`` are in conftest.py beside this file).

The tests drive the web client the way a person does: drag and drop with the mouse, double
clicks, keys. ``Player`` maps RULES.md notation (``col3 found``, ``cell1 col7``) onto the
DOM (``data-loc`` on piles, ``data-card`` on cards) so a solver line can be played by hand.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import tempfile
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from websockets.sync.client import ClientConnection

from server.engine import Action, Board, DoubleTap, Move, Tap, parse_action
from tests import ROOT
from tests.helpers.serverproc import (
    QUICK,
    REVIEW_OFF_ENV,
    ServerProc,
    drop_keys,
    redis_url,
    running_server,
)
from tests.helpers.waits import until_sync

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, CDPSession, Locator, Page

#: Debian's Chromium: its headless shell (package ``chromium-headless-shell``) where it is
#: installed, else the browser itself (``chromium``). Both are the same Blink; the shell
#: leaves out the browser's own window and tab strip, which the full browser draws for
#: every context in a renderer of its own; on two cores the browser tests took about a
#: quarter less time on the shell. ``SEAHAVEN_CHROMIUM`` names another binary.
CHROMIUM = os.environ.get("SEAHAVEN_CHROMIUM") or next(
    (p for p in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if Path(p).exists()),
    "/usr/bin/chromium",
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Screenshots go to a temporary folder; `SEAHAVEN_SCREENSHOTS=docs/screenshots` refreshes the
# ones the README and docs/ show.
SCREENSHOTS = Path(
    os.environ.get("SEAHAVEN_SCREENSHOTS") or Path(tempfile.gettempdir()) / "seahaven-screenshots"
)
SCREENSHOTS.mkdir(parents=True, exist_ok=True)

#: A short countdown keeps the race tests quick; a generous rate limit lets the test click fast.
SERVE_ARGS = ["--countdown-ms", "1200", *QUICK]
#: Every player established at once, for the pages that show a daily board (which lists
#: established players only; tests/web/test_web_provisional.py keeps the default bar).
DAILY_ARGS = [*SERVE_ARGS, "--provisional-games", "0"]
#: An arena minute is a second and pairing looks every half second: an arena a page can play
#: to its podium while the test waits.
ARENA_ARGS = ["--arenas", "", "--arena-minute-ms", "1000", "--arena-pair-ms", "500"]


@contextlib.contextmanager
def arena_server(
    tag: str, args: list[str] | None = None, *, review: bool = False
) -> Iterator[ServerProc]:
    """A server for the arena pages (``args``, else :data:`ARENA_ARGS`, after
    :data:`SERVE_ARGS`): every player established, no review of finishes unless ``review``,
    its keys under a prefix of its own (``tag``), dropped afterwards."""
    prefix = f"{tag}-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_PROVISIONAL_GAMES": "0"}
    if not review:
        env |= REVIEW_OFF_ENV
    try:
        extra = ARENA_ARGS if args is None else args
        with running_server(redis_url(), args=[*SERVE_ARGS, *extra], env=env) as srv:
            yield srv
    finally:
        drop_keys(prefix)


# Skipped only where Chromium is absent; CI sets SEAHAVEN_REQUIRE_BROWSER so that a missing
# browser fails there instead of skipping.
needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("SEAHAVEN_REQUIRE_BROWSER"),
    reason=f"Chromium is not installed at {CHROMIUM}",
)


#: The uncaught script errors of each page that ``new_page`` opened.
_JS_ERRORS: weakref.WeakKeyDictionary[Page, list[str]] = weakref.WeakKeyDictionary()


#: The last address a page named (each names the next).
_next_address = 0

#: The browser contexts ``new_page`` opened and :func:`close_pages` has not closed yet.
_OPEN: list[BrowserContext] = []


def new_page(
    browser: Browser,
    *,
    name: str | None = None,
    lang: str = "en",
    width: int = 1280,
    height: int = 860,
    motion: bool = False,
    intro: bool = False,
    **kwargs: Any,
) -> Page:
    """A page in a fresh browser context (its own local storage, so its own player), behind
    an address of its own (``X-Forwarded-For``, believed by servers run with ``QUICK``:
    rules such as "never pair two identities of one address" count by it); the first
    visit's introduction counts as seen unless ``intro``."""
    global _next_address
    if "extra_http_headers" not in kwargs:
        _next_address += 1
        own = f"198.19.{_next_address // 250 % 250}.{_next_address % 250 + 1}"
        kwargs["extra_http_headers"] = {"X-Forwarded-For": own}
    # Reduced motion: cards do not slide, so each action settles at once (``motion``: they do).
    ctx = browser.new_context(
        viewport={"width": width, "height": height},
        locale=lang,
        reduced_motion="no-preference" if motion else "reduce",
        **kwargs,
    )
    if not intro:
        ctx.add_init_script(
            "localStorage.getItem('seahaven.intro') || "
            "localStorage.setItem('seahaven.intro', 'seen')"
        )
    if name:
        ctx.add_init_script(
            "localStorage.getItem('seahaven.name') || ("
            f"localStorage.setItem('seahaven.name', {name!r}), "
            "localStorage.setItem('seahaven.name.chosen', '1'))"
        )
    _OPEN.append(ctx)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _JS_ERRORS[page] = errors
    return page


def close_pages() -> None:
    """Close every page ``new_page`` opened (tests/web/conftest.py does at each test's end):
    a page left open keeps its socket, its timers and its drawing going, and on the
    module's shared browser and server one test's leftovers slowed the next and could meet
    its players (a queued page pairs with anyone)."""
    while _OPEN:
        _OPEN.pop().close()  # once closed (by the test itself), a context's close does nothing


def js_errors(page: Page) -> list[str]:
    """The uncaught script errors of a page from ``new_page`` so far (the tests check that
    there are none)."""
    return _JS_ERRORS[page]


def wait_ready(page: Page) -> None:
    """Until the client has connected and been welcomed."""
    page.wait_for_function("window.seahaven && window.seahaven.welcomed", timeout=10_000)


def resize(page: Page, width: int, height: int) -> None:
    """Set the viewport and return once the page has laid itself out at that size: its
    ``resize`` handlers run before the next frame's callbacks, so two frames later they have
    drawn (instead of a guessed wait)."""
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def let_timers_run(page: Page, ms: int) -> None:
    """Return once every timer the page set up to now for at most ``ms`` has fired: a timer
    of the page's own for ``ms`` runs after them (a check that something did *not* happen,
    for instance within the double tap's window, waits no longer than the page itself)."""
    page.evaluate(f"new Promise(r => setTimeout(r, {ms}))")


#: The web client's double tap window (``DOUBLE_MS`` of client_web/js/dnd.js), and a little:
#: a click that may be the first of two is decided once it has passed.
_DND = (ROOT / "client_web" / "js" / "dnd.js").read_text()
DOUBLE_TAP_WINDOW_MS = int(re.search(r"const DOUBLE_MS = (\d+);", _DND).group(1)) + 20  # type: ignore[union-attr]


def until_page(
    page: Page, check: Callable[[], object], timeout: float = 10, what: str = "the condition"
) -> None:
    """Poll ``check`` (Python state that the page's routes and events update, which they do
    while Playwright waits) until it is true.

    Raises:
        AssertionError: still false after ``timeout`` seconds.
    """
    until_sync(check, timeout, what, sleep=lambda s: page.wait_for_timeout(s * 1000))


def shoot(page: Page, name: str, *, wide: bool = False) -> None:
    """Screenshots at a laptop's 1366x768 (NAME.png) and a phone's 390x844 (NAME-phone.png),
    and with ``wide`` a desktop's 1920x1080 (NAME-wide.png); the page gets its own size back
    afterwards."""
    size = page.viewport_size
    sizes = [("", 1366, 768), ("-phone", 390, 844)] + ([("-wide", 1920, 1080)] if wide else [])
    for suffix, width, height in sizes:
        resize(page, width, height)
        page.screenshot(path=str(SCREENSHOTS / f"{name}{suffix}.png"))
    if size is not None:
        page.set_viewport_size(size)


def send_line(page: Page, line: list[str], gap_ms: int = 0) -> None:
    """Play actions (``col3 found``, ``found:D col5`` ...) as moves sent straight down the
    page's socket, each once the previous one is on the page's own board: as fast as the
    server answers, for setting up a position (``gap_ms``: at least that long apart)."""
    page.evaluate(
        """async ([line, gap]) => {
          for (const action of line) {
            const before = seahaven.game.me().moves;
            const [src, dst] = action.split(" ");
            const sent = performance.now();
            seahaven.net.send("move", {src, dst});
            while (seahaven.game.me().moves === before) await new Promise(r => setTimeout(r, 2));
            const left = gap - (performance.now() - sent);
            if (left > 0) await new Promise(r => setTimeout(r, left));
          }
        }""",
        [line, gap_ms],
    )


def board_json(page: Page) -> dict[str, Any]:
    """The client's own board as the server's JSON shape."""
    data: dict[str, Any] = page.evaluate(
        "(() => { const b = seahaven.game.myBoard(); return b && "
        "{cells: b.cells, columns: b.columns, foundations: b.foundations}; })()"
    )
    return data


class Player:
    """One browser playing its own board (``sel`` is the board element's selector)."""

    def __init__(self, page: Page, sel: str = '.board[data-board="mine"]') -> None:
        self.page = page
        self.sel = sel
        self._cdp: CDPSession | None = None  # for double taps; opened at the first

    def pile(self, loc: str) -> Locator:
        return self.page.locator(f'{self.sel} .pile[data-loc="{loc}"]')

    def top(self, loc: str) -> Locator:
        return self.pile(loc).locator(".card").last

    def top_centre(self, loc: str, *, reach: float = 1e9) -> tuple[float, float]:
        """The centre of a pile's top card as the page shows it now (at most ``reach`` px
        below its top edge), scrolled into view first if it is not; found and measured in one
        evaluation: a locator's box is measured in a second call, and a board drawn again in
        between (a card sent home) leaves it measuring a card no longer there."""
        centre: list[float] = self.page.wait_for_function(
            """([sel, loc, reach]) => {
              const cards = document.querySelectorAll(`${sel} .pile[data-loc="${loc}"] .card`);
              const card = cards[cards.length - 1];
              if (!card) return null;
              let r = card.getBoundingClientRect();
              if (r.top < 0 || r.bottom > innerHeight) {
                card.scrollIntoView({block: "nearest"});
                r = card.getBoundingClientRect();
              }
              return [r.left + r.width / 2, r.top + Math.min(r.height / 2, reach)];
            }""",
            arg=[self.sel, loc, reach],
            timeout=5_000,
            polling="raf",
        ).json_value()
        return centre[0], centre[1]

    def moves(self) -> int:
        return int(self.page.evaluate("seahaven.game.me() ? seahaven.game.me().moves : 0"))

    def wait_moves(self, n: int) -> None:
        """Wait until the page counts ``n`` of our moves (a ceiling of 30 s: the server's
        delta is late, never lost, on a machine the whole suite keeps busy); on a timeout
        the assertion says what the page was doing, to tell a lost input from a late one."""
        try:
            self.page.wait_for_function(
                f"seahaven.game.me() && seahaven.game.me().moves >= {n}",
                timeout=30_000,
                polling=10,
            )
        except Exception as exc:
            seen = self.page.evaluate(
                """() => ({state: seahaven.game.state, me: seahaven.game.me(),
                  socket: seahaven.net.ws ? seahaven.net.ws.readyState : null,
                  legal: seahaven.game.me()?.legal ?? null})"""
            )
            raise AssertionError(f"no move {n} on the page: {seen}") from exc

    def drag(self, src: str, dst: str) -> None:
        """Drag the top card of ``src`` onto the pile ``dst`` with the mouse: press near the
        card's top edge, move onto the pile (one move is past the drag threshold) and let go.

        Both places are found and measured in one page evaluation (the card scrolled into view
        first if the page is taller than the window): a drag took 45 ms where the locators'
        separate round trips took 105 (medians of 3 games of 30 drags, quiet machine)."""
        points: list[float] = self.page.wait_for_function(
            """([sel, src, dst]) => {
              const cards = document.querySelectorAll(`${sel} .pile[data-loc="${src}"] .card`);
              const card = cards[cards.length - 1];
              const pile = document.querySelector(`${sel} .pile[data-loc="${dst}"]`);
              if (!card || !pile) return null;
              const r = card.getBoundingClientRect();
              if (r.top < 0 || r.bottom > innerHeight) card.scrollIntoView({block: "nearest"});
              const c = card.getBoundingClientRect();
              const p = pile.getBoundingClientRect();
              return [c.left + c.width / 2, c.top + 12,
                      p.left + p.width / 2, p.top + Math.min(p.height - 5, 40)];
            }""",
            arg=[self.sel, src, dst],
            timeout=5_000,
            polling="raf",
        ).json_value()
        x, y, tx, ty = points
        m = self.page.mouse
        m.move(x, y)
        m.down()
        m.move(tx, ty)
        m.up()

    def double_click(self, loc: str) -> None:
        """A double click with the mouse on the top card of ``loc`` (see :meth:`double_tap`)."""
        self.double_tap(loc, source="mouse")

    def double_tap(self, loc: str, source: str = "touch") -> None:
        """Two taps of a finger (or clicks of the ``source``) on the top card of ``loc``, made
        by Chromium itself so that they are a double tap's distance apart however busy the
        test's own process is: the driver's ``dblclick()`` or two ``tap()`` are round trips
        of their own, and on a loaded host the second came after the double-tap window."""
        x, y = self.top_centre(loc, reach=20)
        if self._cdp is None:
            self._cdp = self.page.context.new_cdp_session(self.page)
        self._cdp.send(
            "Input.synthesizeTapGesture",
            # Each press held 1 ms (not the default 50): the two releases stay well inside
            # the page's double-tap window even when the browser's ticks come late.
            {"x": x, "y": y, "tapCount": 2, "duration": 1, "gestureSourceType": source},
        )

    def play(self, board: Board, text: str, *, prefer_double: bool) -> None:
        """Play one solver action the way a person would, and wait for the server's delta.

        ``found`` becomes a drop on the foundation of the card's suit. With
        ``prefer_double`` a move that a double click makes identically is double clicked.
        """
        action = parse_action(text)
        assert isinstance(action, Move)
        src, dst = str(action.src), str(action.dst)
        before = self.moves()
        if prefer_double and _same_as(board, action, Tap(action.src)):
            # A card that one click sends home is clicked once, as a racer does: the second
            # click of a double click may land on the card the first uncovered, and that is a
            # click of its own (test_web_input's taps 150 ms apart).
            self.page.mouse.click(*self.top_centre(src))
        elif prefer_double and _same_as(board, action, DoubleTap(action.src)):
            self.double_click(src)
        else:
            if dst == "found":
                card = board.card_at(action.src)
                assert card is not None
                dst = "found:" + "SHDC"[card // 13]
            self.drag(src, dst)
        self.wait_moves(before + 1)
        board.play(action)
        shown = board_json(self.page)
        want = board.to_json()
        assert {k: shown[k] for k in ("cells", "columns", "foundations")} == {
            k: want[k] for k in ("cells", "columns", "foundations")
        }, f"after {text} (double={prefer_double}) the page shows {shown}, the line means {want}"


def _same_as(board: Board, move: Move, action: Action) -> bool:
    """Whether ``action`` (a tap or double tap on the move's source) gives the same table
    as the move."""
    from server.engine import IllegalAction

    a, b = board.copy(), board.copy()
    try:
        a.play(action)
    except IllegalAction:
        return False
    b.play(move)
    return a.key() == b.key()


class Racer:
    """A player on a plain websocket (a rival of a browser page, or the racers of rooms
    made quickly); ``line`` is what a test means it to play."""

    def __init__(self, ws: ClientConnection, name: str, token: str | None = None) -> None:
        self.ws = ws
        self.send({"type": "hello", "name": name, **({"token": token} if token else {})})
        self.player_id = str(self.expect("welcome")["player_id"])
        self.next_id = 1
        self.line: list[str] = []

    def send(self, msg: dict[str, Any]) -> None:
        self.ws.send(json.dumps(msg))

    def expect(self, kind: str, timeout: float = 10) -> dict[str, Any]:
        while True:
            msg: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
            if msg["type"] == kind:
                return msg

    def play(self, line: list[str]) -> None:
        for text in line:
            src, dst = text.split(" ")
            self.send({"type": "move", "id": self.next_id, "src": src, "dst": dst})
            self.next_id += 1
            self.expect("ack")


#: In the page: when its Quick race button was clicked, and when its own board first showed a
#: card (performance.now() ms), for the figures the quick-race tests print (none asserts one).
CLICK_TO_BOARD = """(() => {
  window.__clickAt = null;
  window.__boardAt = null;
  document.addEventListener('click', (ev) => {
    if (ev.target.closest('[data-act=quick]')) window.__clickAt = performance.now();
  }, true);
  const look = () => {
    if (document.querySelector('.board[data-board="mine"] .card')) {
      window.__boardAt = performance.now();
      return;
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})()"""


# -- journeys: where people start, and the clicks from there ---------------------------------


def open_home(browser: Browser, url: str, *, skip_intro: bool = True, **kwargs: Any) -> Page:
    """A fresh context (``new_page``'s arguments) opening the server's ``/`` (``url``: its
    ``http_url``) as a person does on a first visit: the page deals the introduction's game
    and shows its first step, which the person skips with its button (``skip_intro``
    False: the introduction stays); returns once the game's board shows."""
    page = new_page(browser, intro=kwargs.pop("intro", True), **kwargs)
    load_home(page, url, skip_intro=skip_intro)
    return page


def load_home(page: Page, url: str, *, skip_intro: bool = True) -> None:
    """Open the server's ``/`` (``url``) in ``page``, a fresh context from ``new_page`` that a
    test has prepared first (an init script, a route), as :func:`open_home` does; the
    introduction, where the page shows it, is skipped by its button unless ``skip_intro``
    is False."""
    page.goto(url.rstrip("/") + "/")
    wait_ready(page)
    page.locator('.board[data-board="mine"] .card').first.wait_for(timeout=10_000)
    if skip_intro and page.evaluate("localStorage.getItem('seahaven.intro') === null"):
        page.locator(".intro").wait_for(timeout=10_000)
        page.locator('.intro [data-act="skip"]').click()
        page.locator(".intro").wait_for(state="detached", timeout=10_000)


def go(page: Page, view: str) -> None:
    """Click the top bar's link to a view (``play``, ``race``, ``watch``, ``daily``, ``rules``,
    ``player``) and wait until the page shows it."""
    page.locator(f'.modes a[data-view="{view}"]').click()
    page.wait_for_function(
        "(v) => location.hash.startsWith('#/' + v) && seahaven.currentName === v", arg=view
    )


def play_code(page: Page, code: str) -> None:
    """Type a game code on Play and press "Play this code"; returns once that deal is dealt."""
    if not page.evaluate("location.hash.startsWith('#/play')"):
        go(page, "play")
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    dealt = "(c) => seahaven.game.code === c && seahaven.game.mode === 'solo'"
    for _ in range(2):
        # A redraw of Play that lands between the typing and the press (the first deal's
        # late messages on a loaded machine) takes the typed code with it: type it again.
        page.locator('.newgame [name="code"]').fill(code)
        page.locator('[data-act="codeform"] button').click()
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(dealt, arg=code, timeout=10_000)
            return
    page.locator('.newgame [name="code"]').fill(code)
    page.locator('[data-act="codeform"] button').click()
    page.wait_for_function(dealt, arg=code)


def create_race(page: Page, cells: int = 4) -> str:
    """On the Race page (reached by its tab), create a room of ``cells``; returns its id once
    the lobby shows."""
    go(page, "race")
    page.locator(f'input[name="rcells"][value="{cells}"]').check(force=True)
    page.locator('[data-act="create"]').click()
    page.wait_for_function("seahaven.game.state === 'lobby' && !!seahaven.game.roomId")
    return str(page.evaluate("seahaven.game.roomId"))


def join_race(page: Page, room: str) -> None:
    """Type a room's id under "Join a room" on the Race page (as a friend told it) and join."""
    go(page, "race")
    page.locator('form[data-act="join"] [name="room"]').fill(room)
    page.locator('form[data-act="join"] button').click()
    page.wait_for_function(
        "(r) => seahaven.game.roomId === r && seahaven.game.role === 'player'", arg=room
    )


def watch_room(page: Page, room: str) -> None:
    """Type a room's id on the Watch page (reached by its tab) and open it as a spectator."""
    go(page, "watch")
    form = page.locator(".watch-head form")
    form.locator('[name="room"]').fill(room)
    form.locator("button").click()
    page.wait_for_function("(r) => location.hash === '#/watch/' + r", arg=room)


def open_player(page: Page, player_id: str) -> None:
    """Click a player's name where the page lists them (a leaderboard, the top players, a
    friends list) and wait until their page opens."""
    page.locator(f'a.who[href="#/player/{player_id}"]').first.click()
    page.wait_for_function(
        "(p) => location.hash === '#/player/' + p && seahaven.currentName === 'player'",
        arg=player_id,
    )
