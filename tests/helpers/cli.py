"""Run the ``seahaven`` command as its own process, from the repository's root, or in the
test's own process.

Every test that runs the command goes through here, so there is one place that says how:
this Python, with the module behind the installed ``seahaven`` script. A process costs
about 0.8 s of imports before the command's first line; the tests of what a command
prints and exits with run it in process instead (:func:`run_in_process`: the same
``main``, the same streams as text, the same exit codes), and a few run it as a process
to show that the command itself starts.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from unittest import mock

from server import cli
from tests import ROOT

#: The start of every ``seahaven`` command line the tests run.
SEAHAVEN = (sys.executable, "-m", "server.cli")


def seahaven_command(*args: str) -> list[str]:
    """The argument list of ``seahaven ARGS``."""
    return [*SEAHAVEN, *args]


def run_seahaven(
    *args: str,
    input: str | None = None,
    timeout: float = 60,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``seahaven ARGS`` to its end, with ``input`` on its standard input, and capture its
    output as text. The exit code is the caller's to check.

    Args:
        args: the command's arguments.
        input: its standard input.
        timeout: seconds it may run.
        env: variables added to (or replacing) this process's environment.

    Raises:
        subprocess.TimeoutExpired: it ran longer than ``timeout`` seconds.
    """
    return subprocess.run(
        seahaven_command(*args),
        input=input,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
        env={**os.environ, **env} if env else None,
    )


def start_seahaven(*args: str) -> subprocess.Popen[str]:
    """Start ``seahaven ARGS`` without waiting, its standard output a text pipe (to read line
    by line while it runs). The caller waits for it, with ``communicate``."""
    return subprocess.Popen(seahaven_command(*args), cwd=ROOT, stdout=subprocess.PIPE, text=True)


def run_in_process(
    *args: str, input: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``seahaven ARGS`` here, as :func:`run_seahaven` does in a process: standard input
    ``input``, the output captured as text, the exit code (2 for a usage error, as argparse
    exits) in ``returncode``. Only from a test with no event loop running: a command that
    talks to a server runs its own.

    Args:
        args: the command's arguments.
        input: its standard input.
        env: variables added to (or replacing) this process's environment while it runs.
    """
    stdin = io.TextIOWrapper(io.BytesIO((input or "").encode()), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.dict(os.environ, env or {}),
        mock.patch.object(sys, "stdin", stdin),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        contextlib.chdir(ROOT),
    ):
        try:
            code = cli.main(list(args))
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess([*SEAHAVEN, *args], code, out.getvalue(), err.getvalue())
