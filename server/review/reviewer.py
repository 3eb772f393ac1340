"""Running reviews off the event loop: :func:`server.review.evidence.evidence_job` (the
review and the finish's evidence record) in the solver's processes
(:class:`server.solver_pool.SolverPool`).

A review replays the line and asks the solver from a few positions: seconds of one core at
most. A finisher waits on it, so it runs niced like a hint's fast solver, not only on spare
CPU (``waited_for`` of :meth:`~server.solver_pool.SolverPool.submit`). Reviews have a lane
of their own: at most :data:`REVIEWS_AT_ONCE` of an instance's reviews are in the pool at a
time, the others wait their turn in the order the finishes came (a finish stays *pending
review* meanwhile). So a burst of finishes, however many identities play them, takes one
slot of the pool and leaves the rest to the players' hints; a review is keyed
``review:PID``, so it never takes the slot of the player's own hint either. A review in its
turn waits for room in the pool (every second, up to :data:`WAIT_S`: the pool full of
hints); one the pool cannot run (its process died twice, or no room in time) is **held**
(``unreviewed``), never ranked unreviewed.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from ..solver_pool import SolverFailed, SolverPool
from .evidence import OPTIMAL_SEARCHES, OPTIMAL_STATES, evidence_job, marks
from .pace import Pace

log = logging.getLogger(__name__)

#: How long a review, in its turn, may wait for room in the solver pool, in seconds.
WAIT_S: Final = 120
#: An instance's reviews in the solver pool at once (the rest queue, first come first).
REVIEWS_AT_ONCE: Final = 1


def unreviewed(message: str) -> dict[str, Any]:
    """The score of a finish the pool could not review: held, for an operator."""
    return {
        "held": True,
        "reason": "unreviewed",
        "message": message,
        "agreement": None,
        "scored": 0,
        "decisions": 0,
        "detours": 0,
        "undos": 0,
        "dead_ends": 0,
        "spread": 0.0,
        "solves": 0,
    }


class Reviewer:
    """Scores finished lines in the solver pool.

    Args:
        pool: the instance's solver processes (None, or not started: a thread, for tools).
        pace: the pace model.
        hold_agreement, min_scored: the review's settings.
    """

    def __init__(
        self,
        pool: SolverPool | None,
        pace: Pace,
        hold_agreement: float,
        min_scored: int,
        optimal_searches: int = OPTIMAL_SEARCHES,
        optimal_states: int = OPTIMAL_STATES,
    ) -> None:
        self.pool = pool
        # FIFO: asyncio's semaphore wakes its waiters in the order they came.
        self._lane = asyncio.Semaphore(REVIEWS_AT_ONCE)
        self.settings: dict[str, Any] = {
            "read_ms": pace.read_ms,
            "game_ms": pace.game_ms,
            "decision_ms": pace.decision_ms,
            "bursts": [list(b) for b in pace.bursts],
            "hold_agreement": hold_agreement,
            "min_scored": min_scored,
            "optimal_searches": optimal_searches,
            "optimal_states": optimal_states,
        }

    async def score(
        self,
        player: str,
        code: str,
        started_at: int,
        actions: list[str],
        times: list[int],
        practised: list[list[str]] | None = None,
        field_ms: int | None = None,
    ) -> dict[str, Any]:
        """The review's score of one line (``Score.to_json()``) with its evidence record
        (``evidence``: :func:`server.review.evidence.gather`).

        Args:
            practised: lines of the deal other identities of the player's address finished.
            field_ms: the median time of the day's established finishers, if enough.
        """
        args = (code, started_at, actions, times, self.settings, practised or [], field_ms)
        if self.pool is None or not self.pool.started:
            return await asyncio.to_thread(evidence_job, *args)
        async with self._lane:
            return await self._in_pool(self.pool, player, args)

    async def marks(
        self, result: str, code: str, actions: list[str]
    ) -> list[dict[str, Any]] | None:
        """Each action of a line marked where it matched a reference line, for the
        operator's replay (:func:`server.review.evidence.marks`), off the event loop and in
        the reviews' lane; None when the pool cannot run it now (busy, or its process died).

        An operator waits on the answer, so it runs as a finisher's review does: at the
        idle priority a busy host gave it no CPU for minutes."""
        args = (
            code,
            actions,
            float(self.settings["hold_agreement"]),
            int(self.settings["optimal_searches"]),
            int(self.settings["optimal_states"]),
        )
        if self.pool is None or not self.pool.started:
            return await asyncio.to_thread(marks, *args)
        async with self._lane:
            answer = self.pool.submit(f"marks:{result}", marks, *args, waited_for=True)
            if answer is None:
                return None
            try:
                return list(await answer)
            except SolverFailed:
                return None

    async def _in_pool(
        self, pool: SolverPool, player: str, args: tuple[Any, ...]
    ) -> dict[str, Any]:
        for attempt in range(2):
            waited = 0
            answer = pool.submit(f"review:{player}", evidence_job, *args, waited_for=True)
            while answer is None and waited < WAIT_S:
                await asyncio.sleep(1)
                waited += 1
                answer = pool.submit(f"review:{player}", evidence_job, *args, waited_for=True)
            if answer is None:
                return unreviewed("the solver pool had no room for the review")
            try:
                return await answer
            except SolverFailed:
                log.warning("a review of %s failed (attempt %d)", player, attempt + 1)
        return unreviewed("the solver process died during the review")
