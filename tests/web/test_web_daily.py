"""The daily page in a real browser: today's deals behind Start (the clock starts when the
board opens), playing one to a win, the leaderboard with the player's own rank (updated live
on another page), the replay viewer, and a too-fast game shown unranked with its reason."""

from __future__ import annotations

import datetime as dt
import re
import secrets
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from server.engine import Board, parse_action
from server.engine.solver import solve
from tests.helpers.axe import axe
from tests.helpers.dailies import daily_deal, plant, wait_daily
from tests.helpers.pages import (
    DAILY_ARGS,
    SCREENSHOTS,
    Player,
    go,
    js_errors,
    needs_chromium,
    open_home,
    send_line,
    shoot,
    wait_ready,
)
from tests.helpers.serverproc import (
    REVIEW_OFF_ENV,
    ServerProc,
    drop_keys,
    redis_url,
    running_server,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium  # the browser marker comes from what a test uses (tests/conftest.py)


#: The review off: the browser plays the solver's line as fast as a test can click.
NO_PACE = REVIEW_OFF_ENV


def yesterday() -> str:
    return (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()


@pytest.fixture(scope="module")
def daily_server() -> Iterator[ServerProc]:
    """A server whose leaderboards and replays live under a key prefix of their own; it
    certifies today's deals itself, and yesterday's is stored as if it had."""
    prefix = f"webtest-{secrets.token_hex(4)}:"
    plant(prefix, yesterday())
    env = {"SEAHAVEN_KEY_PREFIX": prefix, **NO_PACE}
    with running_server(redis_url(), args=DAILY_ARGS, env=env) as srv:
        wait_daily(srv)
        yield srv
    drop_keys(prefix)


@pytest.fixture(scope="module")
def paced_server() -> Iterator[ServerProc]:
    """The same with the default review: a scripted game is held for review."""
    prefix = f"webtest-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix}
    with running_server(redis_url(), args=DAILY_ARGS, env=env) as srv:
        wait_daily(srv)
        yield srv
    drop_keys(prefix)


def _get(url: str, token: str | None = None) -> Any:
    import json

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as res:
        return json.load(res)


def test_daily_win_leaderboard_and_replay(daily_server: ServerProc, browser: Browser) -> None:
    base = daily_server.http_url + "/"
    today = _get(daily_server.http_url + "/api/daily")
    alice = open_home(browser, base, name="Alice")
    bob = open_home(browser, base, name="Bob")
    for page in (alice, bob):
        go(page, "daily")
        page.locator(".deal-tile").first.wait_for()
    tiles = alice.locator(".deal-tile")
    assert tiles.count() == 2
    # While the day runs the deals are hidden: Start reveals one and starts its clock.
    code = daily_deal(today["date"]).code
    assert "code" not in today and code not in alice.locator(".deals").inner_text()
    assert f"Par: {today['par']} moves" in tiles.nth(0).inner_text()
    notes = alice.locator(".daily-notes").inner_text()
    assert "your clock starts then" in notes and "first game of the day" in notes
    # The board says it is loading until the server answers, then that nobody has finished.
    bob.wait_for_function(
        "document.querySelector('.lb-body').innerText.includes('Nobody has finished')"
    )
    shoot(alice, "daily-start")

    # Alice starts today's deal from the daily page and plays it to a win, card by card by
    # drag. (Not by double click: two clicks are a double click only within 280 ms of each
    # other, and a machine busy enough can deliver them further apart, as two single
    # clicks that move nothing; the double click has tests of its own in test_web_input.)
    tiles.nth(0).get_by_role("button", name="Start").click()
    alice.wait_for_function(
        f"seahaven.game.mode === 'daily' && seahaven.game.code === '{code}'"
        " && !!seahaven.game.myBoard()"
    )
    assert alice.url.endswith("#/play")
    banner = alice.locator('[data-daily="ranked-attempt"]')
    assert "the clock started when the board opened" in banner.inner_text()
    # Today's code is shown, but not offered to copy: it is played in the daily alone.
    assert alice.locator('.codebar [data-k="code"]').inner_text() == code
    assert alice.locator('.codebar [data-act="copy"]').is_hidden()
    shoot(alice, "daily-ranked-no-copy")
    # The clock runs from the reveal, before any move.
    alice.wait_for_function("seahaven.game.elapsed(seahaven.game.you) > 0")
    start = Board.from_code(code)
    line = solve(start, timeout=20).moves
    assert line
    board = start.copy()
    p = Player(alice)
    for text in line:
        p.play(board, text, prefer_double=False)
    alice.wait_for_function("seahaven.game.me().status === 'finished'")
    alice.wait_for_function("document.querySelector('[data-daily=\"ranked\"]') !== null")
    assert alice.locator(".banner.won").count() == 2  # solved, and ranked
    assert "Ranked #1 on the leaderboard!" in alice.locator('[data-daily="ranked"]').inner_text()

    # Bob's page, watching the leaderboard, shows Alice's finish without a reload.
    bob.wait_for_function(
        "document.querySelector('.lb-body table.lb tbody')?.textContent.includes('Alice')",
        timeout=10_000,
    )
    # While the day runs nobody's replay is listed, not even hers.
    assert bob.locator('.lb-body a[href^="#/replay/"]').count() == 0
    assert "Replays are shown when the day is over." in bob.locator(".lb-body").inner_text()
    # Every column of the leaderboard has its header (axe: no empty th, no violation).
    assert "" not in [h.strip() for h in bob.locator("table.lb th").all_inner_texts()]
    axe(bob, "Daily leaderboard with a finisher")
    # Alice's daily page ranks her first and marks her row.
    alice.locator('[data-daily="ranked"] a', has_text="Daily").click()
    alice.wait_for_function("document.querySelector('table.lb tr.me') !== null", timeout=10_000)
    assert "Alice" in alice.locator("table.lb tr.me").inner_text()
    # Her ranked attempt is over: its tile is her result card, practice a named choice.
    card = alice.locator('.done-card[data-kind="daily"]')
    card.wait_for()
    assert card.get_by_role("button", name="Practice this deal (not ranked)").count() == 1
    # (the rank comes with the first answer, the streak with the one centred on Alice)
    alice.wait_for_function(
        "document.querySelector('[data-k=\"myrank\"]').textContent"
        " === 'Your rank: 1 of 1 · daily streak: 1'"
    )
    alice.screenshot(path=str(SCREENSHOTS / "daily.png"), full_page=True)

    # Her own replay is hers to see at once (the page shows her token); the viewer steps
    # through the server's deltas: every step matches the engine.
    alice.go_back()
    alice.wait_for_function("location.hash === '#/play'")
    # A reload rebuilds the game from a snapshot alone: the won board, its time and moves,
    # ranked, with the replay.
    alice.reload()
    wait_ready(alice)
    alice.locator('[data-daily="ranked"] a', has_text="Replay").wait_for()
    alice.wait_for_function(
        "seahaven.game.me()?.status === 'finished' && seahaven.game.me().foundation_cards === 52"
    )
    assert f"with {len(line)} moves" in alice.locator(".banner.won").nth(1).inner_text()
    shoot(alice, "daily-reloaded")
    alice.locator('[data-daily="ranked"]').get_by_role("link", name="Replay").click()
    alice.wait_for_function("document.querySelector('[data-board=\"replay\"] .pile') !== null")
    steps = int(alice.locator('[data-act="seek"]').get_attribute("max") or 0)
    assert steps == len(line)
    replay_board = Board.from_code(code)
    checks = {0, 1, len(line) // 2, len(line)}
    for k in range(len(line) + 1):
        if k:
            replay_board.play(parse_action(line[k - 1]))
        if k in checks:
            alice.locator('[data-act="seek"]').fill(str(k))
            alice.wait_for_function(
                f"document.querySelector('[data-k=\"step\"]').textContent === '{k}/{steps}'"
            )
            shown = _replay_board(alice)
            want = replay_board.to_json()
            assert shown["columns"] == want["columns"], k
            assert shown["cells"] == want["cells"], k
    alice.locator('[data-act="seek"]').fill(str(len(line) // 2))
    alice.screenshot(path=str(SCREENSHOTS / "replay.png"))
    alice.locator('[data-act="first"]').click()
    alice.locator('[data-act="next"]').click()
    assert alice.locator('[data-k="step"]').inner_text() == f"1/{steps}"
    # The viewer names each step as the server recorded it (a drop on a foundation is
    # recorded with the foundation's suit).
    replay_id = alice.url.rsplit("/", 1)[1]
    token = alice.evaluate("seahaven.net.token")
    record = _get(daily_server.http_url + f"/api/replay/{replay_id}", token)
    assert record["actions"][0].startswith(line[0])
    assert alice.locator('[data-k="action"]').inner_text() == f"1. {record['actions'][0]}"
    # Past days: the date picker shows another day's deals and its (empty) leaderboards.
    day = (dt.date.fromisoformat(today["date"]) - dt.timedelta(days=1)).isoformat()
    past = _get(daily_server.http_url + f"/api/daily/{day}")
    # The days are named in the page's language (en: British English), newest first.
    picker = bob.locator('select[name="date"]')
    pick = dt.date.fromisoformat(day)
    assert picker.locator("option").nth(1).inner_text() == pick.strftime(f"%a, {pick.day} %B %Y")
    picker.select_option(day)
    bob.get_by_role("button", name="Show").click()
    bob.wait_for_function(
        "(c) => document.querySelector('.deal-tile')?.textContent.includes(c)", arg=past["code"]
    )
    title = f"Challenge of {pick.day} {pick.strftime('%B %Y')}"
    assert bob.locator('[data-k="title"]').inner_text() == title
    bob.locator('label:has(input[value="hard"])').click()
    bob.wait_for_function("location.hash.endsWith('/hard')")
    bob.wait_for_function("document.querySelector('.lb-body')?.textContent.includes('Nobody')")
    for page in (alice, bob):
        assert js_errors(page) == []
    # Nothing dealt by looking: Bob is still in the game alone his first visit dealt.
    assert bob.evaluate("[seahaven.game.mode, seahaven.game.code !== null]") == ["solo", True]
    assert bob.evaluate("seahaven.game.code") != past["code"]
    # A past day's deal is an ordinary deal: its code may be copied.
    bob.locator('.deal-tile [data-play="daily"]').click()
    bob.wait_for_function(
        "(c) => seahaven.game.mode === 'daily' && seahaven.game.code === c", arg=past["code"]
    )
    assert bob.locator('.codebar [data-act="copy"]').is_visible()


def _replay_board(page: Page) -> dict[str, Any]:
    data: dict[str, Any] = page.evaluate(
        """(() => {
          const el = document.querySelector('[data-board="replay"]');
          const pile = (loc) => [...el.querySelectorAll(`.pile[data-loc="${loc}"] .card`)]
            .map(c => c.dataset.card);
          const cells = [...el.querySelectorAll('.pile.cell')].map(p => {
            const c = p.querySelector('.card'); return c ? c.dataset.card : null; });
          return {columns: [...Array(10).keys()].map(i => pile('col' + (i + 1))), cells};
        })()"""
    )
    return data


def test_the_daily_tiles_stay_put_while_the_game_behind_them_talks(
    daily_server: ServerProc, browser: Browser
) -> None:
    # The page's own game (the one / dealt) keeps sending messages while the daily page is
    # shown; a tile drawn again between a press of Start and its release would lose the
    # click. Unchanged, the tiles are not drawn again.
    page = open_home(browser, daily_server.http_url + "/", name="Tia")
    go(page, "daily")
    page.locator(".deal-tile").first.wait_for()
    page.wait_for_function("!document.querySelector('.daily [data-i18n=\"msg.loading\"]')")
    page.evaluate("window.start = document.querySelector('.deal-tile [data-play]')")
    page.evaluate(
        "window.snaps = 0; void seahaven.net.on('snapshot', () => { window.snaps += 1; });"
        " seahaven.net.resync()"
    )
    page.wait_for_function("window.snaps > 0")
    assert page.evaluate("document.querySelector('.deal-tile [data-play]') === window.start")
    # A change does draw them again: another language.
    page.select_option("#lang", "de")
    page.wait_for_function("document.querySelector('.deal-tile [data-play]') !== window.start")
    page.select_option("#lang", "en")
    page.locator(".deal-tile").first.get_by_role("button", name="Start").click()
    page.wait_for_function("seahaven.game.mode === 'daily' && !!seahaven.game.myBoard()")
    assert js_errors(page) == []


def test_a_too_fast_daily_is_held_for_review_as_its_player_sees_it(
    paced_server: ServerProc, browser: Any
) -> None:
    """A script driving the page sends the solver's line at a machine's pace, just above the
    physical floor of 50 ms an action (faster, the replay is refused as impossible): the game
    is played and kept, held for review; the page shows the time and "pending review", in
    the player's language, and the leaderboard does not show it."""
    page = open_home(browser, paced_server.http_url, name="Quick")
    go(page, "daily")
    page.locator(".deal-tile").first.get_by_role("button", name="Start").click()
    page.wait_for_function("seahaven.game.mode === 'daily' && !!seahaven.game.myBoard()")
    code = page.evaluate("seahaven.game.code")
    line = solve(Board.from_code(code), timeout=20).moves
    send_line(page, list(line), gap_ms=80)
    page.wait_for_function(
        "document.querySelector('[data-daily=\"held\"]') !== null", timeout=60_000
    )
    banner = page.locator('[data-daily="held"]')
    text = banner.inner_text()
    assert "pending review" in text and re.search(r"Your time \d+:\d\d", text), text
    assert page.locator(".banner.won").count() == 1  # solved all the same
    shoot(page, "daily-held")
    # The page in Danish says it in Danish.
    page.select_option("#lang", "da")
    page.wait_for_function(
        "document.querySelector('[data-daily=\"held\"]').textContent.includes('afventer')"
    )
    date = page.evaluate("seahaven.game.daily.date")
    board = _get(paced_server.http_url + f"/api/daily/{date}/leaderboard")
    assert board["finishers"] == 0
    assert js_errors(page) == []


def test_a_server_without_a_daily_secret_says_the_daily_is_unavailable(browser: Any) -> None:
    prefix = f"webtest-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_DAILY_SECRET": ""}
    with running_server(redis_url(), args=DAILY_ARGS, env=env) as srv:
        page = open_home(browser, srv.http_url, name="Ann")
        go(page, "daily")
        page.locator(".deals .banner").wait_for()
        text = page.locator(".deals").inner_text()
        assert "The daily challenge is not available on this server." in text
        assert page.locator(".deal-tile").count() == 0
        shoot(page, "daily-unavailable")
    drop_keys(prefix)
