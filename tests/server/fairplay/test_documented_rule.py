"""docs/fairplay.md is the rule the server runs: every ``evidence_*`` or ``review_*``
setting it names is a setting, and server code reads it (a read in a docstring or a comment
is no read)."""

from __future__ import annotations

import ast
import re
from dataclasses import fields

from server.fairplay.policy import Policy
from server.settings import Settings
from tests import ROOT

NAME = re.compile(r"\b((?:evidence|review)_[a-z_]+[a-z])\b")


def documented() -> set[str]:
    """The settings docs/fairplay.md names."""
    return set(NAME.findall((ROOT / "docs" / "fairplay.md").read_text(encoding="utf-8")))


def attributes(folder: str, *, skip: str = "") -> set[str]:
    """Every attribute name read in server code under ``folder`` (docstrings and comments
    are no reads), but in a file named ``skip``."""
    found: set[str] = set()
    for path in (ROOT / "server" / folder).rglob("*.py"):
        if path.name == skip:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                found.add(node.attr)
    return found


def policy_reads() -> set[str]:
    """The policy's fields that fair play's code reads (``policy.NAME``), outside the
    policy's own module."""
    return {f.name for f in fields(Policy)} & attributes("fairplay", skip="policy.py")


def read_by_the_server() -> set[str]:
    """Settings server code reads: an attribute of that name anywhere but settings.py, or a
    field of the policy that fair play's code reads (the policy is built from the settings
    by name in the fair play path)."""
    found = {a for a in attributes(".", skip="settings.py")}
    evidence = (ROOT / "server" / "fairplay" / "evidence.py").read_text(encoding="utf-8")
    assert "Policy.from_settings(ctx.settings)" in evidence  # the policy is the settings'
    found |= {Policy.setting(name) for name in policy_reads()}
    return found


def test_every_setting_the_doc_names_is_read_by_the_server() -> None:
    names = documented()
    assert {"evidence_min_finishes", "evidence_flag_score", "evidence_window"} <= names
    assert sorted(names - set(Settings.model_fields)) == []
    assert sorted(names - read_by_the_server()) == []


def test_every_policy_field_is_a_setting_with_its_default() -> None:
    for f in fields(Policy):
        setting = Settings.model_fields[Policy.setting(f.name)]
        assert setting.default == f.default, f.name


def test_the_check_sees_a_setting_nobody_reads() -> None:
    # The setting found unread once: only the policy reads it now, and the decision reads
    # the policy's field.
    plain = {a for a in attributes(".", skip="settings.py") if not a.startswith("evidence_")}
    assert "evidence_min_finishes" not in plain
    assert "min_finishes" in policy_reads()
    assert "evidence_min_finishes" in read_by_the_server()
    assert "evidence_no_such_rule" not in read_by_the_server()


def test_every_field_of_the_policy_is_read() -> None:
    # A field nothing reads would be a documented setting that changes nothing.
    unread = [
        f.name
        for f in fields(Policy)
        if f.name not in policy_reads() and Policy.setting(f.name) not in attributes(".")
    ]
    assert unread == []
