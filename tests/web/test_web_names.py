"""Two players named alike are told apart: rooms and leaderboards show a short stable tag
after each name (Ann·4f2c), taken from the player id."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.helpers.pages import (
    create_race,
    needs_chromium,
    new_page,
    open_home,
    wait_ready,
)
from tests.helpers.serverproc import ServerProc

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = needs_chromium  # the browser marker comes from what a test uses (tests/conftest.py)


def test_two_racers_named_alike_are_told_apart(web_server: ServerProc, browser: Browser) -> None:
    base = web_server.http_url + "/"
    first = open_home(browser, base, name="Ann")
    second = new_page(browser, name="Ann")
    create_race(first)
    invite = first.locator(".invite input")
    invite.wait_for()
    second.goto(invite.input_value())  # link: the first Ann's invite
    wait_ready(second)
    first.wait_for_function("seahaven.game.racers().filter(p => !p.gone).length === 2")
    names = first.locator(".players li .name").all_inner_texts()
    ids = first.evaluate("seahaven.game.racers().map(p => p.player_id)")
    tags = [name.split("·", 1)[1].split(" ")[0] for name in names]
    assert all(name.startswith("Ann·") for name in names), names
    assert len(set(tags)) == 2 and sorted(tags) == sorted(pid[-4:] for pid in ids)
    for page in (first, second):
        page.context.close()
