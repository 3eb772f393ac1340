"""The deployment files: ``docker-compose config`` accepts the compose file."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests import ROOT


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_compose_file_is_valid() -> None:
    out = subprocess.run(
        ["docker-compose", "config"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    for service in ("redis:", "server1:", "server2:", "balancer:"):
        assert service in out.stdout
    assert "appendonly" in out.stdout
