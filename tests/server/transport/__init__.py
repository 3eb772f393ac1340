"""Tests of ``server/transport/``."""
