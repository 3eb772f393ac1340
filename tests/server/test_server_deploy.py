"""The deployment files: ``docker-compose config`` accepts the compose file, whose instances
believe the balancer's X-Forwarded-For and whose balancer runs ``deploy/nginx.conf``."""

from __future__ import annotations

import re
import shutil
import subprocess
from ipaddress import ip_network

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
    # Both instances trust the balancer's network (networks as the server reads them, and
    # private ones only: the balancer is the one proxy, a client may not name itself).
    trusted = re.findall(r"^\s+SEAHAVEN_TRUSTED_PROXIES: (.+)$", out.stdout, re.MULTILINE)
    assert len(trusted) == 2 and trusted[0] == trusted[1]
    networks = [ip_network(n.strip()) for n in trusted[0].strip("'\"").split(",")]
    assert networks and all(n.is_private for n in networks)
    assert f"{ROOT}/deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in out.stdout
