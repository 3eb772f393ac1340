"""Deleting a player ("Delete my player" on their page): what goes, what stays, and why.

Goes: their entries on every daily board (and the streak days they counted), their place on
the rating lists, their history, ratings, solo statistics, perfect games, friends list,
sessions (every token stops working), transfer code and passkeys, and every replay of
theirs the server can find from their records (their recent results, the solo games
counted, each daily entry taken off).

**Replays are removed, not kept without a name.** A public replay is served as immutable
(a year's caching, its ETag a hash of the body): a replay rewritten without its name would
break that promise, and its player id, deal and line would still say whose it was to anyone
who saw the board. A replay no record names any more (an old one) expires with the replay
TTL. A rival's replay of a race stays: it is the rival's, and holds no line of ours.

Stays, for fair play and the operator:

- a **barred** player's bar: the id stays in ``admin:barred`` and their passkeys stay
  (their credential ids and public keys, their names blanked), so that signing in again
  with the same passkey gives back the same barred player, not a fresh one. Their results
  put aside by the bar are deleted;
- what the operator keeps for themself: the identities an address made lately
  (``ident:A``, 7 days), finishes held for review (the review decides them as before), and
  an arena's standings until the arena's records expire (a day after its end);
- what is kept under other keys until it expires or its owner changes it, found by no
  index of ours: the rooms one played in (their members and results, the room TTL, hours),
  and another player's friends list, which keeps the id and the name it showed until they
  unfollow (the id then leads to an empty player page).

The operator's log gets one line without personal data: when, whether the player was
barred, and how much was removed (no player id, no name, no address).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from ..clock import now_ms
from ..context import Context
from ..fairplay.standing import standing
from ..records.replays import ReplayFormatError, replay_id
from ..store import accounts
from ..store import ratings as stored_ratings

log = logging.getLogger(__name__)

#: Days back whose boards are searched for a player's entries beside their streak days
#: (a past day's finish begun later counts no streak day).
DAYS_BACK = 30


async def erase_player(ctx: Context, pid: str) -> dict[str, Any]:
    """Delete player ``pid`` (see the module docstring); what was removed, in counts."""
    barred = (await standing(ctx, pid)).barred
    board = ctx.daily.leaderboard
    replays: set[str] = set()
    ids, games = await accounts.replay_refs(ctx.store, pid)
    replays.update(ids)
    replays.update(replay_id(room, round_, pid) for room, round_ in games)
    today = dt.datetime.now(dt.UTC).date()
    dates = set(await board.days_of(pid))
    dates.update((today - dt.timedelta(days=back)).isoformat() for back in range(DAYS_BACK))
    entries = 0
    for date in sorted(dates):
        for kind in ("daily", "hard"):
            entry = await board.remove(date, kind, pid)
            await accounts.drop_attempt(ctx.store, date, kind, pid)
            if entry is not None:
                entries += 1
                if isinstance(entry.get("replay_id"), str):
                    replays.add(entry["replay_id"])
    for cells in (4, 2, 1):
        await stored_ratings.take_off_list(ctx.store, pid, cells)
    await ctx.reviews.take_aside(pid)  # a barred player's results put aside
    removed = 0
    for rid in sorted(replays):
        try:
            replay = await ctx.records.replays.load(rid)
        except ReplayFormatError:
            replay = None
        if replay is not None and replay.player_id == pid:
            removed += int(await accounts.delete_replay(ctx.store, rid))
    await accounts.end_sessions(ctx.store, pid)
    await accounts.drop_transfer(ctx.store, pid)
    if barred:
        await accounts.forget_passkey_names(ctx.store, pid)  # the bar holds on them
        keys = 0
    else:
        keys = await accounts.remove_passkeys(ctx.store, pid)
    await accounts.erase_keys(ctx.store, pid)
    done = {"entries": entries, "replays": removed, "passkeys": keys, "barred": barred}
    # The shape of the operator's other lines (``seahaven admin log`` prints them), with no
    # target: whom it was is not kept.
    line: dict[str, Any] = {"at": now_ms(), "action": "delete_player", "target": "-"}
    line["by"] = "player"
    line.update(status="deleted_barred" if barred else "deleted", ok=True, **done)
    await ctx.reviews.write_log(line)
    log.info("a player deleted themself: %s", done)
    return done
