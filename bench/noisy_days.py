"""One noisy finish a day: how often the server's rule holds or flags it from one finish,
on each day's daily deal.

The line is the tests' (``tests/helpers/fairplay_lines.py``'s ``noisy_line``): the solver
re-asked after each deviation, a deviation played only once the solver still wins from it,
the solver's line followed to the last card (no send home button). Each finish is weighed
as the server weighs it (the solver pool's job at the default settings, then
:func:`server.fairplay.decide.decide`) with a flag from one finish, no field and no earlier
record: what ``tests/server/ranked/test_evidence.py`` plays through a real server. The
days' deals are drawn under the tests' key (``tests/helpers/dailies.py``).

    .venv/bin/python bench/noisy_days.py --start 2026-12-01 --days 31 --jobs 2

Prints a line a day (``C``: held or flagged, then the finish's suspicion) and, per rate,
the days caught.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import multiprocessing
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fairplay import review_settings  # noqa: E402
from server.fairplay.decide import decide  # noqa: E402
from server.fairplay.policy import Policy  # noqa: E402
from server.fairplay.values import Assessment  # noqa: E402
from server.review.evidence import evidence_job  # noqa: E402
from tests.helpers.dailies import daily_deal  # noqa: E402
from tests.helpers.daily_pace import human  # noqa: E402
from tests.helpers.fairplay_lines import noisy_line  # noqa: E402


def weigh_day(job: tuple[str, tuple[float, ...], int]) -> tuple[str, list[tuple[bool, float]]]:
    """One day's deal: for each rate, whether the one finish is caught, and its suspicion."""
    date, rates, seed = job
    code = daily_deal(date).code
    policy = dataclasses.replace(Policy(), min_finishes=1)
    settings = review_settings()
    out: list[tuple[bool, float]] = []
    for rate in rates:
        line = noisy_line(code, rate, seed)
        times, at = [], 0
        for pause in human(len(line), seed=seed, scale=1):
            at += round(pause * 1000)
            times.append(at)
        weighed = evidence_job(code, 0, list(line), times, dict(settings), [], None)
        decision = decide(Assessment.from_job(weighed), [], policy, flagged=False)
        out.append((decision.held or decision.flag, decision.suspicion))
    return date, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", default=datetime.date.today().isoformat())
    parser.add_argument("--days", type=int, default=31)
    parser.add_argument("--rates", type=float, nargs="*", default=[0.07, 0.12, 0.15, 0.20])
    parser.add_argument("--seed", type=int, default=5, help="the tests' seed")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    args = parser.parse_args()
    first = datetime.date.fromisoformat(args.start)
    dates = [(first + datetime.timedelta(days=i)).isoformat() for i in range(args.days)]
    rates = tuple(args.rates)
    caught = [0] * len(rates)
    with multiprocessing.Pool(args.jobs) as pool:
        for date, found in pool.imap(weigh_day, [(d, rates, args.seed) for d in dates]):
            cells = [
                f"{r:.2f}:{'C' if c else '-'}{s:.2f}"
                for r, (c, s) in zip(rates, found, strict=True)
            ]
            print(date, " ".join(cells), flush=True)
            for i, (hit, _) in enumerate(found):
                caught[i] += hit
    print(
        "caught from one finish:",
        ", ".join(f"{r:.2f} {c}/{len(dates)}" for r, c in zip(rates, caught, strict=True)),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
