"""``seahaven bot``: a bot racer that joins or creates a room and plays it to the end."""

from __future__ import annotations

import argparse
import asyncio
import secrets


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``bot``."""
    p = sub.add_parser(
        "bot",
        help="race as a bot that plays the solver's line",
        description="Join a room (--room) or create one (--create) and race it to the end.",
    )
    p.add_argument("--url", default="ws://127.0.0.1:8765/ws", help="the server's websocket URL")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--room", help="the room id to join")
    where.add_argument("--create", action="store_true", help="create a room and host it")
    p.add_argument("--cells", type=int, choices=(4, 2, 1), default=4, help="cells (with --create)")
    p.add_argument("--code", help="race this game code (with --create)")
    p.add_argument(
        "--start-at",
        type=int,
        default=2,
        help="with --create: start once this many racers are in (default 2)",
    )
    p.add_argument("--speed", type=float, default=2.0, help="moves per second (default 2)")
    p.add_argument("--name", default=None, help="the bot's name")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Race once; 0 when the bot finished, 1 when it gave up, 2 on a failure."""
    from server.clients.bot import Bot

    name = args.name or f"bot-{secrets.token_hex(2)}"
    bot = Bot(args.url, name=name, speed=args.speed)
    try:
        result = asyncio.run(
            bot.run(None if args.create else args.room, args.cells, args.start_at, args.code)
        )
    except (RuntimeError, ConnectionError, OSError) as exc:
        print(f"bot failed: {exc}")
        return 2
    if result.finished:
        print(f"{name} finished #{result.rank} in {result.time_ms} ms, {result.moves} moves")
        return 0
    print(f"{name} gave up after {result.moves} moves")
    return 1
