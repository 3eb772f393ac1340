"""The protocol models: the tagged unions, bounds, forbidden extras and the schema file."""

from __future__ import annotations

import contextlib
import json
import typing

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from protocol import models
from protocol.schema import SCHEMA_PATH, render
from server.engine import REASONS

FIXED_CLIENT: dict[str, dict[str, object]] = {
    "hello": {"name": "ann", "token": "a" * 32},
    "create_room": {"cells": 4},
    "watch_mode": {"mode": "delayed", "delay_s": 45},
    "join": {"room": "ABCD1234", "role": "spectator"},
    "start": {},
    "move": {"id": 1, "src": "col3", "dst": "found"},
    "tap": {"id": 2, "at": "cell1"},
    "double_tap": {"id": 3, "at": "col10"},
    "undo": {"id": 4},
    "send_home": {"id": 6},
    "resume": {"room": "ABCD1234", "token": "a" * 32, "last_seq": 17},
    "leave": {},
    "solo": {"code": "SH1-C4-AAAAAJ2"},
    "daily": {"date": "2026-11-29", "hard": True},
    "watch_leaderboard": {"date": "2026-11-29", "kind": "hard"},
    "hint": {"id": 5},
    "give_up": {},
    "rematch": {},
    "ping": {},
    "queue": {"cells": 2},
    "unqueue": {},
    "accept_bot": {},
    "rated": {"rated": True},
    "create_arena": {"cells": 1, "minutes": 30, "starts_in_s": 600},
    "arena_join": {"arena": "S4-30-29000000"},
    "arena_leave": {},
    "arena_watch": {"arena": "AABCDEFGH"},
    "arena_unwatch": {},
    "arena_pledge": {},
    "passkey_options": {"purpose": "sign_in"},
    "passkey_register": {
        "credential": {"id": "A" * 22, "client_data": "eyJ0", "attestation_object": "o2Nm"},
        "name": "phone",
    },
    "passkey_sign_in": {
        "credential": {
            "id": "A" * 22,
            "client_data": "eyJ0",
            "authenticator_data": "SZYN",
            "signature": "MEUC",
        }
    },
    "list_passkeys": {},
    "passkey_rename": {"id": "A" * 22, "name": "laptop"},
    "passkey_remove": {"id": "A" * 22},
    "transfer_new": {"origin": "http://localhost:8765"},
    "transfer_claim": {"code": "ABCD-EFGH"},
    "sign_out_everywhere": {},
    "delete_player": {"player_id": "p0123456789ab"},
}


def test_schema_file_is_up_to_date() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render(), (
        "protocol/schema.json is stale: run python -m protocol.schema"
    )


@pytest.mark.parametrize("kind", sorted(FIXED_CLIENT))
def test_every_client_message_parses(kind: str) -> None:
    msg = models.parse_client(json.dumps({"type": kind, **FIXED_CLIENT[kind]}))
    assert msg.type == kind
    assert kind in models.CLIENT_TYPES


def test_the_client_union_is_complete() -> None:
    assert set(FIXED_CLIENT) == models.CLIENT_TYPES


@pytest.mark.parametrize("kind", sorted(FIXED_CLIENT))
def test_extra_fields_are_refused(kind: str) -> None:
    with pytest.raises(ValidationError):
        models.parse_client(json.dumps({"type": kind, **FIXED_CLIENT[kind], "bogus": 1}))


@pytest.mark.parametrize(
    "raw",
    [
        '{"type": "nope"}',
        '{"type": "move", "id": 1, "src": "col11", "dst": "found"}',
        '{"type": "move", "id": -1, "src": "col1", "dst": "found"}',
        '{"type": "move", "id": 1, "src": "col1"}',
        '{"type": "hello", "name": ""}',
        '{"type": "hello", "name": "' + "x" * 25 + '"}',
        '{"type": "create_room", "cells": 3}',
        '{"type": "watch_mode", "mode": "delayed", "delay_s": 9}',
        '{"type": "watch_mode", "mode": "delayed", "delay_s": 121}',
        '{"type": "watch_mode", "mode": "hidden"}',
        '{"type": "join", "room": "../../etc", "role": "player"}',
        '{"type": "join", "room": "ABCD", "role": "king"}',
        '{"type": "resume", "room": "ABCD", "token": "short", "last_seq": 0}',
        '{"type": "daily", "date": "29/11/2026"}',
        '{"type": "queue", "cells": 3}',
        '{"type": "queue", "cells": "4"}',
        '{"type": "rated"}',
        '{"type": "rated", "rated": "yes"}',
        '{"type": "create_arena", "cells": 4, "minutes": 0}',
        '{"type": "create_arena", "cells": 4, "minutes": 181}',
        '{"type": "create_arena", "cells": 3, "minutes": 30}',
        '{"type": "create_arena", "cells": 4, "minutes": 30, "starts_in_s": -1}',
        '{"type": "arena_join", "arena": "../x"}',
        '{"type": "arena_join"}',
        "[1, 2]",
        "not json",
    ],
)
def test_bad_client_messages_are_refused(raw: str) -> None:
    with pytest.raises(ValidationError):
        models.parse_client(raw)


def test_server_messages_round_trip() -> None:
    samples = [
        {"type": "welcome", "player_id": "p1", "token": "t" * 32, "name": "ann", "now": 5},
        {"type": "ack", "id": 3, "seq": 9},
        {"type": "reject", "id": 3, "reason": "cell_occupied", "message": "taken"},
        {
            "type": "delta",
            "player_id": "p1",
            "seq": 10,
            "round": 1,
            "action": "col3 found",
            "changes": [{"cards": ["AS"], "src": "col3", "dst": "found:S"}],
            "points": 10,
            "score": 10,
            "undo": False,
            "moves": 1,
            "foundation_cards": 1,
            "finished": False,
            "lost": False,
            "t": 1200,
        },
        {
            "type": "progress",
            "player_id": "p1",
            "seq": 10,
            "round": 1,
            "foundation_cards": 1,
            "moves": 1,
            "finished": False,
        },
        {
            "type": "finished",
            "player_id": "p1",
            "seq": 11,
            "round": 1,
            "time_ms": 99,
            "moves": 80,
            "rank": 1,
        },
        {"type": "countdown", "seq": 4, "round": 1, "starts_at": 1000, "now": 10},
        {"type": "error", "code": "bad_json", "message": "x"},
        {"type": "pong"},
        {"type": "lost", "player_id": "p1"},
        {"type": "hint", "id": 1, "status": "move", "move": "col1 found"},
        {
            "type": "leaderboard",
            "date": "2026-11-29",
            "kind": "daily",
            "finishers": 1,
            "entries": [
                {
                    "rank": 1,
                    "player_id": "p1",
                    "name": "ann",
                    "time_ms": 1,
                    "moves": 2,
                    "replay_id": "r",
                }
            ],
        },
        {
            "type": "arena",
            "arena": {
                "arena_id": "S4-30-29000000",
                "cells": 4,
                "minutes": 30,
                "starts_at": 1,
                "ends_at": 1800001,
                "phase": "running",
                "private": False,
                "players": 12,
            },
            "seat": "pool",
            "now": 5,
        },
        {
            "type": "arena_standings",
            "arena_id": "AABCDEFGH",
            "phase": "over",
            "races": 3,
            "players": 2,
            "top": [
                {
                    "rank": 1,
                    "player_id": "p1",
                    "name": "ann",
                    "points": 9,
                    "streak": 3,
                    "fire": True,
                    "races": 3,
                    "wins": 3,
                    "time_ms": 150000,
                }
            ],
            "you": None,
            "now": 9,
        },
        {"type": "arena_over", "arena_id": "AABCDEFGH", "podium": []},
        {"type": "arena_left", "arena_id": "AABCDEFGH", "reason": "over"},
        {"type": "arena_pledged", "room": "ABCD1234"},
    ]
    for sample in samples:
        msg = models.parse_server(json.dumps(sample))
        assert msg.model_dump(exclude_unset=True) == sample


def test_codes_do_not_clash_with_engine_reasons() -> None:
    assert not set(models.SERVER_REJECT_REASONS) & set(REASONS)


def test_every_unranked_reason_is_explained() -> None:
    assert set(typing.get_args(models.UnrankedReason)) == set(models.UNRANKED_REASONS)


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=5))
def test_random_objects_never_crash_the_parser(obj: dict[str, object]) -> None:
    with contextlib.suppress(ValidationError):
        models.parse_client(json.dumps(obj))
