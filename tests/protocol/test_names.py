"""Names: normalised to NFC and trimmed; invisible, reordering and unassigned characters are
refused with an error that names them (impersonation on a leaderboard needs none of them)."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from protocol.models import REFUSED_IN_NAMES, parse_client


@pytest.mark.parametrize(
    ("name", "char"),
    [
        ("Ann\u200b", "U+200B"),  # zero-width space
        ("\u202eannA", "U+202E"),  # right-to-left override
        ("Ann\u2066", "U+2066"),  # left-to-right isolate
        ("An\u00adn", "U+00AD"),  # soft hyphen
        ("Ann\x07", "U+0007"),  # bell
        ("Ann\ue000", "U+E000"),  # private use
        ("Ann\u2028", "U+2028"),  # line separator
    ],
)
def test_invisible_and_reordering_characters_are_refused(name: str, char: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(char)):
        parse_client('{"type":"hello","name":' + json.dumps(name) + "}")


def test_names_are_nfc_and_trimmed() -> None:
    decomposed = "A\u030ange"  # A + combining ring: looks like Ånge
    name = parse_client('{"type":"hello","name":' + json.dumps(f"  {decomposed} ") + "}")
    assert name.type == "hello" and name.name == "\u00c5nge"
    with pytest.raises(ValidationError, match="visible"):
        parse_client('{"type":"hello","name":' + json.dumps("\u3000") + "}")


def test_names_in_every_script_pass() -> None:
    for text in ("Zoë", "Søren", "Jürgen", "Алёна", "สมชาย", "李雷", "O'Neil-Smith"):
        message = parse_client('{"type":"hello","name":' + json.dumps(text) + "}")
        assert message.type == "hello" and message.name == text


@given(st.text(min_size=1, max_size=24))
def test_an_accepted_name_holds_no_refused_character(text: str) -> None:
    try:
        message = parse_client('{"type":"hello","name":' + json.dumps(text) + "}")
    except ValidationError:
        return
    assert message.type == "hello"
    assert message.name == unicodedata.normalize("NFC", message.name)
    assert message.name and message.name == message.name.strip()
    assert not any(unicodedata.category(c) in REFUSED_IN_NAMES for c in message.name)
