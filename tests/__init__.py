"""The tests, in folders that mirror the code: server/ (one folder per package of server/,
e.g. server/ranked/; a top module's tests at its top), engine/ (server/engine), protocol/,
web/ (the web client), bench/ and deploy/.

What several tests share is in helpers/ (``serverproc``: real server processes and a
protocol client, which the benchmarks use too; ``waits``: the one ``until``; ``cli``: the
``seahaven`` command; ...). A test module imports from there, never from another test
module (tests/test_layout.py holds both rules).
"""

from __future__ import annotations

from pathlib import Path

#: The repository's root folder (commands run from there).
ROOT = Path(__file__).resolve().parent.parent
