"""The ports the tests hand their private servers: never one a browser refuses to open.

A browser test once failed because its server had been given 5060 (SIP), which Chromium
will not navigate to (``net::ERR_UNSAFE_PORT``); the failure came from the draw, not from
the code under test.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from tests.helpers.serverproc import BROWSER_UNSAFE_PORTS, free_port


@pytest.mark.parametrize("worker", [f"gw{i}" for i in range(10)])
def test_no_worker_is_given_a_port_chromium_refuses(
    worker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each worker's slice is walked with its unsafe ports first: the draw skips them all."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)

    def unsafe_first(population: Sequence[int], k: int) -> list[int]:
        ports = list(population)[:k]
        return sorted(ports, key=lambda port: port not in BROWSER_UNSAFE_PORTS)

    monkeypatch.setattr(random, "sample", unsafe_first)
    port = free_port()
    assert port not in BROWSER_UNSAFE_PORTS
    index = int(worker.removeprefix("gw"))
    assert 5000 + index * 700 <= port < 5000 + (index + 1) * 700


def test_the_draw_still_spreads_over_the_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skipping the unsafe ports does not narrow the draw to a few ports that could clash."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    drawn = {free_port() for _ in range(200)}
    assert len(drawn) > 100
    assert not drawn & BROWSER_UNSAFE_PORTS
