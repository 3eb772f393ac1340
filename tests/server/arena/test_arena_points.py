"""An arena's points and standings (:mod:`server.arena.points`): the docstring's
examples, the placement table scaled for fewer racers, the fire, the pledge, the tie-break,
and properties of the standings recomputed from races in any order that keeps each
player's own order."""

from __future__ import annotations

import doctest
import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from server.arena import points as arena_points
from server.arena.points import Line, Race, Racer, add, placement, podium, race_points, standings


def test_the_docstring_examples_hold() -> None:
    failed, tried = doctest.testmod(arena_points)
    assert tried >= 7 and failed == 0


def test_placement_points_by_racers() -> None:
    assert [placement(p, 4) for p in (1, 2, 3, 4)] == [4, 2, 1, 0]
    assert [placement(p, 3) for p in (1, 2, 3)] == [3, 1, 0]
    assert [placement(p, 2) for p in (1, 2)] == [2, 0]
    assert placement(None, 4) == 0 and placement(5, 4) == 0 and placement(0, 2) == 0


def test_two_wins_set_a_racer_on_fire_until_a_race_is_not_won() -> None:
    line = Line("ann")
    seen = []
    for place in (1, 1, 1, 2, 1):
        line = add(line, Racer("ann", place, 1000), 4)
        seen.append((line.points, line.streak, line.fire))
    # 4, 4, then on fire 8, then a second place on fire counts double (2 x 2) and puts it
    # out, then an ordinary win.
    assert seen == [(4, 1, False), (8, 2, True), (16, 3, True), (20, 0, False), (24, 1, False)]


def test_the_pledge_adds_one_on_a_win_kept_never_doubled() -> None:
    assert race_points(1, 4, pledge=True) == 5
    assert race_points(1, 4, on_fire=True, pledge=True) == 9
    assert race_points(1, 4, pledge=True, kept=False) == 4
    assert race_points(2, 4, pledge=True) == 2
    assert race_points(None, 4, pledge=True) == 0


def test_ties_are_broken_by_the_sum_of_finish_times() -> None:
    races = [
        Race("A/1", 1, (Racer("ann", 1, 90_000), Racer("bob", 2, 95_000))),
        Race("B/1", 2, (Racer("bob", 1, 30_000), Racer("ann", 2, 80_000))),
    ]
    table = standings(races)
    # Both have 2 points; Bob's times add up to 125 s, Ann's to 170 s.
    assert [(x.pid, x.points, x.time_ms, x.rank) for x in table] == [
        ("bob", 2, 125_000, 1),
        ("ann", 2, 170_000, 2),
    ]
    assert [x.pid for x in podium(table)] == ["bob", "ann"]


def test_an_amended_race_counts_as_its_last_record_where_it_stood_in_time() -> None:
    # Ann's first win was held (recorded as not finished), then cleared: its amendment,
    # recorded after her second win, counts first, so the second win is on fire.
    held = Race("A/1", 1, (Racer("ann", None, None), Racer("bob", 2, 95_000)))
    second = Race("B/1", 2, (Racer("ann", 1, 80_000), Racer("bob", 2, 90_000)))
    third = Race("C/1", 3, (Racer("ann", 1, 70_000), Racer("bob", 2, 85_000)))
    cleared = Race("A/1", 1, (Racer("ann", 1, 90_000), Racer("bob", 2, 95_000)))
    before = {x.pid: x for x in standings([held, second, third])}
    after = {x.pid: x for x in standings([held, second, third, cleared])}
    assert (before["ann"].points, before["ann"].races, before["ann"].wins) == (4, 3, 2)
    # 2 + 2 + on fire 2 x 2; three races, not four.
    assert (after["ann"].points, after["ann"].races, after["ann"].wins) == (8, 3, 3)
    assert after["ann"].time_ms == 240_000 and after["bob"].races == 3


def test_joined_players_without_a_race_stand_last_and_are_off_the_podium() -> None:
    table = standings([Race("A/1", 1, (Racer("ann", 1, 1), Racer("bob", 2, 2)))], [("cy", "Cy")])
    assert [(x.pid, x.points, x.races) for x in table][-1] == ("cy", 0, 0)
    assert "cy" not in [x.pid for x in podium(table)]


PLAYERS = ["p0", "p1", "p2", "p3", "p4", "p5"]


@st.composite
def arenas(draw: st.DrawFn) -> list[Race]:
    """Races of 2 to 4 racers among six players, each racer in one race at a time."""
    races = []
    for i in range(draw(st.integers(0, 25))):
        n = draw(st.integers(2, 4))
        who = draw(st.permutations(PLAYERS))[:n]
        finished = draw(st.integers(0, n))
        racers = []
        for k, pid in enumerate(who):
            place = k + 1 if k < finished else None
            time_ms = draw(st.integers(1, 10**6)) if place else None
            pledged = draw(st.booleans())
            racers.append(Racer(pid, place, time_ms, pledged, draw(st.booleans())))
        races.append(Race(f"R{i}/1", i * 10, tuple(racers)))
    return races


@settings(max_examples=200, deadline=None)
@given(arenas())
def test_the_table_sums_each_race_s_points_in_any_recorded_order(races: list[Race]) -> None:
    table = standings(races)
    # Shuffled as recorded (a race reviewed late is recorded late): the same table, since
    # the races count in the order they started.
    shuffled = list(races)
    random.Random(len(races)).shuffle(shuffled)
    assert standings(shuffled) == table
    # Each line by hand: the points of each race with the fire of the wins before it.
    for line in table:
        points = streak = played = 0
        for race in races:
            mine = [r for r in race.racers if r.pid == line.pid]
            if not mine:
                continue
            r = mine[0]
            got = race_points(r.place, len(race.racers), streak >= 2, r.pledged, r.kept)
            assert got >= 0
            points += got
            streak = streak + 1 if r.place == 1 else 0
            played += 1
        assert (line.points, line.streak, line.races) == (points, streak, played)
    # Ranked: points never rise down the table, equal points by the finish times.
    for a, b in itertools.pairwise(table):
        assert (a.points, -a.time_ms) >= (b.points, -b.time_ms)
    assert [x.rank for x in table] == list(range(1, len(table) + 1))


@settings(max_examples=100, deadline=None)
@given(arenas())
def test_a_race_s_winner_gains_at_least_what_any_rival_gains_off_fire(races: list[Race]) -> None:
    for race in races:
        n = len(race.racers)
        off = {r.pid: race_points(r.place, n, False, r.pledged, r.kept) for r in race.racers}
        winners = [r.pid for r in race.racers if r.place == 1]
        for w in winners:
            assert off[w] == max(off.values())
