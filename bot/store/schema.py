"""The schema as numbered migrations, one SQL file per version and dialect.

``migrations/NNNN_name.sqlite.sql`` and ``migrations/NNNN_name.pg.sql`` hold
the same tables, columns, constraints and index names for the two backends
(PostgreSQL: BIGINT ids, DOUBLE PRECISION Unix times, identity keys, a
plpgsql trigger). A database records the last version applied; opening it
applies the rest in order, each in its own transaction (the drivers' job).
A new version is a new pair of files: never edit one that has shipped.

Work on several features at once takes version numbers ahead: a version
another branch holds (say 7-9, while this one adds 10) may be missing here.
Such a gap is filled with an empty *reserved* migration, so the numbering
stays 1, 2, 3, ... (:data:`RESERVED` names them). A database that ran a
reserved step records its number without its tables: only databases of a
branch (tests, development) ever do, never one a merged bot opened.
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


RESERVED: Final = frozenset({7, 8, 9})
"""Versions other work in progress holds: an empty step here until it lands."""


def load_migrations() -> tuple[Migration, ...]:
    """Every migration in ``migrations/``, by version; both dialects must be there,
    numbered 1, 2, 3, ... without gaps but the :data:`RESERVED` ones (empty steps)."""
    scripts: dict[int, dict[str, str]] = {}
    names: dict[int, str] = {}
    for entry in resources.files(__package__).joinpath("migrations").iterdir():
        match = _FILE.match(entry.name)
        if match is None:
            continue
        version = int(match["version"])
        names[version] = match["name"].replace("_", " ")
        scripts.setdefault(version, {})[match["dialect"]] = entry.read_text(encoding="utf-8")
    for version in RESERVED:
        if version not in scripts and any(v > version for v in scripts):
            names[version] = "reserved"
            scripts[version] = {"sqlite": "SELECT 1;\n", "pg": "SELECT 1;\n"}
    versions = sorted(scripts)
    if versions != list(range(1, len(versions) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..n without gaps, found {versions}")
    migrations = []
    for version in versions:
        both = scripts[version]
        if set(both) != {"sqlite", "pg"}:
            raise RuntimeError(f"migration {version} needs a .sqlite.sql and a .pg.sql file")
        migrations.append(Migration(version, names[version], both["sqlite"], both["pg"]))
    return tuple(migrations)


MIGRATIONS: Final = load_migrations()
SCHEMA_VERSION: Final = len(MIGRATIONS)
