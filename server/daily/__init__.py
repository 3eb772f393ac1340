"""The daily challenge: the day's deal (:mod:`.deal`) and its certification ahead of the
day (:mod:`.deals`), the days' leaderboards (:mod:`.leaderboard`), a player's recent dailies
(:mod:`.profile`), the sockets watching a leaderboard (:mod:`.watchers`), and the stores of
one instance (:mod:`.services`)."""
