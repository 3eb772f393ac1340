"""A move of a socket here is fanned out from its commit's answer: once, whichever of its two
copies (the answer, the room's channel) comes first, and in the room's order of seqs."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import redis.asyncio as aioredis

from server.metrics import Metrics
from server.net.hub import EARLY_WAIT_S, Hub
from server.rooms.visibility import board_wait
from server.store.events import RoomEvent, move_event
from server.store.keys import Keys
from tests.helpers.serverproc import redis_url


@dataclass(eq=False)
class Socket:
    """A listener as the hub sees it: what it was sent, and how late."""

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


LEGAL = '{"moves":{"col1":["cell3"]},"send_home":false}'
CHANNEL = Keys().channel("R")


def hub() -> Hub:
    """A hub that is never started: what it forwards needs no Redis."""
    return Hub(aioredis.Redis.from_url(redis_url()), Keys(), Metrics(), board_wait)


def body(seq: int, kind: str = "delta") -> str:
    return f'"type":"{kind}","player_id":"pA","n":{seq}}}'


def ours(seq: int) -> RoomEvent:
    """A move of socket c1 (player pA) here, as its commit's answer makes it."""
    return move_event("pA", seq, body(seq), body(seq, "progress"), "live:30", LEGAL, "c1")


def published(seq: int, origin: str = "c1", pid: str = "pA") -> str:
    """A move's delta as the room's channel carries it (its legal moves apart)."""
    full = f'{{"seq":{seq},{body(seq)}'
    progress = f'{{"seq":{seq},{body(seq, "progress")}'
    return f"{origin}\t{pid}\t{full}\t{progress}\tlive:30\t*"


def seqs(socket: Socket) -> list[int]:
    return [int(text.split('"seq":')[1].split(",")[0]) for text, _delay in socket.sent]


def room(fan_out: Hub) -> tuple[Socket, Socket, Socket, Socket]:
    """The mover (c1), another socket of the mover's, a rival and a spectator, here."""
    mover, tab = Socket("pA", "player", cid="c1"), Socket("pA", "player", cid="c2")
    rival, spectator = Socket("pB", "player", cid="c3"), Socket("pS", "spectator", cid="c4")
    fan_out.rooms["R"] = {mover, tab, rival, spectator}
    fan_out.last_seq["R"] = 6
    return mover, tab, rival, spectator


async def test_the_answer_first_fans_the_move_out_and_the_channels_copy_is_dropped() -> None:
    fan_out = hub()
    mover, tab, rival, spectator = room(fan_out)
    fan_out.expect("R", "c1")
    fan_out.committed("R", [ours(7)])
    fan_out.settle("R", "c1")
    fan_out._shard_message(CHANNEL, published(7))
    assert mover.sent == []  # its delta went out with its ack
    assert [text for text, _ in tab.sent] == [ours(7).full[:-1] + f',"legal_change":{LEGAL}}}']
    assert seqs(rival) == seqs(spectator) == [7]
    assert '"progress"' in rival.sent[0][0] and '"delta"' in spectator.sent[0][0]
    assert not fan_out.twins["R"] and not fan_out.inflight and not fan_out.movers


async def test_a_move_nobody_else_follows_leaves_no_copy_to_wait_for() -> None:
    fan_out = hub()
    _mover, _tab, rival, spectator = room(fan_out)
    fan_out.expect("R", "c1")
    fan_out.committed("R", [ours(7), ours(8)], published=False)
    fan_out.settle("R", "c1")
    assert seqs(rival) == seqs(spectator) == [7, 8]
    assert not fan_out.twins.get("R")


async def test_the_channel_first_fans_the_move_out_and_the_answers_copy_is_dropped() -> None:
    fan_out = hub()
    _mover, _tab, rival, spectator = room(fan_out)
    fan_out.expect("R", "c1")
    fan_out._shard_message(CHANNEL, published(7))
    fan_out.committed("R", [ours(7)])
    fan_out.settle("R", "c1")
    assert seqs(rival) == seqs(spectator) == [7]


async def test_an_answer_after_a_gap_waits_for_the_channels_earlier_event() -> None:
    # A rival's move (seq 7, another instance's) is still on its way on the channel when
    # the answer of ours (seq 8) is read: the sockets get 7 then 8, never 8 first.
    fan_out = hub()
    _mover, _tab, rival, spectator = room(fan_out)
    fan_out.expect("R", "c1")
    fan_out.committed("R", [ours(8)])
    fan_out.settle("R", "c1")
    assert spectator.sent == []
    fan_out._shard_message(CHANNEL, published(7, origin="b.c9", pid="pC"))
    fan_out._shard_message(CHANNEL, published(8))
    assert seqs(rival) == seqs(spectator) == [7, 8]
    assert "R" not in fan_out.early


async def test_a_channel_event_after_a_gap_waits_for_a_commit_of_ours_in_flight() -> None:
    # Our move (seq 7) won the board; its `finished` (seq 8) comes on the channel before
    # the commit's answer: it waits for the answer's seq 7.
    fan_out = hub()
    _mover, _tab, rival, spectator = room(fan_out)
    fan_out.expect("R", "c1")
    fan_out._shard_message(CHANNEL, '-\tpA\t["finished","8","pA","1","900","40","1","0"]\t\t')
    assert spectator.sent == []
    fan_out.committed("R", [ours(7)])
    fan_out.settle("R", "c1")
    assert seqs(rival) == seqs(spectator) == [7, 8]


async def test_a_gap_nobody_here_fills_goes_out_as_it_is() -> None:
    # No commit of ours in flight: an event after a gap is forwarded at once (the sockets
    # see the gap and ask for a snapshot), as before.
    fan_out = hub()
    _mover, _tab, rival, _spectator = room(fan_out)
    fan_out._shard_message(CHANNEL, published(9, origin="b.c9", pid="pC"))
    assert seqs(rival) == [9]


async def test_an_early_event_stops_waiting_and_the_room_is_caught_up() -> None:
    fan_out = hub()
    _mover, _tab, rival, spectator = room(fan_out)
    asked: list[int] = []

    async def fetch_after(room_id: str, seq: int) -> tuple[int, list[RoomEvent]]:
        asked.append(seq)
        return 8, [RoomEvent.parse_published(published(7, "b.c9", "pC"))]

    fan_out.fetch_after = fetch_after
    fan_out.expect("R", "c1")
    fan_out.committed("R", [ours(8)])
    fan_out.settle("R", "c1")
    await asyncio.sleep(EARLY_WAIT_S + 0.1)  # the channel never brought seq 7
    await asyncio.gather(*fan_out._catching_up)
    assert asked == [6]
    assert seqs(rival) == seqs(spectator) == [7, 8]
    assert "R" not in fan_out.early and "R" not in fan_out._early_timers
