"""What outlives a game: replays and their verification by the engine (:mod:`.replays`),
each player's race history (:mod:`.history`), solo statistics (:mod:`.solo_stats`) and
perfect games (:mod:`.perfect`), and the stores of one instance (:mod:`.services`)."""
