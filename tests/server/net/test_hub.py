"""What each socket receives of a room event: the fair view by role and watch mode."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import redis.asyncio as aioredis

from server.metrics import Metrics
from server.net.hub import Hub, view
from server.rooms.visibility import board_wait
from server.store.events import RoomEvent
from server.store.keys import Keys
from tests.helpers.serverproc import redis_url

DELTA = '{"seq":7,"type":"delta","player_id":"pA","t":1500}'
PROGRESS = '{"seq":7,"type":"progress","player_id":"pA"}'


@dataclass(eq=False)
class Socket:
    """A listener as the hub sees it."""

    pid: str | None
    role: str
    cid: str = "c"
    room: str | None = "R"
    sent: list[tuple[str, int]] = field(default_factory=list)

    def push(self, text: str, seq: int, delay_ms: int = 0) -> None:
        self.sent.append((text, delay_ms))

    def queue(self, text: str) -> None:
        self.sent.append((text, 0))

    def release_held(self) -> None:
        """Nothing held here."""


def hub() -> Hub:
    """A hub that is never started: what it makes of stored events needs no Redis."""
    return Hub(aioredis.Redis.from_url(redis_url()), Keys(), Metrics(), board_wait)


def event(entry: str) -> RoomEvent:
    return RoomEvent.parse(entry)


def test_each_role_and_watch_mode_sees_its_part() -> None:
    racer, rival = Socket("pA", "player"), Socket("pB", "player")
    spectator = Socket("pS", "spectator")
    for watch, seen in [
        ("", (DELTA, 0)),
        ("live:30", (DELTA, 0)),
        ("progress:30", (PROGRESS, 0)),
        ("delayed:30", (DELTA, 30_000)),
    ]:
        delta = event(f"pA\t{DELTA}\t{PROGRESS}\t{watch}")
        assert view(racer, delta, DELTA, PROGRESS, board_wait) == (DELTA, 0)
        assert view(rival, delta, DELTA, PROGRESS, board_wait) == (PROGRESS, 0)
        assert view(spectator, delta, DELTA, PROGRESS, board_wait) == seen
        assert hub().seen(rival, [delta]) == [(7, PROGRESS, 0)]


def test_an_event_for_the_racer_alone_or_for_everyone() -> None:
    # RACER '-': the other racers receive nothing; '': the same as everyone.
    rival, spectator = Socket("pB", "player"), Socket("pS", "spectator")
    secret = event(f"pA\t{DELTA}\t-\tprogress:30")
    assert hub().seen(rival, [secret]) == [(7, None, 0)]
    assert hub().seen(spectator, [secret]) == [(7, None, 0)]
    shared = event(f"pA\t{DELTA}\t\tprogress:30")
    assert hub().seen(rival, [shared]) == [(7, DELTA, 0)]
    assert hub().seen(spectator, [shared]) == [(7, DELTA, 0)]


def test_a_delayed_event_replayed_keeps_only_what_is_left_of_its_delay() -> None:
    spectator = Socket("pS", "spectator")
    entry = event(f"pA\t{DELTA}\t{PROGRESS}\tdelayed:30")
    assert hub().seen(spectator, [entry], age=lambda text: 12_000) == [(7, DELTA, 18_000)]
    assert hub().seen(spectator, [entry], age=lambda text: 45_000) == [(7, DELTA, 0)]
    assert hub().seen(spectator, [entry]) == [(7, DELTA, 30_000)]  # late, never early


def test_a_racing_identitys_spectator_socket_takes_a_racers_seat_at_the_start() -> None:
    ghost = Socket("pA", "spectator")
    record = '["started","5","1","SH1-C4-AAAAAAB","4","1000","pA","pB"]'  # as begin.lua writes
    [(seq, text, _delay)] = hub().seen(ghost, [event(f"\t{record}\t\t")])
    assert ghost.role == "player"
    assert seq == 5 and text is not None and '"legal":' in text  # its own opening board
    rival_delta = event(f"pB\t{DELTA}\t{PROGRESS}\t")
    assert view(ghost, rival_delta, DELTA, PROGRESS, board_wait) == (PROGRESS, 0)


def test_the_players_own_view_goes_to_that_players_other_sockets_alone() -> None:
    legal = '{"moves":{},"send_home":false}'
    own = DELTA[:-1] + ',"legal_change":' + legal + "}"
    mover, tab = Socket("pA", "player", cid="c1"), Socket("pA", "player", cid="c2")
    rival, spectator = Socket("pB", "player", cid="c3"), Socket("pS", "spectator", cid="c4")
    fan_out = hub()
    fan_out.rooms["R"] = {mover, tab, rival, spectator}
    fan_out._shard_message(Keys().channel("R"), f"c1\tpA\t{DELTA}\t{PROGRESS}\t\t{legal}")
    assert mover.sent == []  # its delta went out with its ack
    assert tab.sent == [(own, 0)]
    assert rival.sent == [(PROGRESS, 0)]
    assert spectator.sent == [(DELTA, 0)]
    assert fan_out.last_seq["R"] == 7
    # A replay gives the player the same view; a malformed event reaches nobody.
    assert hub().seen(tab, [event(f"pA\t{DELTA}\t{PROGRESS}\t\t{legal}")]) == [(7, own, 0)]
    fan_out._shard_message(Keys().channel("R"), "c1\tpA\tnot an event\t\t")
    assert len(tab.sent) == len(rival.sent) == len(spectator.sent) == 1


async def test_a_room_subscribed_again_is_caught_up_from_where_it_stood_then() -> None:
    # Subscribed again (a slot moved to another master): the new subscription's first
    # message (seq 33) is forwarded before the catch-up runs. The catch-up still reads from
    # seq 29, the last before the move, so 30 to 32 (published between the two
    # subscriptions) reach the spectator.
    h = hub()
    spy = Socket("pS", "spectator")
    h.rooms["R"] = {spy}
    h.last_seq["R"] = 29

    def delta(seq: int) -> RoomEvent:
        full = f'{{"seq":{seq},"type":"delta","player_id":"pA","t":1500}}'
        return event(f"pA\t{full}\t{PROGRESS}\t")

    asked: list[int] = []

    async def fetch_after(room: str, seq: int) -> tuple[int, list[RoomEvent]]:
        asked.append(seq)
        return 33, [delta(n) for n in range(seq + 1, 34)]

    h.fetch_after = fetch_after
    h._resubscribed(Keys().channel("R"))
    h._forward("R", delta(33))
    await asyncio.gather(*h._catching_up)
    assert asked == [29]
    got = [int(text.split('"seq":')[1].split(",")[0]) for text, _delay in spy.sent]
    assert sorted(set(got)) == [30, 31, 32, 33]
