"""``seahaven admin``: the operator's actions on a deployment's Redis (held finishes, voids,
bars, the identities of an address, the log), as ``/api/admin/`` offers them over HTTP.

It talks to the Redis the servers share, found as ``serve`` finds it: ``--redis-url``
(else ``SEAHAVEN_REDIS_URL`` or ``REDIS_URL``) and ``--key-prefix`` (else
``SEAHAVEN_KEY_PREFIX``). Each action is idempotent and logged, ``by`` the ``--by`` name
(default: ``cli:`` and the system user). ``--json`` prints the answer as the HTTP route
gives it. Exit status: 0 done (or done before), 1 nothing to act on, 2 usage or Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
from collections.abc import Awaitable, Callable
from ipaddress import ip_address
from typing import Any

from pydantic import ValidationError

from server.settings import Settings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``admin`` and its actions."""
    p = sub.add_parser(
        "admin",
        help="operator actions: held finishes, suspects, clear, void, bar, unbar, unflag, "
        "identities, log",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(name: str, text: str, arg: str | None = None) -> argparse.ArgumentParser:
        a = actions.add_parser(name, help=text, description=text)
        if arg is not None:
            a.add_argument(arg.lower(), metavar=arg)
        a.add_argument("--redis-url", help="the deployment's Redis (env SEAHAVEN_REDIS_URL)")
        a.add_argument("--key-prefix", help="its key prefix (env SEAHAVEN_KEY_PREFIX)")
        a.add_argument("--by", help="who acts, for the log (default: cli:USER)")
        a.add_argument("--json", action="store_true", help="print JSON")
        a.set_defaults(func=main)
        return a

    held = action("held", "list the held finishes with their scores and replay links")
    held.add_argument("--base-url", default="", help="put before the replay links")
    held.add_argument(
        "--limit", type=int, default=50, help="how many, the oldest first (default 50, max 500)"
    )
    held.add_argument("--offset", type=int, default=0, help="skip this many (default 0)")
    action("clear", "let a held finish count (RESULT: its replay id)", "RESULT")
    action("void", "take a finish off every leaderboard and streak", "RESULT")
    action("bar", "bar a player from ranked play; their results are hidden", "PLAYER")
    action("unbar", "let a barred player rank again; their results come back", "PLAYER")
    action("unflag", "lift a player's flag: their next ranked results are not held", "PLAYER")
    suspects = action("suspects", "the players by their score over recent ranked finishes")
    suspects.add_argument("--limit", type=int, default=50, help="how many (default 50, max 200)")
    suspects.add_argument("--after", help="the player the page before ended with")
    action("identities", "the identities an address made in the last 7 days", "ADDRESS")
    log = action("log", "the operator's actions, newest first")
    log.add_argument("--limit", type=int, default=100, help="how many (default 100)")


def main(args: argparse.Namespace) -> int:
    """Run one action."""
    given = {"redis_url": args.redis_url, "key_prefix": args.key_prefix}
    try:
        settings = Settings(**{k: v for k, v in given.items() if v is not None})
    except ValidationError as exc:
        print(f"seahaven admin: bad settings:\n{exc}")
        return 2
    if not settings.redis_url:
        print("seahaven admin: give --redis-url (or REDIS_URL): the deployment's Redis")
        return 2
    by = args.by or f"cli:{getpass.getuser()}"
    try:
        return asyncio.run(_run(settings, args, by))
    except OSError as exc:
        print(f"seahaven admin: cannot reach Redis: {exc}")
        return 2


async def _run(settings: Settings, args: argparse.Namespace, by: str) -> int:
    import redis.asyncio as aioredis
    from redis.exceptions import ConnectionError as RedisConnectionError

    from server.fairplay.holds import MAX_HELD_PAGE, MAX_SUSPECTS_PAGE, Holds
    from server.net.limits import bucket_key
    from server.store.keys import Keys

    assert settings.redis_url is not None
    redis = aioredis.Redis.from_url(settings.redis_url, decode_responses=True)
    keys = Keys(settings.key_prefix)
    keep_s = settings.history_s
    holds = Holds.on(redis, keys, keep_s)
    acts: dict[str, Callable[[str, str], Awaitable[Any]]] = {
        "clear": holds.clear,
        "void": holds.void,
        "bar": holds.bar,
        "unbar": holds.unbar,
        "unflag": holds.unflag,
    }
    try:
        if args.action == "held":
            if not 1 <= args.limit <= MAX_HELD_PAGE or args.offset < 0:
                print(f"seahaven admin: --limit is 1 to {MAX_HELD_PAGE}, --offset 0 or more")
                return 2
            page = await holds.held_page(args.offset, args.limit)
            for item in page["held"]:
                item["replay"] = args.base_url.rstrip("/") + item["replay"]
            return _print(args, page, _held_text(page))
        if args.action == "suspects":
            if not 1 <= args.limit <= MAX_SUSPECTS_PAGE:
                print(f"seahaven admin: --limit is 1 to {MAX_SUSPECTS_PAGE}")
                return 2
            page = await holds.suspects(args.limit, args.after)
            return _print(args, page, _suspects_text(page))
        if args.action == "identities":
            try:
                address = bucket_key(ip_address(args.address))
            except ValueError:
                print(f"seahaven admin: not an IPv4 or IPv6 address: {args.address!r}")
                return 2
            found = await holds.identities(address)
            lines = [
                f"{i['player_id']}  made {_when(i['made_at'])}{'  BARRED' if i['barred'] else ''}"
                for i in found
            ] or [f"no identity made from {address} in the last 7 days"]
            return _print(args, {"address": address, "identities": found}, lines)
        if args.action == "log":
            entries = await holds.log(max(1, args.limit))
            lines = [
                f"{_when(e['at'])}  {e['by']}  {e['action']} {e['target']}: {e['status']}"
                for e in entries
            ] or ["no operator action yet"]
            return _print(args, {"log": entries}, lines)
        target = args.result if args.action in ("clear", "void") else args.player
        outcome = await acts[args.action](target, by)
        data = outcome.to_json()
        _print(args, data, [f"{args.action} {target}: {outcome.status}: {outcome.message}"])
        return 0 if outcome.ok else 1
    except RedisConnectionError as exc:
        print(f"seahaven admin: cannot reach Redis: {exc}")
        return 2
    finally:
        await redis.aclose()


def _print(args: argparse.Namespace, data: dict[str, Any], lines: list[str]) -> int:
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print("\n".join(lines))
    return 0


def _when(ms: int) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _suspects_text(page: dict[str, Any]) -> list[str]:
    rows: list[dict[str, Any]] = page["suspects"]
    if not rows:
        return ["no player has a score yet"]
    out = ["players by their score over recent ranked finishes, the highest first"]
    for row in rows:
        marks = ("  FLAGGED" if row["flagged"] else "") + ("  BARRED" if row["barred"] else "")
        out.append(f"{row['player_id']}  score {row['score']:.2f}{marks}")
        for r in row["records"]:
            out.append(
                f"    {r.get('result')}  suspicion {r.get('suspicion')}  solver {r.get('solver')}"
                f"  optimal {r.get('optimal')}  known {r.get('known')}  field {r.get('field')}"
                f"  {r.get('time_ms')} ms"
            )
    if page["next_after"] is not None:
        out.append(f"more: seahaven admin suspects --after {page['next_after']}")
    return out


def _held_text(page: dict[str, Any]) -> list[str]:
    held: list[dict[str, Any]] = page["held"]
    first, total = page["offset"] + 1, page["total"]
    if not held:
        return [f"no held finish (of {total})" if total else "no held finish"]
    out = [f"held finishes {first}-{first + len(held) - 1} of {total}, the oldest first"]
    for h in held:
        score = h.get("score", {})
        where = f"{h.get('date')} {h.get('daily_kind')}" if h["kind"] == "daily" else h.get("room")
        agreement = score.get("agreement")
        shown = "-" if agreement is None else f"{agreement:.0%}"
        out.append(
            f"{h['result']}  {h['kind']} {where}  {h['player_id']} ({h.get('name', '')})  "
            f"{h.get('time_ms')} ms  {score.get('reason')}: agreement {shown} of "
            f"{score.get('scored')}, detours {score.get('detours')}, undos {score.get('undos')}, "
            f"dead ends {score.get('dead_ends')}, spread {score.get('spread')}  {h['replay']}"
        )
    if page["next_offset"] is not None:
        out.append(f"more: seahaven admin held --offset {page['next_offset']}")
    return out
