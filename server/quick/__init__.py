"""The quick race: pairing the players who wait into public, rated races, and the bot offer
(:mod:`.pairing`). The sockets waiting in the queue are :mod:`server.whereabouts`'s."""
