"""Tests of ``server/rooms/``."""
