"""The example balancer (``deploy/nginx.conf``), read as nginx reads it: every location that
proxies to the servers passes the Host header as the browser sent it (so the server's
same-origin check holds on any port), the client's address, and on ``/ws`` the websocket
upgrade.

nginx's rule for ``proxy_set_header`` is followed: a block that sets none inherits those of
the block around it; a block that sets any replaces them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tests import ROOT

CONF = ROOT / "deploy" / "nginx.conf"


@dataclass
class Block:
    """A directive with a block: its name and arguments, its simple directives in order
    and its blocks."""

    name: str
    args: list[str]
    parent: Block | None = None
    directives: list[list[str]] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)

    def find(self, name: str) -> list[Block]:
        """Every block named ``name`` inside this one, at any depth."""
        found = [b for b in self.blocks if b.name == name]
        for b in self.blocks:
            found += b.find(name)
        return found

    def values(self, name: str) -> list[list[str]]:
        """The arguments of each directive ``name`` of this block itself."""
        return [d[1:] for d in self.directives if d[0] == name]

    def proxy_headers(self) -> dict[str, str]:
        """The headers nginx sends upstream from this block (inherited if it sets none)."""
        own = self.values("proxy_set_header")
        if own or self.parent is None:
            return {name.lower(): value for name, value in own}
        return self.parent.proxy_headers()


def tokens(text: str) -> list[str]:
    """nginx's tokens: words, quoted strings (unquoted), ``{``, ``}`` and ``;``."""
    found: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif ch in "{};":
            found.append(ch)
            i += 1
        elif ch in "\"'":
            end = text.index(ch, i + 1)
            found.append(text[i + 1 : end])
            i = end + 1
        else:
            start = i
            while i < len(text) and not text[i].isspace() and text[i] not in "{};":
                i += 1
            found.append(text[start:i])
    return found


def parse(path: Path) -> Block:
    """The configuration as a tree of blocks under a root (nginx's ``http`` context)."""
    root = Block("http", [])
    current = root
    words: list[str] = []
    for token in tokens(path.read_text()):
        if token == ";":
            current.directives.append(words)
            words = []
        elif token == "{":
            block = Block(words[0], words[1:], current)
            current.blocks.append(block)
            current, words = block, []
        elif token == "}":
            assert not words and current.parent is not None, "unbalanced braces"
            current = current.parent
        else:
            words.append(token)
    assert current is root and not words, "unterminated block or directive"
    return root


def test_every_proxied_location_passes_the_host_as_sent(tmp_path: Path) -> None:
    # The reader follows nginx: comments, quotes, inherited and replaced proxy headers.
    sample = tmp_path / "sample.conf"
    sample.write_text(
        'server { # a comment { ;\n proxy_set_header Host "$http_host";\n'
        "  location /a { proxy_pass http://u; }\n"
        "  location /b { proxy_set_header X-Y 1; }\n}\n"
    )
    (server,) = parse(sample).find("server")
    a, b = server.find("location")
    assert a.args == ["/a"] and a.proxy_headers() == {"host": "$http_host"}
    assert b.proxy_headers() == {"x-y": "1"}

    root = parse(CONF)
    (server,) = root.find("server")
    proxied = [loc for loc in server.find("location") if loc.values("proxy_pass")]
    assert {loc.args[0] for loc in proxied} == {"/", "/ws"}
    for loc in proxied:
        headers = loc.proxy_headers()
        # $http_host is the Host header as the browser sent it, its port included (or its
        # lack of one on 80 and 443), which the Origin's host must equal.
        assert headers.get("host") == "$http_host", loc.args
        assert headers.get("x-forwarded-for") == "$remote_addr", loc.args
        assert loc.values("proxy_http_version") == [["1.1"]]
    assert "$server_port" not in CONF.read_text()


def test_the_websocket_location_passes_the_upgrade_and_the_host() -> None:
    root = parse(CONF)
    (ws,) = [loc for loc in root.find("location") if loc.args == ["/ws"]]
    headers = ws.proxy_headers()
    assert headers["host"] == "$http_host"
    assert headers["upgrade"] == "$http_upgrade"
    assert headers["connection"] == "$connection_upgrade"
    (upgrade_map,) = [
        m for m in root.find("map") if m.args == ["$http_upgrade", "$connection_upgrade"]
    ]
    assert {d[0]: d[1] for d in upgrade_map.directives} == {"default": "upgrade", "": "close"}
    timeouts = {d[0]: d[1] for d in ws.directives if d[0].endswith("_timeout")}
    assert timeouts["proxy_read_timeout"] == "1h"
