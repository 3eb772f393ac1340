"""What a rated race's ratings must not be bought with, decided without a server: the race
that is over left in Redis by hand (:func:`tests.helpers.fakes_ranked.race_room`), settled as
every instance settles it (:func:`server.ranked.ratings.settle`), its review a fake that
passes everyone. Two identities of one address rate nothing; two racers trading wins count
their first race only; a race nobody finished rates nobody. The journeys through a real
server are in :mod:`tests.server.ranked.test_honest_ratings`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.ranked import ratings
from server.store import ratings as stored
from server.transport.clients import Client
from tests.helpers.fakes_ranked import Instance, Racer, instance, race_read, race_room

CODE = "SH1-C4-AAAAAAF"
LAB = "203.0.113.7"


@pytest.fixture
async def ctx(redis_client: Client, key_prefix: str) -> AsyncIterator[Instance]:
    yield await instance(redis_client, key_prefix, env={"SEAHAVEN_PROVISIONAL_GAMES": "0"})


async def settle(ctx: Instance, room: str, racers: list[Racer]) -> dict[str, Any]:
    """Leave the race in Redis, settle it; its marker (``rated``, every racer's line)."""
    await race_room(ctx, room, race_read(CODE, racers))
    await ratings.settle(ctx, room)
    marker = await stored.settled(ctx.store, room, 1)
    assert marker is not None, "the race was not settled"
    return dict(json.loads(marker))


async def skill(ctx: Instance, pid: str) -> dict[str, str]:
    found = await ctx.redis.hgetall(ctx.keys.rating(pid, 4))
    return {str(k): str(v) for k, v in found.items()}


def reasons(marker: dict[str, Any]) -> dict[str, str | None]:
    return {x["player_id"]: x["unrated_reason"] for x in marker["lines"]}


async def test_two_identities_of_one_address_rate_nothing(ctx: Instance) -> None:
    # One wins, the other plays on a little and gives up: before, the winner gained.
    marker = await settle(ctx, "RLAB", [Racer("pann", address=LAB), Racer("pbob", 12, address=LAB)])
    assert marker["rated"] is False
    assert reasons(marker) == {"pann": "same_address", "pbob": "same_address"}
    for pid in ("pann", "pbob"):
        assert await skill(ctx, pid) == {}
    # The same race from two addresses counts.
    marker = await settle(ctx, "RTWO", [Racer("pcy"), Racer("pdee", 12, address="192.0.2.9")])
    assert marker["rated"] is True
    change = {x["player_id"]: x["change"] for x in marker["lines"]}
    assert change["pcy"] > 0 > change["pdee"]
    assert (await skill(ctx, "pcy"))["games"] == "1"


async def test_the_same_pair_counts_once_in_the_window(ctx: Instance) -> None:
    # Two identities of two addresses trade wins: only the first race counts.
    ann, bob = "pann", "pbob"

    def race(winner: str) -> list[Racer]:
        loser = bob if winner == ann else ann
        return [Racer(winner, address="192.0.2.1" if winner == ann else "192.0.2.2"),
                Racer(loser, 12, address="192.0.2.1" if loser == ann else "192.0.2.2")]  # fmt: skip

    assert (await settle(ctx, "RPAIR0", race(ann)))["rated"] is True
    after_first = await skill(ctx, ann)
    for n, winner in enumerate((bob, ann, bob), 1):
        marker = await settle(ctx, f"RPAIR{n}", race(winner))
        assert marker["rated"] is False, n  # the lower placed keeps theirs: one rates nothing
        loser = bob if winner == ann else ann
        assert reasons(marker)[loser] == "repeat_pair"
    assert (await skill(ctx, ann))["games"] == (await skill(ctx, bob))["games"] == "1"
    assert await skill(ctx, ann) == after_first


async def test_a_race_nobody_finished_rates_nobody(ctx: Instance) -> None:
    marker = await settle(ctx, "RNONE", [Racer("pcy", 12), Racer("pdee", 14, address="192.0.2.9")])
    assert marker["rated"] is False
    for pid in ("pcy", "pdee"):
        assert await skill(ctx, pid) == {}


async def test_too_few_actions_keep_a_rating(ctx: Instance) -> None:
    # Two identities that start a race and give up at once farm nothing.
    marker = await settle(ctx, "RFEW", [Racer("pcy"), Racer("pdee", 3, address="192.0.2.9")])
    assert reasons(marker)["pdee"] == "too_few_actions" and marker["rated"] is False
