"""Arenas: tournaments of back-to-back rated races. An arena's life on every instance, from
its slot to its podium (:mod:`.loop`), a player's arena messages (:mod:`.seating`), what an
instance knows of an arena and shows of it (:mod:`.standings`), the points and standings as
pure functions (:mod:`.points`), kept running race by race (:mod:`.table`), and the record
each race leaves, amended when a held finisher is cleared (:mod:`.races`); what all of it
uses of its instance (:mod:`.host`). The sockets seated in an arena are
:mod:`server.whereabouts`'s."""
