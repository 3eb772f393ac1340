"""Replays: the full action log of a finished game, and its verification by the engine.

A replay record is a JSON object (``GET /api/replay/ID`` adds the opening table and the
delta of every step):

    {"v": 1, "id", "kind": "race" | "solo" | "daily", "code", "player_id", "name",
     "room", "round", "daily": {"date", "kind": "daily" | "hard"} | null,
     "started_at": ms epoch (the clock's start: a race's start, a daily game's reveal,
         a solo game's first action), "actions": [notation ...],
     "times_ms": [ms epoch of each action, server clock],
     "result": {"won", "time_ms", "moves", "score"}}

:func:`verify` is pure: it replays the actions through the engine from the code's deal and
checks every claim of ``result`` against what the engine and the timestamps say. The server
runs it before writing a leaderboard entry, and ``seahaven verify`` runs it on a file.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..engine import Board, CodeError, EngineError, parse_action, parse_code
from ..review.pace import presses
from ..store.keys import Keys
from ..store.records import RecordStore

#: The physical floor: from the first action to the last, at least this many ms per action
#: after the first. Humans need far more (a quick double tap is ~150 ms); a bot does not.
MIN_MS_PER_ACTION: Final = 50

#: Most actions a replay may hold (far above any real game; bounds the work of verifying).
MAX_ACTIONS: Final = 20_000

#: What a replay is of. Its clock starts: a race's at the start, a daily game's at the reveal
#: (the snapshot that showed the deal), both at or before the first action; a solo game's at
#: its first action.
KINDS: Final = ("race", "solo", "daily")
CLOCK_BEFORE_FIRST: Final = ("race", "daily")
DAILY_KINDS: Final = ("daily", "hard")

FORMAT_VERSION: Final = 1


class ReplayFormatError(ValueError):
    """The data is not a replay record at all (a field missing or of the wrong type)."""


@dataclass(frozen=True, slots=True)
class Result:
    """What a replay claims: won, server-measured time, accepted actions, score."""

    won: bool
    time_ms: int | None
    moves: int
    score: int

    def to_json(self) -> dict[str, object]:
        """The ``result`` object of a record."""
        return {"won": self.won, "time_ms": self.time_ms, "moves": self.moves, "score": self.score}


@dataclass(frozen=True, slots=True)
class Replay:
    """One finished board: who played which deal, every action and its server time."""

    id: str
    kind: str
    code: str
    player_id: str
    name: str
    started_at: int
    actions: tuple[str, ...]
    times_ms: tuple[int, ...]
    result: Result
    room: str | None = None
    round: int | None = None
    daily_date: str | None = None
    daily_kind: str | None = None

    def to_json(self) -> dict[str, object]:
        """The stored record (see the module docstring)."""
        daily = None
        if self.daily_date is not None:
            daily = {"date": self.daily_date, "kind": self.daily_kind}
        return {
            "v": FORMAT_VERSION,
            "id": self.id,
            "kind": self.kind,
            "code": self.code,
            "player_id": self.player_id,
            "name": self.name,
            "room": self.room,
            "round": self.round,
            "daily": daily,
            "started_at": self.started_at,
            "actions": list(self.actions),
            "times_ms": list(self.times_ms),
            "result": self.result.to_json(),
        }

    @classmethod
    def from_json(cls, data: object) -> Replay:
        """Read a record, checking only its shape (:func:`verify` checks the content).

        Raises:
            ReplayFormatError: a field is missing or has the wrong type; it is named.
        """
        if not isinstance(data, Mapping):
            raise ReplayFormatError("a replay is a JSON object")
        result = data.get("result")
        if not isinstance(result, Mapping):
            raise ReplayFormatError("field 'result' must be an object")
        actions = _list(data, "actions", str)
        times = _list(data, "times_ms", int)
        if len(actions) > MAX_ACTIONS:
            raise ReplayFormatError(f"a replay holds at most {MAX_ACTIONS} actions")
        daily = data.get("daily")
        daily_date = daily_kind = None
        if daily is not None:
            if not isinstance(daily, Mapping):
                raise ReplayFormatError("field 'daily' must be an object or null")
            daily_date = _field(daily, "date", str)
            daily_kind = _field(daily, "kind", str)
        time_ms = result.get("time_ms")
        if time_ms is not None and not _is_int(time_ms):
            raise ReplayFormatError("field 'result.time_ms' must be an integer or null")
        round_ = data.get("round")
        room = data.get("room")
        return cls(
            id=str(data.get("id", "")),
            kind=_field(data, "kind", str),
            code=_field(data, "code", str),
            player_id=_field(data, "player_id", str),
            name=str(data.get("name", "")),
            started_at=_field(data, "started_at", int),
            actions=tuple(actions),
            times_ms=tuple(times),
            result=Result(
                won=_field(result, "won", bool, "result."),
                time_ms=time_ms,
                moves=_field(result, "moves", int, "result."),
                score=_field(result, "score", int, "result."),
            ),
            room=room if isinstance(room, str) else None,
            round=round_ if _is_int(round_) else None,
            daily_date=daily_date,
            daily_kind=daily_kind,
        )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _field(data: Mapping[str, Any], name: str, kind: type, where: str = "") -> Any:
    value = data.get(name)
    ok = _is_int(value) if kind is int else isinstance(value, kind)
    if not ok:
        raise ReplayFormatError(f"field '{where}{name}' must be {kind.__name__}")
    return value


def _list(data: Mapping[str, Any], name: str, kind: type) -> list[Any]:
    value = data.get(name)
    if not isinstance(value, list):
        raise ReplayFormatError(f"field '{name}' must be a list")
    check = _is_int if kind is int else (lambda v: isinstance(v, kind))
    for i, item in enumerate(value):
        if not check(item):
            raise ReplayFormatError(f"{name}[{i}] must be {kind.__name__}")
    return value


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of :func:`verify`.

    Attributes:
        ok: every claim holds.
        reason: a stable code when refuted (``bad_code``, ``illegal_action``, ...).
        message: what is wrong, in words (or a summary when ``ok``).
        moves: actions the engine accepted before stopping.
        won: whether the engine's board ended won.
        score: the engine's score at the end.
    """

    ok: bool
    reason: str
    message: str
    moves: int = 0
    won: bool = False
    score: int = 0


#: Why a replay is refuted, with what each code means.
REFUTATIONS: Final[dict[str, str]] = {
    "bad_code": "the game code is not valid",
    "bad_kind": "the kind is not race, solo or daily",
    "times_mismatch": "there is not exactly one timestamp per action",
    "times_decrease": "server timestamps go backwards",
    "clock_mismatch": "the clock's start does not fit the first action",
    "bad_notation": "an action is not RULES.md notation",
    "illegal_action": "an action is refused by the rules at that point",
    "after_win": "actions follow the winning action",
    "won_mismatch": "the claimed outcome differs from the engine's",
    "moves_mismatch": "the claimed move count differs from the accepted actions",
    "score_mismatch": "the claimed score differs from the engine's",
    "time_mismatch": "the claimed time differs from the timestamps",
    "too_fast": "faster than the physical floor of ms per action",
}


def _refuted(reason: str, message: str, board: Board | None = None) -> Verdict:
    if board is None:
        return Verdict(False, reason, message)
    return Verdict(False, reason, message, board.moves, board.is_won(), board.score)


def verify(replay: Replay, *, min_ms_per_action: int = MIN_MS_PER_ACTION) -> Verdict:
    """Replay the actions from the deal and check every claim of the result.

    Checks, in order: the code; one non-decreasing server timestamp per action; the clock
    (a solo game starts at its first action; a race at its start and a daily game at its
    reveal, at or before the first action); each action legal in order; nothing after the
    win; the claimed ``won``, ``moves`` (accepted actions, undos included), ``score`` and
    ``time_ms`` (clock start to the last action) equal to what the engine and timestamps
    give; and, for a win, at least ``min_ms_per_action`` per action after the first between
    the first action and the last (a send home's taps, one press, count as one action).

    Args:
        replay: the record to check.
        min_ms_per_action: the physical floor.

    Returns:
        A verdict; ``ok`` only when every check passes.
    """
    try:
        board = Board.from_code(parse_code(replay.code))
    except CodeError as exc:
        return _refuted("bad_code", f"code {replay.code!r}: {exc}")
    if replay.kind not in KINDS:
        return _refuted("bad_kind", f"kind {replay.kind!r} is not one of {', '.join(KINDS)}")
    actions, times = replay.actions, replay.times_ms
    if len(times) != len(actions):
        return _refuted(
            "times_mismatch", f"{len(actions)} actions but {len(times)} server timestamps"
        )
    for i in range(1, len(times)):
        if times[i] < times[i - 1]:
            return _refuted("times_decrease", f"timestamp {i + 1} is earlier than timestamp {i}")
    if times:
        if replay.kind in CLOCK_BEFORE_FIRST and replay.started_at > times[0]:
            start = "start" if replay.kind == "race" else "reveal"
            return _refuted(
                "clock_mismatch", f"the {replay.kind} clock ({start}) is after the first action"
            )
        if replay.kind not in CLOCK_BEFORE_FIRST and replay.started_at != times[0]:
            return _refuted(
                "clock_mismatch", f"a {replay.kind} game's clock starts at its first action"
            )
    for i, text in enumerate(actions):
        if board.is_won():
            return _refuted("after_win", f"action {i + 1} ({text!r}) follows the win", board)
        try:
            board.play(parse_action(text))
        except EngineError as exc:
            reason = "bad_notation" if exc.reason == "bad_notation" else "illegal_action"
            return _refuted(reason, f"action {i + 1} ({text!r}) is refused: {exc}", board)
    claim, won = replay.result, board.is_won()
    if claim.won != won:
        said = "won" if claim.won else "not won"
        real = "won" if won else "not won"
        return _refuted("won_mismatch", f"the replay claims {said}; the engine says {real}", board)
    if claim.moves != board.moves:
        return _refuted(
            "moves_mismatch",
            f"claimed {claim.moves} moves; the engine accepted {board.moves}",
            board,
        )
    if claim.score != board.score:
        return _refuted(
            "score_mismatch", f"claimed score {claim.score}; the engine says {board.score}", board
        )
    if won:
        elapsed = times[-1] - replay.started_at
        if claim.time_ms != elapsed:
            return _refuted(
                "time_mismatch",
                f"claimed {claim.time_ms} ms; the timestamps give {elapsed} ms",
                board,
            )
        # Measured between the actions: time spent before the first one buys no speed. A
        # send home is one press, however many taps it makes (server/review/pace.py).
        span = times[-1] - times[0]
        count = len(presses(actions, times))
        floor = min_ms_per_action * (count - 1)
        if span < floor:
            return _refuted(
                "too_fast",
                f"{span} ms from the first of {count} actions to the last is under the "
                f"floor of {min_ms_per_action} ms per action ({floor} ms)",
                board,
            )
    summary = (
        f"won in {claim.time_ms} ms and {board.moves} moves, score {board.score}"
        if won
        else f"not won after {board.moves} moves, score {board.score}"
    )
    return Verdict(True, "ok", summary, board.moves, won, board.score)


def replay_id(room: str, round_: int, player_id: str) -> str:
    """The id of a board's replay: the same board always gets the same id.

    16 lowercase base-32 characters of SHA-256(``room/round/player``), so a second write
    of one board's replay is a no-op.
    """
    digest = hashlib.sha256(f"{room}/{round_}/{player_id}".encode()).digest()
    return base64.b32encode(digest[:10]).decode("ascii").lower()


def parse_log(entries: Sequence[str]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Actions and server times from a board's stored log (``MS<TAB>ID<TAB>ACTION``)."""
    actions: list[str] = []
    times: list[int] = []
    for entry in entries:
        ms, _id, action = entry.split("\t", 2)
        actions.append(action)
        times.append(int(ms))
    return tuple(actions), tuple(times)


def dumps(replay: Replay) -> str:
    """The stored JSON text of a record."""
    return json.dumps(replay.to_json(), separators=(",", ":"))


def step_deltas(replay: Replay) -> list[dict[str, object]]:
    """The engine's delta of each action, up to the first one it refuses."""
    deltas: list[dict[str, object]] = []
    try:
        board = Board.from_code(replay.code)
    except CodeError:
        return deltas
    for text in replay.actions:
        try:
            deltas.append(board.play(parse_action(text)).to_json())
        except EngineError:
            break
    return deltas


def view_json(replay: Replay, min_ms_per_action: int = MIN_MS_PER_ACTION) -> dict[str, object]:
    """The body of ``GET /api/replay/ID``: the record, plus what a rule-less viewer needs.

    Adds ``start`` (the opening table, ``seahaven deal --json`` shape), ``deltas`` (the
    engine's delta of each accepted step, to step forward by applying it and back by
    applying it in reverse), ``elapsed_ms`` (each action's time on the game clock) and
    ``verified`` (the engine's verdict with the floor ``min_ms_per_action``).
    """
    verdict = verify(replay, min_ms_per_action=min_ms_per_action)
    data = replay.to_json()
    try:
        data["start"] = Board.from_code(replay.code).to_json()
    except CodeError:
        data["start"] = None
    data["deltas"] = step_deltas(replay)
    data["elapsed_ms"] = [t - replay.started_at for t in replay.times_ms]
    data["verified"] = {"ok": verdict.ok, "reason": verdict.reason, "message": verdict.message}
    return data


class ReplayStore:
    """Replay records in Redis: ``replay:ID`` holds a record's JSON.

    Args:
        redis: an asyncio client with ``decode_responses=True``.
        keys: the key names (with the instance's prefix).
        ttl: seconds a replay is kept unless :meth:`keep` makes it permanent.
    """

    def __init__(self, redis: Any, keys: Keys, ttl: int = 30 * 24 * 3600) -> None:
        self.store = RecordStore(redis, keys)
        self.ttl = ttl

    async def save(self, replay: Replay) -> bool:
        """Store a record once (a second save of the same id changes nothing)."""
        return await self.store.save_replay(replay.id, dumps(replay), self.ttl)

    async def keep(self, replay_id: str, seconds: int) -> None:
        """Keep a replay as long as the leaderboard entry it backs (``seconds``)."""
        await self.store.keep_replay(replay_id, seconds)

    async def load(self, replay_id: str) -> Replay | None:
        """A stored record, or None."""
        text = await self.store.replay(replay_id)
        if text is None:
            return None
        return Replay.from_json(json.loads(text))
