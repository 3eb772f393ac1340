"""The daily played at a person's pace against a server whose pace model is scaled down: the
settings, the human-like gaps, the reveal and the play of a line."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from server.review.pace import Pace, format_bursts
from tests.helpers.daily_server import wire
from tests.helpers.inproc import Served
from tests.helpers.serverproc import WsClient

#: The pace model and the human pauses of :data:`PACE_ENV` and :func:`human`: the real
#: ones divided by this (for a server process, which the test's clock does not reach).
SCALE = 8
DEFAULT = Pace()
PACE_ENV = {
    "SEAHAVEN_MIN_MS_PER_ACTION": "20",
    "SEAHAVEN_PACE_READ_MS": str(DEFAULT.read_ms // SCALE),
    "SEAHAVEN_PACE_GAME_MS": str(DEFAULT.game_ms // SCALE),
    "SEAHAVEN_PACE_DECISION_MS": str(DEFAULT.decision_ms // SCALE),
    "SEAHAVEN_PACE_BURSTS": format_bursts([(k, w // SCALE) for k, w in DEFAULT.bursts]),
    "SEAHAVEN_REVIEW_HOLD_AGREEMENT": "2",
}


async def reveal(client: WsClient, **fields: Any) -> dict[str, Any]:
    """Ask for a daily game; its snapshot reveals the deal."""
    await client.send({"type": "daily", **fields})
    snap = await client.expect("snapshot")
    assert snap["mode"] == "daily" and snap["state"] == "racing"
    return snap


async def play(
    client: WsClient, line: tuple[str, ...], pauses: list[float], start: int = 1
) -> None:
    """Pause, then send each action and wait for its ack."""
    for i, (text, pause) in enumerate(zip(line, pauses, strict=True)):
        await asyncio.sleep(pause)
        await client.send(wire(text, start + i))
        await client.expect("ack", id=start + i)


def human(n: int, seed: int, scale: int = SCALE) -> list[float]:
    """A person's pauses: 1100-2200 ms each (the first 3 s: reading), divided by ``scale``
    (the model's scale for a server process)."""
    rng = random.Random(seed)
    return [3.0 / scale] + [rng.uniform(1.1, 2.2) / scale for _ in range(n - 1)]


async def play_on(
    server: Served,
    client: WsClient,
    line: tuple[str, ...],
    pauses: list[float],
    start: int = 1,
) -> None:
    """As :func:`play`, each pause (seconds) an advance of the server's clock."""
    for i, (text, pause) in enumerate(zip(line, pauses, strict=True)):
        server.clock.advance(pause * 1000)
        await client.send(wire(text, start + i))
        await client.expect("ack", id=start + i)
