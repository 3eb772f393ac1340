"""Fair play: the evidence across games, the one decision on a ranked finish, the standing
gate, holds and bars, the race review (docs/fairplay.md); :mod:`server.review` is its pure
lower half (one finish's pace, scoring and evidence)."""
