"""The daily challenge and what outlives a game: the day's deal (:mod:`.deal`), replays
and their verification (:mod:`.replays`), leaderboards (:mod:`.leaderboard`), race history
(:mod:`.history`), what happens when a board is won or given up (:mod:`.results`) and the
sockets watching a leaderboard (:mod:`.watchers`)."""
