"""Seahaven Race: the race server, its rules engine and its command line."""
