"""The check after a test run (tests/helpers/leftovers.py): a process that carries the run's
mark and outlives pytest is named, stopped and fails the run; one that ends in time, or
belongs to another run, is left alone."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

from tests.helpers.leftovers import MARK, check, main, marked

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def _start(mark: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(SLEEPER, env={**os.environ, MARK: mark})


def test_a_process_of_the_run_left_running_is_named_and_stopped() -> None:
    mark, other = f"t-{secrets.token_hex(4)}", f"t-{secrets.token_hex(4)}"
    left, elsewhere = _start(mark), _start(other)
    try:
        named = check(mark, grace=0.5)
        assert len(named) == 1 and f"pid {left.pid} " in named[0]
        assert "time.sleep(600)" in named[0]
        left.wait(10)  # stopped by the check (which read its status: Popen cannot)
        assert elsewhere.poll() is None  # another run's: not this check's business
        assert marked(mark) == []
    finally:
        for proc in (left, elsewhere):
            proc.kill()
            proc.wait()


def test_the_command_fails_loudly_only_when_something_is_left(capsys: object) -> None:
    mark = f"t-{secrets.token_hex(4)}"
    assert main([mark, "--grace", "0.2"]) == 0
    left = _start(mark)
    try:
        assert main([mark, "--grace", "0.2"]) == 1
    finally:
        left.kill()
        left.wait()


def test_a_process_that_ends_within_the_grace_is_not_named() -> None:
    mark = f"t-{secrets.token_hex(4)}"
    ending = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(0.5)"], env={**os.environ, MARK: mark}
    )
    try:
        assert check(mark, grace=30) == []
    finally:
        ending.kill()
        ending.wait()
