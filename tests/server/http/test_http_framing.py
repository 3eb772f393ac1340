"""No page of ours in another site's frame: every page, file and API answer of a real server
(in this process, on the machine's Redis) says ``Content-Security-Policy: frame-ancestors
'self'`` and ``X-Frame-Options: SAMEORIGIN``, to GET and HEAD alike."""

from __future__ import annotations

import asyncio
import secrets

from tests.helpers.inproc import serving, settings
from tests.helpers.rawhttp import request

PATHS = ("/", "/index.html", "/js/app.js", "/css/app.css", "/api/daily", "/nope.html")


async def test_every_answer_refuses_other_sites_frames() -> None:
    env = {"SEAHAVEN_KEY_PREFIX": f"test:framing:{secrets.token_hex(6)}:"}
    async with serving(settings(env=env)) as srv:
        for method in ("GET", "HEAD"):
            for path in PATHS:
                reply = await asyncio.to_thread(request, srv.port, method, path)
                assert reply.header("content-security-policy") == "frame-ancestors 'self'", (
                    method,
                    path,
                    reply.status,
                )
                assert reply.header("x-frame-options") == "SAMEORIGIN", (method, path)
