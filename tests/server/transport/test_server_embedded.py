"""With no Redis URL the server runs its own Redis on disk: rooms survive a restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.serverproc import WsClient, running_server


@pytest.mark.slow
async def test_embedded_redis_keeps_rooms_across_restarts(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with running_server(None, data_dir=data) as srv:
        assert srv.health()["embedded_redis"] is True
        ann = await WsClient.connect(srv.ws_url, "ann")
        await ann.send({"type": "solo", "code": "SH1-C4-AAAAAAB"})
        room = (await ann.expect("snapshot"))["room_id"]
        await ann.send({"type": "move", "id": 1, "src": "col1", "dst": "cell3"})
        await ann.expect("ack", id=1)
        await ann.close()
    assert any(data.rglob("*")), "the embedded Redis wrote nothing under the data directory"
    with running_server(None, data_dir=data) as srv:
        again = await WsClient.connect(srv.ws_url)
        await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 10**9})
        snap = await again.expect("snapshot")
        assert snap["players"][0]["moves"] == 1
        assert snap["players"][0]["board"]["cells"][2] is not None
        await again.close()
