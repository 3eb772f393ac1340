"""Journeys as people take them (the layout and the smaller rough edges), each from a fresh
context opening ``/`` (a solo game dealt) and reached by clicks, a link only where the flow
is one (an invite):

- the first visit's introduction is never over the top bar, nor over the cells and
  foundations it asks the player to use, at any size;
- racing on a phone on its side, the top bar and the room's strip take at most a fifth of
  the height, with four racers and German names of buttons;
- Watch opens on the races running now, above the arenas and the room-id form, and a race
  watched late says so where its boards will be;
- Profile leads with the player's own most played mode;
- a dead invite offers a quick race and a game alone, never Accept, and an over race's
  invite its results; the racer's "Your stats" under those results opens Profile on races,
  their most played mode, in view;
- a refused typed code leaves the address alone; the waiting player is counted online; a
  hint's toast goes with the next move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.helpers.pages import (
    SCREENSHOTS,
    create_race,
    go,
    js_errors,
    needs_chromium,
    new_page,
    open_home,
    resize,
    wait_ready,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

    from tests.helpers.serverproc import ServerProc

pytestmark = needs_chromium

#: The sizes every layout here is checked at: a laptop, a phone on its side, a phone held
#: upright, a desktop, and the smallest phone on its side.
SIZES = [(1366, 768), (740, 360), (390, 844), (1920, 1080), (568, 320)]

_RECT = (
    "(sel) => { const r = document.querySelector(sel).getBoundingClientRect(); "
    "return [r.left, r.top, r.right, r.bottom]; }"
)


def _rect(page: Page, sel: str) -> list[float]:
    return list(page.evaluate(_RECT, sel))


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


def _in_view(page: Page, sel: str) -> bool:
    """Whether the element is whole on the screen: inside the window, below the top bar
    (which stays over what scrolls under it), and its centre not under anything else."""
    return bool(
        page.evaluate(
            """(sel) => {
              const el = document.querySelector(sel);
              const r = el.getBoundingClientRect();
              const bar = document.querySelector('.topbar').getBoundingClientRect();
              const top = el.ownerDocument.elementFromPoint(
                (r.left + r.right) / 2, (r.top + r.bottom) / 2);
              return r.top >= bar.bottom - 1 && r.bottom <= innerHeight + 1 && r.left >= 0
                && r.right <= innerWidth + 1 && el.contains(top);
            }""",
            sel,
        )
    )


def test_the_introduction_never_covers_the_top_bar(
    web_server: ServerProc, browser: Browser
) -> None:
    for width, height in SIZES:
        page = open_home(browser, web_server.http_url, skip_intro=False, width=width, height=height)
        page.locator(".intro").wait_for()
        # Placed once the board is drawn (a frame later).
        page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        intro = _rect(page, ".intro")
        assert not _overlap(intro, _rect(page, ".topbar")), (width, height, intro)
        for loc in ("cell1", "cell2", "cell3", "cell4", "found:S", "found:H", "found:D", "found:C"):
            pile = _rect(page, f'.board[data-board="mine"] .pile[data-loc="{loc}"]')
            assert not _overlap(intro, pile), (width, height, loc, intro, pile)
        page.screenshot(path=str(SCREENSHOTS / f"journey-intro-{width}x{height}.png"))
        # Every tab still answers a tap.
        go(page, "rules")
        assert js_errors(page) == []
        page.context.close()


def test_racing_sideways_the_header_takes_at_most_a_fifth(
    web_server: ServerProc, browser: Browser
) -> None:
    host = open_home(browser, web_server.http_url, name="Alexandra", lang="de")
    room = create_race(host)
    link = host.locator(".invite input").input_value()
    for name in ("Bartholomew", "Christina", "Dmitri"):
        guest = new_page(browser, name=name, lang="de")
        guest.goto(link)  # link: the host's invite
        wait_ready(guest)
    host.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 4")
    host.locator('[data-act="start"]').click()
    host.wait_for_function("seahaven.game.state === 'racing'", timeout=15_000)
    host.locator('.board[data-board="mine"] .card').first.wait_for()
    for width, height in [(740, 360), (568, 320), (1366, 768), (390, 844), (1920, 1080)]:
        resize(host, width, height)
        strip = _rect(host, ".race-top")
        if width > height:
            # The room's strip: at most a fifth of the height; at 740x360, the top bar and
            # the strip together too (the smallest phone's top bar takes two lines).
            assert strip[3] - strip[1] <= 0.2 * height, (width, height, strip)
            if width >= 740:
                assert strip[3] <= 0.2 * height, (width, height, strip)
        host.screenshot(path=str(SCREENSHOTS / f"journey-race-{width}x{height}.png"))
    assert room in host.url
    assert js_errors(host) == []


def test_watch_opens_on_live_races_and_a_late_race_says_so(
    web_server: ServerProc, browser: Browser
) -> None:
    host = open_home(browser, web_server.http_url, name="Hana")
    go(host, "race")
    host.locator('[name="public"]').check()
    room = create_race(host)  # public: listed on Watch, its boards late
    guest = new_page(browser, name="Gil")
    guest.goto(host.locator(".invite input").input_value())  # link: the host's invite
    wait_ready(guest)
    host.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    assert host.evaluate("seahaven.game.watch") == "delayed"
    host.locator('[data-act="start"]').click()
    host.wait_for_function("seahaven.game.state === 'racing'", timeout=15_000)

    fan = open_home(browser, web_server.http_url, name="Fay")
    go(fan, "watch")
    row = fan.locator(f'.live-rooms a[data-room="{room}"]')
    row.wait_for(timeout=15_000)
    # The races come first: above the arenas and the form for a room's id.
    order = fan.evaluate(
        "[...document.querySelectorAll('.watch > *')].filter(e => !e.hidden)"
        ".map(e => e.className.split(' ').pop())"
    )
    assert order.index("live-rooms") < order.index("watch-head"), order
    assert _rect(fan, ".live-rooms")[1] < _rect(fan, ".watch-head")[1]
    for width, height in [(1366, 768), (740, 360), (390, 844), (1920, 1080)]:
        resize(fan, width, height)
        fan.screenshot(path=str(SCREENSHOTS / f"journey-watch-list-{width}x{height}.png"))
    resize(fan, 1280, 860)
    row.click()
    fan.wait_for_function("seahaven.game.role === 'spectator'")
    # The boards are 30 s late: the boxes say so where the boards will be.
    note = fan.locator(".mini .late-note").first
    note.wait_for()
    assert "delay" in note.inner_text()
    for width, height in [(1366, 768), (740, 360), (390, 844), (1920, 1080)]:
        resize(fan, width, height)
        fan.screenshot(path=str(SCREENSHOTS / f"journey-watch-late-{width}x{height}.png"))
    assert js_errors(fan) == []


def test_profile_leads_with_the_most_played_mode(web_server: ServerProc, browser: Browser) -> None:
    page = open_home(browser, web_server.http_url)
    page.on("dialog", lambda d: d.accept())
    # A game begun (one move) and given up: a solo game played.
    legal = page.evaluate("seahaven.game.myLegal()")
    src, dsts = next((s, d) for s, d in legal["moves"].items() if d)
    page.evaluate("([s, d]) => seahaven.net.send('move', {src: s, dst: d})", [src, dsts[0]])
    page.wait_for_function("seahaven.game.me().moves === 1")
    page.get_by_role("button", name="Give up").click()
    page.wait_for_function("seahaven.game.me().status === 'gave_up'")
    go(page, "player")
    page.locator(".profile .solo-stats").wait_for()
    modes = page.evaluate(
        "[...document.querySelectorAll('.profile [data-mode]')].map(e => e.dataset.mode)"
    )
    assert modes[0] == "solo", modes
    assert page.locator('.profile [data-mode="solo"] .solo-variant').count() == 1
    for width, height in [(1366, 768), (740, 360), (390, 844), (1920, 1080)]:
        resize(page, width, height)
        # On a phone held upright, the solo statistics begin on the first screen.
        assert _rect(page, '.profile [data-mode="solo"]')[1] < height, (width, height)
        page.screenshot(path=str(SCREENSHOTS / f"journey-profile-{width}x{height}.png"))
    assert js_errors(page) == []


def test_a_dead_invite_offers_the_ways_on(web_server: ServerProc, browser: Browser) -> None:
    # Someone new follows a link to a room that is gone.
    page = new_page(browser)
    page.goto(web_server.http_url + "/?room=ZZZZZZZZ")  # link: an old invite
    card = page.locator('.invite-dead[data-dead="gone"]')
    card.wait_for()
    assert page.get_by_role("button", name="Accept").count() == 0
    assert card.get_by_role("link", name="Play alone").is_visible()
    for width, height in [(1366, 768), (740, 360), (390, 844), (1920, 1080)]:
        resize(page, width, height)
        page.screenshot(path=str(SCREENSHOTS / f"journey-dead-invite-{width}x{height}.png"))
    card.get_by_role("button", name="Quick race").click()
    page.wait_for_function("seahaven.quick.waiting()")
    page.locator(".quick-wait").wait_for()
    page.locator('.quick-wait [data-act="cancel"]').click()
    # A returning player (a name chosen) who follows such a link hears the same.
    known = open_home(browser, web_server.http_url, name="Kim")
    known.goto(web_server.http_url + "/?room=ZZZZZZZY")  # link: an old invite
    wait_ready(known)
    known.locator('.invite-dead[data-dead="gone"]').wait_for()
    known.locator('.invite-dead a[href="#/play"]').click()
    known.locator('.board[data-board="mine"] .card').first.wait_for()
    assert js_errors(page) == [] and js_errors(known) == []


def test_an_over_races_invite_offers_its_results(web_server: ServerProc, browser: Browser) -> None:
    host = open_home(browser, web_server.http_url, name="Olga")
    room = create_race(host)
    link = host.locator(".invite input").input_value()
    guest = new_page(browser, name="Pavel")
    guest.goto(link)  # link: Olga's invite
    wait_ready(guest)
    host.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    host.locator('[data-act="start"]').click()
    for page in (host, guest):
        page.wait_for_function("seahaven.game.state === 'racing'", timeout=15_000)
        page.locator('.board[data-board="mine"] .card').first.wait_for()
    # Both give up: the race is over.
    for page in (host, guest):
        page.once("dialog", lambda d: d.accept())
        page.locator(".race").get_by_role("button", name="Give up").click()
    host.wait_for_function("seahaven.game.state === 'done'", timeout=15_000)
    # Someone new follows the same invite afterwards (it was forwarded late).
    late = new_page(browser)
    late.goto(link)  # link: Olga's invite, forwarded after the race
    card = late.locator('.invite-dead[data-dead="over"]')
    card.wait_for()
    assert card.locator("h2").inner_text() == "This invitation is no longer open"
    assert late.get_by_role("button", name="Accept").count() == 0
    assert card.get_by_role("button", name="Quick race").is_visible()
    assert card.get_by_role("link", name="Play alone").is_visible()
    for width, height in [(1366, 768), (740, 360), (390, 844), (1920, 1080)]:
        resize(late, width, height)
        late.screenshot(path=str(SCREENSHOTS / f"journey-over-invite-{width}x{height}.png"))
    card.get_by_role("link", name="See the results").click()
    late.wait_for_function("(r) => location.hash === '#/watch/' + r", arg=room)
    late.wait_for_function(
        "seahaven.game.role === 'spectator' && seahaven.game.state === 'done'", timeout=15_000
    )
    names = late.evaluate("seahaven.game.racers().map(p => p.name)")
    assert sorted(names) == ["Olga", "Pavel"], names
    # Olga, on a phone on its side, taps "Your stats" under the results: her Profile opens
    # on races, her most played mode (one race, no solo game finished), in view.
    resize(host, 740, 360)
    host.locator(".results-links").get_by_role("link", name="Your stats").click()
    host.wait_for_function("seahaven.currentName === 'player'")
    host.locator('.profile [data-mode="race"]').wait_for()
    modes = host.evaluate(
        "[...document.querySelectorAll('.profile [data-mode]')].map(e => e.dataset.mode)"
    )
    assert modes[0] == "race", modes
    for width, height in [(740, 360), (1366, 768), (390, 844), (1920, 1080)]:
        resize(host, width, height)
        assert _in_view(host, '.profile [data-mode="race"] h3'), (width, height)
        assert _in_view(host, '.profile [data-mode="race"] .profile-stats'), (width, height)
        host.screenshot(path=str(SCREENSHOTS / f"journey-your-stats-{width}x{height}.png"))
    assert js_errors(host) == [] and js_errors(guest) == [] and js_errors(late) == []


def test_a_refused_code_leaves_the_address(web_server: ServerProc, browser: Browser) -> None:
    page = open_home(browser, web_server.http_url)
    go(page, "play")
    before = page.url
    page.locator('.newgame [name="code"]').fill("SH1-C4-NOT-A-CODE")
    page.locator('[data-act="codeform"] button').click()
    page.locator("#toast").wait_for()
    assert "not valid" in page.locator("#toast").inner_text()
    assert page.url == before
    # A good code is dealt, and then the address names it.
    page.locator('.newgame [name="code"]').fill("SH1-C4-AAAAAJ2")
    page.locator('[data-act="codeform"] button').click()
    page.wait_for_function("location.hash === '#/play/SH1-C4-AAAAAJ2'")
    assert page.evaluate("seahaven.game.code") == "SH1-C4-AAAAAJ2"


def test_the_waiting_player_is_counted_online(web_server: ServerProc, browser: Browser) -> None:
    page = open_home(browser, web_server.http_url)
    page.locator('.newgame [data-act="quick"]').click()
    online = page.locator('.quick-wait [data-k="online"]')
    page.wait_for_function(
        "document.querySelector('.quick-wait [data-k=\"online\"]')?.textContent.length > 0"
    )
    assert not online.inner_text().startswith("0 "), online.inner_text()
    for width, height in [(1366, 768), (740, 360), (390, 844), (1920, 1080)]:
        resize(page, width, height)
        page.screenshot(path=str(SCREENSHOTS / f"journey-quick-wait-{width}x{height}.png"))
    page.locator('.quick-wait [data-act="cancel"]').click()


def test_a_hint_toast_goes_with_the_next_move(web_server: ServerProc, browser: Browser) -> None:
    page = open_home(browser, web_server.http_url)
    page.locator('.table-view [data-act="hint"]').click()
    page.wait_for_function("!!seahaven.views.play.table.hintMove", timeout=20_000)
    toast = page.locator("#toast")
    assert toast.is_visible()
    move = str(page.evaluate("seahaven.views.play.table.hintMove"))
    src, dst = move.split(" ")
    page.evaluate("([s, d]) => seahaven.views.play.table.act('move', {src: s, dst: d})", [src, dst])
    page.wait_for_function("seahaven.game.me().moves === 1")
    assert toast.is_hidden()
