"""``seahaven verify``: exit 0 when a replay verifies, 1 when refuted, 2 when unreadable.

A replay or a day's deal is fetched over real HTTP from a small server on 127.0.0.1; the
day's page is the one the server's own route answers (on the machine's Redis)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.helpers.cli import run_in_process, run_seahaven
from tests.helpers.dailies import daily_deal, plant
from tests.helpers.fakes_http import ask, on_redis, real_front
from tests.helpers.inproc import settings
from tests.helpers.replay_support import edit, honest

CODE = "SH1-C4-AAAAAAA"


def write(tmp_path: Path, data: object, name: str = "replay.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_an_honest_replay_is_verified(tmp_path: Path) -> None:
    replay = honest(CODE, kind="solo")
    out = run_in_process("verify", write(tmp_path, replay.to_json()))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("VERIFIED")
    assert f"{replay.result.moves} moves" in out.stdout


def test_a_forged_time_is_refuted_with_its_reason(tmp_path: Path) -> None:
    replay = honest(CODE, kind="solo")
    forged = edit(replay, result_time_ms=1000)
    out = run_in_process("verify", write(tmp_path, forged.to_json()))
    assert out.returncode == 1
    assert "REFUTED" in out.stdout and "time_mismatch" in out.stdout


def test_a_too_fast_game_is_refuted_and_the_floor_is_an_option(tmp_path: Path) -> None:
    replay = honest(CODE, kind="solo", step_ms=5)
    path = write(tmp_path, replay.to_json())
    out = run_in_process("verify", path)
    assert out.returncode == 1 and "too_fast" in out.stdout
    assert run_in_process("verify", path, "--min-ms-per-action", "5").returncode == 0


def test_an_illegal_log_is_refuted(tmp_path: Path) -> None:
    replay = honest(CODE, kind="solo")
    actions = list(replay.actions)
    actions[3], actions[4] = actions[4], actions[3]
    out = run_in_process("verify", write(tmp_path, edit(replay, actions=tuple(actions)).to_json()))
    # Swapping two actions may keep both legal; then the game still cannot end as claimed.
    assert out.returncode == 1, out.stdout


def test_stdin_is_read(tmp_path: Path) -> None:
    replay = honest(CODE, kind="solo")
    # As its own process: a pipe for standard input, as a shell gives it.
    assert run_seahaven("verify", "-", input=json.dumps(replay.to_json())).returncode == 0


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"code": "SH1-C4-AAAAAAA"}'])
def test_unreadable_replays_exit_2(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    out = run_in_process("verify", str(path))
    assert out.returncode == 2
    assert "not a replay" in out.stderr


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    out = run_in_process("verify", str(tmp_path / "nope.json"))
    assert out.returncode == 2 and "cannot read" in out.stderr


@contextlib.contextmanager
def http_pages(pages: dict[str, bytes]) -> Iterator[tuple[str, list[str | None]]]:
    """A real HTTP server on 127.0.0.1 answering GET of each path of ``pages`` with its
    JSON (else 404), and the Authorization header of each request it got."""
    bearers: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            bearers.append(self.headers.get("Authorization"))
            payload = pages.get(self.path)
            if payload is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bearers
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def http_replay() -> Iterator[tuple[str, list[str | None]]]:
    """A real HTTP server serving one replay at /api/replay/r1 (see :func:`http_pages`)."""
    payload = json.dumps(honest(CODE, kind="solo").to_json()).encode()
    with http_pages({"/api/replay/r1": payload}) as served:
        yield served


def test_a_url_is_fetched_and_verified(http_replay: tuple[str, list[str | None]]) -> None:
    base, _bearers = http_replay
    assert run_in_process("verify", f"{base}/api/replay/r1").returncode == 0
    missing = run_in_process("verify", f"{base}/api/replay/nope")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_a_token_that_begins_with_a_dash_is_sent(
    http_replay: tuple[str, list[str | None]],
) -> None:
    """Tokens are URL-safe base64, so one in 64 begins with ``-``: ``--token -AbC`` must not
    be read as an unknown option."""
    base, bearers = http_replay
    token = "-" + "Ab3_" * 8
    for given in (["--token", token], [f"--token={token}"]):
        out = run_in_process("verify", f"{base}/api/replay/r1", *given)
        assert out.returncode == 0, out.stdout + out.stderr
        assert bearers[-1] == f"Bearer {token}"


async def day_page(prefix: str, date: str) -> bytes:
    """The server's own answer to ``GET /api/daily/DATE`` (its front and route on the
    machine's Redis), the day's deals stored as the server certifies them."""
    plant(prefix, date)
    async with on_redis(settings(env={"SEAHAVEN_KEY_PREFIX": prefix})) as ctx:
        answer = await ask(real_front(ctx), "GET", f"/api/daily/{date}")
    assert answer.status_code == 200, answer.body
    return bytes(answer.body)


def test_a_daily_replay_must_be_on_that_days_deal(tmp_path: Path) -> None:
    """A day's deal is the deployment's secret: checked against its server's
    ``GET /api/daily/DATE`` (public once the day is over), never computed offline."""
    date = "2026-03-14"
    code = daily_deal(date).code
    good = honest(code, daily=(date, "daily"))
    path = write(tmp_path, good.to_json(), "good.json")
    out = run_in_process("verify", path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "the daily deal was not checked: give --server" in out.stdout
    page = asyncio.run(day_page(f"test:verify:{secrets.token_hex(6)}:", date))
    with http_pages({f"/api/daily/{date}": page}) as (base, _bearers):
        out = run_in_process("verify", path, "--server", base)
        assert out.returncode == 0, out.stdout + out.stderr
        assert f"daily challenge of {date}: the deal is that day's ({code})" in out.stdout
        other = daily_deal("2026-03-15").code
        moved = honest(other, daily=(date, "daily"))  # an honest game, under another day
        out = run_in_process(
            "verify", write(tmp_path, moved.to_json(), "moved.json"), "--server", base
        )
        assert out.returncode == 1 and "wrong_deal" in out.stdout
