"""Tests of the rules engine (server/engine/) and of the ``seahaven`` commands built on it."""
