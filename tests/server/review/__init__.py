"""Tests of ``server/review/``."""
