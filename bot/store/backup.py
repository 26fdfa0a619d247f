"""Online backups of a SQLite store: ``python -m bot backup DEST [--keep N]``.

A copy of the ``.sqlite3`` file alone is not a backup: the store runs in WAL
mode, and the newest commits (after a start, often all of them) are still in
the ``-wal`` file beside it. This module copies through SQLite's backup API
instead, on a connection of its own, while the bot goes on playing:

* the copy is one consistent state: the source connection holds a read
  transaction from the first page to the last, so the copy holds every game
  committed before it began, and the bot's commits meanwhile (WAL lets them
  go on) neither restart it nor end up half in it;
* pages are copied :data:`PAGES_PER_STEP` at a time with a short sleep
  between steps, so the copy does not take the disk from the bot;
* the copy is written beside its destination, checked with ``PRAGMA
  integrity_check``, synced, and only then renamed into place: a failed or
  interrupted backup never replaces a good one.

DEST is a file, or a folder (an existing one, or a path ending in ``/``):
then each backup gets a timestamped name, and ``--keep N`` keeps the newest
N of them. PostgreSQL stores are backed up with ``pg_dump -Fc`` (see
``docs/backups.md``). :func:`snapshot_before_migration` uses the same copy
to keep the store as it was before a migration runs.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

PAGES_PER_STEP: Final = 1000
"""Pages copied per step (4 MiB at SQLite's default page size)."""
STEP_PAUSE: Final = 0.005
"""Seconds slept between two steps, leaving the disk to the bot."""
EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
"""The copy failed its integrity check, or could not be written."""
EXIT_USAGE: Final = 2
"""Bad arguments, no such store, or a PostgreSQL store (pg_dump's job)."""

PG_DUMP_HELP: Final = (
    "the store is PostgreSQL: back it up with pg_dump, e.g. "
    "`pg_dump -Fc -f backgammon.dump postgresql://bg@dbhost/bg` (password from PGPASSWORD or ~/.pgpass), "
    "and restore with `pg_restore -d postgresql://bg@dbhost/newdb backgammon.dump`; see docs/backups.md"
)

_STAMP_FORMAT: Final = "%Y%m%dT%H%M%SZ"
_STAMPED: Final = re.compile(r"-(\d{8}T\d{6}Z)(?:-\d+)?\.sqlite3$")


class BackupError(Exception):
    """The backup could not be made; the message says why (no partial copy is left)."""

    def __init__(self, message: str, *, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage
        """True for a bad request (no such store, bad destination), False for a failed copy."""


@dataclass(frozen=True, slots=True)
class BackupResult:
    path: Path
    """The finished copy."""
    pages: int
    schema_version: int
    """``PRAGMA user_version`` of the copy: the store's schema when the copy began."""
    seconds: float
    removed: tuple[Path, ...] = ()
    """Older backups removed by ``--keep``."""


def _connect(path: str, *, uri: bool) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None, uri=uri, check_same_thread=False)


def copy_database(
    source: sqlite3.Connection,
    dest: str | os.PathLike[str],
    *,
    pages: int = PAGES_PER_STEP,
    pause: float = STEP_PAUSE,
) -> tuple[int, int]:
    """Copy the database ``source`` is connected to into the file ``dest``
    (written beside it first, renamed into place once it passes ``PRAGMA
    integrity_check``); returns ``(pages, schema version)`` of the copy.

    ``source`` must be outside any transaction: it holds a read transaction
    for the whole copy, so the copy is the state of the store when it began.

    :raises BackupError: the copy failed its integrity check or could not be written.
    """
    final = Path(dest)
    # A name of this copy's own: processes starting together may each copy the same store
    # before migrating it, and one must never unlink or overwrite the file another writes.
    partial = final.with_name(f"{final.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
    target = sqlite3.connect(partial, isolation_level=None)
    try:
        source.execute("BEGIN")
        try:
            # the read transaction starts at the first read: from here on, the copy's state is fixed
            source.execute("SELECT count(*) FROM sqlite_master").fetchone()
            source.backup(target, pages=pages, sleep=pause)
        finally:
            source.execute("ROLLBACK")
        # a copy of a WAL store is in WAL mode: fold it into one self-contained file
        target.execute("PRAGMA journal_mode = DELETE")
        check = [str(row[0]) for row in target.execute("PRAGMA integrity_check").fetchall()]
        if check != ["ok"]:
            raise BackupError(f"the copy failed its integrity check: {'; '.join(check[:5])}")
        version = int(target.execute("PRAGMA user_version").fetchone()[0])
        count = int(target.execute("PRAGMA page_count").fetchone()[0])
    except sqlite3.Error as exc:
        target.close()
        partial.unlink(missing_ok=True)
        raise BackupError(f"the copy could not be made: {exc}") from exc
    except BaseException:
        target.close()
        partial.unlink(missing_ok=True)
        raise
    target.close()
    with open(partial, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(partial, final)
    _sync_folder(final.parent)
    return count, version


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def backup_sqlite(
    source: str,
    dest: str | os.PathLike[str],
    *,
    keep: int | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    pages: int = PAGES_PER_STEP,
    pause: float = STEP_PAUSE,
) -> BackupResult:
    """Back the SQLite store at ``source`` (a path or a ``file:`` URI) up into ``dest``.

    ``dest`` an existing folder, or a path ending in ``/``: a timestamped file
    in it (``backgammon-20250101T120000Z.sqlite3``), and with ``keep`` only the
    newest ``keep`` such files of this store are kept. Otherwise ``dest`` is
    the file to write (replaced once the new copy is good).

    :raises BackupError: no such store, bad destination, or a failed copy.
    """
    uri = source.startswith("file:")
    if not uri and not Path(source).is_file():
        raise BackupError(f"no SQLite store at {source}", usage=True)
    text = os.fspath(dest)
    folder_given = text.endswith(("/", os.sep)) or Path(text).is_dir()
    if keep is not None and keep < 1:
        raise BackupError("--keep must be at least 1", usage=True)
    if keep is not None and not folder_given:
        raise BackupError("--keep needs a folder as DEST (each backup gets a timestamped name there)", usage=True)
    stem = Path(source.split("?", 1)[0].removeprefix("file:")).stem or "backgammon"
    if folder_given:
        folder = Path(text)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{stem}-{now().strftime(_STAMP_FORMAT)}"
        final = folder / f"{name}.sqlite3"
        serial = 1
        while final.exists():  # two backups in one second
            serial += 1
            final = folder / f"{name}-{serial}.sqlite3"
    else:
        final = Path(text)
        if not final.parent.is_dir():
            raise BackupError(f"no folder {final.parent} for the backup", usage=True)
        if not uri and final.resolve() == Path(source).resolve():
            raise BackupError("the backup cannot replace the store itself", usage=True)
    started = time.monotonic()
    conn = _connect(source, uri=uri)
    try:
        count, version = copy_database(conn, final, pages=pages, pause=pause)
    finally:
        conn.close()
    removed: tuple[Path, ...] = ()
    if keep is not None:
        removed = rotate(final.parent, stem, keep)
    return BackupResult(final, count, version, time.monotonic() - started, removed)


def rotate(folder: Path, stem: str, keep: int) -> tuple[Path, ...]:
    """Remove all but the newest ``keep`` timestamped backups of ``stem`` in ``folder``
    (only files named as :func:`backup_sqlite` names them); returns those removed."""
    found = []
    for entry in folder.iterdir():
        if not entry.name.startswith(stem + "-") or not entry.is_file():
            continue
        match = _STAMPED.search(entry.name)
        if match is None or entry.name[: match.start()] != stem:
            continue
        found.append((match.group(1), entry.stat().st_mtime_ns, entry.name, entry))
    found.sort(reverse=True)
    removed = tuple(item[-1] for item in found[keep:])
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def snapshot_path(path: str, version: int) -> Path:
    """Where :func:`snapshot_before_migration` keeps a store at schema ``version``."""
    return Path(f"{path}.pre-migration-{version}")


def snapshot_before_migration(conn: sqlite3.Connection, path: str, version: int) -> Path:
    """Copy the store ``conn`` is open on (at schema ``version``, about to be
    migrated) beside it, as ``<store>.pre-migration-<version>``: an upgrade
    that goes wrong can go back to it. A snapshot already there for this
    version (a migration that failed and is being tried again) is kept: it is
    the store as it was before the first try."""
    final = snapshot_path(path, version)
    if final.exists():
        return final
    copy_database(conn, final, pause=0)
    return final


# ---------------------------------------------------------------- the command


def main(argv: Sequence[str], locate: Callable[[], str]) -> int:
    """``python -m bot backup DEST [--keep N]``: back up the store ``locate()`` names
    (the settings' ``DATABASE_URL`` or ``DATABASE_PATH``; a ``ValueError`` says what is wrong with them)."""
    from bot.store.drivers.url import parse_database_url

    parser = argparse.ArgumentParser(
        prog="python -m bot backup",
        description=(
            "Back up the bot's SQLite store while the bot runs (SQLite's backup API, then an integrity check). "
            "The store is the one DATABASE_URL or DATABASE_PATH names (environment or .env)."
        ),
    )
    parser.add_argument("dest", help="the backup file, or a folder (each backup gets a timestamped name there)")
    parser.add_argument("--keep", type=int, metavar="N", help="with a folder: keep only the newest N backups")
    args = parser.parse_args(argv)
    try:
        where = parse_database_url(locate())
    except ValueError as error:
        print(f"bot backup: {error}", file=sys.stderr)
        return EXIT_USAGE
    if where.backend != "sqlite":
        print(f"bot backup: {PG_DUMP_HELP}", file=sys.stderr)
        return EXIT_USAGE
    if where.location == ":memory:":
        print("bot backup: the store is :memory:, nothing to back up", file=sys.stderr)
        return EXIT_USAGE
    if hasattr(os, "nice"):
        try:
            os.nice(10)  # the copy and its check yield the CPU to the bot's own process
        except OSError:
            pass
    try:
        result = backup_sqlite(where.location, args.dest, keep=args.keep)
    except BackupError as error:
        print(f"bot backup: {error}", file=sys.stderr)
        return EXIT_USAGE if error.usage else EXIT_FAILED
    print(
        f"backed up {where.location} to {result.path}: {result.pages} pages, schema {result.schema_version}, "
        f"integrity ok, {result.seconds:.1f} s"
    )
    for path in result.removed:
        print(f"removed the older backup {path}")
    return EXIT_OK
