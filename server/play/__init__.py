"""The handlers of what a client says: who they are (:mod:`.identity`), rooms and rounds
(:mod:`.rooms`), games alone and the daily (:mod:`.solo`), the moves (:mod:`.moves`),
hints (:mod:`.hints`), the quick race's queue (:mod:`.queue`) and leaderboard watching
(:mod:`.leaderboard`). Each module offers its handlers as ``routes``; :mod:`server.app`
includes them."""
