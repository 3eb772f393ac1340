"""On a Redis Cluster too, a move's legal moves reach the mover's other socket on another
instance (the player's own channel is sharded, on the room's shard, and counted there with
``PUBSUB SHARDNUMSUB``), and nobody else's."""

from __future__ import annotations

from server.clients.bot import action_message
from server.engine import Board, parse_action
from server.engine.solver import solve
from tests.helpers.legal import changed, opening, view
from tests.helpers.markers import needs_cluster
from tests.helpers.rediscluster import RedisClusterProc
from tests.helpers.serverproc import FAST, WsClient, open_race, running_server

pytestmark = needs_cluster

CODE = "SH1-C4-AAAAAJ2"
LINE = solve(Board.from_code(CODE)).moves


async def test_the_movers_other_instance_gets_the_legal_moves(cluster: RedisClusterProc) -> None:
    args = ["--redis-cluster", cluster.seed_url, *FAST]
    with running_server(None, args=args) as one, running_server(None, args=args) as two:
        ann = await WsClient.connect(one.ws_url, "Ann")
        bob = await WsClient.connect(two.ws_url, "Bob")
        room = await open_race(CODE, ann, [bob])
        tab = await WsClient.connect(two.ws_url)
        await tab.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 10**9})
        await tab.expect("snapshot")
        held = opening(tab.messages)  # the tab's listing, which Ann's deltas change
        board = Board.from_code(CODE)
        for n in (1, 2, 3):
            await ann.send(action_message(LINE[n - 1], n))
            seq = int((await ann.expect("ack", id=n))["seq"])
            board.play(parse_action(LINE[n - 1]))
            held = changed(held, (await tab.expect("delta", seq=seq))["legal_change"])
            assert held == view(board)
            assert "legal_change" not in await bob.expect("progress", seq=seq)
        about_ann = [m for m in bob.messages if m.get("player_id") == ann.player_id]
        assert about_ann and all("legal" not in m and "legal_change" not in m for m in about_ann)
        for c in (ann, bob, tab):
            await c.close()
