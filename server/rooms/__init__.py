"""Rooms: their vocabulary and rules (:mod:`.records`), who is in one and as what
(:mod:`.membership`), a race's rounds from the countdown to the rematch (:mod:`.rounds`),
what each member may see (:mod:`.views`), the quick race's pairing (:mod:`.pairing`) and
its waiting sockets (:mod:`.waiting`), ratings (:mod:`.ratings`) and the review of a
rated race's finishers that they wait for (:mod:`.race_review`), and the arenas: their points
and standings as pure functions (:mod:`.arena_points`), their pools, pairing, races and
podium (:mod:`.arena`), the record each race leaves and its amendment when a held finisher
is cleared (:mod:`.arena_races`) and this instance's sockets in them (:mod:`.arena_seats`).
The rooms reach a socket only through :class:`server.net.member.Member`."""
