"""Arenas: tournaments of back-to-back rated races. Their pools, pairing, races, standings
and podium (:mod:`.arena`), their points and standings as pure functions (:mod:`.points`),
and the record each race leaves, amended when a held finisher is cleared (:mod:`.races`).
The sockets seated in an arena are :mod:`server.whereabouts`'s."""
