"""Ranked play: what happens when a game ends and what it counts for. The finish of every
mode (:mod:`.finish`: the replay kept, a daily verified, reviewed and ranked, a race or solo
game counted), the ratings of rated races (:mod:`.ratings`), and a player's own ranked
attempt of a day (:mod:`.today`). Fair play (who contested a race, the review of a rated
race's finishers, holds, bars, the evidence across games) is :mod:`server.fairplay`'s."""
