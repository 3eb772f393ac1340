"""The race tests' Redis keys: the prefix of the session's shared race server
(``race_server`` in tests/server/conftest.py), and its keys for the tests that read them."""

from __future__ import annotations

import os

from server.store.keys import Keys

#: The race tests' keys, under a prefix of this session's own: rooms a test session leaves
#: behind (racing on, say, since their sockets closed) never meet another session's, whose
#: deals they would keep "being raced" (no hints for them).
RACE_PREFIX = f"test:race:{os.getpid()}:"
RACE_KEYS = Keys(RACE_PREFIX)
