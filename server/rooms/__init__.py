"""Rooms: their vocabulary and rules (:mod:`.records`), who is in one and as what
(:mod:`.membership`), a race's rounds from the countdown to the rematch (:mod:`.rounds`),
what each member may see (:mod:`.views`), decided by one table (:mod:`.visibility`). The
rooms reach a socket only through :class:`server.net.member.Member`, and their instance
through the narrow view of :mod:`.host`."""
