"""An arena's points and standings, as pure functions of its recorded races.

An arena is a tournament of back-to-back races; its standings are never kept as a running
total that could drift from what happened: they are recomputed from the races the arena
recorded (:func:`standings`), so a test, an operator or another instance gets the same
table from the same results.

Each race gives each racer **placement points** by their place among the racers of that
race (:data:`POINTS`): 4, 2, 1, 0 among four, scaled for fewer racers (3, 1, 0 among three;
2, 0 between two). A racer who did not finish (gave up, left, ran out of time, or whose
finish waits for review) gets 0, whatever their progress.

>>> race_points(1, 4), race_points(2, 4), race_points(3, 4), race_points(4, 4)
(4, 2, 1, 0)
>>> race_points(1, 3), race_points(2, 2), race_points(None, 4)
(3, 0, 0)

**The fire.** Two wins in a row set a racer on fire: every race they start on fire counts
double, until a race they do not win puts the fire out (that race still counts double).

>>> race_points(2, 4, on_fire=True)
4

**The pledge.** A racer may pledge "no take-backs" at a race's start; a win without one
undo then earns one extra point (after the doubling: the fire never doubles it). A pledge
broken by an undo, or a race not won, earns nothing extra and costs nothing.

>>> race_points(1, 4, on_fire=True, pledge=True)
9
>>> race_points(1, 4, pledge=True, kept=False)
4

**Contested races only.** Points are earned against rivals who contested the race and
came from another address: a racer who did not finish and gave up or idled early
(``absent``, :mod:`server.fairplay.contest`) is no rival, nor is a racer of one's own
household (``home``, the same client address). A racer's place and the race's size are
counted among themselves and those rivals; a race without one is worth nothing, and no
win (it neither lights nor keeps a fire). So three puppets that join and give up hand
nobody points, and two identities of one household race each other for fun.

>>> puppets = Race("R9/1", 9, (
...     Racer("far", 1, 60_000), Racer("p1", None, None, absent=True),
...     Racer("p2", None, None, absent=True),
... ))
>>> [(x.pid, x.points, x.wins) for x in standings([puppets])][:1]
[('far', 0, 0)]
>>> home = Race("R8/1", 8, (
...     Racer("mum", 1, 60_000, home=1), Racer("kid", 2, 70_000, home=1), Racer("ed", 3, 80_000),
... ))
>>> [(x.pid, x.points) for x in standings([home])]
[('mum', 2), ('kid', 2), ('ed', 0)]

**The same small field pays less.** A win over rivals one already beat often lately is worth
less: each race's points are multiplied by the racer's ``worth``, the mean over the rivals
they placed ahead of of :func:`server.fairplay.contest.worth` (the first
``contest_repeat_full`` wins over a rival within ``contest_repeat_days`` in full, the k-th
after them ``full / k``, across the player's arenas), rounded half up. Honest friends
who trade wins keep most of theirs; three puppets beaten race after race stop paying.

>>> [add(Line("far"), Racer("far", 1, 60_000, worth=w), 4).points for w in (1, 0.75, 0.3, 0.1)]
[4, 3, 1, 0]

Ties in points are broken by the sum of the racer's finish times (the smaller first), then
by the player id, so that every table is one order; a player who joined and has not raced
yet stands after every player with as many points who has.

>>> races = [
...     Race("R1/1", 1, (Racer("ann", 1, 60_000), Racer("bob", 2, 70_000))),
...     Race("R2/1", 2, (Racer("ann", 1, 50_000), Racer("cy", None, None))),
...     Race("R3/1", 3, (
...         Racer("ann", 1, 40_000, pledged=True), Racer("bob", 2, 41_000), Racer("cy", None, None)
...     )),
... ]
>>> [(x.pid, x.points, x.streak, x.races, x.time_ms) for x in standings(races)]
[('ann', 11, 3, 3, 150000), ('bob', 1, 0, 2, 111000), ('cy', 0, 0, 2, 0)]

Ann won two races of two (2 + 2), then, on fire, a race of three with her pledge kept
(3 x 2 + 1); Bob's second place among three is worth 1. Had Bob and Cy both 0 points,
Cy, with no finish time to add up, would rank first of the two: the tie-break is the sum
of finish times alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final

#: Placement points by the number of racers, first place first.
POINTS: Final[dict[int, tuple[int, ...]]] = {2: (2, 0), 3: (3, 1, 0), 4: (4, 2, 1, 0)}
#: Consecutive wins that set a racer on fire.
FIRE_AFTER: Final = 2
#: What a kept pledge adds to a win.
PLEDGE_BONUS: Final = 1


def placement(place: int | None, racers: int) -> int:
    """The placement points of ``place`` (1 first, None: did not finish) among ``racers``
    (2 to 4; more count as four, fewer than two as two)."""
    table = POINTS[max(2, min(4, racers))]
    if place is None or place < 1 or place > len(table):
        return 0
    return table[place - 1]


def race_points(
    place: int | None,
    racers: int,
    on_fire: bool = False,
    pledge: bool = False,
    kept: bool = True,
) -> int:
    """What one race is worth to a racer: placement points, doubled on fire, plus the
    pledge's point on a win with the pledge kept."""
    points = placement(place, racers) * (2 if on_fire else 1)
    if place == 1 and pledge and kept:
        points += PLEDGE_BONUS
    return points


@dataclass(frozen=True, slots=True)
class Racer:
    """One racer's result in one arena race.

    Attributes:
        pid: the player.
        place: their finishing place (1 first), None if they did not finish.
        time_ms: their finish time (None if they did not finish).
        pledged: they pledged no take-backs at the race's start.
        kept: the pledge held (the race's log has no undo of theirs).
        name: their name, for the tables.
        absent: they did not contest the race (did not finish, and gave up or idled
            early): no rival of anyone's.
        home: their household in this race (racers of one client address share a number
            > 0; 0: their own): no rival of each other.
        held: their finish is held for review (it counts as not finished until cleared).
        worth: what their placement points are worth (1 in full): less for a win over
            rivals they already beat often lately (:func:`server.fairplay.contest.worth`,
            worked out when the race was recorded).
    """

    pid: str
    place: int | None
    time_ms: int | None
    pledged: bool = False
    kept: bool = True
    name: str = ""
    absent: bool = False
    home: int = 0
    held: bool = False
    worth: float = 1.0


@dataclass(frozen=True, slots=True)
class Race:
    """One recorded arena race.

    Attributes:
        race: ``ROOM/ROUND``, the race's identity (recorded once).
        at: when it started (ms): a player's races never overlap, so they count in this
            order, whenever each was recorded (a finish reviewed late is recorded late).
        racers: every racer of the race.
    """

    race: str
    at: int
    racers: tuple[Racer, ...]


@dataclass(frozen=True, slots=True)
class Line:
    """A player's line of the standings.

    Attributes:
        pid, name: the player.
        points: their arena points.
        streak: their current run of wins (on fire from :data:`FIRE_AFTER`).
        races, wins: the races they played and won.
        time_ms: the sum of their finish times (the tie-break).
        rank: their place in the table (1 first; 0 until ranked).
    """

    pid: str
    name: str = ""
    points: int = 0
    streak: int = 0
    races: int = 0
    wins: int = 0
    time_ms: int = 0
    rank: int = 0

    @property
    def fire(self) -> bool:
        """Whether their next race counts double."""
        return self.streak >= FIRE_AFTER


def rivals(racer: Racer, race: Race) -> list[Racer]:
    """The racers of ``race`` who count as ``racer``'s rivals: they contested it, and are
    not of ``racer``'s household."""
    return [
        other
        for other in race.racers
        if other.pid != racer.pid
        and not other.absent
        and not (racer.home and other.home == racer.home)
    ]


def counted(racer: Racer, race: Race) -> tuple[Racer, int]:
    """The racer as their race counts for them: placed among themselves and their rivals
    (:func:`rivals`), and how many those are (1: nobody to race)."""
    against = rivals(racer, race)
    place = racer.place
    if place is not None:
        place = 1 + sum(1 for o in against if o.place is not None and o.place < place)
    return replace(racer, place=place), len(against) + 1


def add(line: Line, racer: Racer, racers: int) -> Line:
    """A line after one more race of ``racers`` racers (as :func:`counted` counts them); a
    race of one counts as played, for nothing."""
    if racers < 2:
        return replace(line, name=racer.name or line.name, races=line.races + 1)
    won = racer.place == 1
    points = race_points(racer.place, racers, line.fire, racer.pledged, racer.kept)
    if racer.worth < 1:
        points = math.floor(points * racer.worth + 0.5)  # half up: 1.5 is 2
    return replace(
        line,
        name=racer.name or line.name,
        points=line.points + points,
        streak=line.streak + 1 if won else 0,
        races=line.races + 1,
        wins=line.wins + (1 if won else 0),
        time_ms=line.time_ms + ((racer.time_ms or 0) if racer.place is not None else 0),
    )


def order_key(line: Line) -> tuple[int, bool, int, str]:
    """How the table sorts: most points, then a player who raced before one who has not
    yet, then the smaller sum of finish times, then the player id."""
    return (-line.points, line.races == 0, line.time_ms, line.pid)


def standings(races: Iterable[Race], joined: Iterable[tuple[str, str]] = ()) -> list[Line]:
    """The table of an arena from its recorded races (in the order they started, then by
    race id), ranked; ``joined`` (player id, name) adds players without a race yet.

    A race recorded twice counts as its last record: an amendment (a held finisher an
    operator cleared after the race was recorded) replaces the first record where it stood
    in time, so the fire and the streaks after it are counted again with it."""
    lines: dict[str, Line] = {pid: Line(pid, name) for pid, name in joined}
    last = {race.race: race for race in races}
    for race in sorted(last.values(), key=lambda r: (r.at, r.race)):
        for racer in race.racers:
            line = lines.get(racer.pid) or Line(racer.pid)
            lines[racer.pid] = add(line, *counted(racer, race))
    ranked = sorted(lines.values(), key=order_key)
    return [replace(line, rank=i + 1) for i, line in enumerate(ranked)]


def podium(table: list[Line]) -> list[Line]:
    """The first three of a final table who scored: a race against nobody (or puppets)
    puts no one on it."""
    return [line for line in table if line.races > 0 and line.points > 0][:3]
