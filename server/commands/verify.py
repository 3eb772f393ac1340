"""``seahaven verify REPLAY.json|URL``: replay a game through the engine and check its result.

Exit status: 0 when every claim of the replay holds (and, for a daily challenge, the deal is
that day's), 1 when it is refuted (the reason is printed), 2 when the replay cannot be read.

A day's deal is drawn under the deployment's secret, so it is not known offline: it is
checked against the server's ``GET /api/daily/DATE`` (public once the day is over), that of
the replay's URL or of ``--server``.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from ..records.replays import MIN_MS_PER_ACTION, Replay, ReplayFormatError, verify

#: The largest replay read, in bytes.
MAX_BYTES = 4 * 1024 * 1024


def register(sub: Any) -> None:
    """Add the ``verify`` subcommand."""
    parser = sub.add_parser(
        "verify", help="check a replay (file, - for stdin, or http URL) with the engine"
    )
    parser.add_argument(
        "replay", help="REPLAY.json, - for stdin, or http://HOST:PORT/api/replay/ID"
    )
    parser.add_argument(
        "--min-ms-per-action",
        type=int,
        default=MIN_MS_PER_ACTION,
        help=f"the physical floor of a win (default {MIN_MS_PER_ACTION})",
    )
    parser.add_argument(
        "--token",
        help="your session token (from welcome): a daily replay of a running day is yours alone",
    )
    parser.add_argument(
        "--server",
        help="http://HOST:PORT of the server whose daily it is (default: the replay URL's)",
    )
    parser.set_defaults(func=cmd_verify)


def day_code(server: str, date: str, kind: str) -> str | None:
    """A past day's code from ``GET SERVER/api/daily/DATE``; None while it is secret.

    Raises:
        OSError, ValueError: the server cannot be asked, or does not know that day.
    """
    url = f"{server.rstrip('/')}/api/daily/{date}"
    with urllib.request.urlopen(url, timeout=10) as response:
        data = json.loads(response.read(65536))
    code = data.get("code") if kind == "daily" else (data.get("hard") or {}).get("code")
    return code if isinstance(code, str) else None


def server_of(source: str, given: str | None) -> str | None:
    """The server to ask for a day's deal: ``--server``, else the replay URL's origin."""
    if given:
        return given
    if source.startswith(("http://", "https://")):
        parts = urlsplit(source)
        return f"{parts.scheme}://{parts.netloc}"
    return None


def read_source(source: str, token: str | None = None) -> bytes:
    """The bytes of a file, stdin or an http(s) URL (fetched with ``token`` as a bearer).

    Raises:
        OSError: the file or URL cannot be read.
    """
    if source == "-":
        return sys.stdin.buffer.read(MAX_BYTES + 1)
    if source.startswith(("http://", "https://")):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        request = urllib.request.Request(source, headers=headers)
        with urllib.request.urlopen(request, timeout=10) as response:
            data: bytes = response.read(MAX_BYTES + 1)
            return data
    with open(source, "rb") as handle:
        return handle.read(MAX_BYTES + 1)


def cmd_verify(args: argparse.Namespace) -> int:
    """Run ``seahaven verify``."""
    try:
        raw = read_source(args.replay, args.token)
    except (OSError, urllib.error.URLError, ValueError) as exc:
        print(f"seahaven verify: cannot read {args.replay}: {exc}", file=sys.stderr)
        return 2
    if len(raw) > MAX_BYTES:
        print(f"seahaven verify: {args.replay} is larger than {MAX_BYTES} bytes", file=sys.stderr)
        return 2
    try:
        replay = Replay.from_json(json.loads(raw))
    except (ValueError, ReplayFormatError) as exc:
        print(f"seahaven verify: {args.replay} is not a replay: {exc}", file=sys.stderr)
        return 2
    verdict = verify(replay, min_ms_per_action=args.min_ms_per_action)
    label = f"replay {replay.id or '(no id)'} of {replay.code} by {replay.player_id}"
    if not verdict.ok:
        print(f"REFUTED {label}: {verdict.reason}: {verdict.message}")
        return 1
    if replay.kind == "daily":
        if replay.daily_date is None or replay.daily_kind is None:
            print(f"REFUTED {label}: not_daily: a daily replay names its date and kind")
            return 1
        date, kind = replay.daily_date, replay.daily_kind
        server = server_of(args.replay, args.server)
        code: str | None = None
        if server is None:
            print("note: the daily deal was not checked: give --server (it is secret offline)")
        else:
            try:
                code = day_code(server, date, kind)
            except (OSError, ValueError) as exc:
                print(f"note: the daily deal was not checked: {server} did not tell it: {exc}")
            else:
                if code is None:
                    print(f"note: the daily deal was not checked: {date} is still running")
        if code is not None and code != replay.code:
            print(f"REFUTED {label}: wrong_deal: the {kind} deal of {date} is {code}")
            return 1
        if code is not None:
            print(f"{kind} challenge of {date}: the deal is that day's ({code})")
    print(f"VERIFIED {label}: {verdict.message}")
    return 0
