"""Every server message is built by one builder in server/net/wire/: each builder's output
validates against its protocol model and equals the example documented for it in
protocol/README.md. Room events whose values only a Lua script knows go through the same
path as in production: a record as the script writes it, read as a ``RoomEvent`` and rendered by
``wire.render``."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from protocol.models import parse_server
from server.engine import Board, parse_action
from server.net import wire
from server.store.events import RoomEvent, stamp
from tests import ROOT

CODE = "SH1-C4-AAAAAAB"
ANN, BOB = "p58ebe34a826e", "pc9e2db6a4a86"


def documented() -> dict[str, dict[str, Any]]:
    """The example of each message type in protocol/README.md ("Examples" block)."""
    text = (ROOT / "protocol" / "README.md").read_text(encoding="utf-8")
    block = text.split("Examples (from a real session", 1)[1].split("```json", 1)[1]
    block = block.split("```", 1)[0]
    examples = {}
    for line in block.strip().splitlines():
        data = json.loads(line)
        examples[data["type"]] = data
    return examples


EXAMPLES = documented()


def record(kind: str, seq: int, *values: object) -> str:
    """A record as the scripts write it (``lua/common.lua``: every value a string)."""
    return json.dumps([kind, str(seq), *(str(v) for v in values)])


def event(full: str, own: str = "") -> RoomEvent:
    """A room-wide event as the scripts store it, around ``full`` (a record or a message)."""
    return RoomEvent.parse(f"\t{full}\t\t\t{own}")


def rendered(kind: str, seq: int, *values: object) -> str:
    """The message the wire makes of a record as the scripts write it."""
    return wire.render(event(record(kind, seq, *values)))


def opening(started: str) -> str:
    """A racer's own view of a ``started`` record: the message with the legal moves."""
    own = wire.own_text(event(started), wire.render(event(started)))
    assert own is not None
    return own


def first_move() -> tuple[Board, Any]:
    board = Board.from_code(CODE)
    delta = board.play(parse_action("col4 found"))
    return board, delta


def built() -> dict[str, str]:
    """One message of every type, from its builder, with the documented example's values."""
    board, delta = first_move()
    members = [wire.member(ANN, "Ann", "player"), wire.member(BOB, "Bob", "player")]
    results = [
        "1",
        wire.result(ANN, "Ann", "finished", 314, 69, True),
        "",
        wire.result(BOB, "Bob", "gave_up", None, 1),
    ]
    # room_values(): the fields (Ann typed the code; spectators watch live; not public, not
    # rated, not paired), then the members
    room_fields = ["2C88GXUH", CODE, 4, "race", "lobby", 1, ANN, 0, 1, "live", 30, 0, 0, 0]
    room_fields += members
    return {
        "welcome": wire.welcome(ANN, "f20A-19M7ZsCj-qzPe1Dv1_a-gkhwCKY", "Ann", 1795976416581),
        "room": rendered("room", 2, *room_fields),
        "countdown": rendered("countdown", 4, 1, 1795976419899, 1795976416899),
        # Ann's started: with her opening board's legal moves (spectators get it without).
        "started": opening(record("started", 5, 1, CODE, 4, 1795976419899, BOB, ANN)),
        "ack": wire.ack(1, 6),
        "reject": wire.reject(1, "cell_occupied", "a cell holds one card and this one is taken"),
        # Ann's own delta: with the change of her board's legal moves (spectators get it
        # without).
        "delta": wire.own_view(
            stamp(6, wire.delta_body(ANN, 1, "col4 found", delta, board, 12)),
            wire.legal_change(wire.legal_view(Board.from_code(CODE)), wire.legal_view(board)),
        ),
        "progress": stamp(7, wire.progress_body(BOB, 1, board)),
        # Deal 1's proven par is 69 (server/pools/c4.txt): Ann's 69 actions are perfect.
        "finished": rendered("finished", 76, ANN, 1, 314, 69, 1, 1),
        "gave_up": stamp(77, wire.gave_up_body(BOB, 1, 1)),
        "race_over": rendered("race_over", 78, 1, 69, 1, *results),
        "lost": wire.lost(ANN),
        "left": wire.left("2C88GXUH"),
        "hint": wire.hint(6, "move", "col3 found", 71, "proven"),
        "daily_pending": wire.daily_pending(
            "2026-11-29",
            "daily",
            "your time stands; its rank is pending review",
            "q2m7rvx4hl3kzq6a",
        ),
        "daily_result": wire.daily_result(
            "2026-11-29",
            "daily",
            None,
            "pending_review",
            "your time stands; its rank is pending review by an operator",
            "q2m7rvx4hl3kzq6a",
        ),
        "queued": wire.queued(4, 1000, 0, 0, 1795976430000, provisional=True),
        "unqueued": wire.unqueued(4, "asked"),
        "pairing": wire.pairing(4, 2, 1795976431500, 1795976430250),
        "bot_offer": wire.bot_offer(4, "Bot Otter", 1000, 20),
        "ratings": stamp(
            79,
            wire.ratings_body(
                1,
                4,
                [
                    wire.rating_change(ANN, "Ann", 1138, 138, 1, None, provisional=True),
                    wire.rating_change(BOB, "Bob", 927, -73, 1, None, provisional=True),
                ],
            ),
        ),
        "pong": wire.pong(1795976420122),
        "error": wire.error("not_host"),
    }


BUILT = built()


def test_every_documented_message_has_a_builder() -> None:
    assert set(EXAMPLES) == set(BUILT)


@pytest.mark.parametrize("kind", sorted(BUILT))
def test_builder_validates_against_its_model(kind: str) -> None:
    message = parse_server(BUILT[kind])
    assert message.type == kind


def _shortened(board: dict[str, Any]) -> dict[str, Any]:
    """A board as the README shortens it: two columns, then an ellipsis."""
    return {**board, "columns": [*board["columns"][:2], "…"]}


@pytest.mark.parametrize("kind", sorted(BUILT))
def test_builder_equals_the_documented_example(kind: str) -> None:
    data = json.loads(BUILT[kind])
    if kind == "started":
        data["board"] = _shortened(data["board"])
    assert data == EXAMPLES[kind]


def test_the_started_board_is_the_deal() -> None:
    data = json.loads(BUILT["started"])
    assert data["board"] == wire.board_view(Board.from_code(CODE))


def test_legal_lists_the_engines_legal_moves_by_source() -> None:
    board, _delta = first_move()
    view = wire.legal_view(board)
    assert view["send_home"] is False
    listed = {(src, dst) for src, dsts in view["moves"].items() for dst in dsts}
    expected = set()
    for move in board.legal_moves():
        dst = str(move.dst)
        if dst == "found":
            card = board.card_at(move.src)
            assert card is not None
            dst = "found:" + "SHDC"[card // 13]
        expected.add((str(move.src), dst))
    assert listed == expected
    assert json.loads(wire.legal(board)) == view


def test_own_text_adds_legal_to_a_delta_and_to_a_racers_started() -> None:
    board, delta = first_move()
    body = stamp(6, wire.delta_body(ANN, 1, "col4 found", delta, board, 12))
    change = wire.legal_change(wire.legal_view(Board.from_code(CODE)), wire.legal_view(board))
    own = wire.own_text(event(body, change), body)
    assert own is not None and json.loads(own) == {
        **json.loads(body),
        "legal_change": json.loads(change),
    }
    assert parse_server(own).type == "delta"
    # The mover's ack carries the same view, made by the same function.
    assert own == wire.own_view(body, change)
    started_event = event(record("started", 5, 1, CODE, 4, 1795976419899, BOB, ANN))
    started = wire.own_text(started_event, wire.render(started_event))
    assert started is not None
    assert json.loads(started)["legal"] == wire.legal_view(Board.from_code(CODE))
    assert parse_server(started).type == "started"
    # Any other event is the same for everyone.
    assert wire.own_text(event(record("countdown", 4, 1, 2, 3)), BUILT["countdown"]) is None
    assert "legal" not in json.loads(rendered("started", 5, 1, CODE, 4, 1795976419899, BOB, ANN))


def test_stamped_events_start_with_their_seq() -> None:
    # The hub reads the seq of every event from its first bytes.
    for kind in ("delta", "progress", "gave_up", "room", "race_over", "finished"):
        text = BUILT[kind]
        assert re.match(r'\{"seq":\d+,', text), kind
        assert event(text).seq == json.loads(text)["seq"]


def test_render_leaves_stamped_messages_alone_and_refuses_unknown_records() -> None:
    assert wire.render(event(BUILT["delta"])) == BUILT["delta"]
    with pytest.raises(ValueError, match="unknown event record"):
        rendered("teleport", 9, "x")


def test_the_room_message_of_a_room_without_host_or_members() -> None:
    text = rendered(
        "room", 3, "ROOMROOM", CODE, 4, "race", "done", 2, "", 5, 0, "progress", 30, 0, 0, 0
    )
    data = json.loads(text)
    assert data["host"] is None and data["players"] == [] and data["spectators"] == 5
    assert data["watch"] == "progress" and data["delay_s"] is None
    assert parse_server(text).type == "room"


def test_a_daily_snapshot_says_what_the_game_counts_for() -> None:
    meta = {"room_id": "K7QXW2MP", "round": "1", "mode": "daily", "state": "racing"}
    meta |= {"code": CODE, "cells": "4", "host": ANN, "starts_at": "1795976416591", "seq": "1"}
    note = {"date": "2026-11-29", "kind": "daily", "attempt": "practice", "ranked": False}
    note |= {"rank": None, "unranked_reason": "practice"}
    text = wire.snapshot(meta, ANN, "player", 1795976416600, [], note)
    message = parse_server(text)
    assert message.type == "snapshot" and message.daily is not None
    assert message.daily.attempt == "practice" and json.loads(text)["daily"] == note
    assert "daily" not in json.loads(wire.snapshot(meta, ANN, "player", 1, []))


def test_the_room_message_hides_a_drawn_deal_until_the_start() -> None:
    # Nothing of the deal before the start, unless the host typed it (the lobby says so).
    for state, typed, shown in [
        ("lobby", 0, None),
        ("countdown", 0, None),
        ("racing", 0, CODE),
        ("done", 0, CODE),
        ("lobby", 1, CODE),
    ]:
        text = rendered(
            "room", 4, "ROOMROOM", CODE, 4, "race", state, 1, "", 0, typed, "delayed", 45, 0, 0, 0
        )
        data = json.loads(text)
        assert data["code"] == shown and data["code_typed"] is bool(typed), state
        assert data["watch"] == "delayed" and data["delay_s"] == 45
        assert parse_server(text).type == "room"


def message_pattern() -> re.Pattern[str]:
    """``"type": "KIND"`` for any server message kind, quoted either way."""
    kinds = "|".join(sorted({*EXAMPLES, "snapshot", "leaderboard"}))
    return re.compile(r"""["']type["']\s*:\s*["'](""" + kinds + r""")["']""")


def test_no_module_but_wire_writes_a_server_message() -> None:
    # One wire: a server message's JSON is written in server/net/wire/ only (the scripts write
    # records; the bot is a client and writes client messages).
    written = message_pattern()
    offenders = []
    for path in (ROOT / "server").rglob("*"):
        if path.suffix not in (".py", ".lua") or path.parent == ROOT / "server" / "net" / "wire":
            continue
        found = written.search(path.read_text(encoding="utf-8"))
        if found:
            offenders.append(f"{path.relative_to(ROOT).as_posix()}: {found.group(0)}")
    assert offenders == []


def test_the_check_above_finds_a_message_written_elsewhere() -> None:
    written = message_pattern()
    assert written.search("""conn.queue(json.dumps({"type": "ack", "id": 1}))""")
    assert written.search("""'"type":"room","room_id":"' .. m[1]""")


def test_a_finished_and_a_race_over_record_render_their_par_words() -> None:
    # A finish in the deal's proven par is perfect; the race's end says the par and each
    # result's own word (a result without one is not perfect).
    done = json.loads(rendered("finished", 76, ANN, 1, 314, 69, 1, 1))
    assert done["perfect"] is True and done["rank"] == 1 and done["moves"] == 69
    results = [
        "1",
        wire.result(ANN, "Ann", "finished", 314, 69),
        "",
        wire.result(BOB, "Bob", "gave_up", None, 1),
    ]
    over = json.loads(rendered("race_over", 78, 1, 69, 1, *results))
    assert (over["par"], over["par_optimal"]) == (69, True)
    assert [(r["name"], r["rank"], r["perfect"]) for r in over["results"]] == [
        ("Ann", 1, False),
        ("Bob", None, False),
    ]
    assert parse_server(rendered("race_over", 78, 1, 69, 1, *results)).type == "race_over"
