"""Tests of server/play: what the handlers of player messages do on a real server."""
