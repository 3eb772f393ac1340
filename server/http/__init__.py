"""HTTP on the server's port: the dispatch of requests that are not the websocket
(:mod:`.server`: the web client's files, ``/healthz``, ``/metrics``), the JSON API of the
daily challenge, replays and players (:mod:`.api`), the arenas' tables (:mod:`.arenas`),
the operator's routes, enabled by an admin token (:mod:`.admin`), a player's data
to that player (:mod:`.mydata`), and the connections that
let a request with a body be answered (:mod:`.connection`). The client address and the
rate limit that HTTP shares with the websocket are :mod:`server.net.limits`."""
