"""Arenas worth following in a real browser (players come back): the arena's clock in its
race, no word of a rematch in an arena ("Next game" asks without one), standings numbering
only players who raced, start times hours away as clock times in the player's language,
and a podium that fills a big screen (screenshots). Each page opens ``/`` in a fresh context
and clicks its way on; a private arena is reached by the invite link its maker's page
shows."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from server.engine import Board
from server.engine.solver import solve
from tests.helpers.arena_pages import (
    invite_link,
    join_by_link,
    make_arena,
    open_invite,
    to_arenas,
)
from tests.helpers.pages import (
    SCREENSHOTS,
    arena_server,
    go,
    js_errors,
    needs_chromium,
    new_page,
    open_home,
    resize,
    send_line,
    until_page,
)
from tests.helpers.serverproc import ServerProc

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Dialog

pytestmark = needs_chromium

SIZES = [("-phone", 390, 844), ("-landscape", 740, 360), ("", 1366, 768), ("-wide", 1920, 1080)]


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[ServerProc]:
    with arena_server("webaret", getattr(request, "param", None)) as srv:
        yield srv


def test_an_arena_race_keeps_the_arenas_clock_and_leads_back_to_it(
    server: ServerProc, browser: Browser
) -> None:
    ann = open_home(browser, server.http_url, name="Ann", width=1366, height=768)
    to_arenas(ann)
    arena = make_arena(ann, 60, 5)  # outlasting the steps before its podium, on a busy machine
    invite = invite_link(ann)
    ben = new_page(browser, name="Ben", width=1366, height=768)
    join_by_link(ben, invite)
    for page in (ann, ben):
        page.wait_for_function("seahaven.game.state === 'racing'", timeout=20_000)
    # Cy looks at the arena while its first race runs: Ann and Ben are in it, yet neither
    # has raced, so no place is numbered. (The arena is private: Cy has its invite link.)
    cy = new_page(browser, name="Cy", width=1366, height=768)
    open_invite(cy, invite)
    cy.locator(".arena-lines").wait_for()
    cy.wait_for_function("!!seahaven.arena.standings")
    assert cy.locator(".arena-table").count() == 0
    assert "No race has finished yet." in cy.locator(".arena-lines").inner_text()
    # The arena's page shows its leading race live: its racers' progress, and the way to
    # its boards on Watch.
    room = ann.evaluate("seahaven.game.roomId")
    leading = cy.locator('[data-k="arena-live"]')
    leading.wait_for(timeout=10_000)
    # Drawn at once with "Loading…"; the racers' lines follow the race's first snapshot.
    until_page(
        cy,
        lambda: "Ann" in leading.inner_text() and "Ben" in leading.inner_text(),
        what="the leading race's racers on the arena's page",
    )
    assert leading.locator("a.live-room").get_attribute("href") == f"#/watch/{room}"
    cy.locator('[data-k="arena-live"] .mini .board .card').first.wait_for(timeout=10_000)
    for suffix, width, height in SIZES:
        resize(cy, width, height)
        cy.screenshot(path=str(SCREENSHOTS / f"arena-live{suffix}.png"))
    resize(cy, 1366, 768)
    # On Watch, the race is named by its arena, not as a bare room.
    go(cy, "watch")
    listed = cy.locator(f'.live-room[data-room="{room}"]')
    listed.wait_for(timeout=10_000)
    assert listed.locator(".live-head b").inner_text() == "Arena race: Easy · 4 cells · 60 min"
    # The arena's clock is in the race.
    chip = ann.locator('[data-k="arena-clock"]')
    chip.wait_for()
    ann.wait_for_function(
        "/^Arena: \\d+:\\d\\d left$/.test(document.querySelector('[data-k=\"arena-clock\"]')"
        ".textContent)"
    )
    assert chip.get_attribute("href") == f"#/arena/{arena}"
    # Ann wins while Ben races on: "Next game" asks without a word of a rematch, and leads
    # back to the arena.
    code = ann.evaluate("seahaven.game.code")
    send_line(ann, list(solve(Board.from_code(code), timeout=20).moves))
    ann.locator('.banner.won [data-win="next"]').wait_for()
    asked: list[str] = []

    def answer(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    ann.once("dialog", answer)
    ann.locator('.banner.won [data-win="next"]').click()
    ann.wait_for_function("true")
    assert asked and "rematch" not in asked[0] and "results" in asked[0], asked
    ben.evaluate("seahaven.arena.leave()")  # his race counts; Ann waits alone after it
    ben.wait_for_function("!seahaven.arena.joined")
    ben.evaluate("seahaven.net.send('give_up')")
    # The race over: back on the arena's page, in the pool.
    ann.wait_for_function(f"location.hash === '#/arena/{arena}'", timeout=15_000)
    # The standings number the players who raced: Ann and Ben.
    ann.wait_for_function(
        "document.querySelectorAll('.arena-table tbody tr').length === 2", timeout=10_000
    )
    table = ann.locator(".arena-table tbody").inner_text()
    assert "Ann" in table and "Ben" in table and "Cy" not in table
    # The podium at the end, on every size up to a big screen.
    ann.locator(".arena-podium").wait_for(state="visible", timeout=90_000)
    size = ann.viewport_size
    for suffix, width, height in SIZES:
        resize(ann, width, height)
        ann.screenshot(path=str(SCREENSHOTS / f"arena-podium-returning{suffix}.png"))
    assert size is not None
    resize(ann, size["width"], size["height"])
    for page in (ann, ben, cy):
        assert js_errors(page) == []


#: A scheduled arena once a day (at 00:00 UTC): usually hours away.
DAILY_ARENA = ["--arenas", "4:30:1440"]


@pytest.mark.parametrize("server", [DAILY_ARENA], indirect=True)
def test_a_start_hours_away_reads_as_a_clock_time(server: ServerProc, browser: Browser) -> None:
    page = open_home(browser, server.http_url, lang="de", width=1366, height=768)
    to_arenas(page)
    when = page.locator(".arena-when").first
    when.wait_for()
    status, body = server.get_json("/api/arenas")
    assert status == 200
    upcoming = body["next"][0]
    left_ms = upcoming["starts_at"] - page.evaluate("Date.now()")
    page.wait_for_function("document.querySelector('.arena-when').textContent !== ''")
    text = when.inner_text()
    if left_ms > 3_700_000:  # hours away: a clock time in German
        assert re.fullmatch(r"Beginnt um (\w+\.?,? )?\d\d:\d\d", text), text
    else:  # within the hour: the countdown
        assert text.startswith("Beginnt in"), text
    assert js_errors(page) == []


def test_an_arena_race_held_for_review_is_marked_on_its_players_line(browser: Browser) -> None:
    # The review on: a solver's line sent at a machine's pace is held (no person's).
    with arena_server("webaheld", review=True) as srv:
        ann = open_home(browser, srv.http_url, name="Ann", width=1366, height=768)
        to_arenas(ann)
        arena = make_arena(ann, 180, 5)  # running while the review holds the race
        invite = invite_link(ann)
        ben = new_page(browser, name="Ben", width=1366, height=768)
        join_by_link(ben, invite)
        for page in (ann, ben):
            page.wait_for_function("seahaven.game.state === 'racing'", timeout=20_000)
        code = ann.evaluate("seahaven.game.code")
        send_line(ann, list(solve(Board.from_code(code), timeout=20).moves), gap_ms=60)
        ben.evaluate("seahaven.arena.leave()")
        ben.wait_for_function("!seahaven.arena.joined")
        ben.evaluate("seahaven.net.send('give_up')")
        ann.wait_for_function(f"location.hash === '#/arena/{arena}'", timeout=15_000)
        mark = ann.locator('.arena-table tr.me [data-k="held"]')
        mark.wait_for(timeout=60_000)  # the review: tens of seconds niced on a busy machine
        assert mark.inner_text() == "1 race pending review"
        # Ben's page (and anyone's) does not say that Ann's race is held: he opens the
        # arena's invite link again.
        open_invite(ben, invite)
        ben.locator(".arena-table").wait_for(timeout=10_000)
        assert ben.locator('[data-k="held"]').count() == 0
        for page in (ann, ben):
            assert js_errors(page) == []
