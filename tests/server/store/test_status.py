"""What a room operation answers is a :class:`~server.store.status.Status`: every word a
script (``server/store/lua``) answers is one (read from the Lua source, so a word added on
one side only fails here), the answer's record is laid out as declared, and every status the
client hears as it is is a documented error code or reject reason."""

from __future__ import annotations

import re

import pytest

from protocol.models import ERROR_CODES, SERVER_REJECT_REASONS
from server.store.status import ANSWER, INTERNAL, Status, status_of
from tests.helpers.luasource import LUA, top_level_split


def test_the_scripts_answer_statuses_laid_out_as_declared() -> None:
    words = set()
    for path in LUA.glob("*.lua"):
        source = path.read_text(encoding="utf-8")
        for answer in re.finditer(r"return \{'(\w+)'(.*)\}", source):
            words.add(answer.group(1))
            rest = answer.group(2).removeprefix(",").strip()
            values = 1 + (len(top_level_split(rest)) if rest else 0)
            assert values <= len(ANSWER), f"{path.name}: {answer.group(0)}"
        words |= set(re.findall(r"return '(\w+)'", source))
    assert words <= {s.value for s in Status}, words - {s.value for s in Status}
    # The move script's answer names its values as the store reads them.
    move = (LUA / "move.lua").read_text(encoding="utf-8")
    assert "return {'ok', seq, rank, first, watch, room_ch and 1 or 0}" in move
    assert ANSWER == ("status", "seq", "rank", "first", "watch", "published")


def test_every_status_the_client_hears_is_documented() -> None:
    heard = {s.value for s in Status if s not in INTERNAL} - {"ok"}
    assert heard <= set(ERROR_CODES) | set(SERVER_REJECT_REASONS)
    assert status_of(b"stale") is Status.STALE and status_of("ok") is Status.OK
    with pytest.raises(ValueError, match="no Status"):
        status_of("teleported")
