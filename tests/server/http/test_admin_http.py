"""The operator's HTTP routes and token, through the server's front and routes on a context
over the machine's Redis (:meth:`server.http.server.HttpFront.respond`, no socket).

- The admin token is a secret: never in a repr, a dump, the log or /metrics, compared in
  constant time.
- Without the token (missing, wrong, or no admin at all on the server) every admin path
  answers exactly what a path that does not exist answers, byte for byte
  (``test_http_front.py``, with the routes' refusals of bad queries).
- The held list is paged: ``limit`` (default 50, at most 500) and ``offset``, with the
  total, over HTTP and on the command line; an action says who took it (the client's
  address).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import SecretStr, ValidationError

from server.fairplay.holds import Holds
from server.http import admin
from server.http.server import HttpFront
from server.settings import Settings
from tests.helpers.cli import run_seahaven
from tests.helpers.fakes_http import ask, body_json, on_redis, real_front
from tests.helpers.inproc import settings
from tests.helpers.serverproc import redis_url

TOKEN = "admin-" + secrets.token_hex(12)


def test_the_admin_token_is_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(admin_token=SecretStr(TOKEN))
    assert isinstance(settings.admin_token, SecretStr)
    assert settings.admin_token.get_secret_value() == TOKEN
    for shown in (
        repr(settings),
        str(settings),
        settings.model_dump_json(),
        str(settings.model_dump()),
    ):
        assert TOKEN not in shown
    with pytest.raises(ValidationError) as refused:
        Settings(admin_token=SecretStr("short-" + "s3cr"))  # under 16: refused, without saying it
    assert "s3cr" not in str(refused.value)
    monkeypatch.setenv("SEAHAVEN_ADMIN_TOKEN", "short-s3cr")  # as a deployment gives it
    with pytest.raises(ValidationError) as refused:
        Settings()
    assert "s3cr" not in str(refused.value) and "admin_token" in str(refused.value)
    monkeypatch.setenv("SEAHAVEN_ADMIN_TOKEN", TOKEN)
    assert Settings().admin_token == SecretStr(TOKEN)
    monkeypatch.setenv("SEAHAVEN_ADMIN_TOKEN", "")  # empty: no admin
    assert Settings().admin_token is None


def test_the_token_is_compared_in_constant_time_and_refused_when_wrong() -> None:
    on = Settings(admin_token=SecretStr(TOKEN))
    assert admin.token_ok(on, f"Bearer {TOKEN}")
    assert admin.token_ok(on, f"bearer  {TOKEN} ")
    for given in (
        "",
        TOKEN,
        f"Bearer {TOKEN}x",
        f"Bearer {TOKEN[:-1]}",
        f"Basic {TOKEN}",
        "Bearer é" + TOKEN,
    ):
        assert not admin.token_ok(on, given), given
    assert not admin.token_ok(Settings(), f"Bearer {TOKEN}")


@pytest.fixture
async def operator(key_prefix: str) -> AsyncIterator[tuple[HttpFront, Holds]]:
    """The front of a server with the admin token, and the operator's actions on its
    stores."""
    given = settings(
        ["--admin-token", TOKEN, "--api-rate", "1000", "--api-burst", "1000"],
        {"SEAHAVEN_KEY_PREFIX": key_prefix},
    )
    async with on_redis(given) as ctx:
        yield real_front(ctx), admin.operator(ctx)


async def held_get(front: HttpFront, query: str) -> tuple[int, dict[str, Any]]:
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    answer = await ask(front, "GET", "/api/admin/held" + query, bearer)
    return answer.status_code, body_json(answer)


async def test_the_held_list_is_paged_with_its_total(
    operator: tuple[HttpFront, Holds], key_prefix: str
) -> None:
    on, holds = operator
    ids = [f"ROOM{i}-1-p{i}" for i in range(7)]
    for i, rid in enumerate(ids):
        await holds.reviews.hold(
            {
                "result": rid,
                "kind": "race",
                "player_id": f"p{i}",
                "score": {"held": True},
                "room": f"ROOM{i}",
                "round": 1,
            }
        )
    page = await holds.held_page(0, 3)
    assert page["total"] == 7 and [h["result"] for h in page["held"]] == ids[:3]
    assert page["next_offset"] == 3

    status, body = await held_get(on, "")
    assert status == 200 and body["total"] == 7 and body["limit"] == 50
    assert [h["result"] for h in body["held"]] == ids
    assert body["offset"] == 0 and body["next_offset"] is None
    status, body = await held_get(on, "?limit=3&offset=3")
    assert [h["result"] for h in body["held"]] == ids[3:6]
    assert (body["total"], body["next_offset"]) == (7, 6)
    status, body = await held_get(on, "?limit=3&offset=6")
    assert [h["result"] for h in body["held"]] == ids[6:]
    assert body["next_offset"] is None
    status, body = await held_get(on, "?offset=70")
    assert (status, body["held"], body["total"]) == (200, [], 7)
    for bad in ("?limit=0", "?limit=501", "?limit=x", "?offset=-1", "?offset=y"):
        status, body = await held_get(on, bad)
        assert status == 400 and body["error"] in ("bad_limit", "bad_offset"), bad
    status, body = await held_get(on, "?limit=500")
    assert status == 200 and body["total"] == 7

    # A decided finish leaves the list and its count.
    await holds.clear(ids[0], "tester")
    status, body = await held_get(on, "?limit=2")
    assert body["total"] == 6 and [h["result"] for h in body["held"]] == ids[1:3]

    out = run_seahaven(
        "admin",
        "held",
        "--limit",
        "2",
        "--offset",
        "4",
        "--json",
        "--redis-url",
        redis_url(),
        "--key-prefix",
        key_prefix,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    listed = json.loads(out.stdout)
    assert [h["result"] for h in listed["held"]] == ids[5:7]
    assert (listed["total"], listed["offset"], listed["next_offset"]) == (6, 4, None)
    out = run_seahaven(
        "admin", "held", "--limit", "2", "--redis-url", redis_url(), "--key-prefix", key_prefix
    )
    assert out.returncode == 0 and "1-2 of 6" in out.stdout and "--offset 2" in out.stdout


async def test_an_action_answers_and_says_who_took_it(
    operator: tuple[HttpFront, Holds], caplog: pytest.LogCaptureFixture
) -> None:
    on, _holds = operator
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    with caplog.at_level(logging.DEBUG):
        barred = await ask(on, "POST", "/api/admin/bar/p-ann", bearer, peer="203.0.113.7")
        again = await ask(on, "POST", "/api/admin/bar/p-ann", bearer, peer="203.0.113.7")
        nothing = await ask(on, "POST", "/api/admin/clear/R9-1-nobody", bearer)
        log = await ask(on, "GET", "/api/admin/log?limit=5", bearer)
        hidden = await ask(on, "GET", "/api/admin/log", {"Authorization": "Bearer " + "x" * 24})
    assert barred.status_code == 200 and body_json(barred)["status"] == "barred"
    assert barred.headers["Cache-Control"] == "no-store"
    assert (again.status_code, body_json(again)["status"]) == (200, "already_barred")
    assert (nothing.status_code, body_json(nothing)["ok"]) == (404, False)
    entries = body_json(log)["log"]
    assert [(e["action"], e["by"]) for e in entries] == [
        ("clear", "http:127.0.0.1"),
        ("bar", "http:203.0.113.7"),
        ("bar", "http:203.0.113.7"),
    ]
    assert hidden.status_code == 404
    # The token is in no log and no /metrics.
    assert TOKEN not in caplog.text
    scraped = await ask(on, "GET", "/metrics")
    assert scraped.status_code == 200 and TOKEN.encode() not in scraped.body
