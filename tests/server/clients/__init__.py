"""Tests of ``server/clients/``."""
