"""Clients beside the commands: a bot racer that speaks the protocol like any player
(:mod:`.bot`; the quick race starts one, ``seahaven bot`` runs one) and the picture of a
table at the terminal (:mod:`.terminal`)."""
