"""Tests of ``server/net/``."""
