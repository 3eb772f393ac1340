"""Who a request or a socket comes from, and how often a client may ask.

- :func:`client_address`: the peer of the connection, unless that peer is a trusted reverse
  proxy; then the proxy's ``X-Forwarded-For`` is read from the right, past every trusted
  proxy, to the first address that is not one. What a client writes into the header
  itself is left of what its proxy appended, so it is never reached.
- :func:`bucket_key`: the address a rate limit counts by; an IPv6 client is counted by its
  /64, the block one subscriber normally holds.
- :data:`MAX_SOCKET_FRAME`: the hard cap on a frame's size, past which a socket is closed.
- :class:`TokenBuckets`: one token bucket per key, bounded in number: a bucket that has
  refilled is the same as none and is dropped, and past :data:`MAX_BUCKETS` the least
  recently used go first.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from ipaddress import IPv4Address, IPv6Address, IPv6Network, ip_address
from typing import Final

from ..settings import Network

#: An IPv4 or IPv6 address.
Address = IPv4Address | IPv6Address

#: Most buckets kept at once (about 150 bytes each); past it the least recently used go.
MAX_BUCKETS: Final = 50_000

#: The prefix an IPv6 client is counted by.
IPV6_PREFIX: Final = 64

#: The largest frame a socket reads at all, in bytes. A frame past the protocol's cap
#: (``MAX_FRAME``, 4 KiB) and up to this one is read and answered ``error too_large``, the
#: socket kept; past this one the socket is closed with code 1009 ("message too big") and
#: the limit in its reason. The web client never sends a frame past 4 KiB, so such a frame
#: is not a mistake a person made: reading on would mean holding megabytes for each of
#: thousands of sockets before a byte of it could be refused.
MAX_SOCKET_FRAME: Final = 64 * 1024


def parse_address(text: str) -> Address | None:
    """An address from its text (an IPv4-mapped IPv6 address as the IPv4 one), or None."""
    try:
        address = ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def peer_of(remote: object) -> Address | None:
    """The address of a connection's ``remote_address`` (None for a Unix socket)."""
    if isinstance(remote, tuple) and remote and isinstance(remote[0], str):
        return parse_address(remote[0])
    return None


def within(address: Address | None, networks: Iterable[Network]) -> bool:
    """Whether an address is in one of the networks (an unknown address is in none)."""
    return address is not None and any(address in network for network in networks)


def client_address(
    peer: Address | None, forwarded: Sequence[str], trusted: Sequence[Network]
) -> Address | None:
    """The address a request comes from.

    Args:
        peer: the address at the other end of the connection (None if unknown).
        forwarded: the values of every ``X-Forwarded-For`` header, in order.
        trusted: the networks of the reverse proxies whose ``X-Forwarded-For`` is believed.

    Returns:
        ``peer`` if it is not a trusted proxy or sent no ``X-Forwarded-For``; else the
        rightmost forwarded address not itself a trusted proxy (the leftmost one if all
        are). An entry that is not an address stops the walk at the proxy that sent it.
    """
    hops = [hop for value in forwarded for hop in value.split(",")]
    client = peer
    while hops and within(client, trusted):
        previous = parse_address(hops.pop())
        if previous is None:
            break
        client = previous
    return client


def bucket_key(address: Address | None) -> str:
    """What a rate limit counts ``address`` as: itself, its /64 for IPv6, or ``unknown``."""
    if address is None:
        return "unknown"
    if isinstance(address, IPv6Address):
        return str(IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


class TokenBuckets:
    """Token buckets by key: each holds up to ``burst`` tokens, refilled at ``rate`` a second.

    Args:
        rate: tokens a second.
        burst: the most tokens a bucket holds (a new bucket is full).
        max_buckets: the most buckets kept; past it the least recently used are dropped.
        clock: seconds, monotonic (:func:`time.monotonic`; tests pass their own).
    """

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        max_buckets: int = MAX_BUCKETS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.max_buckets = max_buckets
        self.clock = clock
        #: After this many idle seconds any bucket is full again: as good as none.
        self.refill_s = self.burst / rate
        #: Key -> (tokens, when counted), least recently used first.
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, key: str) -> float:
        """Take a token from ``key``'s bucket.

        Returns:
            0.0 if there was one; else the seconds until there will be (nothing is taken).
        """
        now = self.clock()
        tokens, then = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens, now)
        self._prune(now)
        return wait

    def _prune(self, now: float) -> None:
        """Drop the buckets idle long enough to be full, and the oldest past the bound.

        The oldest bucket is first: once it is young enough to keep, so is every other.
        """
        buckets = self._buckets
        while buckets:
            _tokens, then = next(iter(buckets.values()))
            if len(buckets) <= self.max_buckets and now - then < self.refill_s:
                return
            buckets.popitem(last=False)
