"""The schema as numbered migrations, one SQL file per version and dialect.

``migrations/NNNN_name.sqlite.sql`` and ``migrations/NNNN_name.pg.sql`` hold
the same tables, columns, constraints and index names for the two backends
(PostgreSQL: BIGINT ids, DOUBLE PRECISION Unix times, identity keys, a
plpgsql trigger). A database records the last version applied; opening it
applies the rest in order, each in its own transaction (the drivers' job).
A new version is a new pair of files: never edit one that has shipped.
Versions go up but may skip a number that work on another branch holds
(a database records the last version applied and takes every later one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import Final

_FILE = re.compile(r"^(?P<version>\d{4})_(?P<name>[a-z0-9_]+)\.(?P<dialect>sqlite|pg)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered schema step: its SQLite script and its PostgreSQL script."""

    version: int
    name: str
    sql: str
    pg_sql: str


def load_migrations() -> tuple[Migration, ...]:
    """Every migration in ``migrations/``, by version; both dialects must be there,
    each version once (a number may be skipped: another branch's work holds it)."""
    scripts: dict[int, dict[str, str]] = {}
    names: dict[int, str] = {}
    for entry in resources.files(__package__).joinpath("migrations").iterdir():
        match = _FILE.match(entry.name)
        if match is None:
            continue
        version = int(match["version"])
        names[version] = match["name"].replace("_", " ")
        scripts.setdefault(version, {})[match["dialect"]] = entry.read_text(encoding="utf-8")
    versions = sorted(scripts)
    if versions and versions[0] < 1:
        raise RuntimeError(f"migrations are numbered from 1, found {versions}")
    migrations = []
    for version in versions:
        both = scripts[version]
        if set(both) != {"sqlite", "pg"}:
            raise RuntimeError(f"migration {version} needs a .sqlite.sql and a .pg.sql file")
        migrations.append(Migration(version, names[version], both["sqlite"], both["pg"]))
    return tuple(migrations)


MIGRATIONS: Final = load_migrations()
SCHEMA_VERSION: Final = MIGRATIONS[-1].version if MIGRATIONS else 0
"""The newest migration's version (what a database is at once migrated)."""
