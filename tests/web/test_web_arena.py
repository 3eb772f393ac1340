"""An arena in a real browser against a real server and Redis: the arena list, a private
arena made from the page, its lobby counting down to the start, a second page joining by
the arena's link, the race both are paired into (the race view), back in the pool with the
standings beside it, the Watch page's entry, and the podium at the end; a scheduled arena
found on the Watch page, its top race watched and its standings opened; screenshots at
1366x768 and 390x844. Each page opens ``/`` in a fresh context (a solo game dealt) and
clicks its way on; a friend reaches the private arena by the invite link its page shows."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from server.engine import Board
from server.engine.solver import solve
from tests.helpers.arena_pages import invite_link, join_by_link, make_arena, to_arenas
from tests.helpers.pages import (
    arena_server,
    go,
    js_errors,
    needs_chromium,
    new_page,
    open_home,
    send_line,
    shoot,
)
from tests.helpers.serverproc import ServerProc
from tests.helpers.waits import until_sync

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    with arena_server("webarena") as srv:
        yield srv


def test_two_pages_play_an_arena_to_its_podium(server: ServerProc, browser: Browser) -> None:
    ann = open_home(browser, server.http_url, name="Ann", width=1366, height=768)
    # The list, reached from the Race page; none running here (no schedule).
    to_arenas(ann)
    ann.locator(".arena-rows p").wait_for()
    assert "No arena" in ann.locator(".arena-rows").inner_text()
    assert ann.get_by_role("button", name="Make the arena").is_visible()
    shoot(ann, "arena-list")
    # A private arena of 45 "minutes" (seconds here) starting in 10 s; the page goes to its
    # lobby, which counts down. It must outlast the race, the pool and the Profile below:
    # a busy machine took over 25 s for them, and an arena of 25 had ended by the Profile.
    arena = make_arena(ann, 45, 10)
    clock = ann.locator(".arena-clock")
    clock.wait_for()
    ann.wait_for_function(
        "document.querySelector('.arena-clock').textContent.startsWith('Starts in 0:0')"
    )
    assert f"/#/arena/{arena}" in ann.locator(".arena-invite").inner_text()
    ann.locator('[name="pledge"]').check()  # no take-backs in every race
    shoot(ann, "arena-lobby")
    # Ben opens the link Ann's page shows, and joins.
    ben = new_page(browser, name="Ben", width=1366, height=768)
    join_by_link(ben, invite_link(ann))
    assert ben.get_by_role("button", name="Leave the arena").is_visible()
    assert ben.locator(".arena-seat").inner_text().startswith("You are in.")
    # The start: both are paired into one race, shown in the race view.
    for page in (ann, ben):
        page.wait_for_function("location.hash.startsWith('#/race/')", timeout=20_000)
        page.wait_for_function("seahaven.game.state === 'racing'", timeout=15_000)
    room = ann.evaluate("seahaven.game.roomId")
    assert ben.evaluate("seahaven.game.roomId") == room
    assert ann.evaluate("seahaven.game.paired && seahaven.game.rated")
    code = ann.evaluate("seahaven.game.code")
    send_line(ann, list(solve(Board.from_code(code), timeout=20).moves))
    # Ben leaves the arena (his race counts), then gives up: Ann waits alone in the pool.
    ben.evaluate("seahaven.arena.leave()")
    ben.wait_for_function("!seahaven.arena.joined")
    ben.evaluate("seahaven.net.send('give_up')")
    # Back in the pool, on the arena's page, with the standings: Ann won with her pledge
    # kept (2 + 1 between two).
    ann.wait_for_function(f"location.hash === '#/arena/{arena}'", timeout=15_000)
    ann.wait_for_function(
        "document.querySelector('.arena-table tbody tr td:nth-child(3)')?.textContent === '3'",
        timeout=10_000,
    )
    first = ann.locator(".arena-table tbody tr").first.inner_text()
    assert "Ann" in first
    assert "pool" in ann.locator(".arena-seat").inner_text()
    shoot(ann, "arena-pool")
    # A private arena is on no list: the Watch page shows no arena here.
    watcher = open_home(browser, server.http_url, name="Cy", width=1366, height=768)
    go(watcher, "watch")
    # Once the page has read the running arenas (it draws them as it reads them).
    watcher.wait_for_function("seahaven.current.arenas?.arenas != null")
    assert watcher.locator(".arenas-now").is_hidden()
    # Ann's page (her Profile, in the top bar) says she is in an arena, with a link to it,
    # which leads her back there.
    go(ann, "player")
    link = ann.locator(".profile-arena a")
    link.wait_for()
    assert link.get_attribute("href") == f"#/arena/{arena}"
    link.click()
    ann.wait_for_function(f"location.hash === '#/arena/{arena}'")
    # The end: the podium.
    podium = ann.locator(".arena-podium")
    podium.wait_for(state="visible", timeout=60_000)
    assert "Ann" in podium.locator("li").first.inner_text()
    assert ann.get_by_role("button", name="Join").is_hidden()
    assert "over" in ann.locator(".arena-seat").inner_text()
    assert ann.get_by_role("link", name="Back to my race").is_hidden()
    shoot(ann, "arena-podium")
    for page in (ann, ben, watcher):
        assert js_errors(page) == []


def test_the_watch_page_shows_a_running_arena_its_top_race_and_its_standings(
    browser: Browser,
) -> None:
    # A scheduled arena always running (600 minutes, one every 600): two pages join it from
    # its list and are paired; a third finds it on the Watch page, opens its top race as a
    # spectator, sees its standings there once the race ends, then opens the arena's own page.
    # Its slots are ten hours of the clock since the epoch: a run in the last two minutes of
    # one waits for the next (with minutes of a second, a run in the last seconds of a slot
    # of ten minutes saw its arena end under it).
    slot_s = 600 * 60
    left = slot_s - time.time() % slot_s
    if left < 120:
        time.sleep(left + 1)
    args = ["--arenas", "4:600:600", "--arena-minute-ms", "60000", "--arena-pair-ms", "500"]
    with arena_server("webarena", args) as srv:
        # The server makes the schedule's arena at its first arena pass, a moment after
        # it answers, and a page reads the list once per visit: wait for the arena.
        until_sync(
            lambda: srv.get_json("/api/arenas")[1].get("running"),
            what="the scheduled arena running",
        )
        racers = [
            open_home(browser, srv.http_url, name=n, width=1366, height=768) for n in ("Ann", "Ben")
        ]
        for page in racers:
            to_arenas(page)
            row = page.locator(".arena-rows a").first
            row.wait_for(timeout=10_000)
            row.click()
            page.wait_for_function("location.hash.startsWith('#/arena/S4-600-')")
            page.get_by_role("button", name="Join").click()
            page.wait_for_function("seahaven.arena.joined")
        for page in racers:
            page.wait_for_function("seahaven.game.state === 'racing'", timeout=20_000)
        room = racers[0].evaluate("seahaven.game.roomId")
        arena = racers[0].evaluate("seahaven.arena.id")
        watcher = open_home(browser, srv.http_url, name="Cy", width=1366, height=768)
        go(watcher, "watch")
        entry = watcher.locator(".arenas-now")
        entry.wait_for(state="visible", timeout=10_000)
        assert "2 players" in entry.inner_text()
        shoot(watcher, "watch-arena")
        top = entry.get_by_role("link", name="watch the top race")
        assert top.get_attribute("href") == f"#/watch/{room}"
        top.click()
        watcher.wait_for_function(
            f"seahaven.game.role === 'spectator' && seahaven.game.roomId === '{room}'"
        )
        # Their race ends (both give up): the Watch page's table shows them, read again
        # while it is open, with no reload.
        # Back to the list: the top bar's Watch.
        watcher.locator('.modes a[data-view="watch"]').click()
        watcher.wait_for_function("location.hash === '#/watch'")
        entry.wait_for(state="visible", timeout=10_000)
        assert "No race has finished yet." in entry.inner_text()
        for page in racers:
            page.evaluate("seahaven.net.send('give_up')")
        watcher.wait_for_function(
            "[...document.querySelectorAll('.arenas-now .arena-table tbody td')]"
            ".map((x) => x.textContent).join(' ').includes('Ann')",
            timeout=15_000,
        )
        table = entry.locator(".arena-table tbody").inner_text()
        assert "Ann" in table and "Ben" in table
        shoot(watcher, "watch-arena-standings")
        entry.locator(f'a[href="#/arena/{arena}"]').click()
        watcher.locator(".arena-table").wait_for(timeout=10_000)
        names = watcher.locator(".arena-table tbody").inner_text()
        assert "Ann" in names and "Ben" in names
        for page in (*racers, watcher):
            assert js_errors(page) == []
