"""The pairing script on a real Redis: closest skills first, a fourth waited for at most the
wait, a dodger held back (and however many of them never hiding the ready players from a
pass), two players of one client address in one group only when nobody else waits, and
passes running at once never pair a player twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.quick.pairing import bot_speed, penalty_s
from server.store import queue
from server.store.keys import Keys
from server.store.store import Store
from tests.helpers.serverproc import redis_url

T0 = 1_800_000_000_000
FOURTH = 10_000


@pytest.fixture
async def store(key_prefix: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    yield Store(client, Keys(key_prefix), ttl=60)
    await client.aclose()


async def wait(
    store: Store, pid: str, mu: float, since: int = T0, ready: int = T0, addr: str = ""
) -> None:
    assert await queue.add(store, 4, pid, mu, since, ready, "i1", T0, addr) == "ok"


async def test_two_players_of_one_address_race_only_when_nobody_else_waits(
    store: Store,
) -> None:
    """Two identities of one address in the queue (once paired 4 times out of
    4, they traded wins): paired with anyone else first; alone together, as a household
    (never a silent wait), marked so the room says so and rates nobody."""
    await wait(store, "ann", 25.0, addr="lab")
    await wait(store, "ann2", 25.0, addr="lab")
    await wait(store, "cy", 40.0, addr="home")
    assert await queue.pair(store, 4, T0 + 100, FOURTH) == []
    assert await queue.pair_marked(store, 4, T0 + FOURTH, FOURTH) == [(["ann", "cy"], False)]
    assert await queue.pair(store, 4, T0 + 10 * FOURTH, FOURTH) == []  # alone
    await wait(store, "ann3", 26.0, addr="lab")
    marked = await queue.pair_marked(store, 4, T0 + 10 * FOURTH, FOURTH)
    assert [(sorted(g), home) for g, home in marked] == [(["ann2", "ann3"], True)]
    # Four of one address and a stranger: the closest window has two of the address; the
    # stranger races the first of them once a fourth was waited for.
    for pid, mu in [("l1", 25.0), ("l2", 25.5), ("l3", 26.0), ("l4", 27.0)]:
        await wait(store, pid, mu, addr="lab")
    await wait(store, "cy", 40.0, addr="home")
    assert await queue.pair(store, 4, T0 + 100, FOURTH) == []
    groups = await queue.pair(store, 4, T0 + FOURTH, FOURTH)
    assert [sorted(g) for g in groups] == [["cy", "l1"]]
    await queue.remove(store, 4, "l2")
    await queue.remove(store, 4, "l4")
    # Four of four addresses pair at once, closest skills first, skipping a window that
    # holds one address twice.
    for pid, mu, addr in [("d", 26.5, "d"), ("e", 27.5, "e"), ("f", 28.0, "f")]:
        await wait(store, pid, mu, addr=addr)
    groups = await queue.pair(store, 4, T0 + 200, FOURTH)
    assert len(groups) == 1 and len(groups[0]) == 4
    assert len({g for g in groups[0] if g.startswith(("ann", "l"))}) == 1


async def test_four_closest_skills_race_together_at_once(store: Store) -> None:
    for pid, mu in [("a", 10.0), ("b", 30.0), ("c", 31.0), ("d", 33.0), ("e", 34.0)]:
        await wait(store, pid, mu)
    groups = await queue.pair(store, 4, T0 + 100, FOURTH)
    assert [sorted(g) for g in groups] == [["b", "c", "d", "e"]]  # spread 4, not 23
    assert await queue.waiting(store, 4) == 1
    assert await queue.pair(store, 4, T0 + FOURTH + 1, FOURTH) == []  # alone: no race


async def test_two_or_three_race_once_the_longest_waiting_waited_for_a_fourth(
    store: Store,
) -> None:
    await wait(store, "a", 20.0, since=T0)
    await wait(store, "b", 25.0, since=T0 + 4000)
    await wait(store, "c", 26.0, since=T0 + 8000)
    assert await queue.pair(store, 4, T0 + FOURTH - 1, FOURTH) == []
    groups = await queue.pair(store, 4, T0 + FOURTH, FOURTH)
    assert [sorted(g) for g in groups] == [["a", "b", "c"]]
    assert await queue.waiting(store, 4) == 0


async def test_a_held_back_player_is_not_paired_until_ready(store: Store) -> None:
    for pid in "abc":
        await wait(store, pid, 25.0)
    await wait(store, "dodger", 25.0, ready=T0 + 60_000)
    groups = await queue.pair(store, 4, T0 + FOURTH, FOURTH)
    assert [sorted(g) for g in groups] == [["a", "b", "c"]]
    assert await queue.waiting(store, 4) == 1
    assert await queue.add(store, 4, "dodger", 1.0, T0, T0, "i1", T0) == "already_queued"
    # Ready again, the dodger is paired by skill with the players who come after.
    for pid in "xyz":
        await wait(store, pid, 25.0, since=T0 + 60_000)
    groups = await queue.pair(store, 4, T0 + 60_000, FOURTH)
    assert [sorted(g) for g in groups] == [["dodger", "x", "y", "z"]]


async def test_players_held_back_never_hide_the_ready_from_a_pass(store: Store) -> None:
    # More dodgers held back than a pass scans, all with the lowest skills: the ready
    # players beyond them are still paired.
    for n in range(queue.MAX_SCANNED + 50):
        await wait(store, f"dodger{n}", 1.0, ready=T0 + 300_000)
    for pid in "abcd":
        await wait(store, pid, 30.0)
    groups = await queue.pair(store, 4, T0 + 100, FOURTH)
    assert [sorted(g) for g in groups] == [["a", "b", "c", "d"]]
    assert await queue.waiting(store, 4) == queue.MAX_SCANNED + 50


async def test_passes_at_once_never_pair_a_player_twice(store: Store) -> None:
    for n in range(203):
        await wait(store, f"p{n}", float(n % 37))
    passes = await asyncio.gather(*(queue.pair(store, 4, T0 + FOURTH, FOURTH) for _ in range(6)))
    paired = [pid for groups in passes for group in groups for pid in group]
    assert len(paired) == len(set(paired)) == 203
    assert all(2 <= len(g) <= 4 for groups in passes for g in groups)


def test_the_dodge_penalty_grows_and_is_capped() -> None:
    # From the first dodge on (dodging to pick a rival: the first two were free).
    assert [penalty_s(n) for n in range(8)] == [0, 15, 30, 60, 120, 240, 300, 300]
    assert bot_speed(1000) == pytest.approx(0.6)
    assert bot_speed(0) == 0.3 and bot_speed(3000) == 3.0
