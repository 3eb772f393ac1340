"""An arena's page shows its leading race live, its boards as Watch shows them,
in a real browser: a visitor of the arena sees the leading race's racers' boards
exactly as a spectator on Watch sees that race at the same moment (its watch mode: boards
late), never more; the card follows the next race when it leads. Screenshots of the arena
page with its live race. Each page opens ``/`` in a fresh context and clicks its way on;
the arena, private, is reached by the invite link its maker's page shows."""

from __future__ import annotations

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
)
from tests.helpers.serverproc import ServerProc
from tests.helpers.waits import until_sync

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium

#: What a racer's box shows: name, status line and board (cards as drawn).
BOXES = """(sel) => [...document.querySelectorAll(sel + ' .mini')].map((box) => ({
  player: box.dataset.player,
  name: box.querySelector('.name').textContent,
  board: [...box.querySelectorAll('.board .card')].map((c) => c.dataset.card || c.textContent)
    .join(' '),
  note: box.querySelector('.board').textContent.trim(),
})).sort((a, b) => a.player < b.player ? -1 : 1)"""


@pytest.fixture
def server() -> Iterator[ServerProc]:
    with arena_server("webalive") as srv:
        yield srv


def boxes(page: Page, where: str) -> list[dict[str, str]]:
    return list(page.evaluate(BOXES, where))


def test_the_arena_page_shows_its_leading_races_boards_as_watch_does(
    server: ServerProc, browser: Browser
) -> None:
    ann = open_home(browser, server.http_url, name="Ann", width=1366, height=768)
    to_arenas(ann)
    # Long enough to outlast the test on a busy machine: an arena over before the next race
    # pairs nobody again (an arena of 60 had ended before it once).
    make_arena(ann, 180, 5)
    invite = invite_link(ann)
    ben = new_page(browser, name="Ben", width=1366, height=768)
    join_by_link(ben, invite)
    for page in (ann, ben):
        page.wait_for_function("seahaven.game.state === 'racing'", timeout=20_000)
    room = ann.evaluate("seahaven.game.roomId")
    ids = sorted([ann.evaluate("seahaven.net.playerId"), ben.evaluate("seahaven.net.playerId")])
    # Ann plays her first moves at once: a spectator sees them only some seconds late.
    code = ann.evaluate("seahaven.game.code")
    send_line(ann, list(solve(Board.from_code(code), timeout=20).moves)[:3])
    # Cy looks at the arena (its invite link, passed on); Dee watches the same race on Watch.
    cy = new_page(browser, name="Cy", width=1366, height=768)
    open_invite(cy, invite)
    card = cy.locator('[data-k="arena-live"]')
    card.wait_for(timeout=10_000)
    cy.locator('[data-k="arena-live"] .mini .board .card').first.wait_for(timeout=10_000)
    assert [b["player"] for b in boxes(cy, '[data-k="arena-live"]')] == ids
    assert card.locator("a.live-room").get_attribute("href") == f"#/watch/{room}"
    # The race's watch mode, said as Watch says it (an arena's race: boards late).
    assert card.locator(".watch-explain").get_attribute("data-watch") == "delayed"
    dee = open_home(browser, server.http_url, name="Dee", width=1366, height=768)
    # On Watch, the race is titled by its arena as the arena's page titles the arena.
    go(dee, "watch")
    listed = dee.locator(f'.live-room[data-room="{room}"] .live-head b')
    listed.wait_for(timeout=10_000)
    assert listed.inner_text() == "Arena race: Easy · 4 cells · 180 min"
    for suffix, width, height in (("-phone", 390, 844), ("", 1366, 768)):
        resize(dee, width, height)
        dee.screenshot(path=str(SCREENSHOTS / f"watch-arena-race{suffix}.png"))
    resize(dee, 1366, 768)
    # Dee opens the race from the list.
    dee.locator(f'a.live-room[data-room="{room}"]').click()
    dee.wait_for_function(f"location.hash === '#/watch/{room}'")
    dee.locator(".mini-boards .mini .board .card").first.wait_for(timeout=10_000)
    # The same boards on both pages: what a spectator of the race is sent, nothing more.
    first = boxes(cy, '[data-k="arena-live"]')
    assert first == boxes(dee, ".mini-boards")
    for suffix, width, height in (("-phone", 390, 844), ("", 1366, 768)):
        resize(cy, width, height)
        if width < 900:  # one column: the card is under the arena's head
            card.scroll_into_view_if_needed()
        cy.screenshot(path=str(SCREENSHOTS / f"arena-live{suffix}.png"))
    resize(cy, 1366, 768)
    # The race ends (Ann wins, Ben gives up) and the next one leads: the card follows it.
    send_line(ann, list(solve(Board.from_code(code), timeout=20).moves)[3:])
    ben.evaluate("seahaven.net.send('give_up')")
    link = '[data-k="arena-live"] a.live-room'
    try:
        cy.wait_for_function(
            f"(document.querySelector('{link}')?.getAttribute('href') || '{room}')"
            f".split('/').pop() !== '{room}'",
            timeout=25_000,
        )
    except Exception:
        for page in (ann, ben):
            print(
                "DBG",
                page.evaluate(
                    "[location.hash, seahaven.game.roomId, seahaven.game.state,"
                    " seahaven.arena.seat, seahaven.arena.room]"
                ),
            )
        raise
    again = str(cy.locator(link).get_attribute("href")).split("/")[-1]
    assert again != room
    # Ann races it: her page hears of her seat in it (its own message, maybe a moment after
    # the watcher's card).
    ann.wait_for_function(f"seahaven.arena.room === '{again}'", timeout=10_000)
    # Its racers' boxes (whoever is back in the pool races it), each with the new race's
    # deal: nothing of the race before is left on the card.
    dealt = {b["board"] for b in first}

    def followed() -> list[dict[str, str]] | None:
        live = boxes(cy, '[data-k="arena-live"]')
        fresh = [b for b in live if b["board"] and b["board"] not in dealt]
        return live if live and len(fresh) == len(live) else None

    try:
        live = until_sync(followed, timeout=40, what="the next race's boards on the card")
    except AssertionError:
        print("DBG cy", boxes(cy, '[data-k="arena-live"]'))
        raise
    assert {b["player"] for b in live} <= set(ids)
    # In another language, the card speaks it, its boards kept.
    cy.select_option("#lang", "de")
    cy.wait_for_function(
        "document.querySelector('[data-k=\"arena-live\"] a.live-room').textContent"
        " === 'Unter „Zuschauen“ öffnen'"
    )
    assert cy.locator('[data-k="arena-live"] .mini').count() == len(live)
    for page in (ann, ben, cy, dee):
        assert js_errors(page) == []
