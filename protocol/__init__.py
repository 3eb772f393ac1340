"""The Seahaven Race wire protocol: pydantic v2 models, the JSON Schema and its docs.

This package never imports :mod:`server`; clients and tests may use it on its own.
"""

from .models import (
    CLIENT_ADAPTER,
    ERROR_CODES,
    MAX_FRAME,
    MAX_PLAYERS,
    PROTOCOL_VERSION,
    SERVER_ADAPTER,
    SERVER_REJECT_REASONS,
    ClientMessage,
    ServerMessage,
    parse_client,
    parse_server,
)

__all__ = [
    "CLIENT_ADAPTER",
    "ERROR_CODES",
    "MAX_FRAME",
    "MAX_PLAYERS",
    "PROTOCOL_VERSION",
    "SERVER_ADAPTER",
    "SERVER_REJECT_REASONS",
    "ClientMessage",
    "ServerMessage",
    "parse_client",
    "parse_server",
]
