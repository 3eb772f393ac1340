"""The web client in a real browser against a real server and Redis: a race and a spectator.

Two browser contexts race the same deal to the finish on a solver line, its first dozen
actions by drag and drop and double click; a third watches both boards; one racer reloads
mid-race and carries on where it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.engine import Board, parse_action
from server.engine.solver import solve
from tests.helpers.pages import (
    SCREENSHOTS,
    Player,
    board_json,
    create_race,
    join_race,
    js_errors,
    needs_chromium,
    new_page,
    open_home,
    send_line,
    shoot,
    wait_ready,
    watch_room,
)
from tests.helpers.serverproc import ServerProc

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = needs_chromium  # the browser marker comes from what a test uses (tests/conftest.py)


#: The actions each racer plays by hand (each a gesture, its delta and three pages drawn
#: again: all 42 of a typical first half took 12 s and 14 CPU-s of a 2-core machine).
BY_HAND = 12


def _state(page: Page) -> str:
    return str(page.evaluate("seahaven.game.state"))


def test_race_two_players_and_a_spectator(web_server: ServerProc, browser: Browser) -> None:
    base = web_server.http_url + "/"
    alice = open_home(browser, base, name="Alice")
    bob = new_page(browser, name="Bob")
    carol = open_home(browser, base, name="Carol")

    # Alice creates a room (Easy, 4 cells) and reads the invite link from the lobby.
    create_race(alice, 4)
    invite = alice.locator(".invite input")
    invite.wait_for()
    link = invite.input_value()
    room = alice.evaluate("seahaven.game.roomId")
    assert link.endswith(f"/?room={room}")

    # Bob follows the invite link; Carol opens the room as a spectator.
    bob.goto(link)  # link: Alice's invite
    wait_ready(bob)
    alice.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    assert alice.locator(".players li").count() == 2
    assert "Bob" in alice.locator(".players").inner_text()
    watch_room(carol, room)
    carol.wait_for_function("seahaven.game.role === 'spectator'")
    chips = carol.locator(".watch-head .chip").all_inner_texts()
    assert [chip.split("·")[0] for chip in chips] == ["Alice", "Bob"]

    # A reload in the lobby keeps Bob's seat (the client takes it again if the server let
    # it go with the old socket).
    bob.reload()
    wait_ready(bob)
    bob.wait_for_function(f"seahaven.game.roomId === '{room}' && seahaven.game.role === 'player'")
    alice.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    bob.wait_for_timeout(200)
    assert bob.locator("#toast").is_hidden()  # no error on the way back
    # Only the host may start; the countdown shows, then everyone races the same deal.
    assert bob.get_by_role("button", name="Start the race").count() == 0
    alice.get_by_role("button", name="Start the race").click()
    bob.wait_for_selector(".countdown", timeout=5_000)
    for page in (alice, bob, carol):
        page.wait_for_function("seahaven.game.state === 'racing'", timeout=10_000)
    # Someone who follows the invite after the start is offered the spectator view.
    dave = new_page(browser)  # new here: asked for a name first
    dave.goto(link)  # link: Alice's invite, followed late
    dave.get_by_label("Your name").fill("Dave")
    dave.get_by_role("button", name="Accept").click()
    dave.wait_for_function("seahaven.game.role === 'spectator'", timeout=10_000)
    assert dave.url.endswith(f"#/watch/{room}")
    dave.context.close()
    code = alice.evaluate("seahaven.game.code")
    assert bob.evaluate("seahaven.game.code") == code
    start = Board.from_code(code)
    assert board_json(alice) == board_json(bob) == _json(start)

    line = solve(start, timeout=20).moves
    assert line, f"the solver found no line for {code}"
    a, b = Player(alice), Player(bob)
    board_a, board_b = start.copy(), start.copy()
    half = len(line) // 2
    # The first dozen actions: the two racers take turns by hand, Alice double clicking
    # where that does the same (test_web_daily plays a whole line by hand, on one page); the
    # rest of the first half goes straight down their sockets.
    by_hand = min(BY_HAND, half)
    for text in line[:by_hand]:
        a.play(board_a, text, prefer_double=True)
        b.play(board_b, text, prefer_double=False)
    for page, board in ((alice, board_a), (bob, board_b)):
        send_line(page, list(line[by_hand:half]))
        for text in line[by_hand:half]:
            board.play(parse_action(text))
        assert board_json(page) == _json(board)
    # Each racer sees the other's progress; the spectator sees both boards, card for card.
    alice.wait_for_function(f"seahaven.game.racers().every(p => p.moves === {board_b.moves})")
    carol.wait_for_function(f"seahaven.game.racers().every(p => p.moves === {board_b.moves})")
    _check_spectator(carol, alice, bob)
    alice.mouse.move(2, 2)  # no hover ring in the picture
    shoot(alice, "race", wide=True)  # race.png 1366x768, race-phone.png 390x844, race-wide.png
    shoot(carol, "spectator", wide=True)  # every board on the screen at each size
    # A reload mid-race resumes the same board.
    before = board_json(bob)
    bob.reload()
    wait_ready(bob)
    bob.wait_for_function("seahaven.game.state === 'racing' && !!seahaven.game.myBoard()")
    assert board_json(bob) == before
    on_table = 52 - sum(before["foundations"].values())
    assert (
        bob.locator(
            '.board[data-board="mine"] .pile.col .card, .board[data-board="mine"] .pile.cell .card'
        ).count()
        == on_table
    )
    # Alice finishes first; Bob (after his reload) finishes second. Each plays a few more
    # moves by hand (Bob's show that his board takes gestures after the reload), then the
    # rest goes straight down their sockets: the first half already played every gesture.
    rest = line[half:]
    for text in rest[:4]:
        a.play(board_a, text, prefer_double=True)
    send_line(alice, list(rest[4:]))
    alice.wait_for_function("seahaven.game.me().status === 'finished'")
    # The banner shows the win at once and the place once `finished` is drawn.
    alice.wait_for_function(
        "document.querySelector('.banner.won')?.textContent.includes('Finished #1')"
    )
    for text in rest[:4]:
        b.play(board_b, text, prefer_double=True)
    send_line(bob, list(rest[4:]))
    for page in (alice, bob, carol):
        page.wait_for_function("seahaven.game.state === 'done'", timeout=10_000)
    assert carol.locator("table.results tbody tr").count() == 2
    results = alice.locator("table.results tbody tr")
    assert results.count() == 2
    assert "Alice" in results.nth(0).inner_text()
    assert "Bob" in results.nth(1).inner_text()
    assert "Finished #2" in bob.locator(".banner.won").inner_text()
    # The win banner: a line to share (time, moves, place; no code), the host's rematch.
    alice_me = alice.evaluate("seahaven.game.me()")
    s = alice_me["time_ms"] // 1000
    # The solver's line is at times a shortest one: then the server marks the win perfect.
    star = " · ★ perfect" if alice_me["perfect"] else ""
    assert alice.locator(".win-share").inner_text() == (
        f"Seahaven race · {s // 60}:{s % 60:02d} · {alice_me['moves']} moves{star} · #1 of 2"
    )
    assert alice.locator('.banner.win [data-win="rematch"]').count() == 1
    assert bob.locator('.banner.win [data-win="rematch"]').count() == 0
    # A spectator who reloads comes back to the finish order (built from the snapshot).
    carol.reload()
    wait_ready(carol)
    carol.wait_for_function("seahaven.game.state === 'done' && seahaven.game.role === 'spectator'")
    assert carol.locator("table.results tbody tr").all_inner_texts()[0].startswith("1\tAlice")
    alice.screenshot(path=str(SCREENSHOTS / "race-results.png"))
    # A racer who reloads on the results keeps his seat, his board and his place.
    bob.reload()
    wait_ready(bob)
    bob.wait_for_function(
        "seahaven.game.state === 'done' && seahaven.game.role === 'player'"
        " && seahaven.game.me()?.status === 'finished' && !!seahaven.game.myBoard()"
    )
    assert "Finished #2" in bob.locator(".banner.won").inner_text()
    assert bob.locator("table.results tbody tr").count() == 2
    alice.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    shoot(bob, "race-results-reloaded")
    # Only the host offers a rematch: one click, a new deal, its countdown at once.
    assert bob.get_by_role("button", name="Rematch").count() == 0
    alice.locator(".race-top").get_by_role("button", name="Rematch").click()
    for page in (alice, bob, carol):
        page.wait_for_function(
            "seahaven.game.round === 2 && ['countdown', 'racing'].includes(seahaven.game.state)",
            timeout=10_000,
        )
    bob.wait_for_function("seahaven.game.role === 'player'")  # his reload kept him a racer
    assert alice.get_by_role("button", name="Start the race").count() == 0
    for page in (alice, bob, carol):
        assert js_errors(page) == []


def _json(board: Board) -> dict[str, Any]:
    data = board.to_json()
    return {"cells": data["cells"], "columns": data["columns"], "foundations": data["foundations"]}


def _check_spectator(carol: Page, alice: Page, bob: Page) -> None:
    """The spectator's two boards show exactly the racers' boards, card for card."""
    for racer in (alice, bob):
        pid = racer.evaluate("seahaven.game.you")
        mine = board_json(racer)
        seen = carol.evaluate(
            f"""(() => {{
              const el = document.querySelector('.mini .board[data-board="{pid}"]');
              const pile = (loc) => [...el.querySelectorAll(`.pile[data-loc="${{loc}}"] .card`)]
                .map(c => c.dataset.card);
              return {{
                columns: [...Array(10).keys()].map(i => pile('col' + (i + 1))),
                cells: [...Array({len(mine["cells"])}).keys()]
                  .map(i => pile('cell' + (i + 1))[0] || null),
              }};
            }})()"""
        )
        assert seen["columns"] == mine["columns"]
        assert seen["cells"] == mine["cells"]


def test_the_host_picks_what_spectators_see(web_server: ServerProc, browser: Any) -> None:
    base = web_server.http_url + "/"
    alice = open_home(browser, base, name="Alice", width=1366, height=768)
    bob = open_home(browser, base, name="Bob")
    carol = open_home(browser, base, name="Carol")
    room = create_race(alice)
    alice.locator(".invite input").wait_for()
    assert alice.evaluate("seahaven.game.code") is None  # a drawn deal is secret in the lobby
    join_race(bob, room)
    # Invite rooms start live; only the host has the picker, every racer reads the choice.
    assert bob.locator(".watchmode select").count() == 0
    assert "every board, move by move" in bob.locator(".watch-explain").inner_text()
    alice.get_by_label("Spectators see").select_option("delayed")
    alice.get_by_label("Delay in seconds").fill("45")
    alice.get_by_label("Delay in seconds").press("Tab")
    bob.wait_for_function("seahaven.game.watch === 'delayed' && seahaven.game.delayS === 45")
    explain = bob.locator(".watch-explain").inner_text()
    assert explain == "Spectators see the boards 45 seconds late."
    alice.wait_for_function("seahaven.game.delayS === 45")
    alice.mouse.move(2, 2)
    alice.screenshot(path=str(SCREENSHOTS / "lobby-watch-mode.png"))
    alice.set_viewport_size({"width": 390, "height": 844})
    alice.screenshot(path=str(SCREENSHOTS / "lobby-watch-mode-phone.png"), full_page=True)
    alice.set_viewport_size({"width": 1366, "height": 768})

    # Progress only: the spectator sees bars during the race, the boards once it is over.
    alice.get_by_label("Spectators see").select_option("progress")
    watch_room(carol, room)
    carol.wait_for_function("seahaven.game.role === 'spectator'")
    assert "only progress" in carol.locator(".watch-explain").inner_text()
    alice.get_by_role("button", name="Start the race").click()
    for page in (alice, bob, carol):
        page.wait_for_function("seahaven.game.state === 'racing'", timeout=10_000)
    code = alice.evaluate("seahaven.game.code")
    line = solve(Board.from_code(code), timeout=20).moves
    Player(alice).play(Board.from_code(code), line[0], prefer_double=False)
    carol.wait_for_function("seahaven.game.racers().some(p => p.moves === 1)")
    assert carol.locator(".mini .board .card").count() == 0
    assert carol.locator(".mini .board").first.inner_text() == (
        "The board is shown when the race is over."
    )
    for page in (alice, bob):
        page.evaluate("seahaven.net.send('give_up')")
    carol.wait_for_function("seahaven.game.state === 'done'", timeout=10_000)
    carol.wait_for_function(
        "document.querySelectorAll('.mini .board .card').length === 104", timeout=10_000
    )
    for page in (alice, bob, carol):
        assert js_errors(page) == []
