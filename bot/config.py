"""Settings for the bot process, from the environment and an optional ``.env`` file.

Every setting is an environment variable, declared once in :data:`SETTINGS`
(its name, where it goes, how it is read, its default, bounds and help); the
table is what :meth:`Settings.from_env` reads and what ``.env.example`` is
checked against (tests/bot/test_entry.py). A ``.env`` file in the working
directory is read too; variables already set in the environment win over the
file. The reader is a few lines of standard library on purpose: ``KEY=value``
lines, ``#`` comments, optional ``export`` and optional single or double quotes.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from bot.store import Shard
from bot.store.drivers.url import parse_database_url, redact, secrets_of

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

EXPIRIES_PER_SWEEP = 10
"""How many expired challenges one pass of the scheduler tidies (one message
edit each); the rest wait for the next pass, a second or more later."""
DUE_PER_SWEEP = 25
"""Reminders and timeouts done per scheduler pass: with hundreds due at once (after an
outage, a busy server's morning) each pass stays short and the clicks waiting behind
it are answered between passes; the next pass follows at once while more are due."""

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


# -- the table -------------------------------------------------------------------------------

Parser = Callable[["Setting", str], Any]
"""Reads a setting's non-empty text (:raises ConfigError: saying what to write instead)."""


@dataclass(frozen=True, slots=True)
class Setting:
    """One environment variable: where its value goes and how it is read."""

    name: str
    """The environment variable (and ``.env`` key)."""
    attr: str
    """Where the value goes: a :class:`Settings` field, ``limits.<field>`` (a :class:`Limits`
    field) or ``cooldowns.<family>``."""
    parse: Parser
    default: Any
    """The value when the variable is unset or empty (None: not set)."""
    help: str
    low: float | None = None
    high: float | None = None
    """Bounds of a number (inclusive)."""


def _text(setting: Setting, text: str) -> str:
    return text


def _whole(setting: Setting, text: str) -> int:
    """A whole number between the setting's bounds."""
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{setting.name} must be a whole number, not {text!r}") from None
    low = int(setting.low) if setting.low is not None else None
    high = int(setting.high) if setting.high is not None else None
    if (low is not None and value < low) or (high is not None and value > high):
        raise ConfigError(f"{setting.name} must be {low} to {high}, not {value}")
    return value


def _server_id(setting: Setting, text: str) -> int:
    if not text.isdigit():
        raise ConfigError(f"{setting.name} must be a server id (digits), not {text!r}")
    return int(text)


def _log_level(setting: Setting, text: str) -> str:
    level = text.upper()
    if level not in LOG_LEVELS:
        raise ConfigError(f"{setting.name} must be one of {', '.join(LOG_LEVELS)}, not {level!r}")
    return level


def _database_url(setting: Setting, text: str) -> str:
    try:
        parse_database_url(text)
    except ValueError as error:  # its message shows the URL without the password
        raise ConfigError(
            f"{setting.name}: {error}; write postgresql://user:password@host:port/dbname or sqlite:///path"
        ) from None
    return text


def _shard_ids(setting: Setting, text: str) -> tuple[int, ...]:
    """Comma-separated shard numbers (``0,1``); checked against SHARD_COUNT by :meth:`Settings.from_env`."""
    ids: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit():
            raise ConfigError(f"{setting.name} must be comma-separated shard numbers such as 0,1, not {text!r}")
        if int(part) in ids:
            raise ConfigError(f"{setting.name} lists shard {int(part)} twice")
        ids.append(int(part))
    if not ids:
        raise ConfigError(f"{setting.name} must list at least one shard, not {text!r}")
    return tuple(sorted(ids))


def _switch(setting: Setting, text: str) -> bool:
    """An on/off setting: ``on``/``1``/``true``/``yes`` or ``off``/``0``/``false``/``no``."""
    word = text.lower()
    if word in ("on", "1", "true", "yes"):
        return True
    if word in ("off", "0", "false", "no"):
        return False
    raise ConfigError(f"{setting.name} must be on or off (1 or 0), not {text!r}")


def _log_format(setting: Setting, text: str) -> str:
    word = text.lower()
    if word not in LOG_FORMATS:
        raise ConfigError(f"{setting.name} must be text or json, not {word!r}")
    return word


WORKER_PRIORITIES = ("low", "normal")


def _worker_priority(setting: Setting, text: str) -> str:
    word = text.lower()
    if word not in WORKER_PRIORITIES:
        raise ConfigError(f"{setting.name} must be low or normal, not {word!r}")
    return word


def _webhook_url(setting: Setting, text: str) -> str:
    if not text.startswith(("https://", "http://")):
        raise ConfigError(f"{setting.name} must be a webhook URL (https://discord.com/api/webhooks/...)")
    return text


def _rate(setting: Setting, text: str) -> tuple[int, float] | None:
    """A cooldown: ``uses/seconds`` (``5/60``), or ``off`` (None)."""
    if text.lower() in ("off", "0", "none"):
        return None
    uses_text, slash, seconds_text = text.partition("/")
    try:
        uses, seconds = int(uses_text), float(seconds_text)
    except ValueError:
        raise ConfigError(f"{setting.name} must be uses/seconds such as 5/60, or off; not {text!r}") from None
    if not slash or not 1 <= uses <= MAX_COOLDOWN_USES or not 0 < seconds <= MAX_COOLDOWN_SECONDS:
        raise ConfigError(
            f"{setting.name} must be uses/seconds with 1 to {MAX_COOLDOWN_USES} uses in at most "
            f"{MAX_COOLDOWN_SECONDS:.0f} s, or off; not {text!r}"
        )
    return uses, seconds


SETTINGS: tuple[Setting, ...] = (
    Setting("DISCORD_TOKEN", "token", _text, "", "The bot token (required). Never logged."),
    Setting(
        "DATABASE_PATH",
        "database_path",
        _text,
        "data/backgammon.sqlite3",
        "The SQLite file (used when DATABASE_URL is not set); created with its folder.",
    ),
    Setting(
        "DATABASE_URL",
        "database_url_setting",
        _database_url,
        None,
        "postgresql://user:password@host:port/dbname or sqlite:///path; wins over DATABASE_PATH.",
    ),
    Setting(
        "DATABASE_POOL_MIN",
        "database_pool_min",
        _whole,
        None,
        "PostgreSQL connections kept open (1).",
        0,
        MAX_POOL_SIZE,
    ),
    Setting(
        "DATABASE_POOL_MAX", "database_pool_max", _whole, None, "PostgreSQL connections at most (10).", 1, MAX_POOL_SIZE
    ),
    Setting("SHARD_COUNT", "shard_count", _whole, None, "Shards across all the bot's processes.", 1, MAX_SHARD_COUNT),
    Setting("SHARD_IDS", "shard_ids", _shard_ids, None, "The shards this process runs (unset: all of them)."),
    Setting(
        "DEV_GUILD_ID",
        "dev_guild_id",
        _server_id,
        None,
        "A developer's test server: the commands are synced there at each start (instant).",
    ),
    Setting("DEFAULT_MOVE_DAYS", "default_move_days", _whole, 3, "Days per move of a new challenge.", 1, 14),
    Setting("LOG_LEVEL", "log_level", _log_level, "INFO", "DEBUG, INFO, WARNING, ERROR or CRITICAL."),
    Setting(
        "MAX_STAKE",
        "limits.max_stake",
        _whole,
        100,
        "A money game's largest stake per point: a points leaderboard is only as fair as its largest stake.",
        1,
        1_000_000,
    ),
    Setting(
        "MAX_PENDING_CHALLENGES",
        "limits.pending_per_challenger",
        _whole,
        3,
        "Challenges one member may have waiting for an answer.",
        1,
        100,
    ),
    Setting(
        "MAX_CHALLENGES_RECEIVED",
        "limits.pending_per_challenged",
        _whole,
        5,
        "Challenges that may wait for one member's answer.",
        1,
        100,
    ),
    Setting(
        "CACHED_GAMES",
        "limits.cached_games",
        _whole,
        500,
        # Each costs the garbage collector about 125 objects to scan in a full collection; beyond
        # these, a game comes back from its stored snapshot and the few actions after it.
        "Active games a process keeps rebuilt in memory (the least recently used drop out).",
        1,
        10_000_000,
    ),
    Setting(
        "SNAPSHOT_EVERY",
        "limits.snapshot_every",
        _whole,
        50,
        "A game's state is stored with its actions every this many actions.",
        1,
        100_000,
    ),
    Setting(
        "HTTP_CONNECTIONS",
        "http_connections",
        _whole,
        100,
        # aiohttp's default; discord.py's own has no bound, so a burst of requests opened a connection,
        # and against Discord a TLS handshake, for each. At the heaviest load measured, about 1,000
        # requests a second of some 0.1 s each: a hundred in flight.
        "Connections to Discord's API held open at once (more requests wait for one).",
        1,
        10_000,
    ),
    Setting(
        "DISCORD_TOKEN_FILE",
        "secret_files",
        _text,
        None,
        "A file holding the bot token (Docker or systemd secrets), instead of DISCORD_TOKEN.",
    ),
    Setting(
        "DATABASE_URL_FILE",
        "secret_files",
        _text,
        None,
        "A file holding DATABASE_URL (it may hold a password), instead of DATABASE_URL.",
    ),
    Setting(
        "HEALTH_PORT",
        "health_port",
        _whole,
        None,
        "Serve /healthz, /readyz and /metrics on this port (unset: no health server).",
        1,
        65_535,
    ),
    Setting("HEALTH_HOST", "health_host", _text, DEFAULT_HEALTH_HOST, "The address the health server listens on."),
    Setting("LOG_FORMAT", "log_format", _log_format, "text", "text (one readable line per record) or json."),
    Setting(
        "WORKER_PRIORITY",
        "worker_priority",
        _worker_priority,
        "low",
        "low (drawing and analysis workers yield the CPU to the bot) or normal (the bot's own priority).",
    ),
    Setting(
        "ALERT_WEBHOOK_URL",
        "alert_webhook_url",
        _webhook_url,
        None,
        "A Discord webhook (a staff channel) for redacted, rate-limited error and health summaries.",
    ),
    Setting(
        "SQLITE_CHECKPOINTS",
        "sqlite_checkpoints",
        _switch,
        True,
        "The bot checkpoints its SQLite WAL itself (off for Litestream, which does).",
    ),
    Setting(
        "SNAPSHOT_BEFORE_MIGRATION",
        "snapshot_before_migration",
        _switch,
        True,
        "Copy a SQLite store beside itself before migrating it (off for huge stores).",
    ),
    Setting(
        "LOW_DISK_MB",
        "low_disk_mb",
        _whole,
        None,
        "A warning is logged when less is free beside the SQLite store (unset: 1024; 0: never).",
        0,
        100_000_000,
    ),
    Setting(
        "SHARD_WAIT",
        "shard_wait",
        _switch,
        True,
        "On PostgreSQL, a process whose shards another process runs waits for it to stop (off: exits at once).",
    ),
    *(
        Setting(
            f"COOLDOWN_{family.upper()}",
            f"cooldowns.{family}",
            _rate,
            rate,
            f"The {family} commands' cooldown per member: uses/seconds, or off.",
        )
        for family, rate in COOLDOWN_FAMILIES.items()
    ),
)
"""Every setting (each documented in ``.env.example``, checked by tests/bot/test_entry.py)."""

SETTING: dict[str, Setting] = {s.name: s for s in SETTINGS}
"""The settings by environment variable."""


def _default(name: str) -> Any:
    return SETTING[name].default


@dataclass(frozen=True, slots=True)
class Limits:
    """What one member may ask of the bot and what a process keeps: the largest
    stake, how many challenges may wait for an answer from (or to) one member,
    the games kept in memory; and how much a scheduler pass does. The Discord
    layer shows the same limits (the stake option's range)."""

    max_stake: int = _default("MAX_STAKE")
    pending_per_challenger: int = _default("MAX_PENDING_CHALLENGES")
    pending_per_challenged: int = _default("MAX_CHALLENGES_RECEIVED")
    expiries_per_sweep: int = EXPIRIES_PER_SWEEP
    due_per_sweep: int = DUE_PER_SWEEP
    cached_games: int = _default("CACHED_GAMES")
    """Active games a process keeps in memory (the least recently used drop out)."""
    snapshot_every: int = _default("SNAPSHOT_EVERY")
    """A game's state is stored with its actions every this many actions."""

    def __post_init__(self) -> None:
        for name in self.__slots__:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")


class ShardOptions(TypedDict, total=False):
    """The sharding keyword arguments of :class:`discord.AutoShardedClient`."""

    shard_count: int
    shard_ids: list[int]


@dataclass(frozen=True, slots=True)
class Settings:
    """What the bot needs to run. Build it with :meth:`from_env` (each field's setting is in :data:`SETTINGS`)."""

    token: str = field(repr=False)
    """The bot token. Never logged: it is left out of ``repr``."""
    database_path: str = _default("DATABASE_PATH")
    database_url_setting: str | None = field(default=None, repr=False)
    """``DATABASE_URL`` as given (may hold a password: use :attr:`database_url` / :attr:`database_redacted`)."""
    database_pool_min: int | None = None
    database_pool_max: int | None = None
    """PostgreSQL pool size (None: the driver's default, 1..10)."""
    shard_count: int | None = None
    """Run as an :class:`discord.AutoShardedClient` with this many shards in all."""
    shard_ids: tuple[int, ...] | None = None
    """The shards this process runs (None: all of them)."""
    dev_guild_id: int | None = None
    """A developer's test server: the commands are synced to it at start (instant)."""
    default_move_days: int = _default("DEFAULT_MOVE_DAYS")
    log_level: str = _default("LOG_LEVEL")
    cooldowns: tuple[tuple[str, int, float], ...] = tuple((f, u, s) for f, (u, s) in COOLDOWN_FAMILIES.items())
    """``(family, uses, seconds)`` of each family that has a cooldown (see :data:`COOLDOWN_FAMILIES`)."""
    limits: Limits = Limits()
    """Stakes, challenges waiting, games kept: handed whole to the game service."""
    http_connections: int = _default("HTTP_CONNECTIONS")
    sqlite_checkpoints: bool = _default("SQLITE_CHECKPOINTS")
    snapshot_before_migration: bool = _default("SNAPSHOT_BEFORE_MIGRATION")
    low_disk_mb: int | None = _default("LOW_DISK_MB")
    shard_wait: bool = _default("SHARD_WAIT")
    health_port: int | None = _default("HEALTH_PORT")
    """Serve ``/healthz``, ``/readyz`` and ``/metrics`` on this port (None: no server)."""
    health_host: str = _default("HEALTH_HOST")
    log_format: str = _default("LOG_FORMAT")
    worker_priority: str = _default("WORKER_PRIORITY")
    """``text`` (one readable line per record) or ``json`` (one object per line)."""
    secret_files: tuple[str, ...] = ()
    """``DISCORD_TOKEN_FILE`` / ``DATABASE_URL_FILE`` as given (the start warns if others can read them)."""
    alert_webhook_url: str | None = field(default=None, repr=False)
    """A Discord webhook for error summaries (its URL holds a token: never logged)."""

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        env_file: str | os.PathLike[str] | None = ".env",
        require_token: bool = True,
    ) -> Settings:
        """Read the settings of :data:`SETTINGS`; ``environ`` defaults to :data:`os.environ`.

        :raises ConfigError: with one line that says what to fix.
        """
        values: dict[str, str] = dict(read_env_file(env_file)) if env_file is not None else {}
        source = os.environ if environ is None else environ
        values.update({k: v for k, v in source.items() if v != "" or k not in values})

        secret_files: list[str] = []
        for name in SECRET_FILES:  # Docker's and systemd's secrets: the value in a file
            path = values.get(f"{name}_FILE", "").strip()
            if path:
                if values.get(name, "").strip():
                    raise ConfigError(f"set {name} or {name}_FILE, not both")
                values[name] = _read_secret(f"{name}_FILE", path)
                secret_files.append(path)

        read: dict[str, Any] = {}
        for setting in SETTINGS:
            if setting.attr == "secret_files":
                continue
            text = values.get(setting.name, "").strip()
            read[setting.attr] = setting.parse(setting, text) if text else setting.default

        if require_token and not read["token"]:
            raise ConfigError(f"DISCORD_TOKEN is not set: {TOKEN_HELP}")
        pool_min, pool_max = read["database_pool_min"], read["database_pool_max"]
        if pool_min is not None and pool_max is not None and pool_min > pool_max:
            raise ConfigError(f"DATABASE_POOL_MIN ({pool_min}) must not be above DATABASE_POOL_MAX ({pool_max})")
        shard_count, shard_ids = read["shard_count"], read["shard_ids"]
        if shard_ids is not None:
            if shard_count is None:
                raise ConfigError("SHARD_IDS needs SHARD_COUNT (the number of shards across all processes)")
            for shard in shard_ids:
                if shard >= shard_count:
                    raise ConfigError(
                        f"SHARD_IDS: shard {shard} does not exist with SHARD_COUNT={shard_count} "
                        f"(0 to {shard_count - 1})"
                    )

        fields: dict[str, Any] = {}
        limits: dict[str, Any] = {}
        cooldowns: list[tuple[str, int, float]] = []
        for attr, value in read.items():
            group, _, name = attr.partition(".")
            if group == "limits":
                limits[name] = value
            elif group == "cooldowns":
                if value is not None:
                    cooldowns.append((name, *value))
            else:
                fields[attr] = value
        return cls(**fields, limits=Limits(**limits), cooldowns=tuple(cooldowns), secret_files=tuple(secret_files))

    @property
    def log_level_number(self) -> int:
        return logging.getLevelName(self.log_level)

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
    def store_options(self) -> dict[str, Any]:
        """Keyword arguments for :func:`bot.store.open_store` in the bot process: :attr:`pool_options`,
        the shards it runs (held against other processes on PostgreSQL), and the SQLite switches
        that are not at their defaults."""
        options: dict[str, Any] = dict(self.pool_options)
        options |= {"run_shards": True, "shard": self.shard, "shard_count": self.shard_count}
        if not self.shard_wait:
            options["shard_wait"] = False
        if not self.sqlite_checkpoints:
            options["checkpoints"] = False
        if self.low_disk_mb is not None:
            options["low_disk_bytes"] = self.low_disk_mb << 20
        if not self.snapshot_before_migration:
            options["snapshot_before_migration"] = False
        return options

    @property
    def sharded(self) -> bool:
        """True when ``SHARD_COUNT`` is set: the bot is an :class:`discord.ext.commands.AutoShardedBot`."""
        return self.shard_count is not None

    @property
    def shard_options(self) -> ShardOptions:
        """Keyword arguments for the client: ``shard_count`` and ``shard_ids`` ({} when unsharded)."""
        if self.shard_count is None:
            return {}
        options: ShardOptions = {"shard_count": self.shard_count}
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
