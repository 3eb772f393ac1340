"""Solo statistics after a win, and following a friend, in a real browser against a real
server and Redis: the win banner says what the win changed (the streak, the wins so far,
a best time), the player page draws each variant's figures and its last games; a follow
from a leaderboard row shows that friend alone on the Friends tab, their page says
"Following", our own page lists them, and the Watch page shows their public race under
"Friends racing now" (never anyone else's, never a private room)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
import redis
from websockets.sync.client import ClientConnection, connect

from server.daily.deal import today
from server.daily.leaderboard import member_of, score_of
from server.engine import Board
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.axe import axe_sizes
from tests.helpers.pages import (
    DAILY_ARGS,
    SCREENSHOTS,
    go,
    js_errors,
    needs_chromium,
    new_page,
    open_home,
    open_player,
    resize,
)
from tests.helpers.serverproc import ServerProc, redis_url, running_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, needs_chromium]

CODE = "SH1-C4-AAAAAAB"

#: Play moves through the page's connection, each once the previous one's delta came back.
PLAY = """async (line) => {
  for (const text of line) {
    const before = seahaven.game.me().moves;
    const [src, dst] = text.split(" ");
    seahaven.net.send("move", {src, dst});
    const t0 = Date.now();
    while (seahaven.game.me().moves === before) {
      if (Date.now() - t0 > 8000) throw new Error("no delta for " + text);
      await new Promise((r) => setTimeout(r, 3));
    }
  }
}"""


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[ServerProc, Keys]]:
    prefix = f"webtest-{secrets.token_hex(4)}:"
    with running_server(redis_url(), args=DAILY_ARGS, env={"SEAHAVEN_KEY_PREFIX": prefix}) as srv:
        yield srv, Keys(prefix)
    client = redis.Redis.from_url(redis_url(), decode_responses=True)
    keys = list(client.scan_iter(match=prefix + "*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


def shoot_at(page: Page, name: str, selector: str) -> None:
    """Screenshots at 1366x768 (NAME.png) and 390x844 (NAME-phone.png), each scrolled to
    ``selector`` (the part shown); the page gets its own size back afterwards."""
    size = page.viewport_size
    for suffix, width, height in (("", 1366, 768), ("-phone", 390, 844)):
        resize(page, width, height)
        page.locator(selector).first.evaluate(
            "(e) => { e.scrollIntoView({block: 'start'}); window.scrollBy(0, -80); }"
        )
        page.wait_for_timeout(100)
        page.screenshot(path=str(SCREENSHOTS / f"{name}{suffix}.png"))
    if size is not None:
        page.set_viewport_size(size)


def solo(page: Page, code: str) -> None:
    """Start a solo game of ``code`` from the Play view, as its New game does."""
    page.evaluate("(code) => seahaven.views.play.start({code})", code)
    page.wait_for_function(
        "(code) => seahaven.game.mode === 'solo' && seahaven.game.code === code"
        " && seahaven.game.state === 'racing' && seahaven.game.me()?.moves === 0",
        arg=code,
    )


def test_statistics_after_a_win(server: tuple[ServerProc, Keys], browser: Browser) -> None:
    srv, _keys = server
    base = srv.http_url + "/"
    line = list(solve(Board.from_code(CODE)).moves)
    page = open_home(browser, base, name="Sol", width=1366, height=768)
    page.on("dialog", lambda d: d.accept())
    # The Play view deals a game of its own first: ours replaces it (never begun: no loss).
    page.wait_for_function("seahaven.game.mode === 'solo' && seahaven.game.state === 'racing'")
    # The first win: the banner says one of one won, and no "best" over nothing.
    solo(page, CODE)
    page.evaluate(PLAY, line)
    records = page.locator('.banner.win [data-k="solo-records"]')
    records.wait_for()
    assert (
        records.inner_text().split("\n") == ["1 of 1 won"] or "1 of 1 won" in records.inner_text()
    )
    assert "Best time!" not in records.inner_text() and "Streak" not in records.inner_text()
    # The second: a streak of 2, the best streak, and two of two.
    solo(page, CODE)
    page.evaluate(PLAY, line)
    page.wait_for_function(
        "document.querySelector('.banner.win [data-k=\"solo-records\"]')"
        "?.textContent.includes('2 of 2 won')"
    )
    text = records.inner_text()
    assert "Streak 2 · Best streak!" in text and "2 of 2 won" in text
    # A game begun and left for another is a loss.
    solo(page, CODE)
    page.evaluate(PLAY, line[:1])
    solo(page, CODE)
    go(page, "player")
    panel = page.locator('.solo-variant[data-cells="4"]')
    panel.wait_for()
    page.wait_for_function(
        "document.querySelector('.solo-variant[data-cells=\"4\"]')?.textContent.includes('67%')"
    )
    figures = panel.locator(".stat").all_inner_texts()
    shown = {f.split("\n")[-1].strip().lower(): f.split("\n")[0].strip() for f in figures}
    assert shown["games"] == "3" and shown["wins"] == "2" and shown["win rate"] == "67%"
    assert shown["streak"] == "0" and shown["best streak"] == "2"
    assert shown["fewest moves"] == str(len(line)) and ":" in shown["best time"]
    assert panel.locator("svg.solo-chart rect.win").count() == 2
    assert panel.locator("svg.solo-chart path.loss").count() == 1
    assert page.locator('.solo-variant[data-cells="2"]').count() == 0  # never played
    # Someone else sees the same statistics (they are public, like the daily results).
    pid = page.evaluate("seahaven.net.playerId")
    other = new_page(browser, name="Ola")
    # link: Sol's page, its address sent to Ola (a game alone lists Sol nowhere to click)
    other.goto(base + f"#/player/{pid}")
    other.locator('.solo-variant[data-cells="4"]').wait_for()
    assert "67%" in other.locator(".solo-stats").inner_text()
    assert other.locator(".follows").count() == 0  # whom Sol follows is Sol's own
    page.mouse.move(2, 2)
    axe_sizes(page, "Player page with solo statistics and the name form")
    shoot_at(page, "player-solo", ".solo-stats")
    for p in (page, other):
        assert js_errors(p) == []


@pytest.fixture
def sockets() -> Iterator[contextlib.ExitStack]:
    """The test's own sockets, each closed when it ends."""
    with contextlib.ExitStack() as stack:
        yield stack


def hello(sockets: contextlib.ExitStack, url: str, name: str) -> tuple[ClientConnection, str]:
    ws = sockets.enter_context(connect(url))
    ws.send(json.dumps({"type": "hello", "name": name}))
    while True:
        msg = json.loads(ws.recv(timeout=5))
        if msg["type"] == "welcome":
            return ws, str(msg["player_id"])


def rank_today(keys: Keys, pid: str, name: str, ms: int) -> None:
    """A ranked finish of today's daily, as the leaderboard script writes it."""
    date = today().isoformat()
    at = int(dt.datetime.now(dt.UTC).timestamp() * 1000) - 60_000
    member = member_of(at + ms, pid)
    entry: dict[str, Any] = {"player_id": pid, "name": name, "time_ms": ms, "moves": 90}
    entry |= {"replay_id": f"r{pid}", "finished_at": at + ms, "member": member}
    r = redis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        r.hset(keys.leaderboard_entries(date, "daily"), pid, json.dumps(entry))
        r.zadd(keys.leaderboard_rank(date, "daily"), {member: score_of(ms, 90)})
        r.zadd(keys.player_days(pid), {date: dt.date.fromisoformat(date).toordinal()})
    finally:
        r.close()


def test_following_a_friend(
    server: tuple[ServerProc, Keys], browser: Browser, sockets: contextlib.ExitStack
) -> None:
    srv, keys = server
    base = srv.http_url + "/"
    bob_ws, bob = hello(sockets, srv.ws_url, "Bob")
    cy_ws, cy = hello(sockets, srv.ws_url, "Cy")
    dan_ws, _dan = hello(sockets, srv.ws_url, "Dan")
    rank_today(keys, bob, "Bob", 200_000)
    rank_today(keys, cy, "Cy", 150_000)
    page = open_home(browser, base, name="Ann", width=1366, height=768)
    go(page, "daily")
    star = page.locator(f'.lb [data-follow="{bob}"]')
    star.wait_for()
    assert star.get_attribute("aria-pressed") == "false"
    star.click()
    page.wait_for_function(
        f"document.querySelector('.lb [data-follow=\"{bob}\"]')?.getAttribute('aria-pressed')"
        " === 'true'"
    )
    # The Friends tab: Bob alone (Cy, who is faster, is not followed), with Bob's real rank.
    page.locator('label:has(input[value="friends"])').click()
    page.wait_for_function("document.querySelectorAll('.lb tbody tr').length === 1")
    row = page.locator(".lb tbody tr").inner_text()
    assert "Bob" in row and row.strip().startswith("2") and "Cy" not in row
    page.mouse.move(2, 2)
    axe_sizes(page, "Daily, the Friends tab")
    shoot_at(page, "daily-friends", ".lb")
    page.locator('label:has(input[value="all"])').click()
    page.wait_for_function("document.querySelectorAll('.lb tbody tr').length === 2")
    # Bob's page says so, and follows back and forth from there.
    open_player(page, bob)  # his name on the board
    button = page.locator(f'.profile-head [data-follow="{bob}"]')
    button.wait_for()
    assert "Following" in button.inner_text()
    button.click()
    page.wait_for_function(
        f"document.querySelector('.profile-head [data-follow=\"{bob}\"]')?.textContent"
        ".includes('Follow') && !document.querySelector('.profile-head [data-follow]')"
        ".textContent.includes('Following')"
    )
    page.locator(f'.profile-head [data-follow="{bob}"]').click()
    page.wait_for_function("seahaven.friends.has(" + json.dumps(bob) + ")")
    # Our own page lists Bob; Bob's page shown to Cy has no list of Ann's.
    go(page, "player")
    page.locator(".follows .follow-list a").wait_for()
    assert page.locator(".follows").inner_text().count("Bob") == 1
    # Friends racing now: Bob's public room, not Dan's, never Cy's private one.
    bob_ws.send(json.dumps({"type": "create_room", "cells": 4, "public": True}))
    cy_ws.send(json.dumps({"type": "create_room", "cells": 4}))
    dan_ws.send(json.dumps({"type": "create_room", "cells": 4, "public": True}))
    rooms = {}
    for name, ws in (("bob", bob_ws), ("cy", cy_ws), ("dan", dan_ws)):
        while name not in rooms:
            msg = json.loads(ws.recv(timeout=5))
            if msg["type"] == "snapshot":
                rooms[name] = msg["room_id"]
    go(page, "watch")
    page.wait_for_function(
        '(ids) => ids.every((id) => document.querySelector(`.live-room[data-room="${id}"]`))',
        arg=[rooms["bob"], rooms["dan"]],
        timeout=10_000,
    )
    friends = page.locator(".friends-racing")
    friends.wait_for()
    assert friends.locator(".live-room").count() == 1
    assert friends.locator(f'.live-room[data-friend="{rooms["bob"]}"]').count() == 1
    assert rooms["cy"] not in page.locator(".live-rooms").inner_text()
    assert page.locator(f'[data-friend="{rooms["dan"]}"]').count() == 0
    assert js_errors(page) == []


def test_the_daily_asks_a_name_and_the_player_page_edits_it(
    server: tuple[ServerProc, Keys], browser: Browser
) -> None:
    """Someone who never chose a name is asked for one before a running day's game (the
    name the time is ranked under); the player page edits it, for the next game."""
    srv, _keys = server
    base = srv.http_url + "/"
    page = open_home(browser, base)  # no name chosen: a made-up "Player NNNN"
    page.on("dialog", lambda d: d.accept())
    go(page, "daily")
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    form = page.locator('[data-k="ask-name"]')
    for _ in range(2):
        # A press that a late redraw of the tiles took is pressed again, as a person would.
        page.locator(".deal-tile").first.get_by_role("button", name="Start").click()
        with contextlib.suppress(PlaywrightTimeout):
            form.wait_for(timeout=10_000)
            break
    form.wait_for()
    # Half typed, the form stays while the page's late answers come (our own results of the
    # day; a message of the game `/` dealt): they once wiped it, and the name with it.
    form.locator("input").fill("Zo")
    page.evaluate(
        "async () => { await seahaven.views.daily.loadMine();"
        " seahaven.views.daily.onGame('snapshot'); }"
    )
    assert form.locator("input").input_value() == "Zo"
    axe_sizes(page, "Daily, the name asked")
    assert page.evaluate("seahaven.game.mode") != "daily"  # nothing revealed yet
    form.locator("input").fill("Zoe")
    form.get_by_role("button", name="Save and start").click()
    page.wait_for_function(
        "seahaven.game.mode === 'daily' && seahaven.game.me()?.name === 'Zoe'", timeout=10_000
    )
    pid = page.evaluate("seahaven.net.playerId")
    # A chosen name is not asked again.
    go(page, "daily")
    page.locator(".deal-tile").nth(1).get_by_role("button", name="Start").click()
    page.wait_for_function("seahaven.game.daily?.kind === 'hard'", timeout=10_000)
    assert page.locator('[data-k="ask-name"]').count() == 0
    # The player page: name·tag, and an edit that applies from the next game on.
    go(page, "player")
    head = page.locator(".profile-head h2")
    head.wait_for()
    assert head.inner_text().startswith(f"Zoe·{pid[-4:]}")
    rename = page.locator('[data-k="rename"]')
    rename.locator("input").fill("Zed")
    rename.get_by_role("button", name="Save").click()
    page.locator("#toast").filter(has_text="next game").wait_for()
    page.evaluate("seahaven.views.play.start({cells: 4})")
    page.wait_for_function(
        "seahaven.game.mode === 'solo' && seahaven.game.me()?.name === 'Zed'", timeout=10_000
    )
    assert page.evaluate("seahaven.net.playerId") == pid  # the same player, renamed
    assert js_errors(page) == []
