"""``seahaven serve``: run a race server instance."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import logging
import os


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve``."""
    p = sub.add_parser(
        "serve",
        help="run the race server (websocket /ws, web client, /healthz, /metrics)",
        description=(
            "Serve one port: the websocket at /ws, the web client at /, GET /healthz and "
            "GET /metrics. Without --redis-url (or REDIS_URL) a private embedded Redis keeps "
            "its data under --data-dir."
        ),
    )
    env = os.environ.get
    p.add_argument("--host", default=env("SEAHAVEN_HOST", "127.0.0.1"), help="bind address")
    p.add_argument("--port", type=int, default=int(env("SEAHAVEN_PORT", "8765")), help="port")
    p.add_argument("--redis-url", default=env("REDIS_URL"), help="shared Redis (else embedded)")
    p.add_argument(
        "--data-dir",
        default=env("SEAHAVEN_DATA_DIR", "./seahaven-data"),
        help="embedded Redis data directory",
    )
    p.add_argument("--static-dir", default=env("SEAHAVEN_STATIC_DIR"), help="web client folder")
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[o for o in env("SEAHAVEN_ALLOWED_ORIGINS", "").split(",") if o],
        help="an allowed websocket Origin (repeat; '*' allows all)",
    )
    p.add_argument(
        "--room-ttl",
        type=int,
        default=int(env("SEAHAVEN_ROOM_TTL", str(6 * 3600))),
        help="seconds an idle room is kept",
    )
    p.add_argument("--countdown-ms", type=int, default=int(env("SEAHAVEN_COUNTDOWN_MS", "3000")))
    p.add_argument(
        "--rate",
        type=float,
        default=float(env("SEAHAVEN_RATE", "20")),
        help="messages per second per connection",
    )
    p.add_argument(
        "--burst",
        type=int,
        default=int(env("SEAHAVEN_BURST", "40")),
        help="burst of messages per connection",
    )
    p.add_argument(
        "--away-grace-ms",
        type=int,
        default=int(env("SEAHAVEN_AWAY_GRACE_MS", "90000")),
        help="a racer whose socket closed mid-race and who has not resumed by then gives up",
    )
    p.add_argument(
        "--loop",
        choices=("uvloop", "asyncio"),
        default=env("SEAHAVEN_LOOP", "uvloop"),
        help="event loop (uvloop when installed, else asyncio)",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run until interrupted."""
    from server.app import Config, run

    logging.basicConfig(level=os.environ.get("SEAHAVEN_LOG", "WARNING"))
    config = Config(
        host=args.host,
        port=args.port,
        redis_url=args.redis_url or None,
        data_dir=args.data_dir,
        allowed_origins=list(args.allow_origin),
        room_ttl=args.room_ttl,
        countdown_ms=args.countdown_ms,
        rate_per_s=args.rate,
        rate_burst=args.burst,
        away_grace_ms=args.away_grace_ms,
    )
    if args.static_dir:
        config.static_dir = args.static_dir
    if args.loop == "uvloop" and importlib.util.find_spec("uvloop") is not None:
        import uvloop  # a faster event loop; plain asyncio works too

        uvloop.run(run(config))
    else:
        asyncio.run(run(config))
    return 0
