"""The migrations: numbered SQL files, the same schema on both dialects."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.store import MIGRATIONS, SCHEMA_VERSION, open_store
from bot.store.schema import load_migrations

MIGRATIONS_DIR = Path(__file__).resolve().parents[3] / "bot" / "store" / "migrations"


@pytest.fixture
def pg_url(pg_server) -> Iterator[str]:
    name, url = pg_server.create_database()
    try:
        yield url
    finally:
        pg_server.drop_database(name)


def test_every_version_has_both_dialects_in_order() -> None:
    files = sorted(p.name for p in MIGRATIONS_DIR.glob("*.sql"))
    versions = sorted({int(name[:4]) for name in files})
    assert versions == list(range(1, SCHEMA_VERSION + 1))
    for version in versions:
        dialects = {re.sub(r"^\d{4}_[a-z0-9_]+\.", "", n) for n in files if n.startswith(f"{version:04d}_")}
        assert dialects == {"sqlite.sql", "pg.sql"}
    assert [m.version for m in MIGRATIONS] == versions
    assert load_migrations() == MIGRATIONS


async def _sqlite_schema(path: str) -> dict[str, Any]:
    async with await open_store(path) as store:
        rows = await store.db.fetchall(
            "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        tables: dict[str, set[str]] = {r["name"]: set() for r in rows if r["type"] == "table"}
        for table in tables:
            tables[table] = {c["name"] for c in await store.db.fetchall(f"PRAGMA table_info({table})")}
        indexes = {r["name"]: r["tbl_name"] for r in rows if r["type"] == "index"}
        triggers = {r["name"] for r in rows if r["type"] == "trigger"}
    return {"tables": tables, "indexes": indexes, "triggers": triggers}


async def _pg_schema(url: str) -> dict[str, Any]:
    await (await open_store(url)).close()
    conn = await asyncpg.connect(url)
    try:
        columns = await conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'"
        )
        tables: dict[str, set[str]] = {}
        for r in columns:
            tables.setdefault(r["table_name"], set()).add(r["column_name"])
        tables.pop("schema_version")  # PostgreSQL keeps the version in a table; SQLite in a pragma
        index_rows = await conn.fetch("SELECT indexname, tablename FROM pg_indexes WHERE schemaname = 'public'")
        # Primary keys and UNIQUE constraints are indexes of their own on PostgreSQL
        # and automatic ones ("sqlite_autoindex_...") on SQLite: compare the named ones.
        indexes = {r["indexname"]: r["tablename"] for r in index_rows if not r["indexname"].endswith(("_pkey", "_key"))}
        triggers = {
            r["trigger_name"]
            for r in await conn.fetch(
                "SELECT DISTINCT trigger_name FROM information_schema.triggers WHERE trigger_schema = 'public'"
            )
        }
    finally:
        await conn.close()
    return {"tables": tables, "indexes": indexes, "triggers": triggers}


async def test_both_dialects_make_the_same_tables_columns_and_indexes(tmp_path: Path, pg_url: str) -> None:
    lite = await _sqlite_schema(str(tmp_path / "bg.sqlite3"))
    pg = await _pg_schema(pg_url)
    assert lite["tables"] == pg["tables"]
    assert lite["indexes"] == pg["indexes"]
    assert lite["triggers"] == pg["triggers"]
    assert {"players", "games", "actions", "challenges", "ratings", "rating_history"} <= set(lite["tables"])
