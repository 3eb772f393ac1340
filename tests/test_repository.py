"""The repository stands alone, and its citations of the rules can be checked.

A clone must hold everything it names: the rules are ``docs/RULES.md``, never a folder
beside the checkout. Code, tests and docs cite a rule by the heading of its section in
double quotes, after ``RULES.md``; each such heading must exist, and every section must be
cited by at least one test, so that no rule goes without one. The pre-commit hooks run the
linters of ``scripts/test``, from the checkout.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

from tests import ROOT

RULES = ROOT / "docs" / "RULES.md"
#: Names of places outside the checkout (spelt in two halves so this file names neither).
OUTSIDE = ("../" + "shared", "/work/" + "shared")
#: ``RULES.md, "Heading"``, ``RULES.md: "A", "B"``, ``RULES.md's "Heading" section``.
CITATION = re.compile(r"""RULES\.md(?:'s)?[,:]?\s+((?:"[^"\n]+"(?:,\s*|\s+and\s+)?)+)""")
#: ``RULES.md, Heading`` without the quotes: a citation no test could check.
LOOSE = re.compile(r"""RULES\.md(?:'s)?[,:]\s*(?=[^\s"])""")
QUOTED = re.compile(r'"([^"\n]+)"')
#: This file: its examples of citations, good and bad, are not citations.
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()


@cache
def tracked_texts() -> dict[str, str]:
    """Every git-tracked text file that is present, by its path; binary files and this file
    left out."""
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    texts = {}
    for name in filter(None, listing.split("\0")):
        path = ROOT / name
        if not path.is_file():
            continue  # deleted in the working tree, not yet committed
        data = path.read_bytes()
        if name == SELF or b"\0" in data:
            continue
        try:
            texts[name] = data.decode()
        except UnicodeDecodeError:
            continue
    return texts


def headings() -> set[str]:
    """The section names of docs/RULES.md, without their ``**(project)**`` mark."""
    found = set()
    for line in RULES.read_text().splitlines():
        match = re.match(r"#{2,6} (.+)", line)
        if match:
            found.add(match.group(1).replace("**(project)**", "").strip())
    return found


def citations(text: str) -> list[tuple[int, str]]:
    """Each section a text cites, with the line it is cited on."""
    cited = []
    for match in CITATION.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        cited += [(line, name) for name in QUOTED.findall(match.group(1))]
    return cited


def test_the_repository_has_its_rules() -> None:
    assert RULES.is_file()
    assert "docs/RULES.md" in tracked_texts(), "docs/RULES.md is not tracked"


def test_no_tracked_file_names_a_folder_outside_the_checkout() -> None:
    hits = [
        f"{name}:{text.count(chr(10), 0, text.index(word)) + 1} names {word}"
        for name, text in tracked_texts().items()
        for word in OUTSIDE
        if word in text
    ]
    assert not hits, "a clone has no such folder; cite docs/RULES.md:\n" + "\n".join(hits)


def test_every_section_citation_names_a_heading_of_the_rules() -> None:
    known = headings()
    bad = [
        f"{name}:{line} cites RULES.md {section!r}"
        for name, text in tracked_texts().items()
        for line, section in citations(text)
        if section not in known
    ]
    assert not bad, f"no such section; the sections are {sorted(known)}:\n" + "\n".join(bad)


def test_every_section_citation_quotes_its_heading() -> None:
    loose = [
        f"{name}:{text.count(chr(10), 0, match.start()) + 1}: {text[match.start() :][:40]!r}"
        for name, text in tracked_texts().items()
        for match in LOOSE.finditer(text)
    ]
    assert not loose, 'cite a section as RULES.md, "Heading":\n' + "\n".join(loose)


def test_every_section_of_the_rules_is_cited_by_a_test() -> None:
    cited = {
        section
        for name, text in tracked_texts().items()
        if name.startswith("tests/")
        for _, section in citations(text)
    }
    assert sorted(headings() - cited) == []


@pytest.mark.parametrize(
    ("text", "sections"),
    [
        ('(RULES.md, "Group moves")', ["Group moves"]),
        ('RULES.md: "The deal", "Game codes"', ["The deal", "Game codes"]),
        ('RULES.md\'s "Moves" section', ["Moves"]),
        ('(RULES.md,\n  "Undo")', ["Undo"]),
        ("RULES.md notation", []),
        ("(RULES.md)", []),
    ],
)
def test_citations_are_read_as_written(text: str, sections: list[str]) -> None:
    assert [section for _, section in citations(text)] == sections


def test_a_citation_without_quotes_is_caught() -> None:
    assert LOOSE.search("(RULES.md, Score)")
    assert LOOSE.search("RULES.md: The deal")
    assert not LOOSE.search('(RULES.md, "Score")')
    assert not LOOSE.search("RULES.md notation (RULES.md).")


def test_pre_commit_runs_the_linters_of_scripts_test_from_the_checkout() -> None:
    script = (ROOT / "scripts" / "test").read_text()
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    assert re.findall(r"^  - repo: (.+)$", config, re.M) == ["local"], "nothing to download"
    assert set(re.findall(r"^\s+language: (.+)$", config, re.M)) == {"system"}
    entries = re.findall(r"^\s+entry: (.+)$", config, re.M)
    for linter in ("ruff check", "ruff format --check", "mypy", "lint-imports", "lint-js"):
        assert any(linter in entry for entry in entries), f"no hook runs {linter}"
    for entry in entries:
        assert entry in script, f"scripts/test does not run {entry}"


#: ``[label](target)`` in Markdown, the target without spaces.
MD_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def _heading_anchors(text: str) -> set[str]:
    """The anchors a Markdown renderer gives the headings of ``text``."""
    anchors = set()
    for line in text.splitlines():
        m = re.match(r"^#{1,6} (.*)", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            anchors.add(slug)
    return anchors


def test_every_relative_link_of_the_docs_leads_somewhere() -> None:
    """A link in a tracked Markdown file names a file of the checkout, and a heading of it
    when it has an anchor: a page moved or a section renamed breaks no reader's way."""
    broken = []
    for name, text in tracked_texts().items():
        if not name.endswith(".md") or "/vendor/" in name:
            continue
        here = (ROOT / name).parent
        for target in MD_LINK.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("/"):
                continue  # another site, or a path on the server
            path, _, frag = target.partition("#")
            file = (here / path).resolve() if path else ROOT / name
            if not file.exists():
                broken.append(f"{name}: {target}")
            elif frag and file.suffix == ".md" and frag not in _heading_anchors(file.read_text()):
                broken.append(f"{name}: {target} (no such heading)")
    assert broken == []
