"""The details of the page in a real browser: the mode tabs and the top bar fit a 360 px
phone in every language (the four-colour deck's label shown), the top bar is opaque, a
reload of a game's address resumes it without a false error, a spectator of boards shown
late reads their clock late too, the page is back within 2 s of its server, and screen
readers hear the race (the live region's lines, in order)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pytest
from websockets.sync.client import connect

from server.engine import Board
from server.engine.solver import solve
from tests.helpers.axe import axe
from tests.helpers.pages import (
    SERVE_ARGS,
    Player,
    Racer,
    create_race,
    go,
    join_race,
    js_errors,
    needs_chromium,
    new_page,
    open_home,
    play_code,
    send_line,
    shoot,
    wait_ready,
    watch_room,
)
from tests.helpers.serverproc import ServerProc, redis_url, start_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, needs_chromium]

LANGS = ["en", "da", "de", "ru", "th"]
CODE = "SH1-C4-AAAAAAB"  # the AS on top of column 4 goes home at once

_TOPBAR = """() => {
  const bar = document.querySelector('.topbar');
  const nav = document.querySelector('nav.modes');
  const label = document.querySelector('.fourcolor span').getBoundingClientRect();
  return {
    barScroll: bar.scrollWidth, barClient: bar.clientWidth,
    page: document.scrollingElement.scrollWidth,
    navScroll: nav.scrollWidth, navClient: nav.clientWidth,
    tabs: [...nav.querySelectorAll('a')].map((a) => {
      const r = a.getBoundingClientRect();
      return {text: a.textContent, left: r.left, right: r.right};
    }),
    label: {width: label.width, left: label.left, right: label.right},
    background: getComputedStyle(bar).backgroundColor,
  };
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_the_top_bar_fits_a_360_px_phone(
    web_server: ServerProc, browser: Browser, lang: str
) -> None:
    page = open_home(
        browser,
        web_server.http_url,
        lang=lang,
        width=360,
        height=740,
        is_mobile=True,
        has_touch=True,
    )
    go(page, "rules")
    page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    got = page.evaluate(_TOPBAR)
    assert got["page"] <= 360 and got["barScroll"] <= got["barClient"], got
    assert got["navScroll"] <= got["navClient"], got
    for tab in got["tabs"]:
        assert tab["left"] >= 0 and tab["right"] <= 360, tab
    # The four-colour deck's switch says what it is, on the screen.
    assert got["label"]["width"] > 10 and got["label"]["right"] <= 360, got["label"]
    # Opaque: the rules' light page never shows through it.
    assert got["background"].startswith("rgb("), got["background"]
    if lang == "de":
        assert [t["text"] for t in got["tabs"]][3] == "Tagesspiel"
    assert js_errors(page) == []


def test_a_reload_of_a_games_address_resumes_it_without_a_false_error(
    web_server: ServerProc, browser: Browser
) -> None:
    page = open_home(browser, web_server.http_url)
    play_code(page, CODE)
    page.wait_for_function("!!seahaven.game.me()?.legal")
    toasts: list[str] = []
    page.expose_function("toastSeen", lambda text: toasts.append(text))
    watch_toasts = """new MutationObserver(() => {
          const t = document.getElementById('toast');
          if (t && !t.hidden && t.textContent) window.toastSeen(t.textContent);
        }).observe(document, {subtree: true, childList: true, attributes: true});"""
    page.add_init_script(watch_toasts)  # the reloaded page's
    page.evaluate(watch_toasts)
    p = Player(page)
    p.top("col4").click()
    p.wait_moves(1)
    room = page.evaluate("seahaven.game.roomId")
    page.reload()
    wait_ready(page)
    page.wait_for_function("!!seahaven.game.myBoard()")
    page.wait_for_timeout(800)
    # The same game, resumed: its move is there, and nothing was refused.
    assert page.evaluate("seahaven.game.roomId") == room
    assert p.moves() == 1
    assert toasts == [], toasts
    assert js_errors(page) == []


def test_a_spectator_of_late_boards_reads_their_clock_late(
    web_server: ServerProc, browser: Browser
) -> None:
    base = web_server.http_url + "/"
    alice = open_home(browser, base, name="Alice")
    bob = open_home(browser, base, name="Bob")
    carol = open_home(browser, base, name="Carol")
    create_race(alice)
    alice.evaluate("seahaven.net.send('watch_mode', {mode: 'delayed', delay_s: 10})")
    alice.wait_for_function("seahaven.game.watch === 'delayed'")
    room = alice.evaluate("seahaven.game.roomId")
    join_race(bob, room)
    watch_room(carol, room)
    alice.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    carol.wait_for_function("seahaven.game.role === 'spectator'")
    alice.get_by_role("button", name="Start the race").click()
    # The boards come 10 s late; their clock then reads the time of the boards shown.
    carol.wait_for_function("seahaven.game.state === 'racing'", timeout=20_000)
    status = carol.locator(".mini .status").first
    # (Until the first late board is due the box says only "late by 10 s"; then the clock.)
    carol.wait_for_function(
        "/\\d:\\d\\d.*late by 10 s/"
        ".test(document.querySelector('.mini .status')?.textContent || '')",
        timeout=20_000,
    )
    shown = status.inner_text()
    clock = shown.split(" · ")[-1].split(" ")[0]
    minutes, seconds = clock.split(":")
    assert int(minutes) == 0 and float(seconds) < 3.0, shown
    for page in (alice, bob, carol):
        assert js_errors(page) == []


#: Records in ``window.retryWaits`` each wait the page's socket schedules before its next try.
RECORD_RETRIES = """() => {
  const net = seahaven.net;
  const schedule = net.scheduleReconnect.bind(net);
  window.retryWaits = [];
  net.scheduleReconnect = () => {
    const setTimer = window.setTimeout;
    window.setTimeout = (fn, ms) => { window.retryWaits.push(ms); return setTimer(fn, ms); };
    try { schedule(); } finally { window.setTimeout = setTimer; }
  };
}"""


def test_the_page_is_back_within_2_s_of_its_server(browser: Browser) -> None:
    first = start_server(redis_url(), args=SERVE_ARGS)
    port = first.port
    try:
        page = open_home(browser, first.http_url)
        go(page, "rules")
        # The waits the page schedules between two tries, as it schedules them (what it
        # promises, read from it rather than from a clock that a busy machine stretches).
        page.evaluate(RECORD_RETRIES)
        first.stop()
        page.wait_for_function("seahaven.net.state !== 'open'")
        # Down for a while: the page keeps trying, never more than 2 s apart.
        page.wait_for_timeout(9000)
        waits = page.evaluate("window.retryWaits")
        assert len(waits) >= 3 and max(waits) < 2000, waits
        second = start_server(redis_url(), args=SERVE_ARGS, port=port)
    except BaseException:
        first.stop()
        raise
    try:
        back = time.monotonic()
        page.wait_for_function("seahaven.net.state === 'open'", timeout=30_000, polling=20)
        print(f"reconnected {time.monotonic() - back:.2f} s after the server was back")
        assert js_errors(page) == []
    finally:
        second.stop()


#: Every line the page's live region is given, in order (screen readers read them).
RECORD_LIVE = """new MutationObserver((records) => {
  window.__said = window.__said || [];
  for (const r of records) for (const n of r.addedNodes) window.__said.push(n.textContent);
}).observe(document.getElementById('live') || document.documentElement, {childList: true});"""


def test_screen_readers_hear_the_race(web_server: ServerProc, browser: Browser) -> None:
    alice = open_home(browser, web_server.http_url, name="Alice")
    go(alice, "race")
    alice.evaluate(RECORD_LIVE)
    alice.get_by_role("button", name="Create a room").click()
    alice.wait_for_function("seahaven.game.state === 'lobby' && !!seahaven.game.roomId")
    room = alice.evaluate("seahaven.game.roomId")
    with connect(web_server.ws_url) as ws:
        bob = Racer(ws, "Bob")
        bob.send({"type": "join", "room": room, "role": "player"})
        alice.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
        alice.get_by_role("button", name="Start the race").click()
        started = bob.expect("started")
        line = list(solve(Board.from_code(started["code"]), timeout=20).moves)
        bob.play(line)  # Bob first
        alice.wait_for_function(
            "seahaven.game.players.get(seahaven.game.racers()"
            ".find(p => p.name === 'Bob').player_id).status === 'finished'"
        )
        send_line(alice, line)  # then Alice
        alice.wait_for_function("seahaven.game.state === 'done'")
        alice.wait_for_timeout(300)
    said: list[str] = alice.evaluate("window.__said")
    news = [s for s in said if "→" not in s]  # her own moves are read too
    won = [s for s in said if s.startswith("Finished #")]
    # One win announcement, with its time (never "–" before the server's time came).
    assert won == [
        f"Finished #2 in {won[0].split(' in ')[1].split(' with ')[0]} with {len(line)} moves!"
    ]
    assert "–" not in won[0]
    start = news.index("Go! The race is on.")
    assert news[start - 1].startswith("The race starts in "), news
    bob_done = next(i for i, s in enumerate(news) if s.startswith("Bob finished #1 in "))
    assert (
        start < bob_done < news.index(won[0]) < news.index("The race is over: you placed #2 of 2.")
    )
    assert js_errors(alice) == []


def test_a_first_visit_gets_the_introduction_once(web_server: ServerProc, browser: Browser) -> None:
    page = new_page(browser, intro=True, width=1366, height=768)
    page.goto(web_server.http_url + "/")
    wait_ready(page)
    intro = page.locator(".intro")
    intro.wait_for()
    page.wait_for_function("!!seahaven.game.me()?.legal")
    assert page.evaluate("seahaven.game.code") == "SH1-C4-AAAAABU"  # a real deal
    assert intro.locator("h2").inner_text() == "Welcome! Step 1 of 3"
    shoot(page, "intro")
    axe(page, "Play, the introduction")
    p = Player(page)
    p.drag("col2", "cell3")  # a card to a free cell
    page.wait_for_function("document.querySelector('.intro').dataset.step === '2'")
    p.drag("col6", "col1")  # the 5H and 6H onto the 7H: a group
    page.wait_for_function("document.querySelector('.intro').dataset.step === '3'")
    p.top("col5").click()  # the AH home
    page.wait_for_function("document.querySelector('.intro h2').textContent === 'You are ready!'")
    assert page.evaluate("localStorage.getItem('seahaven.intro')") == "done"
    # Remembered: the next visit deals a game of its own, without it.
    page.reload()
    wait_ready(page)
    page.wait_for_function("!!seahaven.game.myBoard()")
    go(page, "play")
    page.wait_for_timeout(300)
    assert page.locator(".intro").count() == 0
    # Skipped on another first visit: gone, and remembered too.
    other = new_page(browser, intro=True, lang="de")
    other.goto(web_server.http_url + "/")
    wait_ready(other)
    other.get_by_role("button", name="Einführung überspringen").click()
    assert other.locator(".intro").count() == 0
    assert other.evaluate("localStorage.getItem('seahaven.intro')") == "skipped"
    for pg in (page, other):
        assert js_errors(pg) == []
