"""Random and mutated client frames (hypothesis strategies): valid messages with a field
dropped, added or replaced, or their type changed, and text, bytes and JSON of any shape.
Thrown at a socket's checks directly (``tests/server/net/test_session_input.py``) and at a
live game through a server (``tests/server/net/test_server_input.py``)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

TEMPLATES: list[dict[str, Any]] = [
    {"type": "move", "id": 1, "src": "col1", "dst": "cell1"},
    {"type": "move", "id": 2, "src": "cell1", "dst": "col3"},
    {"type": "tap", "id": 3, "at": "col4"},
    {"type": "double_tap", "id": 4, "at": "col2"},
    {"type": "undo", "id": 5},
    {"type": "hint", "id": 6},
    {"type": "join", "room": "ABCDEFGH", "role": "player"},
    {"type": "create_room", "cells": 4},
    {"type": "start"},
    {"type": "rematch"},
    {"type": "resume", "room": "ABCDEFGH", "token": "t" * 32, "last_seq": 0},
    {"type": "hello", "name": "again"},
    {"type": "ping"},
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def mutated(draw: st.DrawFn) -> str | bytes:
    """A valid message with one field dropped, added or replaced, or its type changed."""
    msg = dict(draw(st.sampled_from(TEMPLATES)))
    how = draw(st.sampled_from(["drop", "add", "replace", "retype", "id", "none"]))
    keys = sorted(msg)
    if how == "drop":
        msg.pop(draw(st.sampled_from(keys)))
    elif how == "add":
        msg[draw(st.text(min_size=1, max_size=6))] = draw(json_values)
    elif how == "replace":
        msg[draw(st.sampled_from(keys))] = draw(json_values)
    elif how == "retype":
        msg["type"] = draw(st.sampled_from([t["type"] for t in TEMPLATES] + ["", "MOVE", "x"]))
    elif how == "id":
        msg["id"] = draw(st.integers(min_value=-5, max_value=2**60))
    return json.dumps(msg)


frames = st.one_of(
    mutated(),
    st.text(max_size=60),
    st.binary(max_size=60),
    json_values.map(json.dumps),
)
