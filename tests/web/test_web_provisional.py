"""Provisional players and the address limit in a real browser (no bought ratings): a new player's
results show their rating with "?" and say why; a newcomer past the address's limit reads
why and what to do, in their language, instead of "Offline: reconnecting"."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest
from websockets.sync.client import connect

from server.engine import Board
from server.engine.solver import solve
from tests.helpers.pages import (
    SERVE_ARGS,
    Racer,
    go,
    js_errors,
    needs_chromium,
    new_page,
    open_home,
    send_line,
    shoot,
    wait_ready,
)
from tests.helpers.serverproc import (
    REVIEW_OFF_ENV,
    ServerProc,
    drop_keys,
    redis_url,
    running_server,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, needs_chromium]


@contextmanager
def own_server(*args: str) -> Iterator[ServerProc]:
    """A server with keys of its own, the review off (a line sent at once is rated, not
    held for review)."""
    prefix = f"webprov-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, **REVIEW_OFF_ENV}
    try:
        with running_server(redis_url(), args=[*SERVE_ARGS, *args], env=env) as srv:
            yield srv
    finally:
        drop_keys(prefix)


def test_a_provisional_players_results_show_the_rating_with_a_question_mark(
    browser: Browser,
) -> None:
    with own_server("--pair-fourth-ms", "300", "--bot-offer-ms", "120000") as srv:
        page = open_home(browser, srv.http_url, name="Nora", width=1366, height=768)
        go(page, "race")
        headers = {"X-Forwarded-For": "198.51.100.40"}  # a rival of another address
        with connect(srv.ws_url, additional_headers=headers) as ws:
            rival = Racer(ws, "Rival")
            page.locator(".quick-entry").get_by_role("button", name="Quick race").click()
            rival.send({"type": "queue", "cells": 4})
            started = rival.expect("started", timeout=20)
            line = list(solve(Board.from_code(started["code"]), timeout=20).moves)
            rival.play(line[:12])  # enough actions for the result to count
            page.wait_for_function("seahaven.game.state === 'racing'", timeout=15_000)
            send_line(page, line)
            rival.send({"type": "give_up"})
            page.wait_for_function("seahaven.game.state === 'done' && !!seahaven.game.ratings")
        cell = page.locator("table.results .rating-change[data-provisional]").first
        cell.wait_for()
        assert "?" in cell.inner_text()
        assert "Provisional" in (cell.get_attribute("title") or "")
        # Found again at the call: the results table may have been drawn again meanwhile.
        page.evaluate(
            "document.querySelector('table.results .rating-change[data-provisional]')"
            ".scrollIntoView({block: 'nearest'})"
        )
        shoot(page, "provisional-results")
        # On no public list yet: the top players of the variant are empty.
        status, top = srv.get_json("/api/ratings?cells=4&limit=10")
        assert status == 200 and top["players"] == []
        assert js_errors(page) == []


def test_past_the_address_limit_the_page_says_why_and_what_to_do(browser: Browser) -> None:
    lab = {"X-Forwarded-For": "203.0.113.60"}
    with own_server("--identities-per-address", "1", "--identities-per-hour", "1") as srv:
        first = new_page(browser, name="Pupil", extra_http_headers=lab)
        first.goto(srv.http_url + "/")
        wait_ready(first)
        late = new_page(browser, name="Latecomer", width=1366, height=768, extra_http_headers=lab)
        late.goto(srv.http_url + "/")
        notice = late.locator("#offline.refused")
        notice.wait_for(timeout=10_000)
        text = notice.inner_text()
        assert "network" in text and "min" in text and "reconnecting" not in text
        assert late.locator("#conn").get_attribute("data-state") == "refused"
        assert notice.get_attribute("role") == "alert"
        shoot(late, "address-limit")
        # In the player's language: Russian.
        late.select_option("#lang", "ru")
        late.wait_for_function("document.documentElement.lang === 'ru'")
        assert "сети" in notice.inner_text()
        # The notice stays (a refusal is not an outage that ends by itself in a second).
        late.wait_for_timeout(2500)
        assert notice.is_visible()
        assert js_errors(late) == []
