"""Suspicious lines for the fair play tests: a solver's with deliberate deviations whose
record leans towards a reference's line by the server's own measure, yet is not one
outright and passes its one-game review.

The rule's count of finishes can only be seen with such lines: a person's own line has a
suspicion near 0 and flags nobody however few finishes are counted. Which seeds give such a
line depends on the day's deal, so the lines are picked by weighing candidates with the
solver pool's own job (:func:`server.review.evidence.evidence_job`, with the reviewer
settings the server under test hands it): its agreement does not depend on the times.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.fairplay.decide import outright, suspicion
from server.fairplay.policy import Policy
from server.review.evidence import evidence_job, line_digests
from tests.helpers.fairplay_lines import noisy_line

#: The deviation rates tried, in turn: lower ones agree with the solver so often that the
#: one-game review holds them, higher ones look like a person.
RATES = (0.15, 0.2, 0.1, 0.25)
#: Above this share of its decisions' tables on lines already picked, a line is too like
#: one of them (the server would find it borrowed, a reference's line outright).
OVERLAP = 0.5


def suspicious_lines(
    code: str,
    count: int,
    settings: Mapping[str, Any],
    policy: Policy,
    tries: int = 48,
) -> list[tuple[str, ...]]:
    """``count`` lines of a deal, each suspicious enough to flag on a score of its own
    (``policy.flag_score`` or more) but below the one-game review's hold and no reference's
    line outright, no two alike.

    Args:
        code: the deal.
        count: the lines wanted.
        settings: what the server's reviewer hands each job (``Reviewer.settings``).
        policy: the server's thresholds.
        tries: the candidates tried at most before giving up (an assertion).
    """
    picked: list[tuple[str, ...]] = []
    seen: set[str] = set()
    candidates = [(rate, seed) for seed in range(1, tries + 1) for rate in RATES][:tries]
    for rate, seed in candidates:
        if len(picked) == count:
            break
        line = noisy_line(code, rate, seed)
        kept, decided = line_digests(code, line)
        if sum(t in seen for t in decided) > OVERLAP * len(decided):
            continue
        times = [2000 + 1500 * i for i in range(len(line))]  # the agreement ignores them
        job = evidence_job(code, 0, list(line), times, dict(settings), [], None)
        record, agreement = job["evidence"], job["agreement"]
        if (
            agreement is not None
            and agreement < policy.hold_agreement
            and suspicion(record, policy) >= policy.flag_score
            and not outright(record, policy)
        ):
            picked.append(line)
            seen.update(kept)
    assert len(picked) == count, f"{len(picked)} of {count} suspicious lines in {tries} tries"
    return picked
