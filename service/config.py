"""Configuration from environment variables (documented in docs/configuration.md)."""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass, field
from pathlib import Path

from projections.notes import Verifier
from service.app.auth import Keyring
from service.transparency import identity
from service.transparency.identity import Identity


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "playlog"


def default_instance_id() -> str:
    """This process's name in the ``X-Playlog-Instance`` response header: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


class SettingsError(ValueError):
    """A configuration that cannot be read (said in one line, not a traceback)."""


def read_deployment_file(path: Path) -> dict[str, str]:
    """The shared settings of ``PLAYLOG_DEPLOYMENT_FILE``: ``NAME=value`` lines, ``#`` comments
    (``playlog deployment init`` writes it; docs/scaling.md)."""
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise SettingsError(
            f"PLAYLOG_DEPLOYMENT_FILE {path} cannot be read ({exc.strerror}):"
            f" `playlog deployment init --file {path}` writes it once for every instance"
        ) from None
    found: dict[str, str] = {}
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.strip().startswith("PLAYLOG_"):
            raise SettingsError(f"{path}: not a NAME=value line: {line[:40]!r}")
        found[name.strip()] = value.strip()
    return found


def _hours(env: dict[str, str], name: str, default: float) -> float:
    return float(env.get(name, default)) * 3600.0


@dataclass(frozen=True)
class Settings:
    database_url: str | None = None  # None: start an embedded PostgreSQL in data_dir
    # A streaming replica of database_url for reads that may lag (service/store/replica.py); None: none.
    read_database_url: str | None = None
    replica_wait: float = 0.5  # seconds a read waits for the replica to reach its seq, then primary
    instance_id: str = field(default_factory=default_instance_id)
    data_dir: Path = field(default_factory=default_data_dir)
    jwt_secret: str = ""
    max_body_bytes: int = 64 * 1024
    command_retries: int = 5
    cache_games: int = 2000
    log_format: str = "auto"  # auto | json | console
    scheduler_interval: float = 0.05
    computer_players_interval: float = 0.05  # between two moves of one computer seat, at most
    # Token lifetimes, in seconds (docs/security.md).
    seat_token_lifetime: float = 30 * 86400.0  # upper bound of a seat token, game or no game
    seat_token_after_game: float = 3 * 86400.0  # a seat token keeps reading this long after the end
    host_token_lifetime: float = 3 * 86400.0  # upper bound of a host token (the lobby's life)
    host_token_after_start: float = 600.0  # a host token stops working this long after the start
    player_token_lifetime: float = 365 * 86400.0
    moderator_cache_seconds: float = 5.0  # how long an instance trusts its list of revoked names
    dispute_window: float = 7 * 86400.0  # a seat may raise a dispute this long after its game ends
    # Abuse limits (docs/configuration.md, "Limits"): generous enough that play, the tests and the
    # benches never meet them. A rate is "N/second|minute|hour|day"; "off" (or 0) lifts it.
    rate_limit_writes: str = "1000/minute"  # POST /games and POST .../seats, per client address
    rate_limit_commands: str = "100/second"  # POST .../commands, per seat token
    max_streams: int = 1000  # open SSE streams per instance (process)
    max_connections: int = 2000  # open HTTP connections per instance (process)
    header_timeout: float = 10.0  # seconds a connection may take to send a request's headers
    keepalive_timeout: int = 5  # seconds an idle keep-alive connection stays open
    # The transparency log (docs/transparency-log.md): its name, its signing keys (never the JWT
    # secret; "" keeps them in data_dir, for a lone instance: docs/scaling.md), the witnesses it
    # asks to cosign (C2SP tlog-witness submission prefixes, comma-separated), those whose
    # cosignatures it accepts (verifier keys, comma-separated) and how often its sequencer
    # appends and signs.
    log_origin: str = "playlog.localhost/log"
    log_signing_key: str = ""
    witness_urls: str = ""
    witness_keys: str = ""
    log_interval: float = 2.0
    # Parts a deployment may switch off (docs/configuration.md); bench/commands.py's
    # ``--without`` switches them off to show what each costs a command.
    read_models: bool = True  # this instance may project the read models (one projects at a time)
    command_log: bool = True  # one log line and counter per command
    notify_appends: bool = True  # tell other instances' streams at once (polling is the guarantee)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        if env.get("PLAYLOG_DEPLOYMENT_FILE"):  # the shared settings; the environment's own win
            shared = read_deployment_file(Path(env["PLAYLOG_DEPLOYMENT_FILE"]))
            env = {**env, **{k: v for k, v in shared.items() if not env.get(k)}}
        data_dir = Path(env["PLAYLOG_DATA_DIR"]) if env.get("PLAYLOG_DATA_DIR") else default_data_dir()
        return cls(
            database_url=env.get("PLAYLOG_DATABASE_URL") or None,
            read_database_url=env.get("PLAYLOG_READ_DATABASE_URL") or None,
            replica_wait=float(env.get("PLAYLOG_REPLICA_WAIT", cls.replica_wait)),
            instance_id=env.get("PLAYLOG_INSTANCE_ID") or default_instance_id(),
            data_dir=data_dir,
            jwt_secret=env.get("PLAYLOG_JWT_SECRET", ""),
            max_body_bytes=int(env.get("PLAYLOG_MAX_BODY_BYTES", 64 * 1024)),
            command_retries=int(env.get("PLAYLOG_COMMAND_RETRIES", 5)),
            cache_games=int(env.get("PLAYLOG_CACHE_GAMES", 2000)),
            log_format=env.get("PLAYLOG_LOG_FORMAT", "auto"),
            seat_token_lifetime=_hours(env, "PLAYLOG_SEAT_TOKEN_HOURS", 30 * 24),
            seat_token_after_game=_hours(env, "PLAYLOG_SEAT_TOKEN_AFTER_GAME_HOURS", 72),
            host_token_lifetime=_hours(env, "PLAYLOG_HOST_TOKEN_HOURS", 72),
            host_token_after_start=_hours(env, "PLAYLOG_HOST_TOKEN_AFTER_START_HOURS", 1 / 6),
            player_token_lifetime=_hours(env, "PLAYLOG_PLAYER_TOKEN_HOURS", 365 * 24),
            dispute_window=_hours(env, "PLAYLOG_DISPUTE_WINDOW_HOURS", 7 * 24),
            rate_limit_writes=env.get("PLAYLOG_RATE_LIMIT_WRITES", cls.rate_limit_writes),
            rate_limit_commands=env.get("PLAYLOG_RATE_LIMIT_COMMANDS", cls.rate_limit_commands),
            max_streams=int(env.get("PLAYLOG_MAX_STREAMS", cls.max_streams)),
            max_connections=int(env.get("PLAYLOG_MAX_CONNECTIONS", cls.max_connections)),
            header_timeout=float(env.get("PLAYLOG_HEADER_TIMEOUT", cls.header_timeout)),
            keepalive_timeout=int(env.get("PLAYLOG_KEEPALIVE_TIMEOUT", cls.keepalive_timeout)),
            log_origin=env.get("PLAYLOG_LOG_ORIGIN", cls.log_origin),
            log_signing_key=env.get("PLAYLOG_LOG_SIGNING_KEY", ""),
            witness_urls=env.get("PLAYLOG_WITNESS_URLS", ""),
            witness_keys=env.get("PLAYLOG_WITNESS_KEYS", ""),
            log_interval=float(env.get("PLAYLOG_LOG_INTERVAL", cls.log_interval)),
            read_models=_switch(env, "PLAYLOG_READ_MODELS"),
            command_log=_switch(env, "PLAYLOG_COMMAND_LOG"),
            notify_appends=_switch(env, "PLAYLOG_NOTIFY_APPENDS"),
        )

    def keyring(self) -> Keyring:
        """The signing keys (``PLAYLOG_JWT_SECRET``: ``kid:secret`` pairs, newest first)."""
        return Keyring.parse(self.secret())

    def log_identity(self) -> Identity:
        """The transparency log's signing keys (``PLAYLOG_LOG_SIGNING_KEY``, else the data directory's)."""
        return identity.load(self.log_signing_key, self.data_dir, self.log_origin)

    def witnesses(self) -> list[Verifier]:
        """The witnesses whose cosignatures the log accepts (``PLAYLOG_WITNESS_KEYS``)."""
        return [Verifier.parse(part) for part in self.witness_keys.split(",") if part.strip()]

    def witness_submission_urls(self) -> list[str]:
        """The witnesses the log pushes its checkpoints to (``PLAYLOG_WITNESS_URLS``)."""
        return [part.strip() for part in self.witness_urls.split(",") if part.strip()]

    def secret(self) -> str:
        """The JWT signing key: the configured one, else one kept in the data directory (a lone
        instance's: another instance of the deployment needs it configured, docs/scaling.md)."""
        if self.jwt_secret:
            return self.jwt_secret
        path = self.data_dir / "jwt-secret"
        if path.exists():
            return path.read_text().strip()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        path.write_text(key)
        path.chmod(0o600)
        return key


def _switch(env: dict[str, str], name: str) -> bool:
    """A part that is on unless ``name`` says ``off`` (or ``0``, ``false``, ``no``)."""
    value = env.get(name, "on").strip().lower()
    if value in ("on", "1", "true", "yes", ""):
        return True
    if value in ("off", "0", "false", "no"):
        return False
    raise ValueError(f"{name} is on or off, not {value!r}")
