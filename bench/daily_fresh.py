"""How soon a fresh deployment serves today's daily: both kinds certified from nothing.

Run: python bench/daily_fresh.py [--runs 3] [--redis redis://127.0.0.1:6379/0]

Each run starts ``seahaven serve`` as a first start would: on its embedded Redis with an
empty ``--data-dir`` (the secret is made there), and on the shared Redis under a fresh key
prefix with a fresh ``SEAHAVEN_DAILY_SECRET``. It polls ``GET /api/daily`` every 20 ms
and prints the seconds from starting the process to the first 200 (today's daily and hard
deals certified and stored), and to ``/healthz`` answering, with their medians. The
server's own log line says how long each certification took.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis as redis_sync

ROOT = Path(__file__).resolve().parent.parent

#: A run that is not served by then failed (the issue's bound is 2 minutes).
LIMIT_S = 120.0


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as res:
            json.load(res)
            return int(res.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0


def one_run(redis: str | None) -> tuple[float, float, list[str]]:
    """(seconds to /healthz, seconds to today's daily, the server's certification lines)."""
    port = free_port()
    data = tempfile.mkdtemp(prefix="seahaven-fresh-")
    cmd = [sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--data-dir", data]
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "SEAHAVEN_DAILY_SECRET")}
    prefix = f"bench:fresh:{secrets.token_hex(6)}:"
    if redis is not None:
        cmd += ["--redis-url", redis]
        env["SEAHAVEN_KEY_PREFIX"] = prefix
        env["SEAHAVEN_DAILY_SECRET"] = secrets.token_urlsafe(32)
    log = Path(data) / "server.log"
    began = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    healthy = served = float("nan")
    base = f"http://127.0.0.1:{port}"
    try:
        while time.monotonic() - began < LIMIT_S and proc.poll() is None:
            if healthy != healthy and status_of(base + "/healthz") == 200:
                healthy = time.monotonic() - began
            if healthy == healthy and status_of(base + "/api/daily") == 200:
                served = time.monotonic() - began
                break
            time.sleep(0.02)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        if redis is not None:
            client = redis_sync.Redis.from_url(redis)
            keys = list(client.scan_iter(match=prefix + "*", count=1000))
            if keys:
                client.delete(*keys)
            client.close()
    lines = [line for line in log.read_text().splitlines() if "certified the" in line]
    return healthy, served, lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    for label, redis in (("embedded, empty data dir", None), ("shared Redis", args.redis)):
        served_s = []
        for run in range(args.runs):
            healthy, served, lines = one_run(redis)
            served_s.append(served)
            print(f"{label}, run {run + 1}: healthz {healthy:.2f} s, daily {served:.2f} s")
            for line in lines:
                print("   ", line.split("certified", 1)[1].strip())
        print(f"{label}: median {statistics.median(served_s):.2f} s to today's daily (both kinds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
