"""Settings for the bot process, from the environment and an optional ``.env`` file.

Every setting is an environment variable (listed in ``.env.example``). A
``.env`` file in the working directory is read too; variables already set in
the environment win over the file. The reader is a few lines of standard
library on purpose: ``KEY=value`` lines, ``#`` comments, optional ``export``
and optional single or double quotes.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.store import Shard
from bot.store.drivers.url import parse_database_url, redact, secrets_of

DEFAULT_DATABASE_PATH = "data/backgammon.sqlite3"
DEFAULT_MOVE_DAYS = 3
DEFAULT_MAX_STAKE = 100
"""A money game's largest stake per point: a points leaderboard is only as fair as its largest stake."""
DEFAULT_MAX_PENDING_CHALLENGES = 3
"""How many challenges a member may have waiting for an answer."""
DEFAULT_MAX_CHALLENGES_RECEIVED = 5
"""How many challenges may wait for one member's answer."""
DEFAULT_CACHED_GAMES = 500
"""Active games a process keeps rebuilt in memory. Each costs the garbage collector
about 125 objects to scan in a full collection; beyond these, a game comes back
from its stored snapshot and the few actions after it."""
DEFAULT_SNAPSHOT_EVERY = 50
"""A game's state is stored with its actions every this many actions."""
DEFAULT_HTTP_CONNECTIONS = 100
"""Connections to Discord's API a process holds open at once (aiohttp's default;
discord.py's own has no bound, so a burst of requests opened a connection, and
against Discord a TLS handshake, for each). At the heaviest load measured, about
1,000 requests a second of some 0.1 s each: a hundred in flight. More wait for one."""
MAX_POOL_SIZE = 1000
MAX_SHARD_COUNT = 10_000
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
DEFAULT_HEALTH_HOST = "127.0.0.1"
"""The probes and metrics are for the machine's own supervisor and Prometheus, not the world."""

COOLDOWN_FAMILIES: dict[str, tuple[int, float]] = {
    "challenge": (5, 60.0),  # /bg challenge, /bg computer, /bgtools setup, Accept / Decline / Withdraw
    "turn": (30, 30.0),  # roll, move, double, take, pass, resign, ... and every button of a board
    "board": (3, 30.0),  # /bg board, the "Show board" message command: a new picture and message
    "lookup": (10, 60.0),  # /bg history, stats, leaderboard (and its pages), games, rules; /bgtools dice, position
    "review": (3, 60.0),  # /bg export, /bg analysis, /bgtools replay, /bgtools verify: files, drawings, engines
    "hint": (5, 60.0),  # /bg hint: the engine thinks
}
"""Per member and family: ``(uses, seconds)``, a burst of ``uses`` refilled over ``seconds``
(``COOLDOWN_<FAMILY>=uses/seconds`` or ``off``). Generous for play, strict for what is costly."""
MAX_COOLDOWN_USES = 1000
MAX_COOLDOWN_SECONDS = 86_400.0

TOKEN_HELP = (
    "copy .env.example to .env and set DISCORD_TOKEN=<your bot token> "
    "(from https://discord.com/developers/applications, Bot -> Reset Token), "
    "or export DISCORD_TOKEN in the environment"
)


class ConfigError(ValueError):
    """A setting is missing or malformed; the message says which and how to fix it."""


SECRET_FILES = ("DISCORD_TOKEN", "DATABASE_URL")
"""Settings that may come from a file instead (``DISCORD_TOKEN_FILE=/run/secrets/token``):
Docker and systemd secrets, kept out of the environment."""


def _read_secret(name: str, path: str) -> str:
    """A secret file's text, without the line break editors add (its content is never shown)."""
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{name}: cannot read {path} ({type(error).__name__})") from None


def read_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """``KEY=value`` pairs of a dotenv file ({} if there is no such file).

    Blank lines and ``#`` comments are skipped; ``export KEY=value`` is
    accepted; a value in matching quotes loses them; an unquoted value loses
    a trailing `` # comment``.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return {}
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        else:
            hash_at = value.find(" #")
            if hash_at >= 0:
                value = value[:hash_at].rstrip()
        values[key] = value
    return values


@dataclass(frozen=True, slots=True)
class Settings:
    """What the bot needs to run. Build it with :meth:`from_env`."""

    token: str = field(repr=False)
    """The bot token. Never logged: it is left out of ``repr``."""
    database_path: str = DEFAULT_DATABASE_PATH
    """``DATABASE_PATH``: the SQLite file (used when ``DATABASE_URL`` is not set)."""
    database_url_setting: str | None = field(default=None, repr=False)
    """``DATABASE_URL`` as given (may hold a password: use :attr:`database_url` / :attr:`database_redacted`)."""
    database_pool_min: int | None = None
    database_pool_max: int | None = None
    """``DATABASE_POOL_MIN``/``MAX``: PostgreSQL pool size (None: the driver's default, 1..10)."""
    shard_count: int | None = None
    """``SHARD_COUNT``: run as an :class:`discord.AutoShardedClient` with this many shards in all."""
    shard_ids: tuple[int, ...] | None = None
    """``SHARD_IDS``: the shards this process runs (None: all of them)."""
    dev_guild_id: int | None = None
    """Sync the slash commands to this guild only (instant, for development)."""
    default_move_days: int = DEFAULT_MOVE_DAYS
    log_level: str = "INFO"
    cooldowns: tuple[tuple[str, int, float], ...] = tuple((f, u, s) for f, (u, s) in COOLDOWN_FAMILIES.items())
    """``(family, uses, seconds)`` of each family that has a cooldown (see :data:`COOLDOWN_FAMILIES`)."""
    max_stake: int = DEFAULT_MAX_STAKE
    """``MAX_STAKE``: the largest stake per point of a money game."""
    max_pending_challenges: int = DEFAULT_MAX_PENDING_CHALLENGES
    """``MAX_PENDING_CHALLENGES``: challenges one member may have waiting for an answer."""
    max_challenges_received: int = DEFAULT_MAX_CHALLENGES_RECEIVED
    """``MAX_CHALLENGES_RECEIVED``: challenges that may wait for one member's answer."""
    cached_games: int = DEFAULT_CACHED_GAMES
    """``CACHED_GAMES``: active games a process keeps in memory (the least recently used drop out)."""
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY
    """``SNAPSHOT_EVERY``: a game's state is stored with its actions every this many actions."""
    http_connections: int = DEFAULT_HTTP_CONNECTIONS
    """``HTTP_CONNECTIONS``: connections to Discord's API held open at once (more requests wait)."""
    health_port: int | None = None
    """``HEALTH_PORT``: serve ``/healthz``, ``/readyz`` and ``/metrics`` on this port (None: no server)."""
    health_host: str = DEFAULT_HEALTH_HOST
    """``HEALTH_HOST``: the address the health server listens on."""
    log_format: str = "text"
    """``LOG_FORMAT``: ``text`` (one readable line per record) or ``json`` (one object per line)."""
    secret_files: tuple[str, ...] = ()
    """``DISCORD_TOKEN_FILE`` / ``DATABASE_URL_FILE`` as given (the start warns if others can read them)."""
    alert_webhook_url: str | None = field(default=None, repr=False)
    """``ALERT_WEBHOOK_URL``: a Discord webhook for error summaries (its URL holds a token: never logged)."""

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        env_file: str | os.PathLike[str] | None = ".env",
        require_token: bool = True,
    ) -> Settings:
        """Read the settings; ``environ`` defaults to :data:`os.environ`.

        :raises ConfigError: with one line that says what to fix.
        """
        values: dict[str, str] = dict(read_env_file(env_file)) if env_file is not None else {}
        source = os.environ if environ is None else environ
        values.update({k: v for k, v in source.items() if v != "" or k not in values})

        def get(name: str) -> str:
            return values.get(name, "").strip()

        for name in SECRET_FILES:
            path = get(f"{name}_FILE")
            if path:
                if get(name):
                    raise ConfigError(f"set {name} or {name}_FILE, not both")
                values[name] = _read_secret(f"{name}_FILE", path)

        token = get("DISCORD_TOKEN")
        if require_token and not token:
            raise ConfigError(f"DISCORD_TOKEN is not set: {TOKEN_HELP}")

        dev_guild_text = get("DEV_GUILD_ID")
        dev_guild_id: int | None = None
        if dev_guild_text:
            if not dev_guild_text.isdigit():
                raise ConfigError(f"DEV_GUILD_ID must be a server id (digits), not {dev_guild_text!r}")
            dev_guild_id = int(dev_guild_text)

        days_text = get("DEFAULT_MOVE_DAYS") or str(DEFAULT_MOVE_DAYS)
        try:
            days = int(days_text)
        except ValueError:
            raise ConfigError(f"DEFAULT_MOVE_DAYS must be a whole number of days, not {days_text!r}") from None
        if not 1 <= days <= 14:
            raise ConfigError(f"DEFAULT_MOVE_DAYS must be 1 to 14, not {days}")

        level = (get("LOG_LEVEL") or "INFO").upper()
        if level not in LOG_LEVELS:
            raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {level!r}")

        database_url = get("DATABASE_URL") or None
        if database_url is not None:
            try:
                parse_database_url(database_url)
            except ValueError as error:  # its message shows the URL without the password
                raise ConfigError(
                    f"DATABASE_URL: {error}; write postgresql://user:password@host:port/dbname or sqlite:///path"
                ) from None
        pool_min = _whole("DATABASE_POOL_MIN", get("DATABASE_POOL_MIN"), 0, MAX_POOL_SIZE)
        pool_max = _whole("DATABASE_POOL_MAX", get("DATABASE_POOL_MAX"), 1, MAX_POOL_SIZE)
        if pool_min is not None and pool_max is not None and pool_min > pool_max:
            raise ConfigError(f"DATABASE_POOL_MIN ({pool_min}) must not be above DATABASE_POOL_MAX ({pool_max})")

        shard_count = _whole("SHARD_COUNT", get("SHARD_COUNT"), 1, MAX_SHARD_COUNT)
        shard_ids = _shard_ids(get("SHARD_IDS"), shard_count)
        max_stake = _whole("MAX_STAKE", get("MAX_STAKE"), 1, 1_000_000)
        pending = _whole("MAX_PENDING_CHALLENGES", get("MAX_PENDING_CHALLENGES"), 1, 100)
        received = _whole("MAX_CHALLENGES_RECEIVED", get("MAX_CHALLENGES_RECEIVED"), 1, 100)
        cached = _whole("CACHED_GAMES", get("CACHED_GAMES"), 1, 10_000_000)
        snapshot_every = _whole("SNAPSHOT_EVERY", get("SNAPSHOT_EVERY"), 1, 100_000)
        connections = _whole("HTTP_CONNECTIONS", get("HTTP_CONNECTIONS"), 1, 10_000)
        health_port = _whole("HEALTH_PORT", get("HEALTH_PORT"), 1, 65_535)
        log_format = (get("LOG_FORMAT") or "text").lower()
        if log_format not in LOG_FORMATS:
            raise ConfigError(f"LOG_FORMAT must be text or json, not {log_format!r}")
        alert_url = get("ALERT_WEBHOOK_URL") or None
        if alert_url is not None and not alert_url.startswith(("https://", "http://")):
            raise ConfigError("ALERT_WEBHOOK_URL must be a webhook URL (https://discord.com/api/webhooks/...)")

        cooldowns = []
        for family, default in COOLDOWN_FAMILIES.items():
            rate = _rate(f"COOLDOWN_{family.upper()}", get(f"COOLDOWN_{family.upper()}"), default)
            if rate is not None:
                cooldowns.append((family, *rate))

        return cls(
            token=token,
            database_path=get("DATABASE_PATH") or DEFAULT_DATABASE_PATH,
            database_url_setting=database_url,
            database_pool_min=pool_min,
            database_pool_max=pool_max,
            shard_count=shard_count,
            shard_ids=shard_ids,
            dev_guild_id=dev_guild_id,
            default_move_days=days,
            log_level=level,
            cooldowns=tuple(cooldowns),
            max_stake=DEFAULT_MAX_STAKE if max_stake is None else max_stake,
            max_pending_challenges=DEFAULT_MAX_PENDING_CHALLENGES if pending is None else pending,
            max_challenges_received=DEFAULT_MAX_CHALLENGES_RECEIVED if received is None else received,
            cached_games=DEFAULT_CACHED_GAMES if cached is None else cached,
            snapshot_every=DEFAULT_SNAPSHOT_EVERY if snapshot_every is None else snapshot_every,
            http_connections=DEFAULT_HTTP_CONNECTIONS if connections is None else connections,
            health_port=health_port,
            health_host=get("HEALTH_HOST") or DEFAULT_HEALTH_HOST,
            log_format=log_format,
            alert_webhook_url=alert_url,
            secret_files=tuple(get(f"{name}_FILE") for name in SECRET_FILES if get(f"{name}_FILE")),
        )

    @property
    def log_level_number(self) -> int:
        return logging.getLevelName(self.log_level)  # type: ignore[no-any-return]

    @property
    def database_url(self) -> str:
        """Where the games are: ``DATABASE_URL`` if set, else ``DATABASE_PATH`` (a SQLite file).

        May contain a password: log :attr:`database_redacted` instead.
        """
        return self.database_url_setting or self.database_path

    @property
    def database_redacted(self) -> str:
        """:attr:`database_url` with any password replaced by ``***`` (fit for logs)."""
        return redact(self.database_url)

    @property
    def database_secrets(self) -> tuple[str, ...]:
        """The passwords inside ``DATABASE_URL`` as written and decoded (() if none), for the log filter."""
        return secrets_of(self.database_url_setting or "")

    @property
    def private_files(self) -> list[str]:
        """Files that only the bot's user should read: ``.env``, the secret files, the SQLite database."""
        files = [".env", *self.secret_files]
        where = parse_database_url(self.database_url)
        if where.backend == "sqlite" and where.location != ":memory:" and not where.location.startswith("file:"):
            files.append(where.location)
        return files

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every secret the log filter and the alerts hide: the token, the database
        passwords, the alert webhook's URL and its token part."""
        found = [self.token, *self.database_secrets]
        if self.alert_webhook_url:
            found += [self.alert_webhook_url, self.alert_webhook_url.rstrip("/").rsplit("/", 1)[-1]]
        return tuple(s for s in found if s)

    @property
    def pool_options(self) -> dict[str, int]:
        """``min_size``/``max_size`` for :func:`bot.store.open_store` (only those that are set)."""
        options: dict[str, int] = {}
        if self.database_pool_min is not None:
            options["min_size"] = self.database_pool_min
        if self.database_pool_max is not None:
            options["max_size"] = self.database_pool_max
        if "max_size" in options and "min_size" not in options:
            options["min_size"] = min(1, options["max_size"])
        if "min_size" in options and "max_size" not in options:
            options["max_size"] = max(10, options["min_size"])
        return options

    @property
    def sharded(self) -> bool:
        """True when ``SHARD_COUNT`` is set: the bot is an :class:`discord.ext.commands.AutoShardedBot`."""
        return self.shard_count is not None

    @property
    def shard_options(self) -> dict[str, object]:
        """Keyword arguments for the client: ``shard_count`` and ``shard_ids`` ({} when unsharded)."""
        if self.shard_count is None:
            return {}
        options: dict[str, object] = {"shard_count": self.shard_count}
        if self.shard_ids is not None:
            options["shard_ids"] = list(self.shard_ids)
        return options

    @property
    def shard(self) -> Shard | None:
        """``(shard_count, shard_ids)`` of this process, or None when it serves every
        guild (unsharded, or ``SHARD_IDS`` unset): whose due work it claims first
        (:func:`bot.store.serves`)."""
        if self.shard_count is None or self.shard_ids is None:
            return None
        return self.shard_count, tuple(sorted(self.shard_ids))


def _whole(name: str, text: str, low: int, high: int) -> int | None:
    """A whole number setting between ``low`` and ``high``, or None when empty."""
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, not {text!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be {low} to {high}, not {value}")
    return value


def _rate(name: str, text: str, default: tuple[int, float]) -> tuple[int, float] | None:
    """A cooldown: ``uses/seconds`` (``5/60``), ``off`` (None), or the default when empty."""
    if not text:
        return default
    if text.lower() in ("off", "0", "none"):
        return None
    uses_text, slash, seconds_text = text.partition("/")
    try:
        uses, seconds = int(uses_text), float(seconds_text)
    except ValueError:
        raise ConfigError(f"{name} must be uses/seconds such as 5/60, or off; not {text!r}") from None
    if not slash or not 1 <= uses <= MAX_COOLDOWN_USES or not 0 < seconds <= MAX_COOLDOWN_SECONDS:
        raise ConfigError(
            f"{name} must be uses/seconds with 1 to {MAX_COOLDOWN_USES} uses in at most {MAX_COOLDOWN_SECONDS:.0f} s, "
            f"or off; not {text!r}"
        )
    return uses, seconds


def _shard_ids(text: str, shard_count: int | None) -> tuple[int, ...] | None:
    """``SHARD_IDS``: comma-separated shard numbers (``0,1``), each below SHARD_COUNT."""
    if not text:
        return None
    if shard_count is None:
        raise ConfigError("SHARD_IDS needs SHARD_COUNT (the number of shards across all processes)")
    ids: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit():
            raise ConfigError(f"SHARD_IDS must be comma-separated shard numbers such as 0,1, not {text!r}")
        value = int(part)
        if value >= shard_count:
            raise ConfigError(
                f"SHARD_IDS: shard {value} does not exist with SHARD_COUNT={shard_count} (0 to {shard_count - 1})"
            )
        if value in ids:
            raise ConfigError(f"SHARD_IDS lists shard {value} twice")
        ids.append(value)
    if not ids:
        raise ConfigError(f"SHARD_IDS must list at least one shard, not {text!r}")
    return tuple(sorted(ids))
