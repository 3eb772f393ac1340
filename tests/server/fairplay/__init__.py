"""Tests of ``server/fairplay/``."""
