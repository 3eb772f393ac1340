"""The per-move messages are written faster without changing a byte: ``fast_dumps`` writes
what ``dumps`` writes, the legal moves listed once give the same ``legal`` and ``delta``, and
the session frames a message exactly as ``websockets`` does."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.protocol import State
from websockets.server import ServerProtocol

from server.engine import Board
from server.net import wire
from server.net.session import frame
from tests.helpers.positions import played

# JSON values as the wire builders put them together: no floats (none is sent per move).
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=40)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=10,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=12), values, max_size=8))
def test_fast_dumps_writes_what_dumps_writes(data: dict[str, Any]) -> None:
    # Any text: ASCII, escapes, control characters, other scripts, lone surrogates.
    assert wire.fast_dumps(data) == wire.dumps(data)


def test_fast_dumps_with_names_in_other_scripts() -> None:
    for name in ("Åse", "Ярослава", "สมชาย", "😀", "a\u2028b", "\ud800", "tab\there", 'q"\\'):
        data = {"type": "x", "name": name, "n": 7}
        assert wire.fast_dumps(data) == json.dumps(data, separators=(",", ":"))


@settings(max_examples=60, deadline=None)
@given(played)
def test_listed_once_the_per_move_messages_are_unchanged(game: tuple[int, int, list[int]]) -> None:
    deal, cells, picks = game
    board = Board.deal(deal, cells)
    for n, pick in enumerate(picks):
        legal = board.legal_moves()
        if not legal:
            break
        move = legal[pick % len(legal)]
        delta = board.push(move)
        listed = board.legal_moves()
        # As the builders wrote them before: each asked the board itself.
        plain_legal = json.dumps(
            {
                "moves": {str(s): [str(d) for d in ds] for s, ds in board.targets().items()},
                "send_home": board.can_send_home(),
            },
            separators=(",", ":"),
        )
        assert wire.legal(board) == plain_legal
        before = wire.delta_body("p1", 1, str(move), delta, board, n)
        lost = board.is_lost(listed)
        assert wire.delta_body("p1", 1, str(move), delta, board, n, lost) == before
        assert json.loads("{" + before)["lost"] == lost
        plain_progress = json.dumps(
            {
                "type": "progress",
                "player_id": "p1",
                "round": 1,
                "foundation_cards": sum(board.foundations),
                "moves": board.moves,
                "finished": board.is_won(),
            },
            separators=(",", ":"),
        )
        assert wire.progress_body("p1", 1, board) == plain_progress[1:]


def websockets_frame(text: str) -> bytes:
    """The bytes ``websockets`` writes for a text message on an open server connection."""
    protocol = ServerProtocol()
    protocol.state = State.OPEN
    protocol.send_text(text.encode())
    return b"".join(protocol.data_to_send())


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_a_frame_is_what_websockets_writes(text: str) -> None:
    text = text.encode("utf-8", "replace").decode()  # a message is valid UTF-8
    assert frame(text) == websockets_frame(text)


def test_frames_at_each_length_boundary() -> None:
    # 7-bit, 16-bit and 64-bit payload lengths (RFC 6455 section 5.2).
    for n in (0, 1, 125, 126, 127, 65535, 65536, 70000):
        text = "x" * n
        assert frame(text) == websockets_frame(text), n
    assert frame("é" * 63) == websockets_frame("é" * 63)  # 126 bytes, 63 characters
