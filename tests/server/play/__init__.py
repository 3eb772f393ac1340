"""Tests of ``server/play/``."""
