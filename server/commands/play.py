"""``seahaven deal``, ``seahaven replay`` and ``seahaven new``: the engine at the terminal."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from typing import Any, TextIO

from ..clients.terminal import render
from ..engine import Board, CodeError, EngineError, format_code, parse_action, parse_code
from ..engine.codes import MAX_DEAL


def register(sub: Any) -> None:
    """Add the ``deal``, ``replay`` and ``new`` subcommands."""
    deal = sub.add_parser("deal", help="show the opening table of a game code")
    deal.add_argument("code", help="a game code such as SH1-C4-AAAAAJ2")
    deal.add_argument("--json", action="store_true", help="print the table as JSON")
    deal.set_defaults(func=cmd_deal)

    replay = sub.add_parser("replay", help="play a file of actions from a deal, print JSON")
    replay.add_argument("code", help="the game code the actions start from")
    replay.add_argument("file", help="actions, one per line in RULES.md notation; - for stdin")
    replay.add_argument(
        "--skip-illegal",
        action="store_true",
        help="list refused actions and go on instead of stopping at the first",
    )
    replay.set_defaults(func=cmd_replay)

    new = sub.add_parser("new", help="print a fresh random game code")
    new.add_argument("--cells", type=int, choices=(4, 2, 1), default=4)
    new.set_defaults(func=cmd_new)


def _board_or_exit(code: str) -> Board | None:
    try:
        return Board.from_code(parse_code(code))
    except CodeError as exc:
        print(f"seahaven: bad game code: {exc} [{exc.reason}]", file=sys.stderr)
        return None


def cmd_deal(args: argparse.Namespace) -> int:
    """Print the opening table: a picture, or JSON with ``--json``. Exit 2 on a bad code."""
    board = _board_or_exit(args.code)
    if board is None:
        return 2
    if args.json:
        print(json.dumps(board.to_json()))
    else:
        tty = sys.stdout.isatty()
        print(render(board, colour=tty, symbols=tty or _utf8(sys.stdout)))
    return 0


def _utf8(stream: TextIO) -> bool:
    return (getattr(stream, "encoding", "") or "").lower().replace("-", "") == "utf8"


def replay_lines(board: Board, lines: list[str], skip_illegal: bool) -> dict[str, object]:
    """Play action lines on a board; the result object of ``seahaven replay``.

    Blank lines and lines starting with ``#`` are not actions and are passed over; the
    ``line`` of a refusal is its 1-based line number in the file.
    """
    applied = 0
    rejected: list[dict[str, object]] = []
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            board.play(parse_action(text))
        except EngineError as exc:
            rejected.append({"line": number, "action": text, "reason": exc.reason})
            if not skip_illegal:
                break
            continue
        applied += 1
    return {
        "ok": not rejected,
        "applied": applied,
        "score": board.score,
        "won": board.is_won(),
        "state": board.to_json(),
        "rejected": rejected,
    }


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay a file of actions; exit 1 at a refused action unless ``--skip-illegal``."""
    board = _board_or_exit(args.code)
    if board is None:
        return 2
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"seahaven: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    result = replay_lines(board, text.splitlines(), args.skip_illegal)
    print(json.dumps(result))
    return 0 if result["ok"] or args.skip_illegal else 1


def cmd_new(args: argparse.Namespace) -> int:
    """Print a fresh random game code."""
    print(format_code(secrets.randbelow(MAX_DEAL + 1), args.cells))
    return 0
