"""Fair play, weighed by the server's own rule: cheating and honest player models, each
playing ranked finishes that go through the server's review, evidence and decision.

Every player plays ``--finishes`` ranked finishes (5 by default), each on a deal of its own
drawn from the 4-cell pool, with simulated server timestamps (a game of four minutes costs
no wait). Each finish is weighed as the server weighs it: the solver pool's job
(:func:`server.review.evidence.evidence_job`: the one-game review and the record kept across
games, with what the server's reviewer hands it at the default settings), and then
:func:`server.fairplay.decide.decide`, the one decision the server makes, with the policy of
the server's default settings, each given the player's earlier records as the server keeps
them (:func:`decisions`; ``tests/server/fairplay/test_fairplay_server.py`` holds it and
:func:`weigh_finish` to the server's own). A player is
**caught** (a cheat) or **held** (an honest player) when any of their finishes is held or
they are flagged, by their last finish.

The cheating players:

- ``noisy P``: the server's own solver, re-asked after each deliberate deviation: before each
  decision, with probability P, a random useful move, kept when the solver still wins from
  there and taken back at once (an undo) when it loses; otherwise the solver's next move
  from where the board stands; the button sends the cards home at the end. Think times
  log-normal, median 1.3 s.
- ``race noisy P``: the same games, weighed as rated races' finishes: no day's field.
- ``vetted P``: as ``noisy P``, but each deviation is first tried on a copy of the table and
  played only when the solver still wins from there (never an undo), the solver then asked
  again: the line of ``tests/helpers/fairplay_lines.py``'s ``noisy_line``, at the same pace,
  ended by the button (``bench/noisy_days.py`` plays that line to the last card).
- ``optimal``: the engine's optimal search's line (``solve --optimal``), same pace.
- ``practised``: identity A explores the deal as the human model does; identity B replays
  A's kept line (no undo, no detour) at the same pace; the server knows A's line.

The honest players, none of whom ever asks a solver:

- ``planner`` and ``club`` (:mod:`bench.people`): a strong, fast player who looks four plies
  ahead and plays a plan's moves in quick runs after a long think, and a careful club player;
  ``race planner``: the strong player's games weighed as rated races.
- ``human``: the human model of ``bench/review.py`` (a heuristic, never back to a table seen,
  undo at a dead end), its think times (median 1.2 s).
- ``human2``: looks two moves ahead over a different liking of the table, blunders now and
  then (a random useful move, 8 %), goes back two moves at a dead end.
- ``household``: two people of one address win the same deal each her own way (the second
  built as ``human``, the first as ``human2``); the second's finish is weighed with the
  first's line known to the server: an honest household must not look practised.

Targets (docs/fairplay.md): at least 95 % of each cheating class caught; at most 1 % of each
honest class held or flagged. The searches' answers are kept on disk
(:mod:`bench.searchcache`, ``--cache``), so a second run of the same players, after a
change to the rule, costs little; ``--sweep NAME=V1,V2`` weighs the same finishes under
other values of one policy field and prints the trade-off.

    nice -n 10 .venv/bin/python bench/fairplay.py               # 8 players a class
    nice -n 10 .venv/bin/python bench/fairplay.py --players 100 # goes on from the 8
    .venv/bin/python bench/fairplay.py --players 100 --sweep flag_score=0.5,0.6,0.7

Players done are kept in ``--out`` (``.bench-cache/fairplay.jsonl``) as they finish; a run
goes on from them, ``--reweigh`` weighs their games again with this tree's review.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import cheats  # noqa: E402
from bench.cheats import PaceClock, noisy, optimal, practised, vetted  # noqa: E402
from bench.people import club, planner  # noqa: E402
from bench.review import T0, Game, human, send_home  # noqa: E402
from server.engine import Board, format_code, parse_action  # noqa: E402
from server.fairplay.decide import decide  # noqa: E402
from server.fairplay.policy import Policy  # noqa: E402
from server.fairplay.values import Assessment, Decision  # noqa: E402
from server.review.evidence import evidence_job  # noqa: E402
from server.review.scoring import table_key  # noqa: E402

POOL = ROOT / "server" / "pools" / "c4.txt"
CACHE = ROOT / ".bench-cache" / "searches.sqlite"
OUT = ROOT / ".bench-cache" / "fairplay.jsonl"


def liking(board: Board, rng: random.Random) -> float:
    """The second person's view of a table: cards home, free cells, empty columns, buried
    low cards."""
    value = 6.0 * sum(board.foundations)
    value += 2.5 * board.free_cells()
    value += 4.0 * sum(1 for col in board.columns if not col)
    for col in board.columns:
        for depth, card in enumerate(reversed(col)):
            if card % 13 < 3:
                value -= 0.8 * depth
    return value + rng.gauss(0.0, 1.5)


def human2(code: str, rng: random.Random, max_actions: int = 2500) -> Game | None:
    """A person who looks two moves ahead and blunders now and then (module docstring)."""
    board = Board.from_code(code)
    game = Game(code, [], [])
    clock = PaceClock(rng, 0.55, 1600)
    seen = {table_key(board)}
    depth = 0
    while len(game.actions) < max_actions:
        if board.can_send_home():
            send_home(board, game, clock)
            return game
        options = []
        for move in board.useful_moves():
            after = board.copy()
            after.push(move)
            if table_key(after) in seen:
                continue
            ahead = [liking(after, rng)]
            for reply in after.useful_moves()[:8]:
                two = after.copy()
                two.push(reply)
                ahead.append(liking(two, rng))
            options.append((max(ahead), str(move), move))
        if options:
            if rng.random() < 0.08:
                _v, text, move = rng.choice(options)
            else:
                _v, text, move = max(options, key=lambda o: o[0])
            board.play(move)
            seen.add(table_key(board))
            game.actions.append(text)
            game.times.append(clock.press(1.0 + 0.08 * len(options)))
            depth += 1
        elif depth > 0 and board.can_undo():
            for _ in range(min(2, depth)):
                if not board.can_undo():
                    break
                board.play(parse_action("undo"))
                game.actions.append("undo")
                game.times.append(clock.press(0.6))
                depth -= 1
        else:
            return None
    return None


def household(code: str, rng: random.Random) -> tuple[Game, list[list[str]]] | None:
    """Two people of one address, each finding her own win of the day's deal: the second's
    line is weighed against the first's (a line the server knows was played before)."""
    first = human2(code, rng)
    second = human(code, rng, 0.6, 3000)
    if first is None or second is None:
        return None
    return second, [first.actions]


Played = tuple[Game, list[list[str]]]
Model = Callable[[str, random.Random], Played | None]


@dataclass(frozen=True, slots=True)
class Kind:
    """One class of players: how they play, whether they cheat, and how their finishes are
    weighed (``source``: the class whose games these are, weighed again; ``field``: whether
    the day's field is known, False for rated races)."""

    model: Model | None
    cheats: bool
    source: str | None = None
    field: bool = True


def classes() -> dict[str, Kind]:
    """Every class, in the order the table prints them."""

    def wrap(fn: Callable[[str, random.Random], Game | None]) -> Model:
        def play(code: str, rng: random.Random) -> Played | None:
            game = fn(code, rng)
            return None if game is None else (game, [])

        return play

    def practice(code: str, rng: random.Random) -> Played | None:
        found = practised(code, rng)
        return None if found is None else (found[0], [found[1]])

    out: dict[str, Kind] = {}
    for rate in (0.05, 0.10, 0.20, 0.30):
        out[f"noisy {rate:.2f}"] = Kind(
            wrap(lambda code, rng, r=rate: noisy(code, rng, r)),  # type: ignore[misc]
            True,
        )
    out["race noisy 0.30"] = Kind(None, True, source="noisy 0.30", field=False)
    for rate in (0.10, 0.20):
        out[f"vetted {rate:.2f}"] = Kind(
            wrap(lambda code, rng, r=rate: vetted(code, rng, r)),  # type: ignore[misc]
            True,
        )
    out["optimal"] = Kind(wrap(optimal), True)
    out["practised"] = Kind(practice, True)
    out["planner"] = Kind(wrap(planner), False)
    out["race planner"] = Kind(None, False, source="planner", field=False)
    out["club"] = Kind(wrap(club), False)
    out["human"] = Kind(wrap(lambda code, rng: human(code, rng, 0.6, 3000)), False)
    out["human2"] = Kind(wrap(human2), False)
    out["household"] = Kind(household, False)
    return out


def _deals() -> list[int]:
    rows = [line.split() for line in POOL.read_text().splitlines() if not line.startswith("#")]
    return [int(r[0]) for r in rows]


def play_player(name: str, index: int, seed: int, finishes: int) -> list[dict[str, Any]]:
    """One player's finishes: each game's code, actions, times and the lines the server
    knows were played on that deal before (seeded by class and index, so a run is the same
    however many processes share it)."""
    model = classes()[name].model
    assert model is not None
    deals = _deals()
    rng = random.Random(f"{seed}:{name}:{index}")
    out: list[dict[str, Any]] = []
    for _ in range(finishes):
        played, gave_up = None, 0
        while played is None:
            code = format_code(rng.choice(deals), 4)
            played = model(code, random.Random(rng.getrandbits(32)))
            gave_up += played is None
        game, lines = played
        out.append(
            {
                "code": code,
                "actions": game.actions,
                "times": game.times,
                "lines": lines,
                "gave_up": gave_up,
            }
        )
    return out


def review_settings() -> dict[str, Any]:
    """What the server's reviewer hands each review job, from the default settings."""
    from server.app import reviewer_of
    from server.settings import Settings

    return reviewer_of(Settings(), None).settings


def weigh_finish(
    finish: Mapping[str, Any], field_ms: int | None, settings: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A finish as the server's solver-pool job weighs it.

    Args:
        finish: ``code``, ``actions``, ``times`` and ``lines`` (the lines of the deal the
            server knows were played before); ``started_at`` when the times are not from
            :data:`bench.review.T0` (a server's replay).
        field_ms: the day's field's median time (None: no field).
        settings: what the server's reviewer hands each job (``Reviewer.settings``);
            None: :func:`review_settings`, the default settings'.

    Returns:
        What :func:`server.review.evidence.evidence_job` returns (the one-game review's
        score with the evidence record), with ``cpu``, the seconds it took.
    """
    cpu = time.process_time()
    job = evidence_job(
        finish["code"],
        int(finish.get("started_at", T0)),
        list(finish["actions"]),
        list(finish["times"]),
        dict(settings) if settings is not None else review_settings(),
        list(finish["lines"]),
        field_ms,
    )
    job["cpu"] = time.process_time() - cpu
    return job


def _setup(cache: str) -> None:
    if cache:
        from bench.searchcache import install

        install(Path(cache), cheats)


def _player(
    job: tuple[str, int, argparse.Namespace, list[dict[str, Any]] | None],
) -> dict[str, Any]:
    """One player of a class: their games, played (or as played before), and each weighed
    as the server would."""
    name, index, args, played = job
    kind = classes()[name]
    games = played or play_player(kind.source or name, index, args.seed, args.finishes)
    field_ms = args.field_s * 1000 if kind.field else None
    weighed = [weigh_finish(game, field_ms) for game in games]
    return {"class": name, "index": index, "games": games, "weighed": weighed}


def run(args: argparse.Namespace) -> dict[str, list[list[dict[str, Any]]]]:
    """Every chosen class's players, weighed; each player is written to ``--out`` (a line
    of JSON) as soon as done, and a run given the same file goes on where it stopped. The
    players go out a round at a time (player 0 of every class, then player 1, ...), so a
    run stopped early has as many players of each class."""
    names = [k for k in classes() if not args.only or k in args.only]
    done: dict[tuple[str, int], dict[str, Any]] = {}
    out = Path(args.out)
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done[(row["class"], row["index"])] = row
    again = [row for row in done.values() if args.reweigh and row["class"] in names]
    if again:
        out.unlink()
        done = {}
    jobs = [(row["class"], row["index"], args, row["games"]) for row in again]
    if not args.no_play:
        jobs += [
            (name, i, args, None)
            for i in range(args.players)
            for name in names
            if (name, i) not in done and not any(j[:2] == (name, i) for j in jobs)
        ]
    began = time.monotonic()
    if jobs:
        with (
            multiprocessing.Pool(args.jobs, initializer=_setup, initargs=(args.cache,)) as pool,
            out.open("a") as sink,
        ):
            for n, row in enumerate(pool.imap(_player, jobs), start=1):
                done[(row["class"], row["index"])] = row
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                if n % 20 == 0 or n == len(jobs):
                    print(
                        f"  {n} of {len(jobs)} players, {time.monotonic() - began:.0f} s",
                        file=sys.stderr,
                    )
    weighed: dict[str, list[list[dict[str, Any]]]] = {name: [] for name in names}
    for (name, index), row in sorted(done.items(), key=lambda kv: kv[0][1]):
        if name in weighed and index < args.players:
            weighed[name].append(row["weighed"])
    return weighed


@dataclass(slots=True)
class Tally:
    """One class's players under one policy."""

    players: int = 0
    caught: int = 0
    held_games: int = 0
    games: int = 0
    gave_up: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    suspicions: list[float] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    refs: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def decisions(jobs: Sequence[Mapping[str, Any]], policy: Policy) -> list[Decision]:
    """One player's finishes decided in the order played, as the server decides each one
    (:func:`server.fairplay.evidence.assess`): given the records of the earlier finishes,
    newest first, each with the suspicion its decision found, and flagged from the first
    decision that flags on.

    Args:
        jobs: each finish's review job's result (:func:`weigh_finish`, or a server's
            stored score), oldest first.
        policy: the thresholds.
    """
    earlier: list[dict[str, Any]] = []
    flagged = False
    out: list[Decision] = []
    for job in jobs:
        decision = decide(Assessment.from_job(job), earlier, policy, flagged=flagged)
        record = job.get("evidence")
        if record is not None:  # a finish not reviewed leaves no record (as the server)
            earlier.insert(0, {**record, "suspicion": decision.suspicion})
        flagged = flagged or decision.flag
        out.append(decision)
    return out


def weigh_player(jobs: Sequence[dict[str, Any]], policy: Policy, t: Tally) -> None:
    """One player's finishes through the server's decision (:func:`decisions`), tallied."""
    t.players += 1
    caught = False
    for job, decision in zip(jobs, decisions(jobs, policy), strict=True):
        record = job.get("evidence") or {}
        if decision.held or decision.flag:
            caught = True
            why = decision.reason if decision.held else "flag"
            t.reasons[why] = t.reasons.get(why, 0) + 1
        t.games += 1
        t.held_games += decision.held
        t.suspicions.append(decision.suspicion)
        t.scores.append(decision.score)
        t.refs.append(max(float(job.get("agreement") or 0.0), float(record.get("optimal") or 0.0)))
        t.times.append(float(record.get("time_ms") or 0) / 1000)
        t.cpu.append(float(job.get("cpu") or 0.0))
    t.caught += caught


def q(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nan for none)."""
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(share * len(values)))]


def tallies(weighed: dict[str, list[list[dict[str, Any]]]], policy: Policy) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for name, players in weighed.items():
        t = out.setdefault(name, Tally())
        for jobs in players:
            if jobs:
                weigh_player(jobs, policy, t)
    return out


def met(name: str, t: Tally) -> tuple[float, str, bool]:
    """A class's rate, its target in words and whether it is met."""
    rate = t.caught / max(1, t.players)
    if classes()[name].cheats:
        return rate, ">=95%", rate >= 0.95
    return rate, "<=1%", rate <= 0.01


def table(found: dict[str, Tally]) -> None:
    head = (
        f"{'class':<16} {'players':>7} {'caught':>7} {'rate':>6} {'target':>7} {'met':>4} "
        f"{'held 1g':>7} {'ref p10/p50/p90':>16} {'susp p50/p90':>13} {'time p50':>8}  why"
    )
    print(head)
    print("-" * len(head))
    for name, t in found.items():
        rate, target, ok = met(name, t)
        why = ", ".join(f"{k} {v}" for k, v in sorted(t.reasons.items()))
        print(
            f"{name:<16} {t.players:>7} {t.caught:>7} {rate:>6.1%} {target:>7} "
            f"{'yes' if ok else 'NO':>4} {t.held_games / max(1, t.games):>7.1%} "
            + f"{q(t.refs, 0.1):.2f}/{q(t.refs, 0.5):.2f}/{q(t.refs, 0.9):.2f}".rjust(16)
            + f" {q(t.suspicions, 0.5):>6.2f}/{q(t.suspicions, 0.9):.2f}"
            + f" {q(t.times, 0.5):>7.0f}s  {why}"
        )


def sweep(weighed: dict[str, list[list[dict[str, Any]]]], base: Policy, spec: str) -> None:
    """The trade-off of one policy field: for each value, the most held of any honest class
    and the least caught of any cheating class."""
    name, _, values = spec.partition("=")
    print(f"\ntrade-off of {name} (the same finishes weighed again):")
    print(f"{name:>22} {'honest held, worst class':>26} {'cheats caught, worst class':>28}")
    for text in values.split(","):
        value = type(getattr(base, name))(float(text) if "." in text else int(text))
        found = tallies(weighed, dataclasses.replace(base, **{name: value}))
        honest = [(met(n, t)[0], n) for n, t in found.items() if not classes()[n].cheats]
        cheats = [(met(n, t)[0], n) for n, t in found.items() if classes()[n].cheats]
        worst_h, worst_c = max(honest, default=(0.0, "-")), min(cheats, default=(1.0, "-"))
        print(
            f"{text:>22} {worst_h[0]:>12.1%} ({worst_h[1]})".ljust(50)
            + f" {worst_c[0]:>10.1%} ({worst_c[1]})"
        )


def overrides(policy: Policy, pairs: Sequence[str]) -> Policy:
    """``policy`` with ``NAME=VALUE`` pairs set."""
    change: dict[str, Any] = {}
    for pair in pairs:
        name, _, text = pair.partition("=")
        change[name] = type(getattr(policy, name))(float(text))
    return dataclasses.replace(policy, **change)


def farming_rows() -> list[dict[str, Any]]:
    """The puppet farming rows (:mod:`bench.farming`: real servers, a minute or two)."""
    from bench.farming import run_farming

    return list(run_farming())


def main() -> int:
    from server.settings import Settings

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--players", type=int, default=8, help="players a class")
    parser.add_argument("--finishes", type=int, default=5, help="ranked finishes a player")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--field-s", type=int, default=200, help="the day's field's median time")
    parser.add_argument("--only", nargs="*", help="classes to run (default: all)")
    parser.add_argument("--set", nargs="*", default=[], help="policy NAME=VALUE to weigh with")
    parser.add_argument("--sweep", nargs="*", default=[], help="policy NAME=V1,V2,... trade-offs")
    parser.add_argument("--farming", action="store_true", help="also run bench/farming.py")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--cache", default=str(CACHE), help="the searches' memo ('' for none)")
    parser.add_argument(
        "--out", default=str(OUT), help="players done, a JSON line each (a run goes on from it)"
    )
    parser.add_argument(
        "--no-play",
        action="store_true",
        help="weigh only the players --out holds (up to --players a class), playing none",
    )
    parser.add_argument(
        "--reweigh",
        action="store_true",
        help="weigh the games of --out again with this tree's review (after a change to it)",
    )
    args = parser.parse_args()
    began = time.monotonic()
    weighed = run(args)
    policy = overrides(Policy.from_settings(Settings()), args.set)
    print(
        f"{args.players} players a class, {args.finishes} ranked finishes each (seed {args.seed}), "
        f"the day's field at {args.field_s} s; {policy}"
    )
    result = tallies(weighed, policy)
    table(result)
    for spec in args.sweep:
        sweep(weighed, policy, spec)
    if args.farming:
        for row in farming_rows():
            print(
                f"{row['class']:<16} {row['players']:>7} {row['held_or_flagged']!s:>7} "
                f"on ratings {row['on_ratings']} on podium {row['on_podium']} "
                f"target met {row['target_met']}"
            )
    cpu = sorted(c for t in result.values() for c in t.cpu)
    print(
        f"CPU of one review with its record: median {q(cpu, 0.5) * 1000:.0f} ms, p90 "
        f"{q(cpu, 0.9) * 1000:.0f} ms (searches from the memo count little); "
        f"{time.monotonic() - began:.0f} s in all"
    )
    ok = all(met(n, t)[2] for n, t in result.items())
    print("targets met" if ok else "targets NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
