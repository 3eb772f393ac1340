"""The settings of who may read ``/metrics`` and of the API's rate limit, as the command line
takes them: a bad network stops the server at start; ``serve --help`` names each with its
variable. (Who is let in, by the client address a trusted proxy forwards, and the rate
limit itself: ``test_http_front.py``.)"""

from __future__ import annotations

from tests.helpers.cli import run_in_process


def test_a_bad_network_stops_the_server_at_start() -> None:
    out = run_in_process("serve", "--metrics-allow", "10.0.0.1/8")
    assert out.returncode == 2
    assert "bad settings" in out.stdout and "metrics_allow" in out.stdout


def test_serve_help_names_the_http_settings() -> None:
    out = run_in_process("serve", "--help")
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
