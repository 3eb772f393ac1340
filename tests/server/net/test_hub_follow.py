"""The hub hands an instance's room cache each room-wide event as it read it off the channel
(the event itself, never its message parsed back), and a board's events not at all."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import redis.asyncio as aioredis

from server.metrics import Metrics
from server.net.hub import Hub
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
    sent: list[str] = field(default_factory=list)

    def push(self, text: str, seq: int, delay_ms: int = 0) -> None:
        self.sent.append(text)

    def queue(self, text: str) -> None:
        self.sent.append(text)

    def release_held(self) -> None:
        """Nothing held here."""


def test_the_cache_gets_the_event_as_published() -> None:
    hub = Hub(aioredis.Redis.from_url(redis_url()), Keys(), Metrics(), board_wait)
    followed: list[tuple[str, RoomEvent]] = []
    hub.on_room_event = lambda room, event: followed.append((room, event))
    watcher = Socket("pS", "spectator")
    hub.rooms["R"] = {watcher}
    countdown = json.dumps(["countdown", "5", "1", "9000", "8000"])
    published = f"origin\t\t{countdown}\t\t"
    hub._shard_message(Keys().channel("R"), published)
    assert followed == [("R", RoomEvent.parse_published(published))]
    assert followed[0][1].kind == "countdown" and followed[0][1].fields()["starts_at"] == "9000"
    assert json.loads(watcher.sent[0])["type"] == "countdown"  # the sockets get the message
    # A board's event is not the room's: the cache is not told.
    hub._shard_message(Keys().channel("R"), f"origin\tpA\t{DELTA}\t{PROGRESS}\t")
    assert len(followed) == 1 and watcher.sent[-1] == DELTA
