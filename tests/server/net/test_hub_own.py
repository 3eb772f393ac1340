"""The hub and a player's own channel in a room, on a real Redis: followed while the player
has a socket in the room here; the legal moves it brings are joined to the next event of
their seq for that player's sockets alone; without them, those sockets get nothing of a
delta whose legal moves were kept apart (only the mover has one, served with the ack)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import redis.asyncio as aioredis

from server.metrics import Metrics
from server.net.hub import Hub
from server.rooms.visibility import board_wait
from server.store.events import APART
from server.store.keys import Keys
from tests.helpers.serverproc import redis_url
from tests.helpers.waits import until

DELTA = '{"seq":7,"type":"delta","player_id":"pA","t":1500}'
PROGRESS = '{"seq":7,"type":"progress","player_id":"pA"}'
LEGAL = '{"moves":{"col1":["found:S"]},"send_home":false}'


@dataclass(eq=False)
class Socket:
    """A listener as the hub sees it."""

    pid: str | None
    role: str
    cid: str
    room: str | None = "R"
    sent: list[str] = field(default_factory=list)

    def push(self, text: str, seq: int, delay_ms: int = 0) -> None:
        self.sent.append(text)

    def queue(self, text: str) -> None:
        self.sent.append(text)

    def release_held(self) -> None:
        """Nothing held here."""


async def numsub(redis: aioredis.Redis, channel: str) -> int:
    found = await redis.pubsub_numsub(channel)
    return int(found[0][1])


async def unfollowed(redis: aioredis.Redis, channel: str) -> bool:
    return await numsub(redis, channel) == 0


async def test_the_own_channel_is_followed_and_joined_for_the_players_sockets() -> None:
    keys = Keys(f"test:own:{os.getpid()}:")
    redis = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    hub = Hub(redis, keys, Metrics(), board_wait)
    hub.start()
    ann, tab = Socket("pA", "player", "c1"), Socket("pA", "player", "c2")
    bob, sam = Socket("pB", "player", "c3"), Socket("pS", "spectator", "c4")
    room_ch, own_ch = keys.channel("R"), keys.own_channel("R", "pA")
    try:
        for conn in (ann, tab, bob, sam):
            await hub.attach(conn, "R")
        assert await numsub(redis, own_ch) == 1 and await numsub(redis, room_ch) == 1
        assert hub.others_here("R", "pA") and not hub.others_here("R", "pB")
        await hub.attach(tab, "R")  # a socket attached again still counts once
        assert hub.tabs[("R", "pA")] == 2
        # Ann moved on socket c1: her legal moves, then the event, as the move script does.
        await redis.publish(own_ch, f"7\t{LEGAL}")
        await redis.publish(room_ch, f"c1\tpA\t{DELTA}\t{PROGRESS}\t\t{APART}")
        await until(lambda: tab.sent and bob.sent and sam.sent, what="the event forwarded")
        assert tab.sent == [DELTA[:-1] + ',"legal_change":' + LEGAL + "}"]
        assert ann.sent == [] and bob.sent == [PROGRESS] and sam.sent == [DELTA]
        # A delta whose legal moves went nowhere (its player had no other socket): nothing
        # for the player's sockets here, the rest as ever.
        later = DELTA.replace('"seq":7', '"seq":8')
        progress = PROGRESS.replace('"seq":7', '"seq":8')
        await redis.publish(room_ch, f"c1\tpA\t{later}\t{progress}\t\t{APART}")
        await until(lambda: len(sam.sent) == 2, what="the second event forwarded")
        assert len(tab.sent) == 1 and ann.sent == [] and bob.sent[-1] == progress
        # The last socket of a player gone, the hub no longer follows the player's channel.
        await hub.detach(tab, "R")
        assert not hub.others_here("R", "pA")
        await hub.detach(ann, "R")
        await until(lambda: unfollowed(redis, own_ch), what="Ann's own channel dropped")
        assert own_ch not in hub.own_channels and ("R", "pA") not in hub.tabs
    finally:
        await hub.close()
        await redis.aclose()
