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


def read_by_the_server() -> set[str]:
    """Settings server code reads: an attribute of that name, anywhere but settings.py, or
    a field of the policy (built from the settings by name in the fair play path)."""
    found: set[str] = set()
    for path in (ROOT / "server").rglob("*.py"):
        if path.name == "settings.py" and path.parent.name == "server":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                found.add(node.attr)
    evidence = (ROOT / "server" / "fairplay" / "evidence.py").read_text(encoding="utf-8")
    assert "Policy.from_settings(ctx.settings)" in evidence  # the policy is the settings'
    found |= {Policy.setting(f.name) for f in fields(Policy)}
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
    # The setting the issue found unread before: only the policy reads it now.
    plain = {a for a in read_by_the_server() if not a.startswith("evidence_")}
    assert "evidence_min_finishes" not in plain
    assert "evidence_min_finishes" in read_by_the_server()
