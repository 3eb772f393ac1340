"""The tests, one folder per package: engine/, protocol/, server/ and web/ (the web client).

Support that several folders use sits here: ``serverproc`` (real server processes and a
protocol client; the benchmarks use it too) and ``cli`` (the ``seahaven`` command).
"""

from __future__ import annotations

from pathlib import Path

#: The repository's root folder (commands run from there).
ROOT = Path(__file__).resolve().parent.parent
