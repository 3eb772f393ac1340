"""An arena's standings kept running: each recorded race changes the lines of its racers
only, so a race costs the same at the arena's 50,000th race as at its 50th.

:func:`.points.standings` is the definition: the table of an arena is its lines, each a
fold of :func:`.points.add` over that player's races in the order they started (then by
race id), a race recorded twice counting as its last record. A player's line depends on
their own races alone, so a new race is folded into its racers' lines only: at once when
it is the latest of theirs (the usual case), else (a race recorded late, a finish reviewed
late, an amendment) by folding that player's races again, which are bounded by
``--arena-races-per-player``. The order of the table is kept sorted as lines change
(:func:`.points.order_key`): a line's rank is its place, found by bisection.

:attr:`RunningTable.work` counts the races folded: the test of the constant cost counts
this, never a duration.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import replace

from .points import Line, Race, Racer, add, counted, order_key, rivals

#: A table's sort key with its player (unique: the player id is the key's last part).
OrderKey = tuple[int, bool, int, str]


class RunningTable:
    """The standings of one arena, updated race by race (see the module)."""

    __slots__ = ("_lines", "_names", "_of", "_order", "races", "work")

    def __init__(self) -> None:
        #: Every race by its id, as last recorded.
        self.races: dict[str, Race] = {}
        #: How many races were folded into lines so far (the cost, for the tests).
        self.work = 0
        self._lines: dict[str, Line] = {}
        self._names: dict[str, str] = {}
        #: Each player's races, as ``(at, race id)``, in the order they count.
        self._of: dict[str, list[tuple[int, str]]] = {}
        self._order: list[OrderKey] = []

    def __len__(self) -> int:
        return len(self._lines)

    def join(self, pid: str, name: str) -> None:
        """A player joined (a line with no race yet, under their name)."""
        self._names[pid] = name
        if pid not in self._lines:
            self._put(pid, Line(pid, name))

    def record(self, race: Race) -> None:
        """Count a recorded race (a race recorded again replaces its first record)."""
        before = self.races.get(race.race)
        self.races[race.race] = race
        pids = [r.pid for r in race.racers]
        if before is not None:
            pids += [r.pid for r in before.racers if r.pid not in pids]
        for pid in pids:
            self._fold(pid, race, before)

    def _fold(self, pid: str, race: Race, before: Race | None) -> None:
        """Change one player's line for a new (or amended) race."""
        keys = self._of.setdefault(pid, [])
        key = (race.at, race.race)
        mine = _racer(race, pid)
        if before is not None and before.at != race.at:
            old = (before.at, before.race)
            at = bisect_left(keys, old)
            if at < len(keys) and keys[at] == old:
                del keys[at]
        at = bisect_left(keys, key)
        present = at < len(keys) and keys[at] == key
        if mine is not None and not present:
            keys.insert(at, key)
        elif mine is None and present:
            del keys[at]  # an amendment without them (never expected)
        line = self._lines.get(pid) or Line(pid, self._names.get(pid, ""))
        if before is None and mine is not None and keys[-1] == key:
            self.work += 1  # the latest of theirs: one more fold
            self._put(pid, add(line, *counted(mine, race)))
            return
        fresh = Line(pid, self._names.get(pid, ""))
        for _at, rid in keys:  # late or amended: their races again, bounded per player
            theirs = self.races[rid]
            racer = _racer(theirs, pid)
            if racer is not None:
                self.work += 1
                fresh = add(fresh, *counted(racer, theirs))
        self._put(pid, fresh)

    def _put(self, pid: str, line: Line) -> None:
        """Set a player's line, keeping the order sorted."""
        old = self._lines.get(pid)
        if old is not None:
            at = bisect_left(self._order, order_key(old))
            del self._order[at]
        self._lines[pid] = line
        insort(self._order, order_key(line))

    def held_of(self, pid: str) -> int:
        """How many of a player's races (each as last recorded) hold their finish for
        review: told to that player alone, beside their own line (their races only)."""
        return sum(
            1
            for _at, rid in self._of.get(pid, ())
            for r in self.races[rid].racers
            if r.pid == pid and r.held
        )

    def household_of(self, pid: str) -> int:
        """How many of a player's races scored nothing because the only racers who
        contested it with them were of their own household (one client address): told to
        that player alone, so that a household's arena says why it scores nothing."""
        found = 0
        for _at, rid in self._of.get(pid, ()):
            race = self.races[rid]
            me = _racer(race, pid)
            if me is None or not me.home or rivals(me, race):
                continue
            if any(r.pid != pid and r.home == me.home and not r.absent for r in race.racers):
                found += 1
        return found

    def rank_of(self, pid: str) -> Line | None:
        """A player's line with its rank, or None."""
        line = self._lines.get(pid)
        if line is None:
            return None
        return replace(line, rank=bisect_left(self._order, order_key(line)) + 1)

    def top(self, n: int | None = None) -> list[Line]:
        """The first ``n`` lines (all: None), ranked."""
        keys = self._order if n is None else self._order[:n]
        return [replace(self._lines[key[3]], rank=i + 1) for i, key in enumerate(keys)]


def _racer(race: Race, pid: str) -> Racer | None:
    return next((r for r in race.racers if r.pid == pid), None)
