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


def _package_docstring_names(init: Path) -> str:
    return ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""


@pytest.mark.parametrize(
    "package",
    sorted(
        p.parent
        for p in (ROOT / "server").rglob("__init__.py")
        if p.parent != ROOT / "server" and any(p.parent.glob("*.py"))
    ),
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_each_package_docstring_names_every_module(package: Path) -> None:
    """A package's docstring is its map: it names each of its modules and subpackages
    (``:mod:`.name```), so a newcomer finds every file from the package's first lines."""
    doc = _package_docstring_names(package / "__init__.py")
    members = [p.stem for p in package.glob("*.py") if p.stem != "__init__"]
    members += [p.name for p in package.iterdir() if (p / "__init__.py").exists()]
    missing = [m for m in sorted(members) if f":mod:`.{m}`" not in doc]
    assert missing == [], f"{package.relative_to(ROOT)}/__init__.py does not name {missing}"


def test_the_architecture_page_lists_every_module() -> None:
    """``docs/architecture.md`` has the tree one line a module: a module added or moved
    without its line there fails here."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    lines = [
        line.split()[0] for line in page.splitlines() if line.startswith(("server/", "protocol/"))
    ]
    twice = sorted({name for name in lines if lines.count(name) > 1})
    assert twice == [], "modules listed twice in docs/architecture.md"
    listed = set(lines)
    modules = {
        p.relative_to(ROOT).as_posix()
        for base in ("server", "protocol")
        for p in (ROOT / base).rglob("*.py")
        if p.name != "__init__.py" or p.parent.name in ("pools", "serve")
    }
    assert sorted(modules - listed) == [], "modules missing from docs/architecture.md"
    assert sorted(listed - modules) == [], "docs/architecture.md lists modules that are gone"
