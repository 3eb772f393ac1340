"""Arenas and hints as people take them, in a real browser against a real server: each page
opens ``/`` in a fresh context (which deals a solo game) and clicks its way on.

- A hint on a server whose proof of a shortest line gets no time still names a move, and
  says which kind of hint it is.
- A household (two pages of one address) races in its own private arena: its page says why
  its races score nothing. The maker copies the invite link with its Copy button.
- The last race of an arena with a racer who never moves, and who reloads their page
  mid-race: the reloaded page is back in its race (not an invitation to it), and the podium
  comes to both pages at the arena's end and its grace.

Screenshots of the hint, the invite link with its Copy button, the household's note and the
podium at 1366x768, 740x360, 390x844 and 1920x1080.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from server.engine import Board
from server.engine.solver import solve
from tests.helpers.arena_pages import invite_link, join_by_link, make_arena, to_arenas
from tests.helpers.pages import (
    ARENA_ARGS,
    DAILY_ARGS,
    SCREENSHOTS,
    arena_server,
    js_errors,
    needs_chromium,
    open_home,
    resize,
    send_line,
    wait_ready,
)
from tests.helpers.serverproc import ServerProc, drop_keys, redis_url, running_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [needs_chromium, pytest.mark.browser]

#: The grace of an arena's last races past its end, here (ms).
GRACE_MS = 2_000

#: The sizes each screenshot is taken at: a laptop, a phone sideways and upright, a desktop.
SIZES = ((1366, 768), (740, 360), (390, 844), (1920, 1080))


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    """The arena pages' server, the last races given 2 s past an arena's end."""
    with arena_server("webjourney", [*ARENA_ARGS, "--arena-grace-ms", str(GRACE_MS)]) as srv:
        yield srv


@pytest.fixture(scope="module")
def no_proof_server() -> Iterator[ServerProc]:
    """A server whose hints get no time to prove a shortest line (a host too busy)."""
    prefix = f"test:webhint:{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix}
    args = [*DAILY_ARGS, "--hint-seconds", "0"]
    with running_server(redis_url(), args=args, env=env) as srv:
        yield srv
    drop_keys(prefix)


def shoot_all(page: Page, name: str) -> None:
    """Screenshots of the page at every size of :data:`SIZES` (NAME-WxH.png)."""
    size = page.viewport_size
    for width, height in SIZES:
        resize(page, width, height)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}x{height}.png"))
    if size is not None:
        page.set_viewport_size(size)


def in_race(page: Page) -> str:
    """Until the page shows the arena's race, started, with its own board; its room."""
    page.wait_for_function("location.hash.startsWith('#/race/')", timeout=30_000)
    try:
        # A race whose racers did not all come in within the pairing's wait is no race, and
        # they are paired again: on a busy machine the race that starts may be the second.
        page.wait_for_function(
            "seahaven.game.state === 'racing' && seahaven.game.myBoard() !== null",
            timeout=60_000,
        )
    except Exception:
        # What the page was doing: a race still waiting for its racers, or one already over.
        print(
            "DBG in_race",
            page.evaluate(
                "[location.hash, seahaven.game.roomId, seahaven.game.state,"
                " seahaven.arena.seat, seahaven.arena.room, Date.now()]"
            ),
        )
        raise
    return str(page.evaluate("seahaven.game.roomId"))


def line_of(page: Page) -> list[str]:
    """The solver's win of the page's race."""
    code = str(page.evaluate("seahaven.game.code"))
    found = solve(Board.from_code(code), timeout=20)
    assert found.moves, code
    return list(found.moves)


def test_a_hint_on_a_busy_server_names_a_move_and_its_kind(
    no_proof_server: ServerProc, browser: Browser
) -> None:
    page = open_home(browser, no_proof_server.http_url, name="Hana", width=1366, height=768)
    page.get_by_role("button", name="Hint").click()
    toast = page.locator(".toast", has_text="best known move")
    toast.wait_for(timeout=30_000)
    assert "not proven shortest" in toast.inner_text()
    assert page.locator(".card.hint").count() == 1  # the move's card is marked
    shoot_all(page, "hint-source")
    assert js_errors(page) == []


def test_a_household_arena_says_why_it_scores_nothing(server: ServerProc, browser: Browser) -> None:
    home = {"X-Forwarded-For": "198.19.240.9"}
    mum = open_home(
        browser,
        server.http_url,
        name="Mum",
        width=1366,
        height=768,
        extra_http_headers=home,
        permissions=["clipboard-read", "clipboard-write"],
    )
    to_arenas(mum)
    arena = make_arena(mum, 180, 3)  # running through its screenshots on a busy machine
    # The invite link's Copy button: the page says "Copied", and the link is on the
    # clipboard, the arena's own link.
    link = invite_link(mum)
    assert link == f"{server.http_url}/#/arena/{arena}"
    mum.locator(".arena-invite").get_by_role("button", name="Copy").click()
    toast = mum.locator("#toast")
    toast.wait_for(state="visible")
    assert toast.inner_text() == "Copied"
    assert mum.evaluate("navigator.clipboard.readText()") == link
    shoot_all(mum, "arena-invite")
    note = mum.locator(".arena-household")
    assert note.is_hidden()  # nothing raced yet: nothing to explain
    kid = open_home(
        browser, server.http_url, name="Kid", width=390, height=844, extra_http_headers=home
    )
    join_by_link(kid, invite_link(mum))
    room = in_race(mum)
    assert in_race(kid) == room
    send_line(mum, line_of(mum))
    kid.once("dialog", lambda d: d.accept())
    kid.get_by_role("button", name="Give up").click()
    # Back in the pool, on the arena's page, which says why the race scored nothing.
    for page in (mum, kid):
        page.wait_for_function(f"location.hash === '#/arena/{arena}'", timeout=20_000)
        page.locator(".arena-household").wait_for(state="visible", timeout=15_000)
        assert "own household" in page.locator(".arena-household").inner_text()
    # The kid leaves: Mum waits alone in the pool, her page still saying why.
    kid.get_by_role("button", name="Leave the arena").click()
    kid.wait_for_function("!seahaven.arena.joined")
    assert mum.locator(".arena-household").is_visible()
    shoot_all(mum, "arena-household")
    for page in (mum, kid):
        assert js_errors(page) == []


def test_the_podium_comes_past_a_racer_who_never_moves_and_reloads(
    server: ServerProc, browser: Browser
) -> None:
    ann = open_home(browser, server.http_url, name="Ann", width=1366, height=768)
    to_arenas(ann)
    # Long enough for Ben's page to come and join on a busy machine: an arena that ends
    # first cuts its race off while it still waits for him (no race: no podium to test).
    arena = make_arena(ann, 45, 3)
    ben = open_home(browser, server.http_url, name="Ben", width=740, height=360)
    join_by_link(ben, invite_link(ann))
    room = in_race(ann)
    assert in_race(ben) == room
    # Ben reloads mid-race: his page is back in his race, never an invitation to it.
    ben.reload()
    wait_ready(ben)
    ben.wait_for_function(f"seahaven.game.roomId === '{room}'", timeout=15_000)
    ben.wait_for_function(
        f"seahaven.arena.seat === 'racing' && seahaven.arena.room === '{room}'", timeout=15_000
    )
    assert ben.evaluate("location.hash") == f"#/race/{room}"
    assert ben.locator('[data-k="invite"]').count() == 0
    # Ann wins; Ben never moves. At the arena's end and its grace the race is ended by the
    # arena's rule, and the podium comes to both pages.
    ann.wait_for_function("seahaven.game.myBoard() !== null")
    send_line(ann, line_of(ann))
    for page in (ann, ben):
        page.wait_for_function(f"location.hash === '#/arena/{arena}'", timeout=90_000)
        podium = page.locator(".arena-podium")
        podium.wait_for(state="visible", timeout=60_000)
        assert "Ann" in podium.inner_text()
        assert page.locator(".arena-seat").inner_text() == "The arena is over."
    shoot_all(ann, "arena-podium")
    for page in (ann, ben):
        assert js_errors(page) == []
