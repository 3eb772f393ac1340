"""The connection's request parser, without a socket: websockets' own sans-I/O server
protocol, its parser restarted on :class:`HeadReader` as every connection of the server has
it (:func:`hold_body_lines`), fed bytes as the network would.

- A request that announces a body is parsed all the same, its body's header lines given
  back to the request (so that the front refuses it properly), and the body dropped unread:
  none of it reaches the websocket's frame parser.
- At most :data:`MAX_HELD` body header lines: past them the request is refused with 431.
"""

from __future__ import annotations

import pytest
from websockets.http11 import Request
from websockets.server import ServerProtocol

from server.http.connection import (
    MAX_HELD,
    HeadReader,
    announces_body,
    give_back,
    has_body,
    hold_body_lines,
)


def parse(data: bytes, *more: bytes) -> tuple[ServerProtocol, HeadReader, list[object]]:
    """A fresh protocol fed ``data`` (and then each of ``more``): it, its reader and the
    events it parsed, each request given back its held lines (as the connection does)."""
    protocol = ServerProtocol()
    reader = hold_body_lines(protocol)
    events: list[object] = []
    for chunk in (data, *more):
        protocol.receive_data(chunk)
        for event in protocol.events_received():
            if isinstance(event, Request):
                give_back(event, reader)
            events.append(event)
    return protocol, reader, events


def head(method: str, *lines: str) -> bytes:
    return "\r\n".join([f"{method} /api/daily HTTP/1.1", "Host: x", *lines, "", ""]).encode()


def test_a_request_without_a_body_is_parsed_as_sent() -> None:
    _protocol, reader, events = parse(head("GET", "Accept: */*"))
    [request] = events
    assert isinstance(request, Request)
    assert request.method == "GET" and request.path == "/api/daily"
    assert request.headers["Accept"] == "*/*" and not has_body(request.headers)
    assert reader.held == [] and not reader.dropping


@pytest.mark.parametrize(
    ("lines", "held"),
    [
        (["Content-Length: 5"], [("Content-Length", "5")]),
        (["content-length:  12 "], [("content-length", "12")]),
        (["Transfer-Encoding: chunked"], [("Transfer-Encoding", "chunked")]),
    ],
)
def test_a_body_is_announced_to_the_front_and_dropped_unread(
    lines: list[str], held: list[tuple[str, str]]
) -> None:
    # The body holds what would be a websocket frame: it must never be parsed as one.
    frame = b"\x81\x05hello"
    protocol, reader, events = parse(head("POST", *lines) + b"hello" + frame, frame * 100)
    [request] = events
    assert isinstance(request, Request) and request.method == "POST"
    assert reader.held == held and reader.dropping
    assert has_body(request.headers)
    assert bytes(reader.buffer) == b""  # nothing of the body is kept
    # Nor read as frames: the protocol has found no fault and closes nothing, so the front's
    # answer still goes out.
    assert protocol.handshake_exc is None and protocol.parser_exc is None
    assert protocol.data_to_send() == []


def test_a_length_of_nothing_announces_no_body() -> None:
    _protocol, reader, events = parse(head("GET", "Content-Length: 0"))
    [request] = events
    assert isinstance(request, Request)
    assert reader.held == [("Content-Length", "0")] and not reader.dropping
    assert request.headers["Content-Length"] == "0" and not has_body(request.headers)


def test_a_body_header_split_across_packets_is_held_all_the_same() -> None:
    data = head("PUT", "Content-Length: 3")
    _protocol, reader, events = parse(data[:20], data[20:35], data[35:] + b"abc")
    [request] = events
    assert isinstance(request, Request) and has_body(request.headers)
    assert reader.held == [("Content-Length", "3")]


def test_past_the_most_body_header_lines_the_request_is_refused_431() -> None:
    at_most = head("POST", *["Content-Length: 1"] * MAX_HELD)
    _protocol, reader, events = parse(at_most)
    assert len(events) == 1 and len(reader.held) == MAX_HELD
    protocol, reader, events = parse(head("POST", *["Content-Length: 1"] * (MAX_HELD + 1)))
    assert events == [] and len(reader.held) == MAX_HELD
    answer = b"".join(protocol.data_to_send())
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_what_announces_a_body() -> None:
    assert announces_body([("Content-Length", "1")])
    assert announces_body([("TRANSFER-ENCODING", "identity")])
    assert not announces_body([("Content-Length", " 0 "), ("Accept", "*/*")])
    assert not announces_body([])
