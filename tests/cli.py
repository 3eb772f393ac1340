"""Run the ``seahaven`` command as its own process, from the repository's root.

Every test that runs the command goes through here, so there is one place that says how:
this Python, with the module behind the installed ``seahaven`` script.
"""

from __future__ import annotations

import os
import subprocess
import sys

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
