"""Every message of the Seahaven Race websocket protocol, in both directions, in one
namespace (``from protocol import models as m``).

Each message is one JSON object (one websocket text frame) with a ``type`` field; the
client and server unions are tagged on it. The definitions live in three modules: what
messages are made of (:mod:`protocol.fields`), what a client sends
(:mod:`protocol.commands`) and what the server sends (:mod:`protocol.events`, with
:mod:`protocol.matches` for the quick race, ratings and arenas).
Every public name of the three is here.

``protocol/README.md`` documents each message with an example and a full session;
``protocol/schema.json`` is generated from these models (``python -m protocol.schema``).
"""

from __future__ import annotations

from .commands import *  # noqa: F403
from .devices import *  # noqa: F403
from .events import *  # noqa: F403
from .fields import *  # noqa: F403
from .matches import *  # noqa: F403
