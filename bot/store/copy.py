"""Copy a SQLite database into PostgreSQL, then verify the copy row by row.

Usage (stop the bot first, so the SQLite file does not change meanwhile)::

    PGPASSWORD=... python -m bot.store.copy data/backgammon.sqlite3 postgresql://bg@dbhost:5432/bg
    python -m bot.store.copy --verify-only data/backgammon.sqlite3 postgresql://bg@dbhost:5432/bg

(``scripts/copy_sqlite_to_postgres.py`` is the same command.) The target's
password comes from ``PGPASSWORD`` or ``~/.pgpass``, or the target is the
``DATABASE_URL`` environment variable when left out: never the command line,
where ``ps`` and the shell's history would show it (a URL with a password
there is refused).

* The SQLite database is first brought to the current schema, exactly as the
  bot does when it starts; the PostgreSQL database is created from the same
  numbered migrations.  The target must be empty (freshly created database):
  the command refuses to merge into existing data.
* Every table of the schema is either copied (:data:`TABLES`) or skipped on
  purpose (:data:`SKIPPED`, with the reason); a test holds this for every
  table the migrations make. The copy keeps the ids, in one PostgreSQL
  transaction (all or nothing); the identity sequences are moved past the
  highest copied id.
* Verification compares every row of every copied table, in primary key
  order, and then every game and its action log as the service reads them
  (``GameStore.with_actions``).  The exit status is 0 only if all match.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from bot.store import open_store
from bot.store.drivers.url import parse_database_url, redact, secrets_of

TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("players", ("user_id",)),
    ("guild_settings", ("guild_id",)),
    ("games", ("id",)),
    ("actions", ("game_id", "seq")),
    ("game_snapshots", ("game_id",)),
    ("game_summaries", ("game_id",)),
    ("challenges", ("id",)),
    ("ratings", ("scope", "user_id")),
    ("rating_history", ("id",)),
    ("game_analyses", ("game_id", "game_number")),
    ("outbox", ("id",)),
    ("heartbeats", ("shard_count", "shard_id")),
    ("patience_deals", ("guild_id", "day")),
    ("patience_attempts", ("id",)),
    ("vacations", ("id",)),
    ("tournaments", ("id",)),
    ("tournament_entrants", ("tournament_id", "user_id")),
    ("tournament_pairings", ("id",)),
    ("puzzles", ("id",)),
    ("puzzle_answers", ("puzzle_id", "user_id")),
    ("puzzle_scores", ("guild_id", "user_id")),
    ("drills", ("id",)),
    ("dice_counts", ("user_id", "guild_id", "hi", "lo")),
    ("clock_credits", ("id",)),
    ("ratings_plakoto", ("scope", "user_id")),
    ("ratings_fevga", ("scope", "user_id")),
    ("ratings_nardy", ("scope", "user_id")),
    ("ratings_tavli", ("scope", "user_id")),
    ("kibitzer_polls", ("game_id", "version")),
    ("kibitzer_votes", ("game_id", "version", "user_id")),
    ("chouettes", ("id",)),
    ("consultation_votes", ("game_id", "version")),
    ("consultation_ballots", ("game_id", "version", "user_id")),
)
"""Copied tables in foreign-key order, with their primary keys."""

SKIPPED: dict[str, str] = {
    "sqlite_sequence": "SQLite's own record of AUTOINCREMENT ids; the identity sequences are moved past the copied ids",
    "schema_version": "PostgreSQL's record of the migrations applied, written by the target's own migrations",
}
"""Tables of either schema that are not copied, and why."""

IDENTITY_TABLES = (
    "games",
    "challenges",
    "rating_history",
    "outbox",
    "patience_attempts",
    "vacations",
    "tournaments",
    "tournament_pairings",
    "puzzles",
    "drills",
    "clock_credits",
    "chouettes",
)


class CopyError(Exception):
    """The copy cannot start (bad arguments, target not empty, ...)."""


@dataclass
class CopyReport:
    """What was copied and what the verification found."""

    rows: dict[str, int] = field(default_factory=dict)
    games_checked: int = 0
    actions_checked: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def summary(self) -> str:
        lines = [f"  {table:15} {count:>9} rows" for table, count in self.rows.items()]
        lines.append(f"  verified {self.games_checked} games and {self.actions_checked} actions via the store")
        if self.ok:
            lines.append("  every row matches")
        else:
            lines.append(f"  {len(self.mismatches)} MISMATCHES:")
            lines += [f"    {m}" for m in self.mismatches[:50]]
        return "\n".join(lines)


def _sqlite_path(source: str) -> str:
    target = parse_database_url(source)
    if target.backend != "sqlite":
        raise CopyError(f"the source must be a SQLite database, not {redact(source)}")
    if target.location == ":memory:":
        raise CopyError("the source cannot be :memory:")
    return target.location


def _pg_dsn(dest: str) -> str:
    try:
        target = parse_database_url(dest)
    except ValueError as exc:
        raise CopyError(str(exc)) from None
    if target.backend != "postgresql":
        raise CopyError(f"the target must be a postgresql:// URL, not {redact(dest)}")
    return target.location


async def _pg_columns(conn: Any, table: str) -> list[tuple[str, str]]:
    rows = await conn.fetch(
        """
        SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = $1
        ORDER BY ordinal_position
        """,
        table,
    )
    return [(r["column_name"], r["data_type"]) for r in rows]


def _converter(pg_type: str) -> Any:
    if pg_type == "double precision":
        return lambda v: None if v is None else float(v)
    if pg_type in ("bigint", "integer", "smallint"):
        return lambda v: None if v is None else int(v)
    return lambda v: v


def _read_sqlite(
    con: sqlite3.Connection, table: str, columns: Sequence[str], key: Sequence[str]
) -> list[tuple[Any, ...]]:
    cols = ", ".join(columns)
    order = ", ".join(key)
    return [tuple(r) for r in con.execute(f"SELECT {cols} FROM {table} ORDER BY {order}")]


async def copy_sqlite_to_postgres(source: str, dest: str) -> CopyReport:
    """Copy ``source`` (SQLite path or ``sqlite:///`` URL) into ``dest`` (``postgresql://``) and verify."""
    path = _sqlite_path(source)
    dsn = _pg_dsn(dest)
    # Bring both to the current schema (the same numbered migrations).
    await (await open_store(path)).close()
    await (await open_store(dsn, min_size=0, max_size=1)).close()

    report = CopyReport()
    con = sqlite3.connect(path, isolation_level=None)
    conn = await asyncpg.connect(dsn)
    try:
        con.execute("BEGIN")  # one consistent snapshot of the source
        for table, _ in TABLES:
            if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
                raise CopyError(f"the target database is not empty (table {table} has rows); use a new database")
        async with conn.transaction():
            for table, key in TABLES:
                pg_cols = await _pg_columns(conn, table)
                lite_cols = {r[1] for r in con.execute(f"PRAGMA table_info({table})")}
                missing = [c for c, _ in pg_cols if c not in lite_cols]
                if missing:
                    raise CopyError(f"{table}: columns {missing} are missing in the SQLite database")
                names = [c for c, _ in pg_cols]
                convert = [_converter(t) for _, t in pg_cols]
                rows = _read_sqlite(con, table, names, key)
                records = [tuple(f(v) for f, v in zip(convert, row)) for row in rows]
                if records:
                    await conn.copy_records_to_table(table, records=records, columns=names)
                report.rows[table] = len(records)
            for table in IDENTITY_TABLES:
                await conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
                )
    finally:
        if con.in_transaction:
            con.execute("ROLLBACK")
        con.close()
        await conn.close()
    report.mismatches = (await verify_copy(source, dest, report)).mismatches
    return report


async def verify_copy(source: str, dest: str, report: CopyReport | None = None) -> CopyReport:
    """Compare every row of every table, then every game and its log through the store."""
    path = _sqlite_path(source)
    dsn = _pg_dsn(dest)
    report = report or CopyReport()
    con = sqlite3.connect(path, isolation_level=None)
    conn = await asyncpg.connect(dsn)
    try:
        con.execute("BEGIN")
        for table, key in TABLES:
            pg_cols = await _pg_columns(conn, table)
            names = [c for c, _ in pg_cols]
            convert = [_converter(t) for _, t in pg_cols]
            lite = [tuple(f(v) for f, v in zip(convert, row)) for row in _read_sqlite(con, table, names, key)]
            order = ", ".join(key)
            pg = [tuple(r) for r in await conn.fetch(f"SELECT {', '.join(names)} FROM {table} ORDER BY {order}")]
            report.rows.setdefault(table, len(lite))
            if len(lite) != len(pg):
                report.mismatches.append(f"{table}: {len(lite)} rows in SQLite, {len(pg)} in PostgreSQL")
            for a, b in zip(lite, pg):
                if a != b:
                    diff = {n: (x, y) for n, x, y in zip(names, a, b) if x != y}
                    report.mismatches.append(f"{table} {dict(zip(key, a[: len(key)]))}: {diff}")
                    if len(report.mismatches) > 1000:
                        return report
        con.execute("ROLLBACK")
    finally:
        con.close()
        await conn.close()

    # Every game and its action log, read the way the service reads them.
    async with await open_store(path) as lite_store, await open_store(dsn, min_size=1, max_size=2) as pg_store:
        game_ids = [r["id"] for r in await lite_store.db.fetchall("SELECT id FROM games ORDER BY id")]
        for game_id in game_ids:
            lite_game, lite_log = await lite_store.games.with_actions(game_id)
            pg_game, pg_log = await pg_store.games.with_actions(game_id)
            if lite_game != pg_game:
                report.mismatches.append(f"game {game_id}: {lite_game} != {pg_game}")
            if lite_log != pg_log:
                report.mismatches.append(f"game {game_id}: action logs differ")
            report.games_checked += 1
            report.actions_checked += len(lite_log)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.store.copy",
        description="Copy the bot's SQLite database into an empty PostgreSQL database and verify it.",
    )
    parser.add_argument("source", help="SQLite path or sqlite:/// URL (stop the bot first)")
    parser.add_argument(
        "dest",
        nargs="?",
        help=(
            "postgresql://user@host:port/dbname, an empty database; the password comes from PGPASSWORD or "
            "~/.pgpass, never the command line (default: the DATABASE_URL environment variable)"
        ),
    )
    parser.add_argument("--verify-only", action="store_true", help="only compare the two databases")
    args = parser.parse_args(argv)
    if args.dest is None:
        args.dest = os.environ.get("DATABASE_URL", "")
        if not args.dest:
            parser.error("give the target postgresql:// URL, or set DATABASE_URL in the environment")
    elif secrets_of(args.dest):
        print(
            f"error: {redact(args.dest)} has a password on the command line, where ps and the shell's history "
            "show it: leave it out of the URL and put it in PGPASSWORD or ~/.pgpass "
            "(or pass the whole URL as the DATABASE_URL environment variable)",
            file=sys.stderr,
        )
        return 2
    try:
        if args.verify_only:
            report = asyncio.run(verify_copy(args.source, args.dest))
        else:
            report = asyncio.run(copy_sqlite_to_postgres(args.source, args.dest))
    except CopyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    action = "compared" if args.verify_only else "copied"
    print(f"{action} {args.source} -> {redact(args.dest)}")
    print(report.summary())
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
