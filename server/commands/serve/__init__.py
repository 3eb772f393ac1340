"""``seahaven serve``: run a race server instance, or several on one port
(:mod:`.workers`, which supervises their processes).

Its flags are made from :class:`server.settings.Settings`: one flag a setting, its help
giving the default and the environment variable that may set it instead.
"""

from __future__ import annotations

import argparse
import logging
from typing import Any, Final

from pydantic import ValidationError

from server.settings import Settings

#: Flags whose names differ from their setting's.
FLAG_NAMES: Final = {
    "rate_per_s": "--rate",
    "rate_burst": "--burst",
    "allowed_origins": "--allow-origin",
    "api_rate_per_s": "--api-rate",
    "trusted_proxies": "--trusted-proxy",
    "webauthn_origins": "--webauthn-origin",
}


def _flag(name: str) -> str:
    return FLAG_NAMES.get(name, "--" + name.replace("_", "-"))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve``."""
    p = sub.add_parser(
        "serve",
        help="run the race server (websocket /ws, web client, /healthz, /metrics)",
        description=(
            "Serve one port: the websocket at /ws, the web client at /, GET /healthz, "
            "GET /metrics and the JSON API under /api/ (GET and HEAD only). Without "
            "--redis-url (or REDIS_URL) a private embedded Redis keeps its data under "
            "--data-dir. --workers N runs N such instances on the port (SO_REUSEPORT), "
            "supervised. Each setting is a flag, else its SEAHAVEN_* environment variable, "
            "else the default shown."
        ),
    )
    for name, field in Settings.model_fields.items():
        env = "SEAHAVEN_" + name.upper() + (" or REDIS_URL" if name == "redis_url" else "")
        default = field.default
        shown = (",".join(map(str, default)) or "none") if isinstance(default, tuple) else default
        text = f"{field.description} (default: {shown!s}; env {env})"
        if isinstance(default, tuple):
            p.add_argument(_flag(name), dest=name, action="append", help=text + "; repeat")
        elif isinstance(default, bool):  # a switch: given or not (unset: env, then default)
            p.add_argument(_flag(name), dest=name, action="store_true", default=None, help=text)
        else:
            kind: Any = type(default) if isinstance(default, int | float) else str
            p.add_argument(_flag(name), dest=name, type=kind, help=text)
    p.set_defaults(func=main)


def settings_of(args: argparse.Namespace) -> Settings:
    """The settings: the flags given, then the environment, then the defaults."""
    given = {name: getattr(args, name) for name in Settings.model_fields}
    return Settings(**{k: v for k, v in given.items() if v is not None})


def main(args: argparse.Namespace) -> int:
    """Run until interrupted: one instance, or ``--workers`` of them on one port."""
    from server.app import run
    from server.commands.serve.workers import can_share_ports, run_loop, serve_workers

    try:
        settings = settings_of(args)
    except ValidationError as exc:
        print(f"seahaven serve: bad settings:\n{exc}")
        return 2
    logging.basicConfig(level=settings.log.upper())
    if settings.workers > 1:
        if not can_share_ports():
            print("seahaven serve: --workers above 1 needs SO_REUSEPORT (Linux)")
            return 2
        # The parent only supervises: plain asyncio is enough for it.
        return run_loop(serve_workers(settings), "asyncio")
    return run_loop(run(settings), settings.loop)
