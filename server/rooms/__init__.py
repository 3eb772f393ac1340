"""Rooms: who is in one and as what (:mod:`.membership`), a race's rounds from the
countdown to the rematch (:mod:`.rounds`), and what each member may see (:mod:`.views`)."""
