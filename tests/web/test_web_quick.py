"""Race anyone in a real browser against a real server and Redis: the quick race (two pages
queue and are paired, the wait and its Cancel, the bot offer), the host's rated toggle as the
other racer sees it, rating changes in the results, the top players, the featured race on the
Watch page and the ratings on the player page, with axe on each new screen.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

import pytest
from websockets.sync.client import connect

from server.engine import Board
from server.engine.solver import solve
from tests.helpers.axe import axe, axe_sizes
from tests.helpers.pages import (
    CLICK_TO_BOARD,
    SCREENSHOTS,
    SERVE_ARGS,
    Racer,
    create_race,
    go,
    join_race,
    js_errors,
    needs_chromium,
    open_home,
    open_player,
    resize,
    send_line,
)
from tests.helpers.pages import shoot as shoot_sizes
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

#: A rating change as the page writes it: +12, −8 (a real minus sign), ±0.
CHANGE = re.compile(r"([+−±])(\d+)")


#: Pairing sooner than in production: two racers wait 2 s for a fourth (not 10 s); no bot
#: is offered while the tests read the wait (the bot test runs a server of its own).
PAIRING = ["--pair-fourth-ms", "2000", "--bot-offer-ms", "120000"]


@contextmanager
def own_server(*args: str) -> Iterator[ServerProc]:
    """A server whose keys (queues, ratings, the list of public rooms) are its own; the pace
    rules off, so that a line sent as fast as the server answers is rated, a racer who
    gives up at once counts (the tests' losers play no action), and every player is
    established from the start (listed and featured at once)."""
    prefix = f"webquick-{secrets.token_hex(4)}:"
    env = {
        "SEAHAVEN_KEY_PREFIX": prefix,
        **REVIEW_OFF_ENV,
        "SEAHAVEN_RATED_MIN_ACTIONS": "0",
        "SEAHAVEN_PROVISIONAL_GAMES": "0",  # listed and featured at once
    }
    try:
        with running_server(redis_url(), args=[*SERVE_ARGS, *args], env=env) as srv:
            yield srv
    finally:
        drop_keys(prefix)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    with own_server(*PAIRING) as srv:
        yield srv


def shoot(page: Page, name: str, show: str | None = None) -> None:
    """Screenshots at 1366x768 and 390x844, the mouse out of the way (and the element
    ``show`` scrolled into view at each size)."""
    page.mouse.move(2, 2)
    if show is None:
        shoot_sizes(page, name)
        return
    size = page.viewport_size
    for suffix, width, height in (("", 1366, 768), ("-phone", 390, 844)):
        resize(page, width, height)
        page.locator(show).evaluate("(el) => el.scrollIntoView({block: 'end'})")
        page.screenshot(path=str(SCREENSHOTS / f"{name}{suffix}.png"))
    if size is not None:
        page.set_viewport_size(size)


def change_of(text: str) -> int:
    """The signed number of a rating change as shown."""
    m = CHANGE.search(text)
    assert m, text
    return 0 if m.group(1) == "±" else int(m.group(2)) * (1 if m.group(1) == "+" else -1)


def record(page: Page) -> None:
    """Keep every server message of the page's socket in ``window.__got`` (for checks)."""
    page.evaluate("window.__got = []; seahaven.net.on('*', (m) => window.__got.push(m));true")


def got(page: Page, kind: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(
        "(kind) => window.__got.filter((m) => m.type === kind)", kind
    )
    return found


def test_two_pages_quick_race_to_rated_results_and_profiles(
    server: ServerProc, browser: Browser
) -> None:
    base = server.http_url + "/"
    # Home: the quick race sits beside New game and races the level picked there.
    ann = open_home(browser, base, name="Ann", width=1366, height=768)
    ann.wait_for_function("!!seahaven.game.myBoard()")
    quick = ann.locator(".newgame").get_by_role("button", name="Quick race")
    assert quick.is_visible()
    shoot(ann, "quick-home")
    record(ann)
    ann.locator('.newgame input[name="cells"][value="2"]').check(force=True)
    quick.click()
    # The wait: on the Race page, the level, a clock that runs, Cancel.
    ann.wait_for_function("location.hash === '#/race'")
    wait = ann.locator(".quick-wait")
    wait.wait_for()
    assert "Medium" in wait.locator("h2").inner_text()
    assert ann.evaluate("seahaven.game.roomId") is None  # out of the solo game
    ann.wait_for_function("window.__got.some((m) => m.type === 'queued')")
    assert got(ann, "queued")[0]["cells"] == 2
    ann.wait_for_function(
        "document.querySelector('.quick-wait [data-k=elapsed]').textContent >= '0:01'"
    )
    assert wait.get_by_role("button", name="Cancel").is_visible()
    shoot(ann, "quick-wait")
    axe_sizes(ann, "Quick race, waiting")
    # Ben queues from the Race page's own quick race panel, on the same level: paired.
    ben = open_home(browser, base, name="Ben")
    go(ben, "race")
    entry = ben.locator(".quick-entry")
    entry.locator('input[name="qcells"][value="2"]').check(force=True)
    entry.get_by_role("button", name="Quick race").click()
    paired = "seahaven.game.roomId && seahaven.game.paired && seahaven.game.role === 'player'"
    for page in (ann, ben):
        page.wait_for_function(paired, timeout=20_000)
    room = ann.evaluate("seahaven.game.roomId")
    assert ben.evaluate("seahaven.game.roomId") == room
    assert ann.evaluate("[seahaven.game.public, seahaven.game.rated, seahaven.game.cells]") == [
        True,
        True,
        2,
    ]
    ann.wait_for_function(f"location.hash === '#/race/{room}'")
    assert ann.locator(".quick-wait").count() == 0
    # Nobody hosts a paired room: no Start button; the server starts the race.
    assert ann.get_by_role("button", name="Start the race").count() == 0
    for page in (ann, ben):
        page.wait_for_function("seahaven.game.state === 'racing'", timeout=15_000)
    # Ann wins; Ben gives up: the results show each racer's new rating and its change.
    code = ann.evaluate("seahaven.game.code")
    send_line(ann, list(solve(Board.from_code(code), timeout=20).moves))
    ben.evaluate("seahaven.net.send('give_up')")
    for page in (ann, ben):
        page.wait_for_function("seahaven.game.state === 'done' && !!seahaven.game.ratings")
        page.locator("table.results .rating-change").first.wait_for()
    changes = {c["player_id"]: c for c in ann.evaluate("seahaven.game.ratings.changes")}
    ann_id, ben_id = ann.evaluate("seahaven.net.playerId"), ben.evaluate("seahaven.net.playerId")
    assert changes[ann_id]["change"] > 0 > changes[ben_id]["change"]
    for page in (ann, ben):
        for pid, c in changes.items():
            cell = page.locator(f'table.results tr[data-player="{pid}"] .rating-change')
            text = cell.inner_text()
            assert change_of(text) == c["change"]
            assert text.startswith(str(c["rating"]))
    assert ann.get_by_role("button", name="Quick race again").is_visible()
    shoot(ann, "quick-results")
    axe_sizes(ann, "Quick race, results")
    # The top players of Medium: Ann above Ben, with the ratings of the results.
    carol = open_home(browser, base, name="Carol", width=1366, height=768)
    go(carol, "race")
    table = carol.locator(".ratings")
    table.locator('input[name="rtcells"][value="2"]').check(force=True)
    carol.wait_for_function(
        "document.querySelectorAll('.ratings-table tbody tr').length === 2", timeout=10_000
    )
    rows = table.locator("tbody tr")
    assert rows.nth(0).get_attribute("data-player") == ann_id
    assert str(changes[ann_id]["rating"]) in rows.nth(0).inner_text()
    assert str(changes[ben_id]["rating"]) in rows.nth(1).inner_text()
    shoot(carol, "race-quick-ratings", show=".ratings")
    axe_sizes(carol, "Race page with the quick race and the top players")
    # Ann's page, seen by Carol: the rating of Medium with its chart, told in words and as
    # a table; the public race with its place and rating change.
    open_player(carol, ann_id)  # her name in the top players
    block = carol.locator('.rating-variant[data-cells="2"]')
    block.wait_for()
    assert str(changes[ann_id]["rating"]) in block.locator("h4").inner_text()
    svg = block.locator("svg.rating-chart")
    assert svg.get_attribute("role") == "img"
    labelled = (svg.get_attribute("aria-labelledby") or "").split()
    words = [carol.locator(f"#{i}").text_content() or "" for i in labelled]
    assert words[0] == "Rating history, Medium · 2 cells"
    before = changes[ann_id]["rating"] - changes[ann_id]["change"]
    assert words[1].startswith(f"Rated races: 1. From {before} to {changes[ann_id]['rating']}")
    assert block.locator("details.chart-table tbody tr").count() == 1
    races = carol.locator(".public-races tbody tr")
    assert races.count() == 1
    assert "#1 of 2" in races.first.inner_text()
    assert change_of(races.first.inner_text()) == changes[ann_id]["change"]
    assert carol.locator(".daily-record .record-stats").is_visible()
    shoot(carol, "player-ratings")
    axe_sizes(carol, "Player page with ratings")
    for page in (ann, ben, carol):
        assert js_errors(page) == []


def test_cancel_leaves_the_queue(server: ServerProc, browser: Browser) -> None:
    base = server.http_url + "/"
    page = open_home(browser, base, name="Dee")
    go(page, "race")
    record(page)
    entry = page.locator(".quick-entry")
    entry.locator('input[name="qcells"][value="1"]').check(force=True)
    entry.get_by_role("button", name="Quick race").click()
    page.wait_for_function("window.__got.some((m) => m.type === 'queued')")
    # A dropped connection takes the server's queue with it: the page queues again on the
    # new one, and the wait (its clock too) goes on.
    page.wait_for_function(
        "document.querySelector('.quick-wait [data-k=elapsed]').textContent >= '0:01'"
    )
    page.evaluate("seahaven.net.drop()")
    page.wait_for_function(
        "window.__got.filter((m) => m.type === 'queued').length === 2", timeout=10_000
    )
    assert page.locator(".quick-wait [data-k=elapsed]").inner_text() >= "0:01"
    page.locator(".quick-wait").get_by_role("button", name="Cancel").click()
    page.wait_for_function("window.__got.some((m) => m.type === 'unqueued')")
    assert got(page, "unqueued") == [{"type": "unqueued", "cells": 1, "reason": "asked"}]
    page.locator(".quick-entry").wait_for()
    assert page.locator(".quick-wait").count() == 0
    # Out of the queue for good: a player who queues now for Hard waits alone.
    with connect(server.ws_url) as ws:
        eve = Racer(ws, "Eve")
        eve.send({"type": "queue", "cells": 1})
        eve.expect("queued")
        page.wait_for_timeout(3_000)  # longer than the wait for a fourth racer (2 s)
        assert page.evaluate("seahaven.game.roomId") is None
        eve.send({"type": "unqueue"})
        eve.expect("unqueued")
    # Queued from another socket of the same player (a connection lost without a close is
    # such a socket until the server notices): the page asks again until that one is gone.
    token = page.evaluate("seahaven.net.token")
    with connect(server.ws_url) as ws:
        old = Racer(ws, "Dee", token=token)
        old.send({"type": "queue", "cells": 1})
        old.expect("queued")
        entry.get_by_role("button", name="Quick race").click()
        page.wait_for_function("window.__got.some((m) => m.code === 'already_queued')")
        assert page.locator(".quick-wait").is_visible()
        assert page.locator("#toast").is_hidden()
    page.wait_for_function(
        "window.__got.filter((m) => m.type === 'queued').length === 3", timeout=10_000
    )
    page.locator(".quick-wait").get_by_role("button", name="Cancel").click()
    page.locator(".quick-entry").wait_for()
    assert js_errors(page) == []


def test_the_rated_toggle_is_seen_by_every_racer(server: ServerProc, browser: Browser) -> None:
    base = server.http_url + "/"
    host = open_home(browser, base, name="Hana")
    guest = open_home(browser, base, name="Gus", width=390, height=844)
    room = create_race(host)
    host.locator(".invite input").wait_for()
    join_race(guest, room)
    guest.wait_for_function(f"seahaven.game.roomId === '{room}'")
    # An invite room starts unrated, and its racers read that.
    note = guest.locator(".rated-note")
    assert note.get_attribute("data-rated") == "0"
    assert "Unrated race" in note.inner_text()
    toggle = host.get_by_label("Rated race")
    assert not toggle.is_checked()
    toggle.check()
    guest.wait_for_function("document.querySelector('.rated-note')?.dataset.rated === '1'")
    assert "the result changes every racer's rating" in guest.locator(".rated-note").inner_text()
    assert guest.locator(".chip.rated").is_visible()
    assert guest.get_by_label("Rated race").count() == 0  # the host's alone
    axe(guest, "Race lobby, rated, guest on a phone")
    host.get_by_label("Rated race").uncheck()
    guest.wait_for_function("document.querySelector('.rated-note')?.dataset.rated === '0'")
    assert guest.locator(".chip.rated").count() == 0
    for page in (host, guest):
        assert js_errors(page) == []


def test_the_watch_page_features_a_live_quick_race(server: ServerProc, browser: Browser) -> None:
    base = server.http_url + "/"
    with ExitStack() as sockets:
        # Each socket is left unread while the other plays: no keepalive pings to miss. Two
        # addresses: the quick race never pairs two identities of one.
        a, b = (
            Racer(
                sockets.enter_context(
                    connect(
                        server.ws_url,
                        ping_interval=None,
                        additional_headers={"X-Forwarded-For": f"198.51.100.{i}"},
                    )
                ),
                name,
            )
            for i, name in ((21, "Mika"), (22, "Noor"))
        )
        for racer in (a, b):
            racer.send({"type": "queue", "cells": 4})
        snap = a.expect("snapshot", timeout=20)
        room = snap["room_id"]
        assert b.expect("snapshot", timeout=20)["room_id"] == room
        started = a.expect("started", timeout=15)
        line = list(solve(Board.from_code(started["code"]), timeout=20).moves)
        a.play(line[:12])
        b.play(line[:5])
        page = open_home(browser, base, name="Wanda", width=1366, height=768)
        go(page, "watch")
        featured = page.locator(f'.featured [data-featured="{room}"]')
        featured.wait_for(timeout=10_000)
        # On top of the page, above the form and the list (which also has the room).
        assert page.locator(".watch > section.featured").is_visible()
        page.locator(f'.live-room[data-room="{room}"]').wait_for()
        text = page.locator(".featured").inner_text()
        assert "Featured race" in text and "Mika" in text and "Noor" in text
        assert "SH1-" not in text and "boards" in text  # its watch mode: late, never live
        page.wait_for_function(
            '(id) => document.querySelector(`[data-featured="${id}"]`)'
            "?.textContent.includes('12 moves')",
            arg=room,
            timeout=10_000,
        )
        shoot(page, "watch-featured")
        axe_sizes(page, "Watch with a featured race")
        # A click watches it, as its watch mode allows (late, never live).
        record(page)
        featured.click()
        page.wait_for_function(
            f"seahaven.game.roomId === '{room}' && seahaven.game.role === 'spectator'"
        )
        assert page.evaluate("seahaven.game.watch") != "live"
        assert page.locator(".featured").is_hidden()
        # The race ends: the held events come at once, a `room` of before the spectator came
        # among them, which must not unseat the spectator; the finish order shows.
        a.play(line[12:])
        b.send({"type": "give_up"})
        page.locator(".watch-head table.results").wait_for(timeout=30_000)
        assert "Mika" in page.locator(".watch-head table.results").inner_text()
        assert any(m["type"] == "room" for m in got(page, "room"))
        assert got(page, "room_gone") == []
        assert page.evaluate("seahaven.game.roomId") == room
        assert js_errors(page) == []


def test_a_lone_player_is_offered_a_bot(browser: Browser) -> None:
    with own_server("--bot-offer-ms", "1500") as server:
        bot_race(server, browser)


def bot_race(server: ServerProc, browser: Browser) -> None:
    base = server.http_url + "/"
    page = open_home(browser, base, name="Lou")
    go(page, "race")
    entry = page.locator(".quick-entry")
    entry.locator('input[name="qcells"][value="1"]').check(force=True)
    entry.get_by_role("button", name="Quick race").click()
    offer = page.locator(".quick-wait .bot-offer")
    offer.wait_for(timeout=10_000)
    assert "bot" in page.locator(".quick-say").inner_text()
    # Keep waiting: the question goes, the wait goes on (Cancel, the clock) and the offer,
    # which stands until someone comes, can still be taken.
    page.get_by_role("button", name="Keep waiting").click()
    assert page.locator(".quick-wait .bot-offer").count() == 0
    assert "Still waiting for a person" in page.locator(".quick-say").inner_text()
    assert page.locator(".quick-wait").get_by_role("button", name="Cancel").is_visible()
    # Taking it races the bot: a room of two racers.
    page.locator(".quick-wait").get_by_role("button", name="Race the bot").click()
    page.wait_for_function(
        "seahaven.game.roomId && seahaven.game.racers().length === 2", timeout=15_000
    )
    page.wait_for_function("location.hash.startsWith('#/race/')")
    assert page.evaluate("seahaven.game.rated") is False  # practice: a bot race is unrated
    note = page.locator(".rated-note")  # in the lobby; kept, unseen, in the racing strip
    note.wait_for(state="attached")
    assert note.get_attribute("data-rated") == "0"
    assert "Unrated race" in (note.text_content() or "")
    assert js_errors(page) == []


def test_two_who_queue_together_see_their_board_after_the_countdown(browser: Browser) -> None:
    # The production pairing wait and countdown (no --pair-fourth-ms: its default); no bot.
    with own_server("--countdown-ms", "3000", "--bot-offer-ms", "120000") as srv:
        ann = open_home(browser, srv.http_url, name="Ann")
        ben = open_home(browser, srv.http_url, name="Ben")
        for page in (ann, ben):
            go(page, "race")
        ben.evaluate(CLICK_TO_BOARD)
        # Both at once: the longest a pair of players waits (no one waited before them).
        ann.locator(".quick-entry").get_by_role("button", name="Quick race").click()
        ben.locator(".quick-entry").get_by_role("button", name="Quick race").click()
        # (What the wait says while it lasts, 1 s here, is the next test's: a busy host can
        # pair the two before a page shows it.)
        # No bot (offered after 120 s) and no second pass can pair them: the first pass, its
        # countdown and the board. How long that takes is bench's to say, not a test's.
        ben.wait_for_function("window.__boardAt !== null", timeout=60_000)
        took = ben.evaluate("window.__boardAt - window.__clickAt") / 1000
        print(f"quick race: click to board {took:.2f} s (countdown 3 s)")
        assert ann.evaluate("seahaven.game.roomId") == ben.evaluate("seahaven.game.roomId")
        assert js_errors(ann) == [] and js_errors(ben) == []


def test_the_wait_counts_down_the_wait_for_more_racers(browser: Browser) -> None:
    # A wait long enough for a busy host (it pairs the two when it is over).
    with own_server("--pair-fourth-ms", "30000", "--bot-offer-ms", "120000") as srv:
        ann = open_home(browser, srv.http_url, name="Ann", width=1366, height=768)
        ben = open_home(browser, srv.http_url, name="Ben")
        for page in (ann, ben):
            go(page, "race")
            page.locator(".quick-entry").get_by_role("button", name="Quick race").click()
        # The wait says what it waits for: another racer is ready, and counts down.
        pairing = ann.locator('.quick-wait [data-k="pairing"]')
        pairing.wait_for(timeout=10_000)
        assert "1 other racer is ready" in ann.locator(".quick-say").inner_text()
        first = float(re.search(r"(\d+\.\d) s", pairing.inner_text()).group(1))  # type: ignore[union-attr]
        ann.wait_for_timeout(600)
        later = float(re.search(r"(\d+\.\d) s", pairing.inner_text()).group(1))  # type: ignore[union-attr]
        assert 0 < later < first <= 30.0
        assert ann.locator("#live p").last.inner_text().startswith("1 other racer is ready")
        shoot(ann, "quick-pairing")
        axe(ann, "Quick race, another racer ready")
        assert js_errors(ann) == []
