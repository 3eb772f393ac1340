"""The daily challenge and what outlives a game: the day's deal (:mod:`.deal`) and its
certification ahead of the day (:mod:`.deals`), the pace model of the fastest plausible
person (:mod:`.pace`), the review of a ranked finish (:mod:`.review`, run off the loop by
:mod:`.reviewer`) and the finishes held for an operator (:mod:`.holds`), replays and
their verification (:mod:`.replays`), leaderboards (:mod:`.leaderboard`), race history
(:mod:`.history`), solo statistics (:mod:`.solo_stats`), perfect games
(:mod:`.perfect`), a player's recent dailies (:mod:`.profile`), what happens when a board
is won or given up (:mod:`.results`), the sockets watching a leaderboard
(:mod:`.watchers`), and the stores of one instance made from its Redis and settings
(:mod:`.services`)."""
