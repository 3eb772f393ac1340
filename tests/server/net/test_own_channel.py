"""A move's legal moves go to the mover's sockets alone, never to every instance in the room:
the room's channel carries each delta without them; the player's own channel in the room
carries them only while the mover has another socket (on the mover's instance or another),
and those sockets get the delta with them as before. Two server processes on one Redis,
real sockets, a real subscriber to every channel of the room."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import redis.asyncio as aioredis

from server.clients.bot import action_message
from server.engine import Board, parse_action
from server.engine.solver import solve
from server.net import wire
from server.store.events import APART, RoomEvent, parse_own
from server.store.keys import Keys
from tests.helpers.legal import changed, opening, view
from tests.helpers.serverproc import FAST, WsClient, open_race, redis_url, running_server
from tests.helpers.waits import until

CODE = "SH1-C4-AAAAAJ2"
LINE = solve(Board.from_code(CODE)).moves


class Channels:
    """Every message published on the room's channels (its own and its players')."""

    def __init__(self, room: str) -> None:
        self.redis = aioredis.Redis.from_url(redis_url(), decode_responses=True)
        self.pubsub = self.redis.pubsub()
        self.room = room
        self.seen: list[tuple[str, str]] = []

    async def start(self) -> None:
        await self.pubsub.psubscribe(f"*{{{self.room}}}:ch*")
        while await self.pubsub.get_message(timeout=1.0) is None:
            pass

    async def read(self, seq: int) -> None:
        """Read until the room's channel carried the event of ``seq``."""

        async def past() -> bool:
            msg = await self.pubsub.get_message(timeout=0.05)
            if msg is not None and msg["type"] == "pmessage":
                self.seen.append((msg["channel"], msg["data"]))
                ch, data = self.seen[-1]
                if ch.endswith(":ch") and RoomEvent.parse_published(data).seq == seq:
                    return True
            return False

        await until(past, what=f"the event of seq {seq} on the room's channel")

    def own(self, pid: str) -> list[tuple[int, str]]:
        """What ``pid``'s own channel carried."""
        name = Keys().own_channel(self.room, pid)
        return [parse_own(data) for ch, data in self.seen if ch == name]

    async def close(self) -> None:
        await self.pubsub.aclose()
        await self.redis.aclose()


async def play(
    mover: WsClient, board: Board, n: int, channels: Channels, held: dict[int, Any]
) -> int:
    """The mover's ``n``-th action of the line; its seq once the room's channel carried it.
    ``held``: each socket's legal moves (by ``id``), which its deltas change."""
    text = LINE[n - 1]
    await mover.send(action_message(text, n))
    seq = int((await mover.expect("ack", id=n))["seq"])
    board.play(parse_action(text))
    change = (await mover.expect("delta", seq=seq))["legal_change"]
    held[id(mover)] = changed(held.setdefault(id(mover), opening(mover.messages)), change)
    assert held[id(mover)] == view(board)
    await channels.read(seq)
    return seq


async def test_the_legal_moves_reach_the_movers_sockets_alone() -> None:
    with (
        running_server(redis_url(), args=FAST) as one,
        running_server(redis_url(), args=FAST) as two,
    ):
        ann = await WsClient.connect(one.ws_url, "Ann")
        bob = await WsClient.connect(two.ws_url, "Bob")
        sam = await WsClient.connect(two.ws_url, "Sam")
        room = await open_race(CODE, ann, [bob], [sam])
        # Ann's second socket on the other instance, a third on her own.
        tabs = []
        for srv in (two, one):
            tab = await WsClient.connect(srv.ws_url)
            await tab.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 10**9})
            await tab.expect("snapshot")
            tabs.append(tab)
        channels = Channels(room)
        await channels.start()
        try:
            boards = {ann.player_id: Board.from_code(CODE), bob.player_id: Board.from_code(CODE)}
            held: dict[int, Any] = {id(tab): opening(tab.messages) for tab in tabs}
            for n in (1, 2, 3):
                seq = await play(ann, boards[ann.player_id], n, channels, held)
                for tab in tabs:  # her other sockets, here and there: the delta with them
                    mine = await tab.expect("delta", seq=seq)
                    held[id(tab)] = changed(held[id(tab)], mine["legal_change"])
                    assert held[id(tab)] == view(boards[ann.player_id])
                watched = await sam.expect("delta", seq=seq)
                assert "legal_change" not in watched
                assert "legal_change" not in await bob.expect("progress", seq=seq)
            bob_seqs = [await play(bob, boards[bob.player_id], n, channels, held) for n in (1, 2)]
            # On the room's channel no delta carried its legal moves; Ann's own channel carried
            # each of hers (she had other sockets), Bob's nothing (he had none).
            on_room = [
                RoomEvent.parse_published(d) for ch, d in channels.seen if ch.endswith(":ch")
            ]
            assert all(e.own in ("", APART) for e in on_room)
            assert sum(e.own == APART for e in on_room) == 5
            boards_then = [Board.from_code(CODE), *replayed(3)]
            assert [json.loads(own) for _, own in channels.own(ann.player_id)] == [
                json.loads(wire.legal_change(wire.legal_view(a), wire.legal_view(b)))
                for a, b in itertools.pairwise(boards_then)
            ]
            assert channels.own(bob.player_id) == []
            for seq in bob_seqs:  # Ann's sockets see Bob's progress, never his legal moves
                for tab in (ann, *tabs):
                    assert "legal_change" not in await tab.expect("progress", seq=seq)
            # Her other sockets gone, her own channel carries nothing more.
            for tab in tabs:
                await tab.close()
            own_channel = Keys().own_channel(room, ann.player_id)
            await until(
                lambda: numsub(channels.redis, own_channel),
                what="only Ann's instance follows her own channel",
            )

            async def tabs_gone() -> bool:
                # A socket's last step out of its room, after its instance let go of it: a
                # move that came sooner could still count the closing tab as another.
                return int(await channels.redis.hlen(Keys().here(room))) == 3

            await until(tabs_gone, what="both tabs out of the room on their instances")
            await play(ann, boards[ann.player_id], 4, channels, held)
            assert len(channels.own(ann.player_id)) == 3
            # Nobody but Ann ever had a legal move of hers (Sam none at all).
            assert all("legal" not in m and "legal_change" not in m for m in sam.messages)
            about_ann = [m for m in bob.messages if m.get("player_id") == ann.player_id]
            assert about_ann
            assert all("legal" not in m and "legal_change" not in m for m in about_ann)
        finally:
            await channels.close()
            for client in (ann, bob, sam, *tabs):
                await client.close()


def replayed(n: int) -> list[Board]:
    """The boards after each of the line's first ``n`` actions."""
    board, out = Board.from_code(CODE), []
    for text in LINE[:n]:
        board.play(parse_action(text))
        out.append(board.copy())
    return out


async def numsub(redis: aioredis.Redis, channel: str) -> bool:
    found = await redis.pubsub_numsub(channel)
    await asyncio.sleep(0)
    return bool(found[0][1] == 1)
