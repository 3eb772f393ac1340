"""The race benchmark's Redis: the nodes a run uses, their CPU, and the Redis (a private
``redis-server`` or a Redis Cluster) a run may start for itself."""

from __future__ import annotations

import argparse
import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator

from tests.helpers.serverproc import free_port


def redis_nodes(redis_url: str | None, cluster: str | None) -> tuple[list[str], list[str]]:
    """The URLs of the Redis nodes the server uses: (the masters, or the one Redis; a
    cluster's replicas)."""
    import redis

    if cluster:
        client = redis.RedisCluster.from_url(cluster, decode_responses=True)
        masters: list[str] = []
        replicas: list[str] = []
        for node in client.get_nodes():  # type: ignore[no-untyped-call]  # redis-py: untyped
            url = f"redis://{node.host}:{node.port}/0"
            (replicas if node.server_type == "replica" else masters).append(url)
        client.close()
        return masters, replicas
    return ([redis_url] if redis_url else []), []


def redis_cpu(urls: list[str]) -> float | None:
    """The CPU seconds these Redis nodes have used so far (``INFO cpu``), None if unknown
    (no node given: the server's embedded Redis)."""
    import redis

    if not urls:
        return None
    total = 0.0
    for url in urls:
        try:
            client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5)
            info = client.info("cpu")
            client.close()
        except Exception:
            return None
        total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return total


@contextlib.contextmanager
def private_redis() -> Iterator[str]:
    """A redis-server of the bench's own on a free loopback port, nothing kept on disk."""
    exe = shutil.which("redis-server")
    if exe is None:
        raise SystemExit("--private-redis needs redis-server on the PATH")
    port = free_port()
    folder = tempfile.mkdtemp(prefix="seahaven-bench-redis-")
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while redis_cpu([url]) is None:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit(f"the private redis-server on port {port} did not start")
            time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def started_cluster() -> Iterator[str]:
    """A Redis Cluster of 3 masters and 3 replicas for the run (``tests/helpers/rediscluster.py``):
    its seed URL."""
    from tests.helpers.rediscluster import RedisClusterProc, available

    if not available():
        raise SystemExit("--start-cluster needs redis-server and redis-cli on the PATH")
    with RedisClusterProc.start() as cluster:
        yield str(cluster.seed_url)


@contextlib.contextmanager
def backends(args: argparse.Namespace) -> Iterator[tuple[str, str | None]]:
    """The run's Redis URL (``--redis-url``, or ``--private-redis``: one started now) and
    its Redis Cluster's seed (``--redis-cluster``, or ``--start-cluster``: one started now;
    None without either)."""
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(private_redis()) if args.private_redis else args.redis_url
        cluster = args.redis_cluster
        if args.start_cluster:
            cluster = stack.enter_context(started_cluster())
        yield url, cluster
