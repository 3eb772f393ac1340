"""A disk memo of the engine's searches, so a fair-play run can be weighed again cheaply.

``bench/fairplay.py`` spends nearly all of its CPU in two pure functions of the engine:
:func:`server.engine.solver.solve` (the review's agreement, the noisy solver's line) and
:func:`server.engine.optimal.optimal_par` (the evidence's optimal agreement, the optimal
line). Both answer the same for the same table and bounds, so their answers can be kept:
a second run of the same players, after a change to the review's pace model or to the
decision, runs the server's own review and evidence code again at a fraction of the cost.
What is measured does not change: the review and the decision are the server's code, and
only the searches' answers come from the memo.

Searches bounded by seconds (``timeout``) are kept too: on a busy machine such a search
can end sooner, and keeping its first answer makes a rerun repeat the first run exactly.
"""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from server.engine import Board

T = TypeVar("T")

_db: sqlite3.Connection | None = None


def _key(name: str, board: Board, kwargs: dict[str, Any]) -> bytes:
    blob = pickle.dumps((name, board.key(), sorted(kwargs.items())))
    return hashlib.sha1(blob).digest()


def memo(name: str, fn: Callable[..., T]) -> Callable[..., T]:
    """``fn(board, **kwargs)`` answered from the memo when it was asked before."""

    def wrapped(board: Board, **kwargs: Any) -> T:
        if _db is None:
            return fn(board, **kwargs)
        key = _key(name, board, kwargs)
        row = _db.execute("SELECT v FROM s WHERE k = ?", (key,)).fetchone()
        if row is not None:
            found: T = pickle.loads(row[0])
            return found
        value = fn(board, **kwargs)
        _db.execute("INSERT OR IGNORE INTO s VALUES (?, ?)", (key, pickle.dumps(value)))
        _db.commit()
        return value

    return wrapped


def install(path: Path, models: ModuleType) -> None:
    """Answer the searches of the review, the evidence and the bench's models (the module
    ``models``, as this process runs it: ``__main__`` when run as a script) from the memo at
    ``path`` (made if missing). Call once in each process, before any search."""
    global _db
    path.parent.mkdir(parents=True, exist_ok=True)
    _db = sqlite3.connect(path, timeout=60)
    # The pool's processes start together, and switching the journal mode is not covered
    # by the busy timeout: one of them used to die of "database is locked" here.
    for attempt in range(50):
        try:
            _db.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError:
            if attempt == 49:
                raise
            time.sleep(0.1)
    _db.execute("CREATE TABLE IF NOT EXISTS s (k BLOB PRIMARY KEY, v BLOB)")
    _db.commit()
    import server.review.evidence as evidence
    import server.review.scoring as scoring
    from server.engine.optimal import optimal_par
    from server.engine.solver import solve

    cached_solve = memo("solve", solve)
    cached_optimal = memo("optimal_par", optimal_par)
    # Each module looks the search up by its own name at the call: set it there.
    for module, name, value in (
        (scoring, "solve", cached_solve),
        (evidence, "optimal_par", cached_optimal),
        (models, "solve", cached_solve),
        (models, "optimal_par", cached_optimal),
    ):
        setattr(module, name, value)
