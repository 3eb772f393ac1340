"""Helpers shared by tests (never a test module)."""
