"""Fair play: the rules a result must meet to count (:mod:`.contest`: who contested a race)."""
