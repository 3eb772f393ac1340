"""Redis: every key name (:mod:`.keys`), the atomic scripts (``lua/``), the room operations
(:mod:`.store`), the pipelined move connection (:mod:`.batch`) and the typed room record
with the caches kept of it on each instance (:mod:`.records`, :mod:`.cache`)."""
