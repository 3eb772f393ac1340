"""Who contested a race: a rating or an arena point is earned only against them.

A patient cheater's puppets (fresh identities on other addresses) join a race, make a few
moves and give up, and hand their rival a win each time (farming). A rival who did not
finish **contested** the race only with a real share of it: at least
``contest_min_actions`` actions or ``contest_min_home`` cards on the foundations, and their
last action at least ``contest_min_s`` into the race (or past its first finish, when that
came sooner: nobody plays on in a race already won). Everyone else who did not finish is
**absent**: nobody is rated or scored against them (:mod:`.ratings`, :mod:`server.arena.races`).
A finisher always contested.

The same rule reads every standing, including one kept before this rule (it holds no
``last_at``): such a round has nobody absent, as it was settled when it was held.

>>> from types import SimpleNamespace as S
>>> rule = S(contest_min_actions=30, contest_min_home=8, contest_min_s=60)
>>> standing = {
...     "started_at": 0,
...     "results": {
...         "ann": {"status": "finished", "moves": 120},
...         "bob": {"status": "gave_up", "moves": 14},
...         "cy": {"status": "gave_up", "moves": 45},
...         "dee": {"status": "gave_up", "moves": 45},
...     },
...     "progress": {"ann": 52, "bob": 1, "cy": 5, "dee": 9},
...     "finished_at": {"ann": 150_000},
...     "last_at": {"ann": 150_000, "bob": 20_000, "cy": 90_000, "dee": 30_000},
... }
>>> sorted(absent(standing, rule))
['bob', 'dee']
"""

from __future__ import annotations

from typing import Any, Protocol


class Rule(Protocol):
    """The settings the rule reads."""

    contest_min_actions: int
    contest_min_home: int
    contest_min_s: int


def absent(standing: dict[str, Any], rule: Rule) -> set[str]:
    """The racers of a round's standing who did not contest it (see the module)."""
    last_at = standing.get("last_at")
    if last_at is None:
        return set()  # a standing kept before the rule: as it was
    started = int(standing.get("started_at") or 0)
    finishes = [int(ms) - started for ms in (standing.get("finished_at") or {}).values()]
    bar_ms = rule.contest_min_s * 1000
    if finishes:
        bar_ms = min(bar_ms, min(finishes))
    progress = standing.get("progress") or {}
    out = set()
    for pid, result in standing["results"].items():
        if result.get("status") == "finished":
            continue
        actions = int(result.get("moves") or 0)
        share = actions >= rule.contest_min_actions or (
            int(progress.get(pid, 0)) >= rule.contest_min_home
        )
        stayed = int(last_at.get(pid, started)) - started >= bar_ms
        if not (share and stayed):
            out.add(pid)
    return out
