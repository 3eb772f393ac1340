"""The token buckets behind the ``/api/`` rate limit, and the client address behind
trusted proxies, on a clock the test moves."""

from __future__ import annotations

from ipaddress import ip_address, ip_network

from server.net.limits import TokenBuckets, bucket_key, client_address, parse_address


class Clock:
    """Seconds that pass only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_gives_its_burst_then_one_token_per_interval() -> None:
    clock = Clock()
    buckets = TokenBuckets(2.0, 3, clock=clock)
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == 0.5
    clock.now += 0.25
    assert buckets.take("a") == 0.25  # refused requests take nothing
    clock.now += 0.25
    assert buckets.take("a") == 0.0
    assert buckets.take("b") == 0.0  # every key has its own bucket
    clock.now += 100
    assert [buckets.take("a") for _ in range(4)] == [0.0, 0.0, 0.0, 0.5]  # burst, no more


def test_refilled_buckets_are_dropped() -> None:
    clock = Clock()
    buckets = TokenBuckets(10.0, 20, clock=clock)  # refilled from empty in 2 s
    for i in range(1000):
        buckets.take(f"10.0.{i // 256}.{i % 256}")
    assert len(buckets) == 1000
    clock.now += 1.9
    buckets.take("late")
    assert len(buckets) == 1001
    clock.now += 0.2
    buckets.take("later")
    assert len(buckets) == 2  # "late" and "later": the rest refilled, as good as new


def test_the_number_of_buckets_is_bounded() -> None:
    clock = Clock()
    buckets = TokenBuckets(1.0, 5, max_buckets=100, clock=clock)
    for i in range(10_000):
        buckets.take(str(i))
        clock.now += 0.0001
    assert len(buckets) == 100
    # The most recently used are the ones kept.
    for _ in range(5):
        buckets.take("9999")
    assert buckets.take("9999") > 0


def test_client_address() -> None:
    loopback = [ip_network("127.0.0.0/8"), ip_network("::1/128")]
    peer = ip_address("127.0.0.1")
    remote = ip_address("198.51.100.4")
    assert client_address(peer, [], loopback) == peer
    assert client_address(peer, ["203.0.113.9"], loopback) == ip_address("203.0.113.9")
    # Read from the right, past trusted proxies; what the client wrote itself is never read.
    chain = ["192.0.2.1, 203.0.113.9", "127.0.0.2"]
    assert client_address(peer, chain, loopback) == ip_address("203.0.113.9")
    # All trusted: the leftmost; not an address: the proxy that sent it.
    assert client_address(peer, ["127.0.0.3, ::1"], loopback) == ip_address("127.0.0.3")
    assert client_address(peer, ["203.0.113.9, unknown"], loopback) == peer
    # From a peer that is not a trusted proxy, or with no proxy trusted, the header is ignored.
    assert client_address(remote, ["203.0.113.9"], loopback) == remote
    assert client_address(peer, ["203.0.113.9"], []) == peer
    assert client_address(None, ["203.0.113.9"], loopback) is None


def test_bucket_keys() -> None:
    assert parse_address("::ffff:192.0.2.7") == ip_address("192.0.2.7")
    assert parse_address("not an address") is None
    assert bucket_key(ip_address("192.0.2.7")) == "192.0.2.7"
    one = bucket_key(ip_address("2001:db8:a:b::1"))
    assert one == bucket_key(ip_address("2001:db8:a:b:ffff:ffff:ffff:ffff")) == "2001:db8:a:b::/64"
    assert one != bucket_key(ip_address("2001:db8:a:c::1"))
    assert bucket_key(None) == "unknown"
