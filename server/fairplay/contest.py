"""Who contested a race, and what a repeated result against the same rivals is worth.

**Contesting is progress, not actions.** A patient cheater's puppets (fresh identities on
other addresses) join a race and hand their rival a win. Actions are free to a script (a
move and its undo, again and again), so a rival who did not finish **contested** the race
only with progress of their own, counted by :func:`made` from their log up to the race's
first finish (when the race was won; all of it if nobody finished):

- the **new tables** of their kept line: the distinct tables (cells in any order) their
  actions reached and did not take back, the deal's own table not counted. A move and its
  undo, or a card sent to a cell and back, reach nothing new;
- the **cards home** on the foundations of that line.

They contested with at least ``contest_min_tables`` new tables or ``contest_min_home`` cards
home, the last of those tables reached at least ``contest_min_s`` into the race, or, when
the race was won sooner, ``contest_min_share`` of the way to its first finish. An action
after the first finish counts for nothing here (nobody contests a race already won), so a
puppet's last action timed just past the winner's finish does not make it a rival. Everyone
else who did not finish is **absent**: nobody is rated or scored against them
(:mod:`server.ranked.ratings`, :mod:`server.arena.races`). A finisher always contested.

A standing kept before this rule (a held round; it holds no ``made``) is read by its cards
home at the end and its last action; one kept before any rule (no ``last_at``) has nobody
absent, as it was settled when it was held.

>>> from types import SimpleNamespace as S
>>> rule = S(contest_min_tables=20, contest_min_home=8, contest_min_s=60, contest_min_share=0.8)
>>> standing = {
...     "started_at": 0,
...     "results": {
...         "ann": {"status": "finished"},
...         "bob": {"status": "gave_up"},
...         "cy": {"status": "gave_up"},
...         "dee": {"status": "gave_up"},
...     },
...     "progress": {"ann": 52, "bob": 0, "cy": 5, "dee": 9},
...     "finished_at": {"ann": 150_000},
...     "last_at": {"ann": 150_000, "bob": 151_000, "cy": 90_000, "dee": 30_000},
...     "made": {"ann": [90, 52, 150_000], "bob": [1, 0, 20_000], "cy": [24, 5, 88_000],
...              "dee": [12, 9, 30_000]},
... }
>>> sorted(absent(standing, rule))
['bob', 'dee']

Bob shuffled (one new table); Cy played 24 new tables, the last at 88 s; Dee sent 9 cards
home but stopped at 30 s, before 60 s (and before 0.8 of the way to the winner's 150 s).

**Repeated results are worth less.** The k-th result a player counts against the same rival
within ``contest_repeat_days`` (a rated race: any result; an arena race: a win over them) is
worth :func:`worth` of a full one: the first ``contest_repeat_full`` in full, then
``full / k``, so n of them add up to about ``full x (1 + ln(n / full))``: friends who race
each other every day still move, three puppets raced again and again stop paying.

>>> [round(worth(k, 3), 2) for k in (1, 2, 3, 4, 6, 12, 30)]
[1.0, 1.0, 1.0, 0.75, 0.5, 0.25, 0.1]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from ..engine import Board, parse_action

#: What a racer made of a race (:func:`made`): new tables, cards home, when (ms) the last
#: new table was reached.
Made = tuple[int, int, int]


class Rule(Protocol):
    """The settings the contest rule reads."""

    contest_min_tables: int
    contest_min_home: int
    contest_min_s: int
    contest_min_share: float


def table_of(board: Board) -> tuple[object, ...]:
    """A table as progress counts it: cells in any order (moving a card from one cell to
    another is no new table)."""
    columns, cells, home = board.key()
    return (columns, tuple(sorted(str(c) for c in cells if c is not None)), home)


def made(code: str, lines: Iterable[str], until_ms: int | None = None) -> Made:
    """What a log of ``MS\\tID\\tACTION`` lines made of the deal ``code``, counting the
    actions at or before ``until_ms`` (all of them if None): the new tables of its kept
    line (not undone), the cards home at that line's end, and when the last of those
    tables was first reached (0: none). A log that does not replay made nothing."""
    board = Board.from_code(code)
    start = table_of(board)
    kept: list[tuple[tuple[object, ...], int]] = []  # each kept action: its table, when
    try:
        for line in lines:
            ms_text, _id, action = line.split("\t", 2)
            ms = int(ms_text)
            if until_ms is not None and ms > until_ms:
                break
            board.play(parse_action(action))
            if action == "undo":
                if kept:
                    kept.pop()
            else:
                kept.append((table_of(board), ms))
    except Exception:  # a corrupt log: no progress to count
        return (0, 0, 0)
    first: dict[tuple[object, ...], int] = {}
    for table, ms in kept:
        if table != start:
            first.setdefault(table, ms)
    return (len(first), sum(board.foundations), max(first.values(), default=0))


def absent(standing: Mapping[str, Any], rule: Rule) -> set[str]:
    """The racers of a round's standing who did not contest it (see the module)."""
    last_at = standing.get("last_at")
    if last_at is None:
        return set()  # a standing kept before the rule: as it was
    started = int(standing.get("started_at") or 0)
    finishes = [int(ms) - started for ms in (standing.get("finished_at") or {}).values()]
    bar_ms = rule.contest_min_s * 1000
    if finishes:
        bar_ms = min(bar_ms, int(rule.contest_min_share * min(finishes)))
    kept = standing.get("made")
    progress = standing.get("progress") or {}
    out = set()
    for pid, result in standing["results"].items():
        if result.get("status") == "finished":
            continue
        if kept is None:  # kept before progress was counted: cards home, last action
            tables, home, at = 0, int(progress.get(pid, 0)), int(last_at.get(pid, started))
        else:
            tables, home, at = (int(x) for x in kept.get(pid) or (0, 0, started))
        share = tables >= rule.contest_min_tables or home >= rule.contest_min_home
        stayed = max(at, started) - started >= bar_ms  # at 0: no new table at all
        if not (share and stayed):
            out.add(pid)
    return out


def worth(k: int, full: int) -> float:
    """What the ``k``-th result against the same rival within the window is worth (1 for a
    full one): 1 up to ``full``, then ``full / k`` (``full`` 0: always 1, the rule off)."""
    if full <= 0 or k <= full:
        return 1.0
    return full / k


def field_worth(counts: Mapping[str, int], rivals: Iterable[str], full: int) -> float:
    """What a result against ``rivals`` is worth: the mean of each one's :func:`worth`, with
    ``counts`` the results already counted against each within the window (this one is
    the next). No rivals: 1."""
    shares = [worth(int(counts.get(r, 0)) + 1, full) for r in rivals]
    return sum(shares) / len(shares) if shares else 1.0
