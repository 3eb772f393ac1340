"""The browser tests start where people start: a fresh context opens ``/`` (which deals a
game alone) and reaches each screen by the top bar's tabs and the page's buttons. An
address other than ``/`` (a hash route such as ``#/race/ROOM``, an invite's ``?room=``, an
address read off the page) is opened with ``goto`` only where the flow itself is a link a
person follows (an invite, a shared replay, a link in a message), and the call says which
with a comment holding ``link:`` on its line or the line above, e.g.::

    # link: the invite Alice copied to Bob
    bob.goto(invite)

This module reads the browser test modules (no browser) and fails on a ``goto`` of such an
address without that comment, so the rule holds for the next test written.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests import ROOT

WEB_TESTS = ROOT / "tests" / "web"

MARKER = "link:"


def _is_home(arg: ast.expr) -> bool:
    """Whether a ``goto``'s address is plainly the site's ``/``: a string, or a sum of
    names and strings, whose last literal piece ends the address at ``/`` (``url + "/"``)."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value.endswith("/") and "#" not in arg.value and "?" not in arg.value
    if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
        return (
            isinstance(arg.right, ast.Constant)
            and isinstance(arg.right.value, str)
            and arg.right.value == "/"
            and isinstance(arg.left, ast.Name | ast.Attribute)
        )
    return False


def unmarked_links(source: str) -> list[int]:
    """The lines of ``goto`` calls in ``source`` that open an address other than ``/``
    without a ``link:`` comment on the call's lines or on a comment line just above it."""
    return [line for line, marked in deep_links(source) if not marked]


def deep_links(source: str) -> list[tuple[int, bool]]:
    """The ``goto`` calls in ``source`` that open an address other than ``/``: each call's
    first line, and whether a ``link:`` comment says which link it is."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "goto"
            and node.args
        ):
            continue
        if _is_home(node.args[0]):
            continue
        first, last = node.lineno, node.end_lineno or node.lineno
        own = [line.partition("#")[2] for line in lines[first - 1 : last]]
        above = lines[first - 2].strip() if first >= 2 else ""
        if above.startswith("#"):
            own.append(above)
        found.append((first, any(MARKER in comment for comment in own)))
    return sorted(found)


def _modules() -> list[Path]:
    return sorted(WEB_TESTS.glob("test_*.py"))


def test_every_deep_link_is_a_link_a_person_follows() -> None:
    wrong = {path.name: lines for path in _modules() if (lines := unmarked_links(path.read_text()))}
    assert wrong == {}, (
        "a browser test opens a screen by its address instead of by clicks from / (open_home, "
        "go, play_code... in tests/helpers/pages.py); where the flow is a link a person "
        f"follows, say which in a comment with {MARKER!r} on the line above: {wrong}"
    )


def test_the_rule_reads_the_browser_tests() -> None:
    # Every module is read, none left out (the devices' and the arenas' pages among them),
    # and the links their people follow are found in them: the rule is not kept by reading
    # nothing.
    names = {path.name for path in _modules()}
    assert names >= {
        "test_web_journeys.py",
        "test_web_devices.py",
        "test_web_arena.py",
        "test_web_arena_live.py",
        "test_web_arena_returning.py",
    }
    marked = {path.name for path in _modules() if any(ok for _, ok in deep_links(path.read_text()))}
    assert "test_web_devices.py" in marked  # the transfer code's link


def test_a_deep_link_without_its_comment_is_caught() -> None:
    source = """
def test_x(page, url, base, link, room):
    page.goto(url + "/")
    page.goto(base)
    page.goto(url + "/#/race")
    page.goto(base + f"#/watch/{room}")
    page.goto(link)
    # link: the invite the host copied
    page.goto(link)
    page.goto(url + "/?room=AB")  # link: a dead invite in an old message
    page.goto(
        url + "/#/replay/x"
    )
"""
    assert unmarked_links(source) == [4, 5, 6, 7, 11]
