"""The tests' own layout, so that a newcomer finds a package's tests where the package is and
a test's support where all support is:

- ``tests/server/`` mirrors ``server/``: each of its folders names a package of the server
  (``tests/server/ranked/`` holds the tests of ``server/ranked/``); a test of a module at
  the top of ``server/`` sits at the top of ``tests/server/``. The other folders of
  ``tests/`` each mirror a folder of the repository (``web`` the web client).
- A test module never imports another test module (nor a conftest): what tests share lives
  in ``tests/helpers/``, which holds no test, and fixtures come from the conftests, through
  pytest. A helper kept in a test module ties the importer to that module's fixtures,
  markers and import-time work, and hides it from the next reader.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests import ROOT

TESTS = ROOT / "tests"

#: The folders at the top of tests/ and the folder of the repository each holds the tests
#: of (``helpers`` and ``data`` hold the tests' support and data, no tests).
MIRRORS = {
    "bench": "bench",
    "deploy": "deploy",
    "engine": "server/engine",
    "protocol": "protocol",
    "server": "server",
    "web": "client_web",
}
SUPPORT = {"helpers", "data"}


def _folders(root: Path) -> list[Path]:
    """The folders under ``root`` that hold Python (caches and vendored code aside)."""
    return sorted(
        path
        for path in root.rglob("*")
        if path.is_dir()
        and not ({"__pycache__", "vendor"} & set(path.parts))
        and any(path.glob("*.py"))
    )


def unmirrored(tests: Path, repo: Path) -> list[str]:
    """The folders of ``tests`` that mirror nothing of ``repo``: a folder under
    ``tests/server`` that is no package of ``server/``, a top folder not in :data:`MIRRORS`
    (or whose mirror is gone), and any folder of tests that is not a package."""
    wrong = []
    for top in sorted(p for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"):
        if top.name in SUPPORT:
            continue
        mirror = MIRRORS.get(top.name)
        if mirror is None or not (repo / mirror).is_dir():
            wrong.append(f"tests/{top.name}/ mirrors no folder of the repository")
    for folder in _folders(tests / "server"):
        inner = folder.relative_to(tests / "server")
        if inner.parts and not (repo / "server" / inner / "__init__.py").is_file():
            wrong.append(
                f"tests/server/{inner.as_posix()}/: server/{inner.as_posix()} is no package"
            )
    for folder in _folders(tests):
        if not (folder / "__init__.py").is_file():
            wrong.append(f"{folder.relative_to(tests.parent).as_posix()}/ has no __init__.py")
    return wrong


def test_the_tests_mirror_the_code() -> None:
    assert unmirrored(TESTS, ROOT) == []


def test_a_folder_that_mirrors_nothing_is_caught(tmp_path: Path) -> None:
    (tmp_path / "server" / "ranked").mkdir(parents=True)
    (tmp_path / "server" / "ranked" / "__init__.py").touch()
    tests = tmp_path / "tests"
    for folder in ("server/ranked", "server/rating", "server/ranked/deep", "misc"):
        (tests / folder).mkdir(parents=True)
        (tests / folder / "test_x.py").touch()
        if folder != "server/ranked/deep":
            (tests / folder / "__init__.py").touch()
    (tests / "server" / "__init__.py").touch()
    assert unmirrored(tests, tmp_path) == [
        "tests/misc/ mirrors no folder of the repository",
        "tests/server/ranked/deep/: server/ranked/deep is no package",
        "tests/server/rating/: server/rating is no package",
        "tests/server/ranked/deep/ has no __init__.py",
    ]


def _module_of(path: Path, tests: Path) -> str:
    parts = path.relative_to(tests.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def foreign_imports(path: Path, tests: Path) -> list[str]:
    """The imports of the module at ``path`` (under ``tests``) that take something out of a
    test module or a conftest: anything of ``tests`` but the package itself (its ``ROOT``)
    and ``tests.helpers``."""
    package = _module_of(path, tests).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            # ``from tests import x`` and ``from . import x`` import the module ``x`` too.
            modules = [module] + [f"{module}.{alias.name}" for alias in node.names]
            if module == "tests":
                modules = [m for m in modules if m != "tests.ROOT"]
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            if top != tests.name or module == tests.name:
                continue
            if module == f"{tests.name}.helpers" or module.startswith(f"{tests.name}.helpers."):
                continue
            found.append(f"{path.relative_to(tests.parent).as_posix()}:{node.lineno}: {module}")
    return found


def _python(tests: Path) -> list[Path]:
    return sorted(p for p in tests.rglob("*.py") if "vendor" not in p.parts)


def test_no_test_module_imports_another() -> None:
    found = [line for path in _python(TESTS) for line in foreign_imports(path, TESTS)]
    assert found == [], "move what is shared into tests/helpers/:\n" + "\n".join(found)


def test_an_import_of_a_test_module_or_a_conftest_is_caught(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    (tests / "server" / "daily").mkdir(parents=True)
    module = tests / "server" / "daily" / "test_x.py"
    module.write_text(
        "import os\n"
        "from tests import ROOT\n"
        "from tests.helpers.waits import until\n"
        "from tests.helpers import serverproc\n"
        "from tests.server.daily.test_y import play\n"
        "from tests.server.conftest import RACE_PREFIX\n"
        "import tests.web.test_z\n"
        "from tests.server import test_w\n"
        "from .test_v import line_of\n"
        "from ..conftest import ENV\n"
    )
    assert foreign_imports(module, tests) == [
        "tests/server/daily/test_x.py:5: tests.server.daily.test_y",
        "tests/server/daily/test_x.py:5: tests.server.daily.test_y.play",
        "tests/server/daily/test_x.py:6: tests.server.conftest",
        "tests/server/daily/test_x.py:6: tests.server.conftest.RACE_PREFIX",
        "tests/server/daily/test_x.py:7: tests.web.test_z",
        "tests/server/daily/test_x.py:8: tests.server",
        "tests/server/daily/test_x.py:8: tests.server.test_w",
        "tests/server/daily/test_x.py:9: tests.server.daily.test_v",
        "tests/server/daily/test_x.py:9: tests.server.daily.test_v.line_of",
        "tests/server/daily/test_x.py:10: tests.server.conftest",
        "tests/server/daily/test_x.py:10: tests.server.conftest.ENV",
    ]


def test_the_helpers_hold_no_test() -> None:
    tests = [p.name for p in (TESTS / "helpers").rglob("test_*.py")]
    assert tests == [], "a test belongs beside the code it tests, not among the helpers"


def test_one_until() -> None:
    """Waiting polls through :mod:`tests.helpers.waits` (whose failure says what did not
    happen, within how long): no other module defines an ``until`` of its own."""
    own = TESTS / "helpers" / "waits.py"
    copies = [
        f"{path.relative_to(ROOT).as_posix()}:{node.lineno}"
        for path in _python(TESTS)
        if path != own
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name in ("until", "until_sync", "wait_until")
    ]
    assert copies == [], "use tests.helpers.waits.until"


#: An issue's number in code ("issue", a space or a "#", digits; "issues" too, any case).
#: Code says why, in the game's words; which issue asked for it is the history's to tell.
ISSUE_NUMBER = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)
#: The code's folders and the kinds of file in them.
CODE = ("server", "protocol", "client_web", "tests", "scripts", "bench")
KINDS = {".py", ".js", ".mjs", ".css", ".lua", ".html", ".sh"}


def issue_numbers(paths: list[Path]) -> list[str]:
    """``path:line`` of every line of ``paths`` naming an issue by number."""
    return [
        f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p.name}:{n}"
        for p in paths
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]


def test_no_issue_numbers_in_code() -> None:
    paths = [
        p
        for base in CODE
        for p in sorted((ROOT / base).rglob("*"))
        if p.suffix in KINDS
        and p.is_file()
        and not {".venv", "node_modules", "__pycache__"} & set(p.parts)
    ]
    assert len(paths) > 100  # the walk found the code
    assert issue_numbers(paths) == []


def test_an_issue_number_is_caught(tmp_path: Path) -> None:
    bad = tmp_path / "bad.js"
    word = "issue"  # apart from its number, so that this module is no finding
    bad.write_text(f"// the card ({word} 35) draws this\nconst tissue = 3;\n/* {word}s #12 */\n")
    assert issue_numbers([bad]) == ["bad.js:1", "bad.js:3"]
