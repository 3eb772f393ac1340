"""Tests of ``server/records/``."""
