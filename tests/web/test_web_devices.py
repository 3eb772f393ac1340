"""A player on several devices, in real Chromium with its virtual authenticator (the
DevTools protocol's WebAuthn domain): a passkey made in one browser context signs a second
context in as the same player (same rating and streak); a transfer code moves the player to
a third; "Sign out everywhere" ends the first context's session; "Delete my player" takes
them off the daily board. Pages run on http://localhost (a browser refuses an IP address as
a passkey's site; on 127.0.0.1 the page says to use localhost)."""

from __future__ import annotations

import json
import secrets
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from websockets.sync.client import connect

from server.engine import Board
from server.engine.solver import solve
from tests.helpers.dailies import daily_deal, wait_daily
from tests.helpers.pages import (
    DAILY_ARGS,
    SCREENSHOTS,
    Racer,
    go,
    js_errors,
    load_home,
    new_page,
    resize,
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
    from playwright.sync_api import Browser, CDPSession, Page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    prefix = f"webtest-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_MIN_MS_PER_ACTION": "20", **REVIEW_OFF_ENV}
    with running_server(redis_url(), args=DAILY_ARGS, env=env) as srv:
        wait_daily(srv)
        yield srv
    drop_keys(prefix)


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as res:
        return json.load(res)


def authenticator(page: Page) -> tuple[CDPSession, str]:
    """Chromium's virtual authenticator on this page's context: a platform passkey
    (resident key, user verification)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    return cdp, str(made["authenticatorId"])


def me(page: Page) -> str:
    return str(page.evaluate("seahaven.net.playerId"))


def shoot_devices(page: Page) -> None:
    """The player page scrolled to Your devices, at a laptop's and a phone's size (and, for
    a look by hand, at four sizes in /tmp/shots-identity)."""
    for suffix, width, height in (("", 1366, 768), ("-phone", 390, 844)):
        resize(page, width, height)
        page.evaluate("document.querySelector('.devices').scrollIntoView()")
        page.screenshot(path=str(SCREENSHOTS / f"player-devices{suffix}.png"))
    shots = Path("/tmp/shots-identity")
    shots.mkdir(parents=True, exist_ok=True)
    for width, height in ((1366, 768), (740, 360), (390, 844), (1920, 1080)):
        resize(page, width, height)
        page.evaluate("document.querySelector('.passkeys').scrollIntoView({block: 'center'})")
        page.screenshot(path=str(shots / f"devices-passkeys-{width}x{height}.png"))


def to_devices(page: Page, url: str) -> None:
    """As a person: open the site (which deals a solo game), then Profile, to the devices."""
    load_home(page, url)
    go(page, "player")
    page.locator(".devices").wait_for()


def test_passkey_transfer_sign_out_and_delete(server: ServerProc, browser: Browser) -> None:
    url = f"http://localhost:{server.port}"
    # Ann, on her first device, wins today's ranked daily (a streak of 1).
    first = new_page(browser, name="Ann")
    first.on("dialog", lambda d: d.accept("laptop") if d.type == "prompt" else d.accept())
    to_devices(first, url)
    ann = me(first)
    token = str(first.evaluate("seahaven.net.token"))
    date = str(_get(url + "/api/daily")["date"])
    line = solve(Board.from_code(daily_deal(date).code), timeout=20).moves
    with connect(f"ws://localhost:{server.port}/ws") as ws:
        racer = Racer(ws, "Ann", token)
        assert racer.player_id == ann
        racer.send({"type": "daily"})
        racer.expect("snapshot")
        for i, text in enumerate(line):
            src, dst = text.split(" ")
            racer.send({"type": "move", "id": i + 1, "src": src, "dst": dst})
            racer.expect("ack")
            time.sleep(0.03)
        assert racer.expect("daily_result")["ranked"] is True
    board = url + f"/api/daily/{date}/leaderboard?kind=daily"
    assert [e["player_id"] for e in _get(board)["entries"]] == [ann]
    mine = _get(url + f"/api/player/{ann}")
    assert mine["streak"] == 1

    # A passkey, made in the first context.
    cdp1, auth1 = authenticator(first)
    first.reload()  # the page finds the authenticator as it loads, still on Profile
    wait_ready(first)
    first.locator(".devices").wait_for()
    first.get_by_role("button", name="Add a passkey").click()
    first.locator(".passkeys li[data-id]").wait_for()
    # Named after the device that made it (headless Chromium on Linux).
    assert "Chrome on Linux" in first.locator(".passkeys").inner_text()
    first.get_by_role("button", name="Show a transfer code").click()
    first.locator('[data-k="code"] svg').wait_for()
    code = first.locator(".transfer-code b").inner_text()
    shoot_devices(first)
    with first.expect_download() as got:
        first.get_by_role("button", name="Download my data").click()
    data = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    assert data["player_id"] == ann and data["profile"]["streak"] == 1
    assert data["name"] == "Ann" and data["pending_review"] == []
    assert [k["name"] for k in data["passkeys"]] == ["Chrome on Linux"]
    assert [r["kind"] for r in data["replays"]] == ["daily"]
    first.get_by_role("button", name="Rename").click()
    first.locator(".passkeys b").get_by_text("laptop").wait_for()

    # The second context holds the same passkey (as a synced passkey would be) and signs in.
    creds = cdp1.send("WebAuthn.getCredentials", {"authenticatorId": auth1})["credentials"]
    assert len(creds) == 1
    second = new_page(browser, name="Someone")
    second.on("dialog", lambda d: d.accept())
    to_devices(second, url)
    assert me(second) != ann
    cdp2, auth2 = authenticator(second)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": creds[0]})
    second.get_by_role("button", name="Sign in with a passkey").click()
    second.wait_for_function(f"seahaven.net.playerId === {ann!r}")
    second.locator(".devices").wait_for()
    theirs = _get(url + f"/api/player/{ann}")
    assert theirs["streak"] == mine["streak"] == 1 and theirs["ratings"] == mine["ratings"]
    second.wait_for_function("document.querySelector('.profile-stats').textContent.includes('1')")

    # A transfer code moves Ann to a third context (its link, the QR code, prefills the code).
    third = new_page(browser, name="Other")
    # link: the transfer code's QR code, scanned on the new device
    third.goto(url + f"/#/claim/{code}")
    wait_ready(third)
    third.locator('.devices input[name="code"]').wait_for()
    assert third.locator('.devices input[name="code"]').input_value() == code
    third.get_by_role("button", name="Sign in", exact=True).click()
    third.wait_for_function(f"seahaven.net.playerId === {ann!r}")
    # Used once: a fourth try is refused, saying so.
    fourth = new_page(browser, name="Late")
    to_devices(fourth, url)
    fourth.locator('.devices input[name="code"]').fill(code)
    fourth.get_by_role("button", name="Sign in", exact=True).click()
    fourth.locator("#toast").get_by_text("used already").wait_for()
    assert me(fourth) != ann

    # A passkey removed (here, a second one of the third context's) leaves the list.
    _cdp3, _auth3 = authenticator(third)
    third.get_by_role("button", name="Add a passkey").click()
    third.wait_for_function("document.querySelectorAll('.passkeys li[data-id]').length === 2")
    third.on("dialog", lambda d: d.accept())
    third.locator(".passkeys li[data-id]").first.get_by_role("button", name="Remove").click()
    third.wait_for_function("document.querySelectorAll('.passkeys li[data-id]').length === 1")
    assert "laptop" in third.locator(".passkeys").inner_text()

    # Sign out everywhere, from the second: the first page says so at once, and a reload
    # does not make it a new player behind its back; it may start as one, by asking.
    second.get_by_role("button", name="Sign out everywhere").click()
    second.locator("#toast").get_by_text("Every other device is signed out").wait_for()
    assert me(second) == ann
    first.locator(".signed-out").get_by_text("Signed out on this device").wait_for()
    first.reload()
    first.locator(".signed-out").wait_for()
    assert first.evaluate("seahaven.net.signedOut") is True
    first.get_by_role("button", name="Start as a new player").click()
    first.wait_for_function(f"seahaven.net.playerId && seahaven.net.playerId !== {ann!r}")
    first.locator("#main .board, .profile").first.wait_for()

    # Delete, from the second: off the daily board, and the page plays as a new player.
    second.get_by_role("button", name="Delete my player").click()
    second.wait_for_function(f"seahaven.net.playerId && seahaven.net.playerId !== {ann!r}")
    assert _get(board)["entries"] == []
    for page in (first, second, third, fourth):
        assert js_errors(page) == []


def test_on_an_ip_address_the_page_says_to_use_localhost(
    server: ServerProc, browser: Browser
) -> None:
    page = new_page(browser, name="Ip")
    to_devices(page, server.http_url)
    note = page.locator('[data-k="ip-note"]').inner_text()
    assert f"http://localhost:{server.port}/#/player" in note
    assert page.get_by_role("button", name="Add a passkey").is_disabled()
