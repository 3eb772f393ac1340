"""The socket layer: one websocket's limits, validation and dispatch (:mod:`.session`), the
table of handlers (:mod:`.registry`), the fan-out of room events to this instance's
sockets (:mod:`.hub`), every message the server sends (:mod:`.wire`), the limits on what
one client address may ask (:mod:`.limits`), and a socket as the rooms see it
(:mod:`.member`)."""
