"""The moderator's page in a real browser: the operator's token typed in and
kept in the tab alone, the flagged players by score and the held finishes, a replay whose
decisions are marked where they matched a reference line, and one click to clear, unflag or
bar, each logged by the server."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest
from websockets.sync.client import connect

from server.engine import Board
from server.engine.solver import solve
from tests.helpers.pages import DAILY_ARGS, Racer, js_errors, needs_chromium, new_page, shoot
from tests.helpers.serverproc import ServerProc, drop_keys, http_request, redis_url, running_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, needs_chromium]

TOKEN = "admin-" + secrets.token_hex(12)


@contextmanager
def own_server() -> Iterator[ServerProc]:
    """A server with keys of its own, the review at its defaults and an admin token."""
    prefix = f"webadmin-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_EVIDENCE_OPTIMAL_STATES": "5000"}
    try:
        with running_server(
            redis_url(), args=[*DAILY_ARGS, "--admin-token", TOKEN], env=env
        ) as srv:
            yield srv
    finally:
        drop_keys(prefix)


def held_daily(srv: ServerProc) -> tuple[str, str]:
    """A script plays today's daily with the solver's line at a machine's pace: held.
    (player, result)"""
    with connect(srv.ws_url, additional_headers={"X-Forwarded-For": "198.51.100.60"}) as ws:
        bot = Racer(ws, "Bot")
        bot.send({"type": "daily"})
        snap = bot.expect("snapshot")
        line = solve(Board.from_code(snap["code"]), timeout=20).moves
        for text in line:  # above the physical floor (50 ms an action), far below a person
            time.sleep(0.07)
            bot.play([text])
        result = bot.expect("daily_result", timeout=120)
        assert result["unranked_reason"] == "pending_review", result
        return bot.player_id, str(result["replay_id"])


def test_the_moderators_page(browser: Browser) -> None:
    with own_server() as srv:
        pid, rid = held_daily(srv)
        page = new_page(browser, width=1366, height=768)
        # link: the operator's page has no button; the moderator opens its address
        page.goto(srv.http_url + "/#/admin")
        # A wrong token: nothing shows, the server's refusal is said.
        page.locator('input[name="token"]').fill("x" * 24)
        page.get_by_role("button", name="Open").click()
        page.get_by_text("The server did not accept this token.").wait_for()
        assert page.evaluate("sessionStorage.getItem('seahaven.adminToken')") is None
        page.locator('input[name="token"]').fill(TOKEN)
        page.get_by_role("button", name="Open").click()
        held = page.locator(f'tr[data-result="{rid}"]')
        held.wait_for(timeout=60_000)
        suspect = page.locator(f'[data-k="suspects"] tr[data-player="{pid}"]')
        suspect.wait_for(timeout=60_000)
        # The token lives in this tab alone: never in local storage, never in the address.
        assert page.evaluate("sessionStorage.getItem('seahaven.adminToken')") == TOKEN
        assert TOKEN not in json.dumps(page.evaluate("Object.assign({}, localStorage)"))
        assert TOKEN not in page.url
        assert "flagged" in suspect.inner_text()

        # The replay: each decision marked where it matched a reference line.
        held.get_by_role("button", name="Replay").click()
        page.locator(".admin-marks li").first.wait_for(timeout=60_000)
        hits = page.locator(".admin-marks li.hit").count()
        assert hits > 10, hits
        assert page.locator(".admin-marks .m-solver").count() > 0
        assert page.locator('[data-board="admin"] .card').count() >= 40
        page.locator(".admin-marks li").nth(5).get_by_role("button").click()
        assert page.locator(".admin-marks li.on").get_attribute("data-step") == "6"
        shoot(page, "admin-replay")
        page.evaluate("window.scrollTo(0, 0)")
        shoot(page, "admin")

        # One click clears the held finish; another lifts the flag. Both are logged.
        held.get_by_role("button", name="Clear").click()
        page.locator(f'tr[data-result="{rid}"]').wait_for(state="detached")
        suspect.get_by_role("button", name="Unflag").click()
        page.locator(f'[data-k="suspects"] tr[data-player="{pid}"] .tag.warn').wait_for(
            state="detached"
        )
        status, log = http_request(srv.http_url + "/api/admin/log", "GET", TOKEN, timeout=5)
        assert status == 200
        assert [(e["action"], e["status"]) for e in log["log"][:2]] == [
            ("unflag", "unflagged"),
            ("clear", "cleared"),
        ]
        assert all(e["by"].startswith("http:") for e in log["log"][:2])
        # Forgetting the token empties the page.
        page.get_by_role("button", name="Forget the token").click()
        page.locator('input[name="token"]').wait_for()
        assert page.evaluate("sessionStorage.getItem('seahaven.adminToken')") is None
        assert js_errors(page) == []
