"""Tests of ``server/quick/``."""
