"""The deployment files: ``docker-compose config`` accepts the compose file, whose instances
believe the balancer's X-Forwarded-For and whose balancer runs ``deploy/nginx.conf``, and
its cluster variant (``docker-compose.cluster.yml``: six Redis nodes, a one-shot creator,
instances on ``--redis-cluster``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from ipaddress import ip_network

import pytest

from tests import ROOT

#: The deployment's daily secret, as the shell or an .env file would give it.
SECRET_ENV = {**os.environ, "SEAHAVEN_DAILY_SECRET": "compose-test-secret"}


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_compose_file_is_valid() -> None:
    out = subprocess.run(
        ["docker-compose", "config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=SECRET_ENV,
    )
    assert out.returncode == 0, out.stderr
    # Both instances draw the days under the one secret given.
    secrets = re.findall(r"^\s+SEAHAVEN_DAILY_SECRET: (.+)$", out.stdout, re.MULTILINE)
    assert secrets == ["compose-test-secret"] * 2
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


def service_blocks(config: str) -> dict[str, str]:
    """The text of each service in ``docker-compose config``'s output, by name (the output
    is normalised: two spaces before a service's name under ``services:``)."""
    services = config.split("\nservices:\n", 1)[1].split("\n", 1)
    body = services[0] + "\n" + services[1]
    blocks: dict[str, str] = {}
    name = ""
    for line in body.splitlines():
        if line and not line.startswith(" "):
            break  # the next top-level key (volumes:, networks:)
        if re.match(r"^  [\w-]+:$", line):
            name = line.strip().rstrip(":")
            blocks[name] = ""
        elif name:
            blocks[name] += line + "\n"
    return blocks


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_compose_cluster_variant_is_valid() -> None:
    out = subprocess.run(
        ["docker-compose", "-f", "docker-compose.cluster.yml", "config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=SECRET_ENV,
    )
    assert out.returncode == 0, out.stderr
    secrets = re.findall(r"^\s+SEAHAVEN_DAILY_SECRET: (.+)$", out.stdout, re.MULTILINE)
    assert secrets == ["compose-test-secret"] * 2
    services = service_blocks(out.stdout)
    nodes = {name: text for name, text in services.items() if name.startswith("redis-node-")}
    assert len(nodes) == 6
    addresses = set()
    for name, text in nodes.items():
        assert '- --cluster-enabled\n    - "yes"' in text, name
        assert '- --appendonly\n    - "yes"' in text, name
        assert f"- {name}:/data:rw" in text  # a volume of its own: nodes.conf and its data
        addresses.add(re.findall(r"ipv4_address: ([\d.]+)", text)[0])
    assert len(addresses) == 6
    # The creator runs once, over every node, with one replica per master.
    create = services["cluster-create"]
    assert 'restart: "no"' in create
    create = re.sub(r"\\\n\s*", "", create).replace("\\ ", " ")  # YAML's folded lines
    assert "--cluster-replicas 1" in create
    assert all(a in create for a in addresses)
    for server in ("server1", "server2"):
        text = services[server]
        seed = re.findall(r"SEAHAVEN_REDIS_CLUSTER: redis://([\d.]+):6379", text)
        assert seed and seed[0] in addresses
        assert "REDIS_URL" not in text  # the server refuses a Redis URL beside a cluster
        assert re.search(r"SEAHAVEN_WORKERS: '\d+'", text)
        assert "condition: service_completed_successfully" in text
        assert "cluster: null" in text and "default: null" in text
    trusted = re.findall(r"^\s+SEAHAVEN_TRUSTED_PROXIES: (.+)$", out.stdout, re.MULTILINE)
    assert len(trusted) == 2 and trusted[0] == trusted[1]
    assert all(ip_network(n).is_private for n in trusted[0].strip("'\"").split(","))
    assert f"{ROOT}/deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in out.stdout


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
@pytest.mark.parametrize("name", ["docker-compose.yml", "docker-compose.cluster.yml"])
def test_compose_refuses_to_run_without_a_daily_secret(name: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SEAHAVEN_DAILY_SECRET"}
    out = subprocess.run(
        ["docker-compose", "-f", name, "config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert out.returncode != 0 and "set SEAHAVEN_DAILY_SECRET" in out.stderr
