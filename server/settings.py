"""The settings of one server instance: the only place that reads the environment.

Every setting comes, first found wins, from a ``seahaven serve`` flag, a ``SEAHAVEN_*``
environment variable (``REDIS_URL`` is also read for the Redis URL) or the default written
here. The object is frozen and passed down; no other module reads the environment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

#: The web client shipped beside the server package.
CLIENT_DIR = str(Path(__file__).resolve().parent.parent / "client_web")


class Settings(BaseSettings):
    """Settings of one instance (see ``seahaven serve --help`` for flags and defaults)."""

    model_config = SettingsConfigDict(
        env_prefix="SEAHAVEN_", frozen=True, extra="ignore", populate_by_name=True
    )

    host: str = Field("127.0.0.1", description="bind address")
    port: int = Field(8765, ge=0, le=65535, description="port (0: any free port)")
    redis_url: str | None = Field(
        None,
        validation_alias=AliasChoices("SEAHAVEN_REDIS_URL", "REDIS_URL", "redis_url"),
        description="shared Redis (redis://, rediss:// or unix://); unset: an embedded one",
    )
    data_dir: str = Field("./seahaven-data", description="the embedded Redis's data folder")
    embedded_fsync: Literal["always", "everysec", "no"] = Field(
        "everysec", description="appendfsync of the embedded Redis"
    )
    static_dir: str = Field(CLIENT_DIR, description="the web client's folder")
    allowed_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="websocket Origins allowed besides the server's own ('*': all)"
    )
    room_ttl: int = Field(6 * 3600, ge=1, description="seconds an idle room is kept")
    countdown_ms: int = Field(3000, ge=0, description="the countdown before a race")
    rate_per_s: float = Field(20.0, gt=0, description="messages a second per connection")
    rate_burst: int = Field(40, ge=1, description="burst of messages per connection")
    away_grace_ms: int = Field(
        90_000, ge=0, description="a racer gone mid-race gives up after this long"
    )
    # One solver process by default: a hint is worth at most a second of one core, and the
    # instance's event loop (and often Redis, or a second instance) needs the other cores
    # of a small host. Raise it where cores are spare: about (cores - instances) / instances.
    solver_workers: int = Field(
        1, ge=1, le=64, description="solver processes for hints (each a core while busy)"
    )
    solver_queue: int = Field(
        8, ge=0, le=1000, description="hints that may wait for a solver process (then: busy)"
    )
    key_prefix: str = Field("", description="put before every Redis key and channel")
    min_ms_per_action: int = Field(50, ge=0, description="a ranked win's floor per action")
    replay_ttl: int = Field(30 * 24 * 3600, ge=60, description="seconds an unranked replay lives")
    loop: Literal["uvloop", "asyncio"] = Field("uvloop", description="the event loop")
    log: str = Field("WARNING", description="log level")

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        """``SEAHAVEN_ALLOWED_ORIGINS`` is a comma-separated list."""
        if isinstance(value, str):
            return tuple(o.strip() for o in value.split(",") if o.strip())
        return value
