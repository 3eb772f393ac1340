"""The returning daily player in a real browser (and a held result's card):

- newcomers count from their first day: a new player is on the public board marked "new"
  with the mark explained, their friends see them the same day (Friends tab), ranks have no
  gap, and a fresh identity whose finish would lead the day is held, never #1 unreviewed;
- "done for today": once the ranked attempt is over, the Daily page shows the result card
  (time, moves against par, rank, streak, share), the countdown to the next deal and
  practice as a named choice; a held result says "pending review" with its time where the
  board would otherwise say that nobody has finished;
- the statistics one tap away: the top bar and the win banner link to the player page;
- sharing that remembers: the grid of a daily win survives a reload, with its legend.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
import redis

from server.engine import Board
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.axe import axe as _axe
from tests.helpers.dailies import daily_deal, wait_daily
from tests.helpers.pages import (
    SCREENSHOTS,
    SERVE_ARGS,
    create_race,
    go,
    js_errors,
    needs_chromium,
    new_page,
    open_home,
    resize,
    send_line,
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

pytestmark = needs_chromium

#: Established by ranked dailies on 2 days (today's counted); never by rated races here.
BAR = ["--provisional-games", "1000", "--provisional-days", "2"]

#: The sizes the screenshots are taken at: a phone upright and on its side, a laptop,
#: a desktop.
SIZES = [("-phone", 390, 844), ("-landscape", 740, 360), ("", 1366, 768), ("-wide", 1920, 1080)]


def shoot_all(page: Page, name: str) -> None:
    """Screenshots at every size of :data:`SIZES`; the page gets its own size back."""
    size = page.viewport_size
    for suffix, width, height in SIZES:
        resize(page, width, height)
        page.screenshot(path=str(SCREENSHOTS / f"{name}{suffix}.png"))
    if size is not None:
        resize(page, size["width"], size["height"])


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[ServerProc, str]]:
    """A server with keys of its own, the pace review off (a line sent at once counts), and
    the strictest new-leader rule an operator may choose: a newcomer's finish that would
    lead the day is held whatever its evidence (the default holds only unusual evidence)."""
    prefix = f"webret-{secrets.token_hex(4)}:"
    env = {
        "SEAHAVEN_KEY_PREFIX": prefix,
        **REVIEW_OFF_ENV,
        "SEAHAVEN_EVIDENCE_NEW_LEADER_SUSPICION": "0",
    }
    try:
        with running_server(redis_url(), args=[*SERVE_ARGS, *BAR], env=env) as srv:
            wait_daily(srv)
            yield srv, prefix
    finally:
        drop_keys(prefix)


def play_daily(page: Page, line: list[str], gap_ms: int = 60) -> None:
    """Start today's deal from the Daily page and send the winning line, ``gap_ms`` apart
    (above the physical floor of 50 ms an action, under which a replay is refused)."""
    go(page, "daily")
    page.locator('.deal-tile [data-play="daily"]').first.click()
    page.wait_for_function("seahaven.game.mode === 'daily' && !!seahaven.game.myBoard()")
    send_line(page, line, gap_ms)
    page.wait_for_function("seahaven.game.me().status === 'finished'")


def test_newcomers_done_for_today_and_a_held_result(
    server: tuple[ServerProc, str], browser: Browser
) -> None:
    srv, prefix = server
    date = dt.datetime.now(dt.UTC).date().isoformat()
    line = list(solve(Board.from_code(daily_deal(date).code), timeout=20).moves)
    pages = {
        name: open_home(browser, srv.http_url, name=name, width=1366, height=768)
        for name in ("Quick", "Old", "Nora")
    }
    for page in pages.values():
        go(page, "daily")
    quick, old, nora = pages["Quick"], pages["Old"], pages["Nora"]

    # Old ranked a daily yesterday: with today's, 2 days, established.
    yesterday = dt.date.fromisoformat(date) - dt.timedelta(days=1)
    client = redis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        old_id = old.evaluate("seahaven.net.playerId")
        client.zadd(
            Keys(prefix).player_days(old_id), {yesterday.isoformat(): yesterday.toordinal()}
        )
    finally:
        client.close()

    # A fresh identity first on an empty board would lead the day: held, and its player
    # reads "pending review" with their time on the Daily page, not "nobody has finished".
    play_daily(quick, line)
    quick.locator('[data-daily="held"]').wait_for()
    quick.locator('.banner.won a[data-k="stats-link"]').wait_for()  # stats from the win
    go(quick, "daily")
    card = quick.locator('.done-card[data-kind="daily"]')
    card.wait_for()
    assert card.get_attribute("data-done") == "held"
    status = card.locator('[data-k="done-status"]').inner_text()
    assert re.search(r"Your \d+:\d\d\.\d is pending review", status), status
    held = quick.locator('.lb-body [data-k="held-note"]')
    held.wait_for()
    assert "pending review" in held.inner_text()
    assert "Nobody has finished" not in quick.locator(".lb-body").inner_text()
    assert "pending review" in quick.locator('[data-k="myrank"]').inner_text()

    # Old, established, ranks #1; Nora, new and slower, #2 at once, marked new.
    play_daily(old, line)
    old.locator('[data-daily="ranked"]').wait_for()
    play_daily(nora, line, gap_ms=100)
    nora.locator('[data-daily="ranked"]').wait_for()
    # Her win's share grid, and its legend; after a reload the grid is still there.
    grid = nora.locator(".banner.won .win-card").get_attribute("data-card")
    assert grid and "🟩" in grid
    assert "each square an eighth of your time" in nora.locator('[data-k="legend"]').inner_text()
    nora.reload()
    wait_ready(nora)
    nora.locator(".banner.won .win-card").wait_for()
    assert nora.locator(".banner.won .win-card").get_attribute("data-card") == grid

    # Nora's Daily page: done for today, her card, practice a named choice, the countdown.
    go(nora, "daily")
    mine = nora.locator('.done-card[data-kind="daily"]')
    mine.wait_for()
    assert mine.get_attribute("data-done") == "ranked"
    text = mine.inner_text()
    assert "Done for today" in text and "2 of 2" in text and "Next deal in" in text
    assert re.search(r"\d+:\d\d\.\d", text) and re.search(r"par \+\d+|at par", text), text
    assert mine.get_by_role("button", name="Share").count() == 1
    assert mine.get_by_role("button", name="Practice this deal (not ranked)").count() == 1
    assert (
        nora.locator('.deal-tile[data-kind="daily"] [data-play]:not([data-practice])').count() == 0
    )
    clock = mine.locator('[data-k="next-deal"]')
    first = clock.inner_text()
    nora.wait_for_function(
        "(t) => document.querySelector('[data-k=\"next-deal\"]').textContent !== t", arg=first
    )
    # The hard deal of the day is still to play: its tile still says Start.
    assert nora.locator('.deal-tile[data-kind="hard"]').get_by_role("button", name="Start").count()
    nora.wait_for_function("document.querySelector('table.lb tr.me') !== null")
    assert "new" in nora.locator("table.lb tr.me").inner_text()
    nora.wait_for_function(
        "document.querySelector('[data-k=\"myrank\"]').textContent.includes('you are new here')"
    )
    shoot_all(nora, "daily-done")
    # The share button copies the line and the grid kept from the win.
    nora.context.grant_permissions(["clipboard-read", "clipboard-write"])
    mine.get_by_role("button", name="Share").click()
    nora.wait_for_function("navigator.clipboard.readText().then(t => t.includes('🟩'))")
    shared = nora.evaluate("navigator.clipboard.readText()")
    assert (
        "#2 of 2" in shared and f"#/daily/{date}" in shared and daily_deal(date).code not in shared
    )

    # Old's public board lists Nora, marked new, the mark explained; ranks with no gap.
    go(old, "daily")
    old.wait_for_function(
        "document.querySelectorAll('.lb-body table.lb tbody tr').length === 2", timeout=10_000
    )
    ranks = old.locator(".lb-body table.lb tbody tr td:first-child").all_inner_texts()
    assert [r.strip() for r in ranks] == ["1", "2"]
    row = old.locator(".lb-body table.lb tbody tr").nth(1)
    assert "Nora" in row.inner_text() and row.locator('[data-k="new"]').count() == 1
    assert "first days" in old.locator('[data-k="new-note"]').inner_text()
    # Old follows Nora: his Friends tab shows her the same day.
    row.locator("[data-follow]").first.click()
    old.locator('label:has(input[name="scope"][value="friends"])').click()
    old.wait_for_function(
        "document.querySelector('.lb-body')?.textContent.includes('Nora')", timeout=10_000
    )
    assert "Old" in old.locator(".lb-body").inner_text()
    _axe(old, "Daily board with a newcomer marked new")
    _axe(nora, "Daily page done for today")

    # The statistics one tap away: the top bar's link, on any page.
    go(old, "race")
    old.locator('.topbar a[href="#/player"]').click()  # the top bar's Profile tab
    old.wait_for_function("location.hash === '#/player'")
    for page in pages.values():
        assert js_errors(page) == []


def test_a_solo_share_links_to_its_deal_and_a_game_given_up_has_no_time(
    web_server: ServerProc, browser: Browser
) -> None:
    page = open_home(browser, web_server.http_url, name="Sol", width=1366, height=768)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.locator('[data-act="new"]').click()
    page.wait_for_function("!!seahaven.game.me()?.legal")
    code = page.evaluate("seahaven.game.code")
    send_line(page, list(solve(Board.from_code(code), timeout=20).moves))
    page.locator('.banner.won [data-win="share"]').click()
    page.wait_for_function("navigator.clipboard.readText().then(t => t.includes('#/play/'))")
    shared = page.evaluate("navigator.clipboard.readText()")
    assert shared.rstrip().endswith(f"#/play/{code}"), shared
    assert "each square an eighth of your time" in page.locator('[data-k="legend"]').inner_text()
    # A game given up: its clock says "–", not a stopped 0:00.0.
    page.locator('.banner.won [data-win="next"]').click()
    page.wait_for_function(f"seahaven.game.code && seahaven.game.code !== '{code}'")
    page.wait_for_function("!!seahaven.game.me()?.legal")
    page.on("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Give up").click()
    page.wait_for_function("seahaven.game.me()?.status === 'gave_up'")
    page.wait_for_function("document.querySelector('[data-k=\"time\"]').textContent === '–'")
    assert js_errors(page) == []


def test_an_invite_names_the_host_the_level_and_who_is_in(
    web_server: ServerProc, browser: Browser
) -> None:
    alice = open_home(browser, web_server.http_url, name="Alice")
    room = create_race(alice, 2)
    invite = alice.locator(".invite input")
    invite.wait_for()
    link = invite.input_value()
    # Someone new follows the link: the page says who invites, to what, and who is in.
    guest = new_page(browser, width=1366, height=768)  # no name chosen: the invite's page
    guest.goto(link)  # link: Alice's invite
    card = guest.locator('[data-k="invite"]')
    card.wait_for()
    guest.wait_for_function(
        "document.querySelector('[data-k=\"invite\"] h2').textContent.includes('Alice')"
    )
    assert card.locator("h2").inner_text() == "Alice invites you to a race"
    terms = card.locator('[data-k="terms"]').inner_text()
    assert "Medium · 2 cells" in terms and "In the room: Alice" in terms
    assert "Unrated race" in terms  # an invite room is unrated until its host says so
    status, body = web_server.get_json(f"/api/room/{room}/invite")
    assert status == 200 and "code" not in body and body["host"] == "Alice"
    _axe(guest, "An invite's page")
    shoot_all(guest, "invite")
    # Decline: back to Play, not in the room.
    card.get_by_role("link", name="Decline").click()
    guest.wait_for_function("location.hash === '#/play'")
    assert guest.evaluate("seahaven.game.roomId") != room
    # Accept: with a name, into the lobby.
    guest.goto(link)  # link: Alice's invite, followed again
    card.wait_for()
    guest.get_by_label("Your name").fill("Gus")
    guest.get_by_role("button", name="Accept").click()
    alice.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    assert "Gus" in alice.locator(".players").inner_text()
    # A room that is gone says so.
    gone = new_page(browser)
    gone.goto(web_server.http_url + "/?room=ZZZZZZZZ")  # link: an old invite
    gone.locator('[data-k="invite"]').wait_for()
    gone.wait_for_function(
        "document.querySelector('[data-k=\"why\"]')?.textContent.includes('room is gone')"
    )
    for page in (alice, guest, gone):
        assert js_errors(page) == []
