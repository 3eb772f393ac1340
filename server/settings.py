"""The settings of one server instance: the only place that reads the environment.

Every setting comes, first found wins, from a ``seahaven serve`` flag, a ``SEAHAVEN_*``
environment variable (``REDIS_URL`` is also read for the Redis URL) or the default written
here. The object is frozen and passed down; no other module reads the environment.
"""

from __future__ import annotations

import re
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Annotated, Final, Literal

from pydantic import (
    AliasChoices,
    Field,
    IPvAnyNetwork,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

#: The web client shipped beside the server package.
CLIENT_DIR = str(Path(__file__).resolve().parent.parent / "client_web")

#: An IPv4 or IPv6 network, as ``10.0.0.0/8``, ``::1/128`` or one address.
Network = IPv4Network | IPv6Network

#: Seconds in a day.
DAY_S: Final = 86_400
#: Days a leaderboard, its replays and a player's history outlive their last change, unless
#: the settings say otherwise (``history_days``).
HISTORY_DAYS: Final = 400
#: The same in seconds: the default lifetime of what is kept for good.
KEEP_S: Final = HISTORY_DAYS * DAY_S

#: The loopback networks: this machine only.
LOOPBACK: Final[tuple[Network, ...]] = (ip_network("127.0.0.0/8"), ip_network("::1/128"))


class Settings(BaseSettings):
    """Settings of one instance (see ``seahaven serve --help`` for flags and defaults)."""

    # An error names the setting and the rule, never the value given: the secrets' too.
    model_config = SettingsConfigDict(
        env_prefix="SEAHAVEN_",
        frozen=True,
        extra="ignore",
        populate_by_name=True,
        hide_input_in_errors=True,
    )

    host: str = Field(default="127.0.0.1", description="bind address")
    port: int = Field(default=8765, ge=0, le=65535, description="port (0: any free port)")
    redis_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("SEAHAVEN_REDIS_URL", "REDIS_URL", "redis_url"),
        description="shared Redis (redis://, rediss:// or unix://); unset: an embedded one",
    )
    redis_cluster: str | None = Field(
        default=None,
        pattern=r"^rediss?://[^/?#]+/?(\?[^#]*)?$",
        description=(
            "a seed node of a Redis Cluster (redis://HOST:PORT; TLS: rediss://HOST:PORT, "
            "with ?ssl_ca_certs=PATH and the other ssl_* options) instead of --redis-url"
        ),
    )
    durable: bool = Field(
        default=False,
        description="acknowledge a move only once a replica has it (WAIT); else: busy",
    )
    durable_timeout_ms: int = Field(
        default=500, ge=1, description="how long --durable waits for a replica (then: busy)"
    )
    redis_timeout: float = Field(
        default=1.0, gt=0, description="seconds a Redis call may take before the client hears busy"
    )
    data_dir: str = Field(default="./seahaven-data", description="the embedded Redis's data folder")
    embedded_fsync: Literal["always", "everysec", "no"] = Field(
        default="everysec", description="appendfsync of the embedded Redis"
    )
    embedded_maxmemory: str = Field(
        default="512mb",
        pattern=r"^[0-9]+(kb|mb|gb)?$",
        description="the embedded Redis's memory cap (full: writes fail, clients hear busy)",
    )
    store_memory_alert: float = Field(
        default=0.9,
        gt=0,
        le=1,
        description="/healthz answers 503 once the store uses this share of its maxmemory",
    )
    history_days: int = Field(
        default=HISTORY_DAYS,
        ge=1,
        description="days a leaderboard, its replays and a player's history outlive their "
        "last change",
    )

    @property
    def history_s(self) -> int:
        """:attr:`history_days` in seconds: how long what is kept for good lives after its
        last change."""
        return self.history_days * DAY_S

    @property
    def contest_repeat_s(self) -> int:
        """:attr:`contest_repeat_days` in seconds: how far back results against the same
        rival count towards the next one's worth."""
        return self.contest_repeat_days * DAY_S

    static_dir: str = Field(default=CLIENT_DIR, description="the web client's folder")
    allowed_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(), description="websocket Origins allowed besides the server's own ('*': all)"
    )
    # Passkeys (server/play/passkeys.py). A browser refuses an IP address as the relying
    # party: develop on http://localhost:PORT, not 127.0.0.1.
    webauthn_rp_id: str = Field(
        default="localhost",
        pattern=r"^[a-z0-9.-]{1,253}$",
        description="passkeys' relying party id: the site's host name (never an IP address)",
    )
    webauthn_rp_name: str = Field(
        default="Seahaven Race", min_length=1, max_length=64, description="the site's name"
    )
    webauthn_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description=(
            "origins a passkey may be used on (comma-separated; default: https://RP_ID on "
            "any port, and http://localhost on any port)"
        ),
    )
    room_ttl: int = Field(default=6 * 3600, ge=1, description="seconds an idle room is kept")
    finished_room_ttl: int = Field(
        default=300,
        ge=1,
        description="seconds a solo or daily game over, nobody else in its room, keeps its "
        "events and logs (its replay and statistics are kept apart)",
    )
    countdown_ms: int = Field(default=3000, ge=0, description="the countdown before a race")
    rate_per_s: float = Field(default=20.0, gt=0, description="messages a second per connection")
    rate_burst: int = Field(default=40, ge=1, description="burst of messages per connection")
    board_rate_per_s: float = Field(
        default=20.0, gt=0, description="actions a second on one board, whatever the sockets"
    )
    board_burst: int = Field(default=40, ge=1, description="burst of actions on one board")
    max_actions: int = Field(
        default=5000, ge=100, description="actions one board may take (a real game: ~100-300)"
    )
    spectators_per_room: int = Field(
        default=100, ge=0, description="spectators' sockets one room takes at most"
    )
    lobby_ttl_s: int = Field(
        default=300,
        ge=1,
        description="a public lobby not started by then leaves the Watch list and closes",
    )
    public_lobbies_per_address: int = Field(
        default=3, ge=1, description="public lobbies one client address may have open at once"
    )
    # Far above any player's (a game every 12 s for an hour) and a lab's: what they stop
    # is a script filling the store with rooms (docs/server.md, "Bounded by design").
    rooms_per_hour: int = Field(
        default=300, ge=1, description="rooms (solo, daily, race) one identity may make an hour"
    )
    rooms_per_hour_per_address: int = Field(
        default=2000, ge=1, description="rooms the identities of one address may make an hour"
    )
    # Generous: a 60-seat lab makes its identities in one go. What protects the boards is
    # that a new identity is provisional (below), not this limit.
    identities_per_address: int = Field(
        default=100, ge=1, description="new identities an address may make in a burst"
    )
    identities_per_hour: float = Field(
        default=120.0, gt=0, description="new identities an address may make an hour, after it"
    )
    sockets_per_address: int = Field(
        default=128, ge=1, description="open websockets per client address on one instance"
    )
    hello_timeout_s: float = Field(
        default=10.0, gt=0, description="a socket that sends no hello or resume is closed then"
    )
    resume_max_events: int = Field(
        default=500, ge=1, description="events a resume replays at most (else a snapshot)"
    )
    api_rate_per_s: float = Field(
        default=10.0, gt=0, description="/api/ requests a second per client address (then 429)"
    )
    api_burst: int = Field(
        default=60, ge=1, description="burst of /api/ requests per client address"
    )
    # None by default: trusting loopback would let any process on this machine name its
    # own address in X-Forwarded-For and so reset every per-address limit.
    trusted_proxies: Annotated[tuple[IPvAnyNetwork, ...], NoDecode] = Field(
        default=(),
        description=(
            "networks (CIDR) of reverse proxies trusted to name the client in "
            "X-Forwarded-For (comma-separated; default: none)"
        ),
    )
    metrics_allow: Annotated[tuple[IPvAnyNetwork, ...], NoDecode] = Field(
        default=LOOPBACK,
        description="networks (CIDR) of clients that may read /metrics (0.0.0.0/0,::/0: all)",
    )
    away_grace_ms: int = Field(
        default=90_000, ge=0, description="a racer gone mid-race gives up after this long"
    )
    # The quick race (protocol/README.md, "Quick race and ratings").
    pair_fourth_ms: int = Field(
        default=1_000, ge=0, description="quick race: the longest wait for a fourth racer"
    )
    bot_offer_ms: int = Field(
        # Soon enough that a quick race alone reaches a bot's board within 8 s of the click
        # (the offer, the tap, the bot's arrival and the 3 s countdown): no long wait.
        default=3_000,
        ge=0,
        description="quick race: a bot is offered after this long alone",
    )
    pair_join_ms: int = Field(
        default=5_000, ge=100, description="quick race: the wait for the paired to come in"
    )
    # Arenas (protocol/README.md, "Arenas").
    arenas: str = Field(
        default="4:30:60,1:60:1440",
        pattern=r"^( *[421]:[0-9]+:[0-9]+ *(, *[421]:[0-9]+:[0-9]+ *)*)?$",
        description="scheduled arenas CELLS:MINUTES:EVERY_MINUTES,... (each starts on the "
        "multiples of EVERY_MINUTES since the epoch; empty: none)",
    )
    arena_minute_ms: int = Field(
        default=60_000,
        ge=100,
        description="an arena minute in ms (tests make an arena last seconds)",
    )
    arena_pair_ms: int = Field(
        default=1_000,
        ge=0,
        description="arena: the longest wait for a fourth before two or three race",
    )
    # The podium must come: a racer who never moves (or a slow review) cannot hold it.
    arena_grace_ms: int = Field(
        default=120_000,
        ge=0,
        le=3_600_000,
        description="arena: how long its races still running at its end may go on; then "
        "those still racing are given up (not finished) and the podium comes",
    )
    arena_push_ms: int = Field(
        default=1_000, ge=100, description="arena: the shortest time between two standings pushes"
    )
    arena_races_per_player: int = Field(
        default=500,
        ge=1,
        description="arena: recorded races one player may have in one arena (then it is "
        "over for them: slow_down)",
    )
    # A fresh identity is cheap: without this, a script would make arenas (each paired every
    # second by some instance) as fast as it makes identities.
    private_arenas_per_address: int = Field(
        default=3, ge=1, description="private arenas not over yet one client address may have made"
    )
    # Honest ratings (protocol/README.md, "Quick race and ratings").
    rated_min_actions: int = Field(
        default=10, ge=0, description="a racer who played fewer actions keeps their rating"
    )
    rated_pair_window_s: int = Field(
        default=6 * 3600,
        ge=0,
        description="two players' results count once within this long (0: every time)",
    )
    race_limit_s: int = Field(
        default=900, ge=1, description="a race ends this long after its start (then: by progress)"
    )
    race_limit_after_finish_s: int = Field(
        default=180, ge=1, description="a race ends this long after its first finish"
    )
    # Provisional players (lichess's provisional ratings as the model).
    provisional_games: int = Field(
        default=10,
        ge=0,
        description="rated races of a variant a player needs to be established in it "
        "(with established_rivals; 0: every player is established at once)",
    )
    # A rating is only as good as its rivals: three fresh identities of a patient cheater
    # prove nothing (puppets cost nothing), rivals established by the same rule do.
    established_rivals: int = Field(
        default=3,
        ge=0,
        description="distinct established rivals a player's rated results must have been "
        "against, besides provisional_games, to be established by races",
    )
    # Names that can't pass for another (impostors): a hello whose name has the UTS #39
    # skeleton of an established player's name is refused (name_taken), unless this is on:
    # only where many test players share a name on one server.
    open_names: bool = Field(
        default=False,
        description="accept names that pass for an established player's (tests only)",
    )
    # Contested results: a rival who made no progress of their own (a move and its undo are
    # free to a script), or stopped early, was never in the race; nobody is rated or scored
    # against them (server/fairplay/contest.py).
    contest_min_tables: int = Field(
        default=20,
        ge=0,
        description="a racer who did not finish contested the race with this many new tables "
        "of their kept line (not undone) before its first finish (or contest_min_home cards "
        "home) ...",
    )
    contest_min_home: int = Field(
        default=8, ge=0, description="... or this many cards on the foundations ..."
    )
    contest_min_s: int = Field(
        default=60,
        ge=0,
        description="... the last new table this long into the race (or contest_min_share of "
        "the way to its first finish, if sooner); else they are absent",
    )
    contest_min_share: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="the share of the way to a race's first finish that counts as staying, "
        "when it came before contest_min_s",
    )
    # Repeated results against the same rivals pay less, so that patient puppets raced again
    # and again carry no rating and no podium.
    contest_repeat_full: int = Field(
        default=3,
        ge=0,
        description="results against the same rival within contest_repeat_days that count in "
        "full; the k-th after them counts full/k (0: every one in full)",
    )
    contest_repeat_days: int = Field(
        default=7,
        ge=1,
        description="the window of contest_repeat_full, in days",
    )
    provisional_days: int = Field(
        default=3,
        ge=0,
        description="days with a ranked daily that make a player established (0: never)",
    )
    provisional_weight: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="the share of a full change a provisional rival moves (for every racer)",
    )
    workers: int = Field(
        default=1,
        ge=1,
        le=256,
        description="server processes sharing the port (SO_REUSEPORT, Linux), each a full "
        "instance, restarted if one dies; about one per core",
    )
    # One solver process by default: a hint is worth at most a second of one core, and the
    # instance's event loop (and often Redis, or a second instance) needs the other cores
    # of a small host. Raise it where cores are spare: about (cores - instances) / instances.
    solver_workers: int = Field(
        default=1, ge=1, le=64, description="solver processes for hints (each a core while busy)"
    )
    # The proof of a shortest line is what a player waits for; when it runs out (a busy
    # host gives the solver few of its seconds), the hint is the fast solver's move.
    hint_seconds: float = Field(
        default=1.0,
        ge=0,
        le=30,
        description="seconds a hint may spend proving a shortest win (then: a winning move "
        "of the fast solver); 0: never prove",
    )
    solver_queue: int = Field(
        default=8,
        ge=0,
        le=1000,
        description="hints that may wait for a solver process (then: busy)",
    )
    # The solver yields its core to anything else that wants it: under ``idle`` (Linux) the
    # kernel treats a core running only the solver as free, so a waking event loop takes it.
    solver_policy: Literal["idle", "batch", "normal"] = Field(
        default="idle",
        description="the solver processes' scheduling policy (Linux; idle: only spare CPU)",
    )
    solver_nice: int = Field(
        default=10, ge=0, le=19, description="how much nicer than the server the solver runs"
    )
    # The secret the days' deals are drawn under (protocol/DAILY.md): every instance of a
    # deployment gives the same one. Without it no daily is served; the embedded Redis's
    # default keeps one in --data-dir. Prefer the environment to the flag (ps shows flags).
    daily_secret: SecretStr | None = Field(
        default=None,
        description="the secret the daily deals are drawn under, the same on every instance "
        "(unset: none, no daily; with the embedded Redis: kept in --data-dir)",
    )
    key_prefix: str = Field(default="", description="put before every Redis key and channel")
    min_ms_per_action: int = Field(default=50, ge=0, description="a ranked win's floor per action")
    # The pace model of a ranked finish (protocol/DAILY.md, "The pace model"); 0 turns a
    # floor off. A finish it calls implausible is held for review, not refused.
    pace_read_ms: int = Field(
        default=2_000,
        ge=0,
        description="a ranked finish's first action comes this long after the reveal",
    )
    pace_game_ms: int = Field(
        default=25_000, ge=0, description="a ranked win takes this long from the reveal at least"
    )
    pace_decision_ms: int = Field(
        default=750,
        ge=0,
        description="the least average time of a ranked finish's decisions (unforced actions)",
    )
    pace_bursts: str = Field(
        default="3:600,10:4000,30:18000",
        pattern=r"^( *[0-9]+:[0-9]+ *(, *[0-9]+:[0-9]+ *)*)?$",
        description="K:W_MS,...: any K consecutive decisions take W ms or more (empty: none)",
    )
    # The review of ranked finishes (protocol/DAILY.md, "Review").
    review_hold_agreement: float = Field(
        default=0.9,
        ge=0,
        description="a finish whose kept decisions are the solver's this often is held "
        "(above 1: never)",
    )
    held_max: int = Field(
        default=1000,
        ge=1,
        description="held finishes waiting for an operator at most: past it the oldest are "
        "settled unranked (as voided), logged",
    )
    held_days: int = Field(
        default=30,
        ge=1,
        description="days a held finish waits for an operator; then settled unranked (as "
        "voided), logged",
    )
    review_min_scored: int = Field(
        default=20, ge=1, description="decisions a review must score to hold on agreement"
    )
    # Evidence across games (docs/fairplay.md: the measurements that chose these).
    evidence_flag_score: float = Field(
        default=0.6,
        ge=0,
        description="a player whose score over recent ranked finishes reaches this is flagged "
        "and their ranked results held (above 1: never)",
    )
    evidence_window: int = Field(
        default=5, ge=1, le=20, description="recent ranked finishes a player's score is taken over"
    )
    evidence_min_finishes: int = Field(
        default=3,
        ge=1,
        le=20,
        description="finishes a score needs to flag at evidence_flag_score (fewer: only a "
        "reference's line outright flags)",
    )
    evidence_agreement_low: float = Field(
        default=0.55, ge=0, le=1, description="a solver agreement up to this adds no suspicion"
    )
    evidence_agreement_high: float = Field(
        default=0.95, ge=0, le=1, description="a solver agreement from this is a full suspicion"
    )
    evidence_recovery_low: float = Field(
        default=0.55,
        ge=0,
        le=1,
        description="a line whose deviations from the solver are followed by its move this "
        "often or less (a person's own plans) counts evidence_recovery_floor of its agreement",
    )
    evidence_recovery_high: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="... and this often or more (a solver re-asked after each deviation) in full",
    )
    evidence_recovery_floor: float = Field(
        default=0, ge=0, le=1, description="... what its agreement counts at the low end"
    )
    evidence_optimal_low: float = Field(
        default=0.88,
        ge=0,
        le=1,
        description="an optimal search agreement up to this adds no suspicion (strong people "
        "reach 0.8)",
    )
    evidence_optimal_high: float = Field(
        default=0.97,
        ge=0,
        le=1,
        description="an optimal search agreement from this is a full suspicion",
    )
    evidence_outright: float = Field(
        default=0.97,
        ge=0,
        description="a reference agreement over review_min_scored decisions from this is a "
        "reference's line outright: it flags from one finish",
    )
    evidence_borrowed_high: float = Field(
        default=0.8,
        ge=0,
        description="a share of a line's decisions on one other identity's line of the deal "
        "(any address) that is a full suspicion and a reference's line outright",
    )
    evidence_known_high: float = Field(
        default=0.5,
        ge=0,
        description="a share of a line known from practice (the address's, or one other "
        "identity's line) that is a full suspicion and a reference's line outright",
    )
    evidence_borrowed_common: int = Field(
        default=3,
        ge=1,
        le=20,
        description="identities a table of a deal is noted for; more reached it: common, "
        "no evidence of a borrowed line",
    )
    evidence_field_low: float = Field(
        default=0.8,
        ge=0,
        description="a game faster than this share of its field's median time has its "
        "agreement evidence amplified",
    )
    evidence_field_weight: float = Field(
        default=0.15,
        ge=0,
        le=1,
        description="a fast game's agreement evidence is multiplied by 1 + this (speed alone "
        "adds nothing)",
    )
    evidence_field_min: int = Field(
        default=5, ge=1, description="the day's other reviewed finishers a daily's field needs"
    )
    evidence_race_field_min: int = Field(
        default=2, ge=1, description="the rivals' finishes a rated race's field needs"
    )
    evidence_field_margin: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="the solver agreement adding no suspicion is at least the field's median "
        "agreement plus this",
    )
    evidence_field_cap: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="the field never raises the agreement adding no suspicion above this",
    )
    evidence_new_leader_suspicion: float = Field(
        default=0.5,
        ge=0,
        description="a new player's daily finish that would lead the day is held only from "
        "this suspicion",
    )
    evidence_optimal_searches: int = Field(
        default=3,
        ge=0,
        le=20,
        description="optimal searches one finish's evidence makes at most (none while "
        "review_hold_agreement is above 1: no reference is asked)",
    )
    evidence_optimal_states: int = Field(
        default=20_000, ge=1_000, description="tables each of those searches keeps at most"
    )
    # The operator's token (protocol/README.md, "Operator"): a secret, never shown in a
    # repr, a log, /metrics or an error. Prefer the environment to the flag (ps shows flags).
    admin_token: SecretStr | None = Field(
        default=None,
        min_length=16,
        description="enables /api/admin/ with Authorization: Bearer TOKEN (unset: 404)",
    )
    replay_ttl: int = Field(
        default=30 * 24 * 3600, ge=60, description="seconds an unranked replay lives"
    )
    loop: Literal["uvloop", "asyncio"] = Field(default="uvloop", description="the event loop")
    log: str = Field(default="WARNING", description="log level")

    @model_validator(mode="after")
    def _one_redis(self) -> Settings:
        """A Redis or a Redis Cluster, not both; --durable needs one (with replicas)."""
        if self.redis_cluster and self.redis_url:
            raise ValueError(
                "give --redis-url (REDIS_URL) or --redis-cluster, not both: "
                "unset REDIS_URL to run on the cluster"
            )
        if self.durable and not (self.redis_cluster or self.redis_url):
            raise ValueError(
                "--durable waits for a replica: give --redis-url or --redis-cluster "
                "(the embedded Redis has none)"
            )
        return self

    @field_validator("daily_secret", "admin_token", mode="before")
    @classmethod
    def _no_empty_secret(cls, value: object) -> object:
        """An empty secret is no secret (``SEAHAVEN_DAILY_SECRET=`` turns the daily off,
        ``SEAHAVEN_ADMIN_TOKEN=`` the operator's routes)."""
        return None if value == "" else value

    @property
    def daily_key(self) -> str | None:
        """The daily secret's text, or None."""
        return None if self.daily_secret is None else self.daily_secret.get_secret_value()

    @field_validator("webauthn_rp_id")
    @classmethod
    def _rp_not_ip(cls, value: str) -> str:
        """Browsers refuse an IP address as the relying party id (Chromium among them)."""
        if re.fullmatch(r"[0-9.]+", value):
            raise ValueError("must be a host name such as localhost, not an IP address")
        return value

    @field_validator("allowed_origins", "webauthn_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        """``SEAHAVEN_ALLOWED_ORIGINS`` is a comma-separated list."""
        if isinstance(value, str):
            return tuple(o.strip() for o in value.split(",") if o.strip())
        return value

    @field_validator("trusted_proxies", "metrics_allow", mode="before")
    @classmethod
    def _split_networks(cls, value: object) -> object:
        """A comma-separated string (the environment), or flags that may each hold one."""
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list | tuple):
            found: list[object] = []
            for item in value:
                if isinstance(item, str):
                    found.extend(n.strip() for n in item.split(",") if n.strip())
                else:
                    found.append(item)
            return tuple(found)
        return value
