"""The layers' contracts: the engine is pure, the protocol knows no engine."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests import ROOT

ENGINE = sorted((ROOT / "server" / "engine").glob("*.py"))
# Standard-library modules that do I/O or concurrency have no place in the rules engine.
IMPURE = {"asyncio", "socket", "subprocess", "threading", "multiprocessing", "os", "io",
          "pathlib", "shutil", "tempfile", "sqlite3", "urllib", "http", "selectors", "signal",
          "random"}  # fmt: skip
IMPURE_CALLS = {"open", "print", "input", "exec", "eval"}


def imports(path: Path) -> list[tuple[str, int]]:
    """Top-level module names imported by a file, with relative imports as ''."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name.split(".")[0], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(("" if node.level else (node.module or "").split(".")[0], node.lineno))
    return found


@pytest.mark.parametrize("path", ENGINE, ids=[p.name for p in ENGINE])
def test_engine_imports_only_the_standard_library_and_itself(path: Path) -> None:
    for name, line in imports(path):
        if name in ("", "__future__"):
            continue
        where = f"{path.name}:{line} imports {name}"
        assert name in sys.stdlib_module_names, f"{where}, which is not in the standard library"
        assert name not in IMPURE, f"{where}, which does I/O or concurrency"


@pytest.mark.parametrize("path", ENGINE, ids=[p.name for p in ENGINE])
def test_engine_calls_no_io_builtins(path: Path) -> None:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in IMPURE_CALLS, f"{path.name}:{node.lineno}"


def test_protocol_does_not_import_the_server() -> None:
    for path in sorted((ROOT / "protocol").glob("*.py")):
        for name, line in imports(path):
            assert name not in ("server", "redis", "websockets"), f"{path.name}:{line}"


def test_the_checker_catches_an_impure_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import asyncio\nfrom pydantic import BaseModel\nfrom . import cards\n")
    names = [name for name, _ in imports(bad)]
    assert names == ["asyncio", "pydantic", ""]
    assert "pydantic" not in sys.stdlib_module_names
