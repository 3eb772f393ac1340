"""A win worth sharing, the Watch page's list of public races, and the player page, in a real
browser against a real server and Redis.

The games are played through the page's own connection (what a drag sends), at a person's
pace where a daily ranks; the win banner then offers the next game and a line to share,
which the tests read where it goes: the clipboard, or the phone's share sheet.
"""

from __future__ import annotations

import json
import random
import re
import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import pytest
import redis
from websockets.sync.client import connect

from server.daily.deal import today
from server.daily.leaderboard import member_of, score_of
from server.engine import Board
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.pages import (
    DAILY_ARGS,
    SCREENSHOTS,
    Racer,
    create_race,
    go,
    js_errors,
    load_home,
    needs_chromium,
    new_page,
    open_home,
    play_code,
    resize,
)
from tests.helpers.serverproc import REVIEW_OFF_ENV, ServerProc, redis_url, running_server
from tests.helpers.sharing import CATCH, PLAY, share_line, short_time

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium  # the browser marker comes from what a test uses (tests/conftest.py)

#: A card name standing alone: a shared line or a list showing one gives the deal away.
CARD = re.compile(r"\b[A2-9TJQK][SHDC]\b")
CODE = "SH1-C4-AAAAAAB"


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[ServerProc, Keys]]:
    """A server whose keys (leaderboards, the list of public rooms) are this module's own;
    the pace rules off, so that a scripted daily at 60 ms an action ranks."""
    prefix = f"webtest-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, **REVIEW_OFF_ENV}
    with running_server(redis_url(), args=DAILY_ARGS, env=env) as srv:
        yield srv, Keys(prefix)
    client = redis.Redis.from_url(redis_url(), decode_responses=True)
    keys = list(client.scan_iter(match=prefix + "*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


def shoot(page: Page, name: str) -> None:
    """Screenshots at a laptop's 1366x768 (NAME.png) and a phone's 390x844 (NAME-phone.png)."""
    size = page.viewport_size
    for suffix, width, height in (("", 1366, 768), ("-phone", 390, 844)):
        resize(page, width, height)
        page.screenshot(path=str(SCREENSHOTS / f"{name}{suffix}.png"))
    if size is not None:
        page.set_viewport_size(size)


def check_card(page: Page) -> str:
    """The win's share card: a row per suit, a square per eighth of the game's time, every
    foundation full at the end; no card and no move in it. Returns its text."""
    card = str(page.locator(".banner.win .win-card").get_attribute("data-card"))
    # Drawn on the page square for square.
    assert page.locator(".banner.win .win-card i").count() == 32
    rows = card.split("\n")
    assert [r[0] for r in rows] == ["♠", "♥", "♦", "♣"], card
    for row in rows:
        squares = row[2:]
        assert len(squares) == 8 and set(squares) <= set("⬜🟥🟧🟨🟩"), row
        assert squares[-1] == "🟩", row
    assert not CARD.search(card)
    return card


def test_a_daily_win_celebrates_and_shares_one_line(
    server: tuple[ServerProc, Keys], browser: Browser
) -> None:
    srv, _keys = server
    base = srv.http_url + "/"
    date = today().isoformat()
    code, par = daily_deal(date).code, daily_deal(date).par
    page = new_page(browser, name="Alice", width=1366, height=768)
    page.add_init_script(CATCH)
    load_home(page, base)
    go(page, "daily")
    page.locator(".deal-tile").first.get_by_role("button", name="Start").click()
    page.wait_for_function(f"seahaven.game.code === '{code}' && !!seahaven.game.myBoard()")
    line = list(solve(Board.from_code(code), timeout=20).moves)
    page.evaluate(PLAY, [line[:-1], 60])
    # The last move, with motion allowed: the win is celebrated, once.
    page.emulate_media(reduced_motion="no-preference")
    page.evaluate(PLAY, [line[-1:], 0])
    page.locator(".banner.win").wait_for()
    page.wait_for_function("window.__confetti > 0", timeout=5_000)
    assert page.evaluate("window.__tones") > 0  # the chime: the sound is on by default
    # The rank comes once the server has verified the win; the line says it then.
    page.wait_for_function(
        "document.querySelector('.win-share')?.textContent.includes('#1 of 1')", timeout=10_000
    )
    me = page.evaluate("seahaven.game.me()")
    expected = (
        f"Seahaven daily {date} · {short_time(me['time_ms'])} · {len(line)} moves"
        f" (par {par}) · #1 of 1 · streak 1"
    )
    assert share_line(page) == expected
    assert me["moves"] == len(line)
    shoot(page, "win")
    # Share: the line and the link go to the clipboard; never the code or a card.
    page.locator(".banner.win").get_by_role("button", name="Share").click()
    page.wait_for_function("window.__copied.length === 1")
    copied = page.evaluate("window.__copied[0]")
    card = check_card(page)
    assert copied == f"{card}\n{expected}\n{base}#/daily/{date}"
    assert code not in copied and not CARD.search(copied)
    assert page.locator("#toast").inner_text() == "Copied"
    # No rematch outside a race; the next game of a daily is on the daily page.
    assert page.locator('.banner.win [data-win="rematch"]').count() == 0
    # The chime can be turned off, and that is remembered: the next win is quiet.
    sound = page.locator('.banner.win [data-win="sound"]')
    assert sound.get_attribute("aria-pressed") == "true"
    sound.click()
    page.wait_for_function(
        "document.querySelector('.banner.win [data-win=\"sound\"]')"
        ".getAttribute('aria-pressed') === 'false'"
    )
    assert page.evaluate("localStorage.getItem('seahaven.sound')") == "0"
    page.locator(".banner.win").get_by_role("button", name="Next game").click()
    page.wait_for_function("location.hash === '#/daily'")
    page.locator(".deal-tile").first.wait_for()
    # The setting is kept in local storage (checked above); the next win reads it. No reload
    # here: a reload resumes the finished daily room, and a game typed at once could race
    # that resume (already_in_room), which made this test flaky.
    play_code(page, CODE)
    page.wait_for_function("!!seahaven.game.myBoard()")
    tones = page.evaluate("window.__tones")
    page.evaluate(PLAY, [list(solve(Board.from_code(CODE), timeout=20).moves), 0])
    page.locator(".banner.win").wait_for()
    assert page.locator('.banner.win [data-win="sound"]').get_attribute("aria-pressed") == "false"
    assert page.evaluate("window.__tones") == tones  # celebrated without a sound
    assert js_errors(page) == []


def test_a_win_on_a_phone_goes_to_the_share_sheet_then_the_next_deal(
    server: tuple[ServerProc, Keys], browser: Browser
) -> None:
    srv, _keys = server
    base = srv.http_url + "/"
    page = new_page(browser, name="Bo", width=390, height=844, has_touch=True, is_mobile=True)
    page.add_init_script("window.__sheet = true;" + CATCH)
    load_home(page, base)
    play_code(page, CODE)
    page.wait_for_function("!!seahaven.game.myBoard()")
    line = list(solve(Board.from_code(CODE), timeout=20).moves)
    page.evaluate(PLAY, [line, 0])
    page.locator(".banner.win").wait_for()
    # Reduced motion (as this page asks): nothing falls; the banner is the celebration.
    assert page.evaluate("window.__confetti") == 0
    me = page.evaluate("seahaven.game.me()")
    clock = short_time(me["time_ms"])
    # The solver's line of this deal is its proven par (69): the server calls it perfect.
    assert len(line) == 69 and me["perfect"] is True
    expected = f"Seahaven solitaire · Easy · 4 cells · {clock} · {len(line)} moves · ★ perfect"
    assert share_line(page) == expected
    page.locator(".banner.win").get_by_role("button", name="Share").click()
    page.wait_for_function("window.__shared.length === 1")
    shared = page.evaluate("window.__shared[0]")
    card = check_card(page)
    assert {k: shared[k] for k in ("text", "url")} == {
        "text": f"{card}\n{expected}",
        "url": base + "#/play/" + page.evaluate("seahaven.game.code"),  # its deal, to play
    }
    # The card as a picture too, where the share sheet takes files.
    assert [(f["name"], f["type"]) for f in shared["files"]] == [("seahaven.png", "image/png")]
    assert shared["files"][0]["size"] > 1000
    assert page.evaluate("window.__copied") == []
    # Next game: a new certified deal with as many cells, the clock and moves from zero.
    page.locator(".banner.win").get_by_role("button", name="Next game").click()
    page.wait_for_function(
        f"seahaven.game.code && seahaven.game.code !== '{CODE}' && seahaven.game.mode === 'solo'"
        " && seahaven.game.me().moves === 0 && !!seahaven.game.myBoard()"
    )
    assert page.evaluate("seahaven.game.cells") == 4
    assert page.locator(".banner.win").count() == 0
    assert js_errors(page) == []


def public_race(
    sockets: ExitStack, url: str, names: list[str], moves: list[int]
) -> tuple[str, list[Racer]]:
    """A public room whose racers have played the first ``moves[i]`` actions of a line."""
    host = Racer(sockets.enter_context(connect(url)), names[0])
    host.send({"type": "create_room", "cells": 4, "public": True})
    room = str(host.expect("snapshot")["room_id"])
    racers = [host]
    for name in names[1:]:
        racer = Racer(sockets.enter_context(connect(url)), name)
        racer.send({"type": "join", "room": room, "role": "player"})
        racer.expect("snapshot")
        racers.append(racer)
    if moves:
        host.send({"type": "start"})
        started = host.expect("started")
        line = list(solve(Board.from_code(started["code"]), timeout=20).moves)
        for racer, n in zip(racers, moves, strict=True):
            racer.line = line
            racer.play(line[:n])
    return room, racers


def test_the_watch_page_lists_public_races_and_opens_one(
    server: tuple[ServerProc, Keys], browser: Browser
) -> None:
    srv, _keys = server
    base = srv.http_url + "/"
    alice = open_home(browser, base, name="Alice")
    bob = open_home(browser, base, name="Bob")
    carol = open_home(browser, base, name="Carol", width=1366, height=768)
    # Alice makes a public room; the lobby says so, and offers no live watching.
    go(alice, "race")
    alice.get_by_label("Public room").check()
    alice.get_by_role("button", name="Create a room").click()
    alice.locator(".chip.public").wait_for()
    room = alice.evaluate("seahaven.game.roomId")
    assert alice.evaluate("seahaven.game.public") is True
    options = alice.locator(".watchmode select option").all_inner_texts()
    assert options == ["The boards, late", "Progress only"]
    # Bob makes a private one: it is never listed.
    private = create_race(bob)
    bob.locator(".invite input").wait_for()
    assert bob.evaluate("seahaven.game.public") is False
    # Two public races under way, played from plain sockets.
    url = srv.ws_url
    sockets = ExitStack()
    racing, racers = public_race(sockets, url, ["Mika", "Noor", "Olu"], [24, 15, 9])
    public_race(sockets, url, ["Pia", "Quin"], [31, 40])
    go(carol, "watch")
    carol.wait_for_function(
        '(ids) => ids.every((id) => document.querySelector(`.live-room[data-room="${id}"]`))',
        arg=[room, racing],
    )
    listed = carol.locator(".live-rooms").inner_text()
    assert private not in listed
    assert "Mika" in listed and "Alice" in listed
    assert not CARD.search(listed) and "SH1-" not in listed
    # The list follows the races: a move of Olu's shows within a few seconds.
    row = carol.locator(f'.live-room[data-room="{racing}"]')
    assert "9 moves" in row.inner_text() and "10 moves" not in row.inner_text()
    olu = racers[2]
    olu.play(olu.line[9:10])
    carol.wait_for_function(
        '(id) => document.querySelector(`.live-room[data-room="${id}"]`)'
        "?.textContent.includes('10 moves')",
        arg=racing,
        timeout=10_000,
    )
    carol.mouse.move(2, 2)
    shoot(carol, "watch-list")
    # A click opens the room as a spectator.
    carol.locator(f'.live-room[data-room="{room}"]').click()
    carol.wait_for_function(
        f"location.hash === '#/watch/{room}' && seahaven.game.roomId === '{room}'"
        " && seahaven.game.role === 'spectator'"
    )
    assert carol.locator(".live-rooms").is_hidden()
    assert room in carol.locator(".watch-head h2").inner_text()
    sockets.close()
    for page in (alice, bob, carol):
        assert js_errors(page) == []


def test_the_player_page_draws_its_calendar_and_chart(
    server: tuple[ServerProc, Keys], browser: Browser
) -> None:
    srv, keys = server
    base = srv.http_url + "/"
    page = open_home(browser, base, name="Dora", width=1366, height=768)
    pid = page.evaluate("seahaven.net.playerId")
    results, days = seed_history(keys, pid, "Dora")
    go(page, "player")
    page.locator("svg.chart").wait_for()
    assert page.locator(".profile h2").inner_text().startswith("Dora")
    dots = page.locator("svg.chart circle.dot[data-date]")
    assert dots.count() == len(results)
    played = page.locator('svg.calendar rect[data-played="1"]')
    assert sorted(played.evaluate_all("(rs) => rs.map((r) => r.dataset.date)")) == days
    assert page.locator("svg.calendar rect.today").count() == 1
    stats = page.locator(".profile-races .profile-stats").inner_text()
    assert "12" in stats and "5" in stats
    best = page.locator("table.best").inner_text()
    assert "2:31.0" in best and "6:42.0" in best and "no finish yet" in best
    # Each dot tells its day, time and place.
    first = results[0]
    title = page.locator(f'svg.chart circle.dot[data-date="{first["date"]}"] title').first
    assert short_time(first["time_ms"]) in (title.text_content() or "")
    shoot(page, "player")
    # Someone else's view of Dora's page: her name, her chart, not "(you)".
    other = new_page(browser, name="Eve")
    # link: Dora's page, its address sent to Eve (her seeded days are on no board today)
    other.goto(base + f"#/player/{pid}")
    other.locator("svg.chart").wait_for()
    # With the tag every other page shows beside her name.
    assert other.locator(".profile h2").inner_text() == f"Dora·{pid[-4:]}"
    assert other.locator("svg.chart circle.dot[data-date]").count() == len(results)
    # The daily page links to one's own page.
    go(page, "daily")
    # Clicked once the day's deals and board are drawn: the link sits under the board, and a
    # click while the board fills lands where the link was.
    page.wait_for_function(
        "!!document.querySelector('.daily .lb-body > *')"
        " && !document.querySelector('.daily [data-i18n=\"msg.loading\"]')"
    )
    page.get_by_role("link", name="Your stats").first.click()  # (its result card has one too)
    page.wait_for_function("location.hash === '#/player'")
    page.locator("svg.chart").wait_for()
    for p in (page, other):
        assert js_errors(p) == []


def seed_history(keys: Keys, pid: str, name: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Dora's month as the leaderboards and her race history would hold it: ranked dailies on
    most of the last 30 days (some hard ones), a streak up to yesterday, race results."""
    import datetime as dt

    rng = random.Random(7)
    day = today()
    r = redis.Redis.from_url(redis_url(), decode_responses=True)
    results: list[dict[str, Any]] = []
    days: list[str] = []
    try:
        for n in range(1, 60):
            date = (day - dt.timedelta(days=n)).isoformat()
            if n > 4 and rng.random() < 0.3:
                continue  # a day off (the last four are a streak)
            days.append(date)
            kinds = ["daily", "hard"] if rng.random() < 0.35 else ["daily"]
            for kind in kinds:
                ms = int((150 + rng.random() * 120 + (200 if kind == "hard" else 0)) * 1000)
                at = int(dt.datetime.fromisoformat(date).replace(tzinfo=dt.UTC).timestamp()) * 1000
                member = member_of(at + ms, pid)
                entry = {"player_id": pid, "name": name, "time_ms": ms, "moves": 70 + n % 30}
                entry |= {"replay_id": f"r{n}{kind}", "finished_at": at + ms, "member": member}
                r.hset(keys.leaderboard_entries(date, kind), pid, json.dumps(entry))
                r.zadd(keys.leaderboard_rank(date, kind), {member: score_of(ms, 80)})
                r.zadd(keys.leaderboard_rank(date, kind), {member_of(at, "pfast"): 1})
                if n < 30:
                    results.append({"date": date, "kind": kind, "time_ms": ms})
            r.zadd(keys.player_days(pid), {date: dt.date.fromisoformat(date).toordinal()})
        r.hset(
            keys.player_races(pid),
            mapping={"played": 12, "finished": 9, "won": 5, "best:C4": 151000, "best:C1": 402000},
        )
    finally:
        r.close()
    results.sort(key=lambda x: (x["date"], x["kind"]))
    calendar_from = (day - dt.timedelta(days=90)).isoformat()
    return results, sorted(d for d in days if d >= calendar_from)
