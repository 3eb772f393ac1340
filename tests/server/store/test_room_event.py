"""A room's event has one form, read and written by ``server/store/events.py`` alone: the
scripts (``server/store/lua``) lay out each event and each record as that module declares it
(read from the Lua source, so a field added on one side only fails here); what the scripts
really store and publish on a real Redis reads and writes back byte for byte; bad input is
refused with a clear error."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.client import PubSub

from protocol.models import parse_server
from server.engine import Board, parse_action
from server.net import wire
from server.rooms.records import WatchMode
from server.store.commit import MoveCommit
from server.store.events import (
    APART,
    ENTRY,
    RECORDS,
    ROOM_FIELDS,
    EventError,
    RoomEvent,
    stamp,
)
from server.store.keys import Keys
from server.store.status import Status
from server.store.store import Store
from tests import ROOT
from tests.helpers.luasource import LUA, lua, top_level_split
from tests.helpers.serverproc import redis_url

CODE = "SH1-C4-AAAAAAB"
DELTA = '{"seq":7,"type":"delta","player_id":"pA","t":1500}'
PROGRESS = '{"seq":7,"type":"progress","player_id":"pA"}'


def call_args(source: str, at: int) -> str:
    """The text between the parentheses of the call whose ``(`` is at ``at``."""
    depth = 0
    for i in range(at, len(source)):
        depth += {"(": 1, ")": -1}.get(source[i], 0)
        if depth == 0:
            return source[at + 1 : i]
    raise AssertionError("unbalanced call")


def table_names(table: str) -> list[str]:
    """The items of a Lua table constructor ``{a, b, c}``."""
    assert table.startswith("{") and table.endswith("}"), table
    return top_level_split(table[1:-1])


def records_written() -> list[tuple[str, str, list[str], bool]]:
    """Every record a script writes: (script, kind, the names of its values, whether values
    are appended after them)."""
    found = []
    for path in sorted(LUA.glob("*.lua")):
        source = path.read_text(encoding="utf-8")
        for call in re.finditer(r"(?<!function )emit_record\(", source):
            args = top_level_split(call_args(source, call.end() - 1))
            kind, values = args[5].strip("'"), args[6]
            if values.startswith("room_values("):
                found.append((path.stem, kind, ["room_values"], True))
                continue
            appended = False
            if not values.startswith("{"):  # a local table, built before the call
                before = source[: call.start()]
                local = before.rindex(f"local {values} = ")
                values = before[local:].split(" = ", 1)[1].splitlines()[0]
                appended = f"{args[6]}[#{args[6]} + 1]" in before[local:]
            found.append((path.stem, kind, table_names(values), appended))
    return found


def room_values_fields() -> list[str]:
    """The fields ``common.lua``'s ``room_values`` reads (its ``HMGET``)."""
    source = lua("common")
    body = source[source.index("local function room_values") :]
    hmget = body[body.index("call('HMGET'") :]
    args = top_level_split(call_args(hmget, hmget.index("(")))
    assert args[:2] == ["'HMGET'", "meta"]
    return [a.strip("'") for a in args[2:]]


# -- the scripts and the declarations -------------------------------------------------------


def test_every_record_a_script_writes_is_laid_out_as_declared() -> None:
    written = records_written()
    assert {kind for _script, kind, _names, _more in written} == set(RECORDS)
    for script, kind, names, appended in written:
        layout = RECORDS[kind]
        if names == ["room_values"]:
            assert kind == "room", script
            continue
        assert tuple(names) == layout.fields, f"{script}.lua writes {kind} as {names}"
        assert appended == bool(layout.rest), f"{script}.lua: {kind}'s {layout.rest}"


def test_the_room_fields_are_the_room_records() -> None:
    assert tuple(room_values_fields()) == ROOM_FIELDS
    assert RECORDS["room"].fields == ROOM_FIELDS
    # Each field read has its value (or a default) in the record, in order.
    source = lua("common")
    values = source[source.index("local v = {") :].split("\n  for", 1)[0]
    items = table_names(values.split(" = ", 1)[1].replace("\n", " "))
    assert [re.match(r"m\[(\d+)\]", v).group(1) for v in items] == [  # type: ignore[union-attr]
        str(i) for i in range(1, len(ROOM_FIELDS) + 1)
    ]


def test_the_stored_event_is_laid_out_as_declared() -> None:
    source = lua("common")
    body = source[source.index("local function push") :]
    entry = body[body.index("local entry = ") :].splitlines()[0].split(" = ", 1)[1]
    names = [re.sub(r"[()]|\s+or\s+''", "", p).strip() for p in entry.split(" .. '\\t' .. ")]
    stored = r"if (\w+) then\s+redis\.call\('RPUSH', events, entry \.\. '\\t' \.\. (\w+)\)"
    own = re.search(stored, body)
    assert own is not None and own.group(1) == own.group(2)
    assert (*names, own.group(1)) == ENTRY
    # On the channel its OWN is APART (the legal moves go to the player's sockets alone).
    assert f"entry = entry .. '\\t{APART}'" in body


def test_no_module_but_events_reads_an_events_form() -> None:
    # One reader: nothing else sniffs a record's kind or a stamped message's seq.
    sniffs = re.compile(r"""startswith\(\s*['"]\[|['"]\{\{?"seq":""")
    offenders = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "server").rglob("*.py")
        if path.name != "events.py" and sniffs.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    assert sniffs.search("""if raw.startswith('["started"'):""")
    assert sniffs.search("""return f'{{"seq":{seq},{body}'""")
    assert sniffs.search("""_STAMP = '{"seq":'""")


# -- reading and writing ----------------------------------------------------------------


def test_an_event_reads_and_writes_back_byte_for_byte() -> None:
    started = '["started","5","1","SH1-C4-AAAAAAB","4","1000","pA","pB"]'
    for entry in [
        f"pA\t{DELTA}\t{PROGRESS}\tlive:30\t" + '{"moves":{},"send_home":false}',
        f"pA\t{DELTA}\t{PROGRESS}\tprogress:30",
        f"pA\t{DELTA}\t-\tdelayed:45",
        f"\t{started}\t\t",
        f"pB\t{DELTA}\t\t",
    ]:
        event = RoomEvent.parse(entry)
        assert event.entry() == entry
        assert RoomEvent.parse_published(f"c1\t{entry}").published() == f"c1\t{entry}"
    delta = RoomEvent.parse(f"pA\t{DELTA}\t-\tdelayed:45")
    assert (delta.seq, delta.racer, delta.watch, delta.delay_ms) == (7, None, "delayed", 45000)
    # The room's words as a room without them reads: live, the default delay.
    bare = RoomEvent.parse(f"pA\t{DELTA}\t-\t:")
    assert (bare.watch, bare.delay_ms) == (WatchMode.LIVE, 30_000)
    assert (delta.kind, delta.values, delta.own, delta.origin) == ("", (), "", "")
    event = RoomEvent.parse(f"\t{started}\t\t")
    assert (event.kind, event.seq, event.pid, event.racer) == ("started", 5, "", "")
    assert event.fields() == {"round": "1", "code": CODE, "cells": "4", "started_at": "1000"}
    assert event.rest() == ("pA", "pB")


def test_a_form_an_earlier_version_stored_is_refused_not_guessed_at() -> None:
    # One layout: an event without its WATCH field, a WATCH holding an earlier version's
    # decision, a room record without its later fields.
    for entry, says in (
        (f"pA\t{DELTA}\t{PROGRESS}", "4 or 5 tab-separated fields, not 3"),
        (f"pA\t{DELTA}\t{PROGRESS}\tp", "not 'p'"),
        (f"pA\t{DELTA}\t{PROGRESS}\td45000", "not 'd45000'"),
        (
            '\t["room","3","ROOMROOM","' + CODE + '","4","race","lobby","1","pA","0",'
            '"{\\"player_id\\":\\"pA\\"}"]\t\t',
            "'room' record's values",
        ),
        ('\t["finished","4","pA","1","2","3","1"]\t\t', "'finished' record's values"),
    ):
        with pytest.raises(EventError, match=re.escape(says)):
            RoomEvent.parse(entry)


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("", "4 or 5 tab-separated fields, not 1"),
        (f"pA\t{DELTA}", "4 or 5 tab-separated fields, not 2"),
        (f"pA\t{DELTA}\t\tlive", "watch is WORD:DELAY_S or '' (none), not"),
        (f"pA\t{DELTA}\t\td", "not 'd'"),
        (f"pA\t{DELTA}\t\tx-ray:30", "not 'x-ray:30'"),
        (f"pA\t{DELTA}\t\tlive:soon", "not 'live:soon'"),
        ('pA\t{"seq":x,"type":"delta"}\t\t', "starts with its seq"),
        ('pA\t{"seq":7}\t\t', "starts with its seq"),
        ("pA\thello\t\t", "a stamped message or a record"),
        ('\t["room"]\t\t', "a stamped message or a record"),
        ('\t["countdown","4",1,2,3]\t\t', "a stamped message or a record"),
        ('\t["countdown","four","1","2","3"]\t\t', "a stamped message or a record"),
        ('\t["teleport","9","x"]\t\t', "unknown event record 'teleport'"),
        ('\t["countdown","4","1","2"]\t\t', "'countdown' record's values are"),
        ('\t["finished","4","pA","1","2","3","1","1","extra"]\t\t', "'finished' record's values"),
        ('\t["race_over","4","1","1"]\t\t', "'race_over' record's values"),
        ('\t["room","4","R","C","4"]\t\t', "'room' record's values"),
    ],
)
def test_a_malformed_event_is_refused_with_a_clear_error(entry: str, says: str) -> None:
    with pytest.raises(EventError, match=re.escape(says)):
        RoomEvent.parse(entry)


def test_a_published_event_without_its_origin_is_refused() -> None:
    with pytest.raises(EventError, match="starts with its origin"):
        RoomEvent.parse_published("no tab here")
    assert issubclass(EventError, ValueError)  # the hub's fan-out logs it and goes on


# -- the scripts on a real Redis ----------------------------------------------------------


@pytest.fixture
async def store(key_prefix: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    store = Store(client, Keys(key_prefix), ttl=60)
    yield store
    await store.aclose()
    await client.aclose()


async def published(pubsub: PubSub, until: str) -> list[str]:
    """The messages of a subscribed channel up to one that holds ``until``."""
    out: list[str] = []
    for _ in range(200):
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
        if message is not None:
            out.append(message["data"])
            if until in message["data"]:
                return out
    raise AssertionError(f"{until!r} never came: {out}")


def commit(room: str, pid: str, now: int, finishing: bool) -> MoveCommit:
    board = Board.from_code(CODE)
    action = "col4 found"
    delta = board.play(parse_action(action))
    return MoveCommit(
        room=room,
        round=1,
        pid=pid,
        action_id=1,
        version=0,
        log_entries=(f"{now}\t1\t{action}",),
        delta_bodies=(wire.delta_body(pid, 1, action, delta, board, 10),),
        progress_bodies=(wire.progress_body(pid, 1, board),),
        legal=(wire.legal(board),),
        finishing=finishing,
        time_ms=10,
        moves=board.moves,
        result=wire.result(pid, pid, "finished", 10, board.moves) if finishing else "",
        origin=f"c-{pid}",
        now=now,
    )


async def test_what_the_scripts_store_and_publish_reads_and_writes_back(store: Store) -> None:
    room, now = "EVENTSRM", 1_800_000_000_000
    fields: dict[str, str | int] = {"room_id": room, "code": CODE, "cells": 4, "mode": "race"}
    fields |= {"state": "lobby", "round": 1, "host": "", "seq": 0, "np": 0, "ns": 0}
    fields |= {"typed": 0, "watch": "live", "delay_s": 30, "public": 0, "rated": 0}
    fields |= {"paired": 0, "playing": 0, "finishers": 0, "starts_at": ""}
    assert await store.create(room, fields)
    pubsub = store.redis.pubsub()
    await pubsub.subscribe(store.keys.channel(room))
    try:
        for pid in ("pA", "pB"):
            out = await store.join(room, pid, "player", wire.member(pid, pid, "player"), 4, "c0")
            assert out.status is Status.OK
        assert (await store.set_watch(room, "pA", "delayed", 45, "c0")).status is Status.OK
        assert (await store.start(room, "pA", now, now, "c0")).status is Status.OK
        assert (await store.begin(room, 1, "c0", now)).status is Status.OK
        moved = commit(room, "pA", now, finishing=False)
        out = await store.move(moved)
        assert out.status is Status.OK and out.first == out.seq
        won = await store.move(commit(room, "pB", now, finishing=True))
        assert won.status is Status.OK and won.rank == 1
        gave_up = wire.gave_up_body("pA", 1, 1)
        result = wire.result("pA", "pA", "gave_up", None, 1)
        assert (await store.give_up(room, 1, "pA", gave_up, result, "c0")).status is Status.OK
        data = await published(pubsub, '["race_over"')
    finally:
        await pubsub.aclose()

    stored = await store.redis.lrange(store.keys.events(room), 0, -1)
    found = await store.events_after(room, 0)
    assert found is not None and found[1] == [RoomEvent.parse(e) for e in stored]
    events = found[1]
    assert [e.entry() for e in events] == stored
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    kinds = [e.kind or json.loads(wire.render(e))["type"] for e in events]
    assert kinds == [
        *["room"] * 3,
        "countdown",
        "started",
        "delta",
        "delta",
        "finished",
        "gave_up",
        "race_over",
    ]
    for event in events:
        assert parse_server(wire.render(event)).type in kinds
    # The move's event is what the move path wrote: stamped as the Python stamps, the
    # progress for the rivals, the legal moves for the mover, delayed for spectators.
    delta = events[5]
    assert delta.full == stamp(out.seq, moved.delta_bodies[0])
    assert delta.racer == stamp(out.seq, moved.progress_bodies[0])
    assert (delta.pid, delta.own) == ("pA", moved.legal[0])
    assert (delta.watch, delta.delay_ms) == (WatchMode.DELAYED, 45_000)
    # Published: the origin in front of the stored event, byte for byte, but a delta's legal
    # moves (APART: only the mover's sockets have them, and here nobody followed pA's own
    # channel, so it carried nothing).
    assert [RoomEvent.parse_published(d).published() for d in data] == data
    on_channel = [RoomEvent.parse_published(d) for d in data]
    assert [e.entry() for e in on_channel] == [
        e.entry() if not e.own else e._replace(own=APART).entry() for e in events
    ]
    assert on_channel[5].own == APART and events[5].own == moved.legal[0]
    assert on_channel[5].origin == "c-pA" and on_channel[7].origin == "-"
