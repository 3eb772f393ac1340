"""The server's connections: websockets parses each request's head, and a request that
announces a body still reaches ``process_request``, to be answered properly.

websockets parses requests for the opening handshake, which has no body: a request with a
``Content-Length`` other than 0 or a ``Transfer-Encoding`` is dropped without an answer
(``Request.parse`` raises and the connection is closed). A browser's or a script's POST has
a body, and deserves a 405, not a closed socket.

:class:`HttpConnection` (given to ``serve`` as ``create_connection``) gives its protocol a
:class:`HeadReader` before any byte arrives. That reader holds back the body's header
lines from the head websockets parses, and the connection puts them back into the parsed
request's headers, so ``process_request`` sees the request as sent and refuses it (see
:func:`has_body`). The body is dropped as it arrives, unread and unkept: nothing of it
reaches the websocket frame parser, and the answer is sent as soon as the head is read.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any, Final

from websockets.asyncio.server import Server, ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import TooManyHeaders
from websockets.http11 import Request
from websockets.protocol import Event
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

#: The header fields that announce a request body.
BODY_FIELDS: Final = (b"content-length", b"transfer-encoding")

#: Most body header lines held back from one request (more is refused with 431).
MAX_HELD: Final = 8


class HeadReader(StreamReader):
    """A stream reader that holds back the body's header lines of the request head.

    The request line and every other header line pass through unchanged. After the blank
    line that ends the head it is a plain :class:`~websockets.streams.StreamReader`, unless
    the head announced a body: then it drops that body and whatever follows, unread.

    Attributes:
        held: the ``(name, value)`` of each header line held back, in order.
        dropping: whether the data after the head is being dropped.
    """

    def __init__(self) -> None:
        super().__init__()
        self.held: list[tuple[str, str]] = []
        self.dropping = False
        self._lines = 0
        self._in_head = True

    def feed_data(self, data: bytes | bytearray) -> None:
        """Take data from the network (none once the body is being dropped)."""
        if not self.dropping or self.eof:
            super().feed_data(data)

    def read_line(
        self, m: int, too_long_exc_type: type[Exception] = RuntimeError
    ) -> Generator[None, None, bytearray]:
        """Read the next line that is not a body header line of the head.

        Raises:
            TooManyHeaders: more than :data:`MAX_HELD` body header lines.
            EOFError, too_long_exc_type: as :meth:`StreamReader.read_line`.
        """
        while True:
            line = yield from super().read_line(m, too_long_exc_type)
            if not self._in_head:
                return line
            self._lines += 1
            if self._lines > 1 and line.rstrip(b"\r\n") == b"":
                self._in_head = False
                if announces_body(self.held):
                    self.dropping = True
                    del self.buffer[:]
                return line
            name, colon, value = line.partition(b":")
            if self._lines == 1 or not colon or bytes(name).lower() not in BODY_FIELDS:
                return line
            if len(self.held) >= MAX_HELD:
                raise TooManyHeaders(f"more than {MAX_HELD} body header lines")
            self.held.append((name.decode("ascii"), value.strip(b" \t\r\n").decode("latin-1")))


class HttpConnection(ServerConnection):
    """A server connection whose requests may announce a body (see the module docstring)."""

    def __init__(self, protocol: ServerProtocol, server: Server, **kwargs: Any) -> None:
        super().__init__(protocol, server, **kwargs)
        # No data has arrived yet (asyncio calls connection_made later).
        self.head_reader = hold_body_lines(protocol)

    def process_event(self, event: Event) -> None:
        """Give the request its held back header lines before it is handled."""
        if self.request is None and isinstance(event, Request):
            give_back(event, self.head_reader)
        super().process_event(event)


def hold_body_lines(protocol: ServerProtocol) -> HeadReader:
    """Restart a protocol's request parser, before any data has arrived, on a reader that
    holds back the body's header lines (see the module docstring); that reader."""
    reader = HeadReader()
    protocol.parser.close()
    protocol.reader = reader
    protocol.parser = protocol.parse()
    next(protocol.parser)
    return reader


def give_back(request: Request, reader: HeadReader) -> None:
    """Put the header lines ``reader`` held back into the parsed request's headers."""
    for name, value in reader.held:
        request.headers[name] = value


def announces_body(fields: Iterable[tuple[str, str]]) -> bool:
    """Whether header fields announce a request body: a ``Content-Length`` not 0, or any
    ``Transfer-Encoding``."""
    for name, value in fields:
        key = name.lower()
        if key == "transfer-encoding" or (key == "content-length" and value.strip() != "0"):
            return True
    return False


def has_body(headers: Headers) -> bool:
    """Whether a request announces a body (see :func:`announces_body`)."""
    return announces_body(headers.raw_items())
