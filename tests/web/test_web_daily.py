"""The daily page in a real browser: today's deals, playing one to a win, the leaderboard
with the player's own rank (updated live on another page), and the replay viewer."""

from __future__ import annotations

import datetime as dt
import secrets
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from server.engine import Board, parse_action
from server.engine.solver import solve
from tests.serverproc import ServerProc, redis_url, running_server
from tests.web.pages import (
    SCREENSHOTS,
    SERVE_ARGS,
    Player,
    board_json,
    js_errors,
    needs_chromium,
    new_page,
    wait_ready,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.fixture(scope="module")
def daily_server() -> Iterator[ServerProc]:
    """A server whose leaderboards and replays live under a key prefix of their own."""
    env = {"SEAHAVEN_KEY_PREFIX": f"webtest-{secrets.token_hex(4)}:"}
    with running_server(redis_url(), args=SERVE_ARGS, env=env) as srv:
        yield srv


def _get(url: str) -> Any:
    import json

    with urllib.request.urlopen(url, timeout=5) as res:
        return json.load(res)


def test_daily_win_leaderboard_and_replay(daily_server: ServerProc, browser: Browser) -> None:
    base = daily_server.http_url + "/"
    today = _get(daily_server.http_url + "/api/daily")
    alice = new_page(browser, name="Alice")
    bob = new_page(browser, name="Bob")
    for page in (alice, bob):
        page.goto(base + "#/daily")
        wait_ready(page)
        page.locator(".deal-tile").first.wait_for()
    tiles = alice.locator(".deal-tile")
    assert tiles.count() == 2
    assert today["code"] in tiles.nth(0).inner_text()
    assert today["hard"]["code"] in tiles.nth(1).inner_text()
    assert "Nobody has finished" in bob.locator(".lb-body").inner_text()

    # Alice plays today's deal from the daily page, to a win, by double click and drag.
    tiles.nth(0).get_by_role("button", name="Play").click()
    alice.wait_for_function(
        f"seahaven.game.mode === 'daily' && seahaven.game.code === '{today['code']}'"
        " && !!seahaven.game.myBoard()"
    )
    assert alice.url.endswith("#/play")
    start = Board.from_code(today["code"])
    line = solve(start, timeout=20).moves
    assert line
    board = start.copy()
    p = Player(alice)
    for i, text in enumerate(line):
        p.play(board, text, prefer_double=i % 3 != 0)
    alice.wait_for_function("seahaven.game.me().status === 'finished'")
    assert alice.locator(".banner.won").count() == 1

    # Bob's page, watching the leaderboard, shows Alice's finish without a reload.
    bob.wait_for_function(
        "document.querySelector('.lb-body table.lb tbody')?.textContent.includes('Alice')",
        timeout=10_000,
    )
    # Alice's daily page ranks her first and marks her row.
    alice.goto(base + "#/daily")
    alice.wait_for_function("document.querySelector('table.lb tr.me') !== null", timeout=10_000)
    assert "Alice" in alice.locator("table.lb tr.me").inner_text()
    # (the rank comes with the first answer, the streak with the one centred on Alice)
    alice.wait_for_function(
        "document.querySelector('[data-k=\"myrank\"]').textContent"
        " === 'Your rank: 1 of 1 · daily streak: 1'"
    )
    alice.screenshot(path=str(SCREENSHOTS / "daily.png"), full_page=True)

    # The replay viewer steps through the server's deltas: every step matches the engine.
    alice.locator("table.lb tr.me").get_by_role("link", name="Replay").click()
    alice.wait_for_function("document.querySelector('[data-board=\"replay\"] .pile') !== null")
    steps = int(alice.locator('[data-act="seek"]').get_attribute("max") or 0)
    assert steps == len(line)
    replay_board = Board.from_code(today["code"])
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
    record = _get(daily_server.http_url + f"/api/replay/{replay_id}")
    assert record["actions"][0].startswith(line[0])
    assert alice.locator('[data-k="action"]').inner_text() == f"1. {record['actions'][0]}"
    # Past days: the date picker shows another day's deals and its (empty) leaderboards.
    day = (dt.date.fromisoformat(today["date"]) - dt.timedelta(days=1)).isoformat()
    past = _get(daily_server.http_url + f"/api/daily/{day}")
    bob.locator('input[name="date"]').fill(day)
    bob.get_by_role("button", name="Show").click()
    bob.wait_for_function(
        "(c) => document.querySelector('.deal-tile')?.textContent.includes(c)", arg=past["code"]
    )
    assert bob.locator('[data-k="title"]').inner_text() == f"Challenge of {day}"
    bob.locator('label:has(input[value="hard"])').click()
    bob.wait_for_function("location.hash.endsWith('/hard')")
    bob.wait_for_function("document.querySelector('.lb-body')?.textContent.includes('Nobody')")
    for page in (alice, bob):
        assert js_errors(page) == []
    assert board_json(bob) is None


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
