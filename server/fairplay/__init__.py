"""Fair play: evidence, holds and the rules a result must meet to count (who contested)."""
