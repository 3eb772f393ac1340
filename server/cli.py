"""The ``seahaven`` command line: finds the subcommands in :mod:`server.commands`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from . import commands


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="seahaven", description="Seahaven Towers: rules engine, solver and race server."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


#: Options whose value may begin with ``-``: a session token is URL-safe base64.
VALUES_THAT_MAY_LOOK_LIKE_OPTIONS = ("--token",)


def joined(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--token VALUE`` written ``--token=VALUE``, which argparse reads
    whatever the value begins with (given apart, a token beginning with ``-`` would be taken
    for an unknown option)."""
    out: list[str] = []
    words = iter(argv)
    for word in words:
        if word in VALUES_THAT_MAY_LOOK_LIKE_OPTIONS:
            value = next(words, None)
            out.append(word if value is None else f"{word}={value}")
        else:
            out.append(word)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for usage errors)."""
    args = build_parser().parse_args(joined(sys.argv[1:] if argv is None else argv))
    try:
        status: int = args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
