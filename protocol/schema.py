"""Generate ``protocol/schema.json``, the JSON Schema of every message, from the models.

Run ``python -m protocol.schema`` to rewrite the file, ``python -m protocol.schema --check``
to fail (exit 1) when it is out of date.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .models import (
    CLIENT_ADAPTER,
    ERROR_CODES,
    PROTOCOL_VERSION,
    SERVER_ADAPTER,
    SERVER_REJECT_REASONS,
)

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def build_schema() -> dict[str, Any]:
    """The schema document: client and server unions, with shared definitions."""
    client = CLIENT_ADAPTER.json_schema(ref_template="#/$defs/{model}")
    server = SERVER_ADAPTER.json_schema(ref_template="#/$defs/{model}")
    defs: dict[str, Any] = {}
    defs.update(client.pop("$defs", {}))
    defs.update(server.pop("$defs", {}))
    defs["ClientMessage"] = client
    defs["ServerMessage"] = server
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Seahaven Race protocol",
        "description": (
            f"Protocol version {PROTOCOL_VERSION}. Every websocket text frame is one JSON "
            "object: a ClientMessage from the client, a ServerMessage from the server. "
            "Generated from the models of protocol/ by `python -m protocol.schema`."
        ),
        "x-protocol-version": PROTOCOL_VERSION,
        "x-error-codes": ERROR_CODES,
        "x-server-reject-reasons": SERVER_REJECT_REASONS,
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": dict(sorted(defs.items())),
    }


def render() -> str:
    """The file's exact text."""
    return json.dumps(build_schema(), indent=2, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the schema, or with ``--check`` compare it; returns the exit status."""
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if "--check" in args:
        current = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
        if current != text:
            print(f"{SCHEMA_PATH} is out of date: run python -m protocol.schema", file=sys.stderr)
            return 1
        return 0
    SCHEMA_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {SCHEMA_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
