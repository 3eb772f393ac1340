"""Tests of the deployment files (``deploy/``, the compose files)."""
