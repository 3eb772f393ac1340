"""Persistence in Redis: every key name (:mod:`.keys`) and family (:mod:`.families`), the
atomic scripts (``lua/``, read and registered by :mod:`.scripts`), the room operations
(:mod:`.store`, a move's commit: :mod:`.commit`, and those about time: :mod:`.clocks`), a
room's events as the scripts write them (:mod:`.events`) and the words they answer
(:mod:`.status`), the public rooms listed live (:mod:`.listing`), the quick race's queue
(:mod:`.queue`), the arenas (:mod:`.arenas`), ratings (:mod:`.ratings`), the results counted
against each rival lately (:mod:`.rivals`) and the established
players' names that nobody else may take (:mod:`.names`), the daily's deals, leaderboards
and streak days (:mod:`.daily`), the players' records: history, solo statistics, perfect
games and replays (:mod:`.records`), reviews, held finishes and bars (:mod:`.reviews`), the
evidence of ranked finishes (:mod:`.evidence`), leases (:mod:`.lease`), whom each player
follows (:mod:`.follows`), a player's sessions, passkeys and transfer codes
(:mod:`.accounts`), the rooms an identity and an address made this hour (:mod:`.quotas`),
and the renaming of keys written before their hash tags (:mod:`.retag`). How commands reach
Redis (the pipelined move connection, pub/sub, the cluster) is :mod:`server.transport`."""
