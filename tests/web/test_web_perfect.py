"""Perfect games and the fewest-moves board in a real browser, against a real server and Redis.

A win in exactly the deal's proven par is marked perfect on the win screen, in the line to
share and beside the par; the page only shows what the server said (``finished.perfect``).
One move more, and there is no mark. The daily leaderboard switches between the fastest
and the fewest moves, each as the server ranks it.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import pytest
import redis
import redis.asyncio as aioredis
from websockets.sync.client import connect

from server.daily.deal import today
from server.daily.leaderboard import Leaderboard, member_of
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.pages import (
    DAILY_ARGS,
    SCREENSHOTS,
    Racer,
    go,
    join_race,
    js_errors,
    load_home,
    needs_chromium,
    new_page,
    open_home,
    play_code,
    resize,
)
from tests.helpers.perfect import CODE, one_longer, shortest
from tests.helpers.serverproc import REVIEW_OFF_ENV, ServerProc, redis_url, running_server
from tests.helpers.sharing import CATCH, PLAY, share_line, short_time

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[ServerProc, Keys]]:
    prefix = f"webtest-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, **REVIEW_OFF_ENV}
    with running_server(redis_url(), args=DAILY_ARGS, env=env) as srv:
        yield srv, Keys(prefix)
    client = redis.Redis.from_url(redis_url(), decode_responses=True)
    keys = list(client.scan_iter(match=prefix + "*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


def shoot(page: Page, name: str, selector: str | None = None) -> None:
    """Screenshots at 1366x768 (NAME.png) and 390x844 (NAME-phone.png)."""
    for suffix, width, height in (("", 1366, 768), ("-phone", 390, 844)):
        resize(page, width, height)
        if selector:
            page.locator(selector).first.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"{name}{suffix}.png"))


def win(page: Page, base: str, line: list[str], again: bool = False) -> None:
    if again:  # the code typed once more: a new game on the same deal
        page.locator("[data-act='codeform'] [name='code']").fill(CODE)
        page.locator("[data-act='codeform'] [name='code']").press("Enter")
    else:  # from the site's front page, the code typed on Play
        load_home(page, base)
        play_code(page, CODE)
    ready = (
        f"seahaven.game.code === '{CODE}' && !!seahaven.game.myBoard()"
        " && seahaven.game.me().moves === 0"
    )
    try:
        page.wait_for_function(ready)
    except Exception as exc:  # say what the page showed instead
        seen = page.evaluate(
            "({hash: location.hash, code: seahaven.game.code, state: seahaven.game.state,"
            " toast: document.querySelector('#toast')?.innerText})"
        )
        raise AssertionError(f"no new game of {CODE}: the page shows {seen}") from exc
    page.evaluate(PLAY, [line, 0])
    page.locator(".banner.win").wait_for()


def test_a_perfect_win_is_marked_and_one_move_more_is_not(
    server: tuple[ServerProc, Keys], browser: Browser
) -> None:
    srv, _keys = server
    base = srv.http_url + "/"
    page = new_page(browser, name="Pia", width=1366, height=768)
    page.add_init_script(CATCH)
    best = list(shortest(CODE))
    win(page, base, best)
    mark = page.locator(".banner.win [data-k='perfect']")
    mark.wait_for()
    assert "Perfect" in mark.inner_text() and "69" in mark.inner_text()
    # The par under it, once the game is over: proven, so the win could be perfect.
    par = page.locator(".banner.win [data-k='par']")
    par.wait_for()
    assert par.get_attribute("data-optimal") == "1"
    assert par.inner_text() == "Par 69: the proven fewest moves that win this deal"
    me = page.evaluate("seahaven.game.me()")
    assert me["perfect"] is True and me["moves"] == 69
    clock = short_time(me["time_ms"])
    assert share_line(page) == (
        f"Seahaven solitaire · Easy · 4 cells · {clock} · 69 moves · ★ perfect"
    )
    shoot(page, "win-perfect", ".banner.win")
    # One move more: a win, but not perfect; the par still says what perfect was.
    win(page, base, list(one_longer(CODE, tuple(best))), again=True)
    page.locator(".banner.win [data-k='par']").wait_for()
    assert page.locator(".banner.win [data-k='perfect']").count() == 0
    assert "perfect" not in share_line(page)
    assert page.evaluate("seahaven.game.me().moves") == 70
    assert js_errors(page) == []


def seed_board(keys: Keys, date: str) -> list[tuple[str, int, int]]:
    """Today's board written the way the server writes a ranked finish: (pid, ms, moves)."""
    par = daily_deal(date).par
    rows = [("pquick", 95_000, par + 9), ("pexact", 160_000, par), ("plean", 130_000, par + 1)]
    rows += [("pslow", 240_000, par + 3)]

    async def write() -> None:
        client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
        board = Leaderboard(client, keys)
        start = time.time_ns() // 1_000_000
        for n, (pid, ms, moves) in enumerate(rows):
            finished_at = start + n
            entry = {
                "player_id": pid,
                "name": pid[1:].capitalize(),
                "time_ms": ms,
                "moves": moves,
                "replay_id": f"r-{pid}",
                "finished_at": finished_at,
                "member": member_of(finished_at, pid),
            }
            assert (await board.write(date, "daily", entry, streak=False)).status == "ranked"
        await client.aclose()

    # In a thread of its own: the browser's driver runs an event loop in this one.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, write()).result()
    return rows


def test_the_daily_board_switches_to_the_fewest_moves(
    server: tuple[ServerProc, Keys], browser: Browser
) -> None:
    srv, keys = server
    date = today().isoformat()
    srv_daily = srv.get_json("/api/daily")
    assert srv_daily[0] == 200 and srv_daily[1]["par_optimal"] is True
    seed_board(keys, date)
    page = open_home(browser, srv.http_url, name="Vic", width=1366, height=768)
    go(page, "daily")
    names = page.locator(".lb tbody tr .who")
    page.wait_for_function("document.querySelectorAll('.lb tbody tr').length === 4")
    assert page.locator(".lb").get_attribute("data-by") == "time"
    assert [n.split("·")[0] for n in names.all_inner_texts()] == ["Quick", "Lean", "Exact", "Slow"]
    page.locator("label:has([name=by][value=actions])").click()
    page.wait_for_function("document.querySelector('.lb')?.dataset.by === 'actions'")
    assert [n.split("·")[0] for n in names.all_inner_texts()] == ["Exact", "Lean", "Slow", "Quick"]
    ranks = page.locator(".lb tbody tr td:first-child").all_inner_texts()
    assert ranks == ["1", "2", "3", "4"]
    # The perfect finish (moves = the day's proven par) carries the server's mark.
    first = page.locator(".lb tbody tr").first
    assert first.locator("[data-k='perfect']").inner_text() == "Perfect"
    assert page.locator(".lb [data-k='perfect']").count() == 1
    shoot(page, "daily-fewest", ".lb")
    # And back to the fastest.
    page.locator("label:has([name=by][value=time])").click()
    page.wait_for_function("document.querySelector('.lb')?.dataset.by === 'time'")
    assert [n.split("·")[0] for n in names.all_inner_texts()] == ["Quick", "Lean", "Exact", "Slow"]
    assert js_errors(page) == []


def test_the_race_results_say_the_par_and_who_was_perfect(
    server: tuple[ServerProc, Keys], browser: Browser
) -> None:
    srv, _keys = server
    base = srv.http_url + "/"
    with connect(srv.ws_url) as ws:
        host = Racer(ws, "Hal")
        host.send({"type": "create_room", "code": CODE})
        room = str(host.expect("snapshot")["room_id"])
        page = open_home(browser, base, name="Ria", width=1366, height=768)
        join_race(page, room)
        page.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
        host.send({"type": "start"})
        page.wait_for_function(
            "seahaven.game.state === 'racing' && !!seahaven.game.myBoard()", timeout=15_000
        )
        page.evaluate(PLAY, [list(shortest(CODE)), 0])
        page.wait_for_function("seahaven.game.me().status === 'finished'")
        host.send({"type": "give_up"})
        page.wait_for_function("seahaven.game.state === 'done'", timeout=10_000)
    table = page.locator("table.results").first
    table.wait_for()
    par = page.locator("[data-k='par']").first
    assert par.inner_text() == "Par 69: the proven fewest moves that win this deal"
    rows = {
        r.locator("td").nth(1).inner_text().split("·")[0]: r
        for r in table.locator("tbody tr").all()
    }
    assert rows["Ria"].locator("td").nth(3).inner_text().startswith("69")
    assert rows["Ria"].locator("[data-k='perfect']").count() == 1
    assert rows["Hal"].locator("[data-k='perfect']").count() == 0
    shoot(page, "race-results-perfect", "table.results")
    assert js_errors(page) == []
