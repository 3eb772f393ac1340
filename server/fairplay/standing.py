"""The one gate for "may this player rank, or show publicly": a player's standing.

Every question about a bar (an operator's) or a flag (the evidence's) goes through
:func:`standing` (or :func:`standings` for many players at once): a house test forbids
asking the store directly anywhere else, so that what a bar or a flag means is decided in
one place:

- **barred**: no ranked play (no daily while it runs, no rated or public race, no arena),
  their results hidden everywhere (leaderboards, player page, replays);
- **flagged**: they play, but every ranked result of theirs waits for an operator (their
  player hears "pending review").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..store.evidence import EvidenceStore
from ..store.reviews import Reviews


class Reviewed(Protocol):
    """What the gate needs of an instance: its reviews store (bars, and the evidence's
    flags under the same keys). :class:`server.context.Context` has it."""

    @property
    def reviews(self) -> Reviews:
        """Review outcomes, held finishes, bars."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's standing.

    Attributes:
        player_id: the player.
        barred: an operator barred them.
        flag: why the evidence flagged them (the operator's), or None.
    """

    player_id: str
    barred: bool
    flag: Mapping[str, Any] | None = None

    @property
    def flagged(self) -> bool:
        """Their ranked results wait for an operator."""
        return self.flag is not None

    @property
    def may_rank(self) -> bool:
        """They may enter ranked play (a flagged player may: their results are held)."""
        return not self.barred

    @property
    def shown(self) -> bool:
        """Their results and page show publicly."""
        return not self.barred


def _reviews(source: Reviewed | Reviews) -> Reviews:
    return source if isinstance(source, Reviews) else source.reviews


async def standings(source: Reviewed | Reviews, player_ids: Sequence[str]) -> dict[str, Standing]:
    """The standing of each of these players (two calls, whatever their number).

    Args:
        source: a server's context (or what has its reviews), or the reviews store alone
            (tools).
        player_ids: the players (an empty id is a player with no standing: never barred).
    """
    reviews = _reviews(source)
    pids = [p for p in dict.fromkeys(player_ids) if p]
    barred = await reviews.barred_among(pids)
    flags = await EvidenceStore(reviews.redis, reviews.keys, reviews.keep_s).flagged_among(pids)
    found = {p: Standing(p, p in barred, flags.get(p)) for p in pids}
    return {p: found.get(p) or Standing(p, False) for p in player_ids}


async def standing(source: Reviewed | Reviews, player_id: str) -> Standing:
    """A player's standing (see :func:`standings`)."""
    return (await standings(source, [player_id]))[player_id]
