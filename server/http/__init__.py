"""HTTP on the server's port: the dispatch of requests that are not the websocket
(:mod:`.server`: the web client's files, ``/healthz``, ``/metrics``), the JSON API of
the daily challenge, replays and players (:mod:`.api`), the connections that let a request
with a body be answered (:mod:`.connection`) and the client address and rate limit
(:mod:`.limits`)."""
