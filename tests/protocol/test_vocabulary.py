"""The room's words (:mod:`protocol.vocabulary`) are the values the models allow."""

from __future__ import annotations

from enum import StrEnum
from typing import get_args

import pytest

from protocol import fields
from protocol.events import RoomFacts
from protocol.vocabulary import TRANSITIONS, Mode, Role, RoomPhase, WatchMode, deal_shown


@pytest.mark.parametrize(
    ("enum", "literal"),
    [
        (RoomPhase, RoomFacts.model_fields["state"].annotation),
        (Mode, RoomFacts.model_fields["mode"].annotation),
        (WatchMode, fields.WatchModeName),
        (Role, fields.Role),
    ],
    ids=["state", "mode", "watch", "role"],
)
def test_each_word_is_a_value_the_model_allows(enum: type[StrEnum], literal: object) -> None:
    assert set(get_args(literal)) == {member.value for member in enum}


def test_every_phase_is_reached_and_left_by_the_transitions() -> None:
    reached = {after for _, after in TRANSITIONS.values() if after is not None}
    left = set().union(*(before for before, _ in TRANSITIONS.values()))
    assert reached == {RoomPhase.COUNTDOWN, RoomPhase.RACING, RoomPhase.DONE}
    assert left == set(RoomPhase)


@pytest.mark.parametrize("phase", list(RoomPhase))
def test_a_drawn_deal_is_shown_only_once_the_race_runs(phase: RoomPhase) -> None:
    assert deal_shown(phase, typed=False) is (phase in (RoomPhase.RACING, RoomPhase.DONE))
    assert deal_shown(phase, typed=True)
