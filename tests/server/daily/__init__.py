"""Tests of ``server/daily/``."""
