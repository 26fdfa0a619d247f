"""``python -m bot check``: is the bot healthy? One line per check, and an exit code.

Exit 0 (ok), 1 (warning) or 2 (critical), like a monitoring plugin, so it fits
a Docker ``HEALTHCHECK``, a cron job or a Nagios-style probe. It reads the
database only (never migrating it) with the bot's own settings:

- ``schema``: the database's version against the code's (newer: critical, an
  older bot runs against a newer schema; older: a warning, the next start migrates);
- ``heartbeat``: the age of this process's shards' beats (every 30 s while
  connected): over :data:`HEARTBEAT_WARN` a warning, over :data:`HEARTBEAT_CRITICAL`
  critical (other processes take its due work over then);
- ``outbox``: messages owed to Discord and the age of the oldest;
- ``clock credit``: outages not yet credited to the games' clocks;
- ``disk``: free space beside a SQLite file.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from bot.config import ConfigError, Settings
from bot.store.errors import StorageError
from bot.store.health import Health, read_health
from bot.store.schema import SCHEMA_VERSION

OK, WARNING, CRITICAL = 0, 1, 2
LEVELS = ("ok", "warning", "critical")

HEARTBEAT_WARN = 90.0
"""Three beats missed."""
HEARTBEAT_CRITICAL = 300.0
"""The takeover age (:data:`bot.store.shards.ORPHAN_AFTER`)."""
OUTBOX_WARN = 600.0
OUTBOX_CRITICAL = 3600.0
OUTBOX_MANY = 10_000
CREDIT_WARN = 600.0
"""A credit settles in quiet moments, or 2 minutes after the bot came back."""
DISK_WARN = 1 << 30
DISK_CRITICAL = 100 << 20


@dataclass(frozen=True, slots=True)
class Finding:
    level: int
    name: str
    detail: str

    def line(self) -> str:
        return f"{LEVELS[self.level]} {self.name}: {self.detail}"


def _age(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 7200 else f"{seconds / 3600:.1f} h"


def judge(
    health: Health, now: float, *, free_bytes: Callable[[str], int] = lambda p: shutil.disk_usage(p).free
) -> list[Finding]:
    """The findings on ``health`` at ``now`` (Unix seconds)."""
    found: list[Finding] = []
    version = health.schema_version
    if version > SCHEMA_VERSION:
        found.append(
            Finding(CRITICAL, "schema", f"version {version} is newer than this bot's {SCHEMA_VERSION}: upgrade the bot")
        )
        return found
    if version < SCHEMA_VERSION:
        found.append(
            Finding(WARNING, "schema", f"version {version}, this bot's is {SCHEMA_VERSION}: the next start migrates")
        )
    else:
        found.append(Finding(OK, "schema", f"version {version}"))
    if health.heartbeats:
        for shard_id, seen in sorted(health.heartbeats.items()):
            age = max(0.0, now - seen)
            level = CRITICAL if age > HEARTBEAT_CRITICAL else WARNING if age > HEARTBEAT_WARN else OK
            found.append(Finding(level, "heartbeat", f"shard {shard_id} beat {_age(age)} ago"))
    elif version == SCHEMA_VERSION:
        found.append(Finding(WARNING, "heartbeat", "no beat from this process's shards yet"))
    if health.outbox_oldest is None:
        found.append(Finding(OK, "outbox", "nothing owed"))
    else:
        age = max(0.0, now - health.outbox_oldest)
        level = CRITICAL if age > OUTBOX_CRITICAL else WARNING if age > OUTBOX_WARN else OK
        if health.outbox_owed > OUTBOX_MANY:
            level = max(level, WARNING)
        found.append(Finding(level, "outbox", f"{health.outbox_owed} owed, the oldest for {_age(age)}"))
    if health.credits_oldest is None:
        found.append(Finding(OK, "clock credit", "nothing owed"))
    else:
        age = max(0.0, now - health.credits_oldest)
        level = WARNING if age > CREDIT_WARN else OK
        found.append(Finding(level, "clock credit", f"{health.credits_owed} outages owed, the oldest for {_age(age)}"))
    if health.sqlite_path is not None:
        free = free_bytes(str(Path(health.sqlite_path).resolve().parent))
        level = CRITICAL if free < DISK_CRITICAL else WARNING if free < DISK_WARN else OK
        found.append(Finding(level, "disk", f"{free / (1 << 30):.1f} GiB free beside the database"))
    return found


async def findings(settings: Settings, now: float | None = None) -> list[Finding]:
    """Read the database and judge it; a database that cannot be read is critical."""
    try:
        health = await read_health(settings.database_url, settings.shard)
    except (StorageError, OSError) as error:
        return [Finding(CRITICAL, "database", f"{settings.database_redacted}: {error}")]
    return judge(health, time.time() if now is None else now)


def main(environ: Mapping[str, str] | None = None, out: TextIO | None = None) -> int:
    """Print one line per check; return the worst level (the exit code)."""
    out = out or sys.stdout
    try:
        settings = Settings.from_env(environ, require_token=False)
    except ConfigError as error:
        print(f"critical config: {error}", file=out)
        return CRITICAL
    found = asyncio.run(findings(settings))
    for finding in found:
        print(finding.line(), file=out)
    worst = max(f.level for f in found)
    if worst > OK and settings.alert_webhook_url:
        asyncio.run(_alert(settings, [f for f in found if f.level > OK]))
    return worst


async def _alert(settings: Settings, found: list[Finding]) -> None:
    from bot.ops.alerts import Alerts

    assert settings.alert_webhook_url is not None
    alerts = Alerts(settings.alert_webhook_url, settings.secrets)
    try:
        await alerts.send("**check** " + "\n".join(f.line() for f in found))
    finally:
        await alerts.close()


async def problems(settings: Settings) -> list[tuple[str, str]]:
    """What the check finds wrong, as (check name, line): for the bot's periodic alerts."""
    return [(f.name, f.line()) for f in await findings(settings) if f.level > OK]
