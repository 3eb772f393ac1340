"""Tests of ``server/ranked/``."""
