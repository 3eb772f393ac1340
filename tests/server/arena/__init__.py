"""Tests of ``server/arena/``."""
