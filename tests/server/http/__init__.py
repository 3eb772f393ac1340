"""Tests of ``server/http/``."""
