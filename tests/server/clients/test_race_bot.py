"""``seahaven bot``: bots race each other to the end through a real server."""

from __future__ import annotations

import asyncio

from server.clients.bot import Bot
from tests.helpers.cli import run_seahaven, start_seahaven
from tests.helpers.serverproc import ServerProc, WsClient
from tests.helpers.waits import until


async def test_two_bots_race_to_the_end(race_server: ServerProc) -> None:
    lines: list[str] = []
    host = Bot(race_server.ws_url, "host", speed=0, say=lines.append)
    task = asyncio.create_task(host.run(None, cells=4, start_at=2, code="SH1-C4-AAAAAAF"))
    await until(lambda: host.result.room, what="the host's room")
    spy = await WsClient.connect(race_server.ws_url, "spy")
    await spy.send({"type": "join", "room": host.result.room, "role": "spectator"})
    await spy.expect("snapshot")
    guest = Bot(race_server.ws_url, "guest", speed=0, say=None)
    one, two = await asyncio.wait_for(asyncio.gather(task, guest.run(host.result.room)), 60)
    assert one.finished and two.finished
    assert {one.rank, two.rank} == {1, 2}
    over = await spy.expect("race_over")
    assert {r["name"] for r in over["results"]} == {"host", "guest"}
    assert any("race over" in line for line in lines)
    await spy.close()


def test_bot_command_line(race_server: ServerProc) -> None:
    host = start_seahaven(
        "bot",
        "--url",
        race_server.ws_url,
        "--create",
        "--cells",
        "2",
        "--start-at",
        "2",
        "--speed",
        "0",
        "--name",
        "cli-host",
    )
    assert host.stdout is not None
    first = host.stdout.readline()
    room = first.split()[2]
    guest = run_seahaven(
        "bot", "--url", race_server.ws_url, "--room", room, "--speed", "0", "--name", "cli-guest"
    )
    out, _ = host.communicate(timeout=60)
    assert host.returncode == 0 and guest.returncode == 0, (out, guest.stdout)
    assert "race over" in out and "finished #" in guest.stdout
