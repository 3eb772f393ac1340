"""Tests of the race server: real server processes on real Redis, and its parts in process."""
