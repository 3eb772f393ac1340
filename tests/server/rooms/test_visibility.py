"""The fair view's one table (server/rooms/visibility.py), every combination of phase,
watch mode, role, own board and delay: what the snapshots show (``sees_board``) and what
the fan-out sends of a board's live event (``view``) both come from it."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import pytest

from protocol.vocabulary import Role, RoomPhase, WatchMode
from server.net.hub import view
from server.rooms.views import sees_board
from server.rooms.visibility import SIGHTS, TABLE, Sight, board_wait, sight, wait_ms
from server.store.events import RoomEvent

P, S = Role.PLAYER, Role.SPECTATOR
L, D, G = WatchMode.LIVE, WatchMode.DELAYED, WatchMode.PROGRESS
C, B, LATE = Sight.COUNTS, Sight.BOARD, Sight.LATE

#: The fair view written out, one line per (phase, role, own board): what each watch mode
#: (live, delayed, progress) gives. The spec the table must match, not derived from it.
EXPECTED: dict[tuple[str, str, bool], tuple[Sight, Sight, Sight]] = {
    # Before the start nobody sees a board, not even their own: the deal is secret.
    ("lobby", P, True): (C, C, C),
    ("lobby", P, False): (C, C, C),
    ("lobby", S, True): (C, C, C),
    ("lobby", S, False): (C, C, C),
    ("countdown", P, True): (C, C, C),
    ("countdown", P, False): (C, C, C),
    ("countdown", S, True): (C, C, C),
    ("countdown", S, False): (C, C, C),
    # Racing: one's own board at once; a rival's progress; a spectator as the mode says.
    ("racing", P, True): (B, B, B),
    ("racing", P, False): (C, C, C),
    ("racing", S, True): (B, B, B),
    ("racing", S, False): (B, LATE, C),
    # Over: a spectator sees everything; a racer still only the rivals' progress.
    ("done", P, True): (B, B, B),
    ("done", P, False): (C, C, C),
    ("done", S, True): (B, B, B),
    ("done", S, False): (B, B, B),
}

DELAYS = (0, 5_000, 30_000, 45_000)


def test_the_expected_table_names_every_combination_once() -> None:
    assert set(EXPECTED) == set(product(RoomPhase, Role, (True, False)))
    assert set(SIGHTS) == set(product(RoomPhase, WatchMode, Role, (True, False)))


@pytest.mark.parametrize(
    ("phase", "role", "own", "watch", "delay_ms"),
    list(product(RoomPhase, Role, (True, False), WatchMode, DELAYS)),
)
def test_every_combination(phase: str, role: str, own: bool, watch: str, delay_ms: int) -> None:
    want = EXPECTED[phase, role, own][list(WatchMode).index(WatchMode(watch))]
    assert sight(phase, watch, role, own) is want
    # A snapshot shows the board when the table gives it, late or not (a delayed
    # spectator's snapshot is built from the boards as they were).
    assert sees_board(phase, watch, role, own) is (want is not C)
    assert wait_ms(want, delay_ms) == (delay_ms if want is LATE else 0)
    assert board_wait(phase, watch, role, own, delay_ms) == (
        None if want is C else wait_ms(want, delay_ms)
    )


def test_each_row_decides_something() -> None:
    # A row that no combination reaches first is dead weight (or a mistake above it).
    reached = set()
    for key in SIGHTS:
        for i, row in enumerate(TABLE):
            if row.covers(*key):
                reached.add(i)
                break
    assert reached == set(range(len(TABLE)))


def test_anything_unknown_gets_the_counts_only() -> None:
    assert sight("racing", "x-ray", S, False) is C
    assert sight("racing", L, "referee", False) is C
    assert board_wait("warmup", L, S, False, 0) is None


@dataclass
class _Socket:
    """A listener as the hub sees it (it is only asked what it would receive)."""

    pid: str | None
    role: str
    cid: str = "c"
    room: str | None = "R"

    def push(self, text: str, seq: int, delay_ms: int = 0) -> None:
        """Not sent to here."""

    def queue(self, text: str) -> None:
        """Not sent to here."""

    def release_held(self) -> None:
        """Nothing held here."""


DELTA = '{"seq":7,"type":"delta","player_id":"pA","t":1500}'
PROGRESS = '{"seq":7,"type":"progress","player_id":"pA"}'


@pytest.mark.parametrize(
    ("role", "pid", "watch", "delay_s"),
    list(product(Role, ("pA", "pB"), WatchMode, (5, 30, 45))),
)
def test_a_live_delta_is_sent_as_the_table_says(
    role: str, pid: str, watch: str, delay_s: int
) -> None:
    # What the move script stores: the room's watch word and delay; the hub asks the table.
    event = RoomEvent.parse(f"pA\t{DELTA}\t{PROGRESS}\t{watch}:{delay_s}")
    own = role == P and pid == "pA"  # a spectator has no board of its own
    want = sight("racing", watch, role, own)
    text, wait = view(_Socket(pid, role), event, DELTA, PROGRESS, board_wait)
    assert text == (PROGRESS if want is C else DELTA)
    assert wait == wait_ms(want, delay_s * 1000)
