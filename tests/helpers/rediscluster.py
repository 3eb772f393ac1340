"""A real Redis Cluster of 3 masters and 3 replicas on free loopback ports, for tests and
benchmarks, from the machine's ``redis-server`` and ``redis-cli``.

Usage::

    from tests.helpers.rediscluster import RedisClusterProc
    with RedisClusterProc.start() as cluster:     # up, cluster_state:ok, every slot covered
        url = cluster.seed_url                      # redis://127.0.0.1:PORT
        cluster.kill(cluster.master_of(key))        # SIGKILL a master; its replica takes over
        cluster.rejoin(port)                        # back, empty, as the new master's replica
    # stopped, and its folder removed

``python -m tests.helpers.rediscluster`` starts one, prints its seed URL and runs until interrupted.

Each node runs cluster-enabled with a short ``cluster-node-timeout`` (quick failover), no
snapshot and no append-only file, its ``nodes.conf`` in a temporary folder removed at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from redis.crc import key_slot

#: Milliseconds before a silent master counts as failed and its replica takes over.
NODE_TIMEOUT_MS = 1000


def available() -> bool:
    """Whether this machine has ``redis-server`` and ``redis-cli``."""
    return shutil.which("redis-server") is not None and shutil.which("redis-cli") is not None


#: Where a cluster's ports are drawn from: below the kernel's ephemeral range (32768 up),
#: bus ports (+10000) included, so no connection's local port takes one; each xdist worker
#: (``gw0``, ``gw1``, ...) has a slice of its own, so two workers never pick the same port.
_PORT_BASE, _PORT_SLICE = 12000, 1000


def _port_slice() -> range:
    """This process's slice of cluster ports (by its xdist worker's number, 0 without)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    index = int(worker) % 10 if worker.isdigit() else 0
    start = _PORT_BASE + index * _PORT_SLICE
    return range(start, start + _PORT_SLICE)


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_ports(n: int) -> list[int]:
    """``n`` ports free on 127.0.0.1 from this worker's slice, each with its cluster bus port
    (+10000) free too."""
    ports: list[int] = []
    for port in random.sample(_port_slice(), len(_port_slice())):
        if _bindable(port) and _bindable(port + 10000):
            ports.append(port)
            if len(ports) == n:
                return ports
    raise RuntimeError(f"no {n} free ports in {_port_slice()}")


#: ``redis-cli``'s TLS options for the nodes of a cluster started with ``tls``, by port.
_TLS_CLI: dict[int, list[str]] = {}


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A throwaway self-signed certificate for 127.0.0.1 and its key (``openssl``)."""
    cert, key = folder / "redis.crt", folder / "redis.key"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def cli(port: int, *args: str, timeout: float = 5.0) -> str:
    """``redis-cli -p PORT ARGS...``'s output ('' if the node does not answer)."""
    try:
        done = subprocess.run(
            ["redis-cli", *_TLS_CLI.get(port, []), "-h", "127.0.0.1", "-p", str(port), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return ""
    return done.stdout


@dataclass
class RedisClusterProc:
    """A running cluster: its nodes' processes by port, and its folder."""

    folder: Path
    procs: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    #: Seconds it took to come up (start, create, cluster_state:ok).
    startup_s: float = 0.0
    #: Seconds a master waits before its first full sync to a replica.
    sync_delay_s: int = 0
    #: Each node's cluster id, by port.
    _ids: dict[int, str] = field(default_factory=dict)
    #: With TLS: the certificate (also the CA) and key every node serves and clients trust.
    tls: tuple[Path, Path] | None = None

    @property
    def ports(self) -> list[int]:
        """The ports of every node started (dead ones too)."""
        return sorted(self.procs)

    @property
    def seed_url(self) -> str:
        """A URL of a live node, for ``--redis-cluster``."""
        for port, proc in sorted(self.procs.items()):
            if proc.poll() is None:
                if self.tls is not None:
                    return f"rediss://127.0.0.1:{port}?ssl_ca_certs={self.tls[0]}"
                return f"redis://127.0.0.1:{port}"
        raise RuntimeError("no node of the cluster runs")

    @classmethod
    def start(
        cls,
        masters: int = 3,
        replicas: int = 1,
        timeout: float = 30.0,
        first_sync_delay_s: int = 0,
        tls: bool = False,
    ) -> RedisClusterProc:
        """Start the nodes, create the cluster and wait until every node says
        ``cluster_state:ok`` (and every replica is in sync, unless ``first_sync_delay_s``
        holds back each master's first full sync to its replica that long: a test of a
        replica that has nothing yet). With ``tls`` every node speaks TLS only, to clients,
        replicas and the cluster bus, with a throwaway certificate (needs ``openssl``).

        Raises:
            RuntimeError: a tool is missing or the cluster did not come up in time.
        """
        if not available():
            raise RuntimeError("redis-server and redis-cli are needed for a Redis Cluster")
        began = time.monotonic()
        folder = Path(tempfile.mkdtemp(prefix="seahaven-cluster-"))
        cluster = cls(folder, sync_delay_s=first_sync_delay_s)
        try:
            if tls:
                cluster.tls = make_certificate(folder)
            for port in _free_ports(masters * (1 + replicas)):
                cluster._start_node(port)
            cluster._wait(lambda p: cli(p, "ping").strip() == "PONG", timeout, "answer PING")
            addresses = [f"127.0.0.1:{port}" for port in cluster.ports]
            create = ["redis-cli", *_TLS_CLI.get(cluster.ports[0], []), "--cluster", "create"]
            create += addresses
            created = subprocess.run(
                [*create, "--cluster-replicas", str(replicas), "--cluster-yes"],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            if created.returncode != 0:
                raise RuntimeError(f"cluster create failed:\n{created.stdout}{created.stderr}")
            cluster.wait_ok(timeout, synced=not first_sync_delay_s)
            cluster._ids = {port: cluster.node_id(port) for port in cluster.ports}
        except BaseException:
            cluster.stop()
            raise
        cluster.startup_s = time.monotonic() - began
        return cluster

    def rejoin(self, port: int, timeout: float = 30.0) -> None:
        """Bring a killed node back as a new, empty node that replicates a master without
        one (the replica promoted in its place), as an operator would: a node that lost its
        data must not come back under its old identity, which still claims its old slots
        until the cluster tells it otherwise. Returns once it is a replica in sync and every
        node says ``cluster_state:ok``."""
        old_id = self._ids.get(port, "")
        shutil.rmtree(self.folder / str(port), ignore_errors=True)
        self._start_node(port)
        self._wait(lambda p: cli(p, "ping").strip() == "PONG", timeout, "answer PING")
        alive = [p for p in self.live_ports() if p != port]
        cli(alive[0], "cluster", "meet", "127.0.0.1", str(port))
        if old_id:
            for other in alive:
                cli(other, "cluster", "forget", old_id)
        deadline = time.monotonic() + timeout
        lonely = None
        while time.monotonic() < deadline and lonely is None:
            known = cli(port, "cluster", "nodes")
            masters = {p for p in self._masters_seen(alive[0]) if p in alive}
            if all(f":{p}@" in known for p in masters):
                lonely = next((m for m in sorted(masters) if not self.replicas_of(m)), None)
            time.sleep(0.05)
        if lonely is None:
            raise RuntimeError(f"node {port} found no master to replicate")
        cli(port, "cluster", "replicate", self.node_id(lonely))
        self._ids[port] = self.node_id(port)

        def in_sync(p: int) -> bool:
            info = cli(p, "info", "replication")
            return p != port or "master_link_status:up" in info

        self._wait(in_sync, timeout, "replicate")
        self.wait_ok(timeout)

    def _start_node(self, port: int) -> None:
        node_dir = self.folder / str(port)
        node_dir.mkdir(exist_ok=True)
        log = (node_dir / "redis.log").open("ab")
        listen = ["--port", str(port)]
        if self.tls is not None:
            cert, key = (str(path) for path in self.tls)
            listen = ["--port", "0", "--tls-port", str(port), "--tls-cert-file", cert]
            listen += ["--tls-key-file", key, "--tls-ca-cert-file", cert]
            listen += ["--tls-auth-clients", "no", "--tls-cluster", "yes"]
            listen += ["--tls-replication", "yes"]
            _TLS_CLI[port] = ["--tls", "--cacert", cert]
        self.procs[port] = subprocess.Popen(
            [
                "redis-server",
                *listen,
                *("--bind", "127.0.0.1", "--dir", str(node_dir)),
                *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
                *("--cluster-node-timeout", str(NODE_TIMEOUT_MS)),
                # Fail over as soon as a master is gone, however long the replica was apart.
                *("--cluster-replica-validity-factor", "0"),
                *("--save", "", "--appendonly", "no", "--protected-mode", "no"),
                # A replica's first sync at once (the default waits 5 s for more replicas).
                *("--repl-diskless-sync-delay", str(self.sync_delay_s)),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()

    def _wait(self, ready: Callable[[int], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(ready(port) for port in self.live_ports()):
                return
            time.sleep(0.05)
        raise RuntimeError(f"cluster nodes did not {what} within {timeout} s")

    def live_ports(self) -> list[int]:
        """The ports of the nodes still running."""
        return [port for port, proc in sorted(self.procs.items()) if proc.poll() is None]

    def wait_ok(self, timeout: float = 30.0, synced: bool = True) -> None:
        """Wait until every live node says ``cluster_state:ok``, every replica is in sync
        with its master, and all agree on the masters of the slots (after a failover: the
        promoted replica)."""

        def ok(port: int) -> bool:
            info = cli(port, "cluster", "info")
            if "cluster_state:ok" not in info or "cluster_slots_ok:16384" not in info:
                return False
            # A replica counts once its first sync is done: promoted before, it would take
            # over its master's slots empty.
            role = cli(port, "info", "replication")
            return not synced or "role:master" in role or "master_link_status:up" in role

        self._wait(ok, timeout, "reach cluster_state:ok")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            views = {self._masters_seen(port) for port in self.live_ports()}
            if len(views) == 1 and all(p in self.live_ports() for p in next(iter(views))):
                return
            time.sleep(0.05)
        raise RuntimeError("cluster nodes do not agree on the masters")

    def _masters_seen(self, port: int) -> frozenset[int]:
        """The ports of the nodes that hold slots, as node ``port`` sees them (a dead master
        keeps its slots until its replica takes them over)."""
        masters = set()
        for line in cli(port, "cluster", "nodes").splitlines():
            parts = line.split()
            if len(parts) > 8 and "master" in parts[2]:
                masters.add(int(parts[1].split("@")[0].rsplit(":", 1)[1]))
        return frozenset(masters)

    def masters(self) -> list[int]:
        """The ports of the masters that hold slots now."""
        return sorted(p for p in self._masters_seen(self.live_ports()[0]) if p in self.live_ports())

    def master_of(self, key: str) -> int:
        """The port of the master that holds ``key``'s slot now."""
        slot = key_slot(key.encode())
        for port in self.live_ports():
            for line in cli(port, "cluster", "nodes").splitlines():
                parts = line.split()
                if len(parts) < 9 or "master" not in parts[2] or "fail" in parts[2]:
                    continue
                for span in parts[8:]:
                    if span.startswith("["):
                        continue
                    low, _, high = span.partition("-")
                    if int(low) <= slot <= int(high or low):
                        return int(parts[1].split("@")[0].rsplit(":", 1)[1])
        raise RuntimeError(f"no master holds slot {slot}")

    def migrate_slot(self, key: str, target: int, pause: float = 0.3) -> int:
        """Move ``key``'s slot, keys and all, to the master on port ``target`` as a resharding
        does: the slot is marked importing and migrating (``ASK`` answers for keys already
        moved), its keys go over in small batches with ``pause`` seconds between them, then
        every master learns the new owner (``MOVED`` answers). Returns the old master's port.
        """
        slot = key_slot(key.encode())
        source = self.master_of(key)
        if source == target:
            raise ValueError("the slot is already there")
        source_id, target_id = self.node_id(source), self.node_id(target)
        cli(target, "cluster", "setslot", str(slot), "importing", source_id)
        cli(source, "cluster", "setslot", str(slot), "migrating", target_id)
        while True:
            batch = cli(source, "cluster", "getkeysinslot", str(slot), "3").split()
            if not batch:
                break
            out = cli(source, "migrate", "127.0.0.1", str(target), "", "0", "5000", "keys", *batch)
            if "OK" not in out and "NOKEY" not in out:
                raise RuntimeError(f"MIGRATE failed: {out}")
            time.sleep(pause)
        for port in self.live_ports():
            if "role:master" in cli(port, "info", "replication"):
                cli(port, "cluster", "setslot", str(slot), "node", target_id)
        return source

    def replicas_of(self, master_port: int) -> list[int]:
        """The ports of a master's replicas."""
        out = cli(master_port, "cluster", "replicas", self.node_id(master_port))
        return sorted(
            int(line.split()[1].split("@")[0].rsplit(":", 1)[1])
            for line in out.splitlines()
            if line.strip()
        )

    def node_id(self, port: int) -> str:
        """A node's cluster id."""
        return cli(port, "cluster", "myid").strip()

    def kill(self, port: int) -> None:
        """SIGKILL one node (a crash: nothing flushed, no goodbye to the cluster)."""
        proc = self.procs[port]
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    def stop(self) -> None:
        """Stop every node and remove the folder."""
        for port in self.procs:
            _TLS_CLI.pop(port, None)
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> RedisClusterProc:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def running_cluster() -> Iterator[RedisClusterProc]:
    """A cluster for the length of a ``with`` block."""
    with RedisClusterProc.start() as cluster:
        yield cluster


def main() -> int:
    """Start a cluster, print its seed URL, run until SIGINT/SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args()
    with RedisClusterProc.start() as cluster:
        print(cluster.seed_url, flush=True)
        print(
            f"# {len(cluster.ports)} nodes on {cluster.ports}, up in {cluster.startup_s:.2f} s;"
            f" folder {cluster.folder} (pid {os.getpid()})",
            flush=True,
        )
        stop = False

        def finish(*_: object) -> None:
            nonlocal stop
            stop = True

        signal.signal(signal.SIGTERM, finish)
        signal.signal(signal.SIGINT, finish)
        while not stop:
            time.sleep(0.2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
