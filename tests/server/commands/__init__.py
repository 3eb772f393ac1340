"""Tests of ``server/commands/``."""
