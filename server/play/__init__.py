"""The handlers of what a client says: who they are (:mod:`.identity`), rooms and rounds
(:mod:`.rooms`), games alone and the daily (:mod:`.solo`), the moves (:mod:`.moves`),
hints (:mod:`.hints`, the winning lines they named kept: :mod:`.hint_lines`), the quick
race's queue (:mod:`.queue`), leaderboard watching (:mod:`.leaderboard`), the players one
follows (:mod:`.friends`), the arenas (:mod:`.arenas`), passkeys (:mod:`.passkeys`),
transfer codes, signing out everywhere and deleting a player (:mod:`.devices`, what
deletion removes: :mod:`.erase`). Each module offers its handlers as ``routes``;
:mod:`server.app` includes them."""
