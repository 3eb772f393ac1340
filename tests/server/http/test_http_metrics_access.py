"""Who may read ``/metrics``, on real server processes over real sockets: the networks of
``--metrics-allow`` (loopback by default), judged by the client address (the one a trusted
proxy forwards, not the proxy's own)."""

from __future__ import annotations

from tests.helpers.cli import run_seahaven
from tests.helpers.rawhttp import Reply, request
from tests.helpers.serverproc import ServerProc, redis_url, running_server


def metrics(srv: ServerProc, forwarded: str | None = None) -> Reply:
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return request(srv.port, "GET", "/metrics", headers)


def test_loopback_only_by_default() -> None:
    with running_server(redis_url(), args=["--trusted-proxy", "127.0.0.1/32"]) as srv:
        local = metrics(srv)
        assert local.status == 200 and b"seahaven_connections " in local.body
        # A remote client through a proxy on this machine (loopback trusted as a proxy).
        for remote in ("203.0.113.5", "2001:db8::5", "10.1.2.3"):
            refused = metrics(srv, remote)
            assert refused.status == 403, remote
            assert refused.json()["error"] == "forbidden"
            assert b"seahaven" not in refused.body
        head = request(srv.port, "HEAD", "/metrics", {"X-Forwarded-For": "203.0.113.5"})
        assert head.status == 403 and head.body == b""


def test_opened_to_a_network_and_to_everyone() -> None:
    proxy = ["--trusted-proxy", "127.0.0.1/32"]
    with running_server(redis_url(), args=["--metrics-allow", "203.0.113.0/24", *proxy]) as srv:
        assert metrics(srv, "203.0.113.5").status == 200
        assert metrics(srv, "198.51.100.5").status == 403
        assert metrics(srv).status == 403  # the flag replaces the default, loopback too
    env = {"SEAHAVEN_METRICS_ALLOW": "0.0.0.0/0,::/0"}
    with running_server(redis_url(), args=proxy, env=env) as srv:
        for client in (None, "198.51.100.5", "2001:db8::5"):
            assert metrics(srv, client).status == 200


def test_a_bad_network_stops_the_server_at_start() -> None:
    out = run_seahaven("serve", "--metrics-allow", "10.0.0.1/8")
    assert out.returncode == 2
    assert "bad settings" in out.stdout and "metrics_allow" in out.stdout


def test_serve_help_names_the_http_settings() -> None:
    out = run_seahaven("serve", "--help")
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    for flag, env in (
        ("--api-rate", "SEAHAVEN_API_RATE_PER_S"),
        ("--api-burst", "SEAHAVEN_API_BURST"),
        ("--trusted-proxy", "SEAHAVEN_TRUSTED_PROXIES"),
        ("--metrics-allow", "SEAHAVEN_METRICS_ALLOW"),
    ):
        assert flag in text and env in text
    assert text.count("default: 127.0.0.0/8,::1/128") == 1  # --metrics-allow
    assert "X-Forwarded-For (comma-separated; default: none) (default: none;" in text
