"""Ranked play: what happens when a game ends and what it counts for. The finish of every
mode (:mod:`.finish`: the replay kept, a daily verified, reviewed and ranked, a race or solo
game counted), the ratings of rated races (:mod:`.ratings`; who contested one, the rivals
a rating or an arena point is earned against, is :mod:`server.fairplay.contest`), the review
of a rated race's finishers that its ratings wait for (:mod:`.race_review`), and the
operator's clear, void, bar and unbar of held finishes and players (:mod:`.holds`), the
evidence across games that flags a player and holds their next results (:mod:`.evidence`),
and a player's own ranked attempt of a day (:mod:`.today`)."""
