"""The Redis transport: the pipelined move connection (:mod:`.batch`), the pub/sub reader
(:mod:`.feed`) and its sharded form on a cluster (:mod:`.shards`), the leaderboards' announcements
(:mod:`.announcements`), the cluster client that
waits for a connection (:mod:`.gated`), batches of commands run as one atomic step
(:mod:`.atomic`), the embedded Redis process of a deployment without one
(:mod:`.embedded`), and the instance's shared client (:mod:`.clients`). Nothing here knows
a key's meaning: that is :mod:`server.store`."""
