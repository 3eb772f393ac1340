"""The quick race: pairing the players who wait into public, rated races, and the bot offer
(:mod:`.pairing`), on what it uses of its instance and of the rooms (:mod:`.rooms`). The
sockets waiting in the queue are :mod:`server.whereabouts`'s."""
