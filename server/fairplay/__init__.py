"""Fair play: the thresholds of the evidence rule (:mod:`.policy`), a finish as reviewed and
what is decided of it (:mod:`.values`), the one pure decision (:mod:`.decide`), the
evidence across games gathered and kept around it (:mod:`.evidence`), the one gate for
"may this player rank or show" (:mod:`.standing`), held finishes and the operator's
actions (:mod:`.holds`), the review of a rated race's finishers (:mod:`.race_review`) and
who contested a race, with what repeated results against the same rivals are worth
(:mod:`.contest`). :mod:`server.review` is its pure lower half (one finish's pace, scoring
and evidence)."""
