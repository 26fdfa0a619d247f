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

DEFAULT_DATABASE_PATH = "data/backgammon.sqlite3"
DEFAULT_MOVE_DAYS = 3
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

TOKEN_HELP = (
    "copy .env.example to .env and set DISCORD_TOKEN=<your bot token> "
    "(from https://discord.com/developers/applications, Bot -> Reset Token), "
    "or export DISCORD_TOKEN in the environment"
)


class ConfigError(ValueError):
    """A setting is missing or malformed; the message says which and how to fix it."""


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
            line = line[len("export "):].lstrip()
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
    dev_guild_id: int | None = None
    """Sync the slash commands to this guild only (instant, for development)."""
    default_move_days: int = DEFAULT_MOVE_DAYS
    log_level: str = "INFO"

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

        return cls(
            token=token,
            database_path=get("DATABASE_PATH") or DEFAULT_DATABASE_PATH,
            dev_guild_id=dev_guild_id,
            default_move_days=days,
            log_level=level,
        )

    @property
    def log_level_number(self) -> int:
        return logging.getLevelName(self.log_level)  # type: ignore[no-any-return]
