"""Which bot process serves which guilds: Discord's shard rule, in Python and in SQL;
and, on PostgreSQL, that no two processes run one shard (:func:`claim_shards`) and
which shards nobody runs (:func:`unrun_shards`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import asyncpg

from bot.store.database import Database
from bot.store.errors import DatabaseUnavailableError, StorageError

log = logging.getLogger(__name__)

Shard = tuple[int, tuple[int, ...]]
"""(shard count, shard ids): the Discord shards one bot process serves."""

ORPHAN_AFTER: Final = 300.0
"""Seconds after which due work of other shards is taken over (their process may be down)."""

SHARD_SQL: Final = "(guild_id / 4194304) % ?"
""":func:`shard_of` in SQL (``guild_id >> 22`` is ``guild_id / 2**22`` for ids, which are positive)."""


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard that receives a guild's events, as Discord assigns them:
    ``(guild_id >> 22) % shard_count`` (direct messages, guild 0, go to shard 0)."""
    return (guild_id >> 22) % shard_count


def serves(shard: Shard | None, guild_id: int | None) -> bool:
    """Whether a process running ``shard`` (None: all of them) receives this guild's events."""
    return shard is None or shard_of(guild_id or 0, shard[0]) in shard[1]


def shard_clause(shard: Shard | None, column: str, ts: float) -> tuple[str, tuple[float | int, ...]]:
    """SQL keeping rows of guilds on ``shard``, and rows of other shards overdue
    by :data:`ORPHAN_AFTER` on ``column`` (claims keep the work to once)."""
    if shard is None:
        return "", ()
    count, ids = shard
    if count < 1 or not ids:
        raise ValueError("a shard filter needs a shard count and at least one shard id")
    marks = ", ".join("?" for _ in ids)
    return (
        f" AND (({SHARD_SQL}) IN ({marks}) OR {column} <= ?)",
        (count, *ids, ts - ORPHAN_AFTER),
    )


def deadline_clause(shard: Shard | None, ts: float) -> tuple[str, tuple[float | int, ...]]:
    """:func:`shard_clause` for turn deadlines: another shard's are taken over only
    while that shard is run (a heartbeat in the last :data:`LIVE_HEARTBEAT` seconds),
    its process slow rather than gone. A shard nobody runs answers none of its
    players' clicks: they cannot move, so their deadlines wait, and its outage is
    credited to their clocks when it comes back (until then they wait too)."""
    if shard is None:
        return "", ()
    count, ids = shard
    if count < 1 or not ids:
        raise ValueError("a shard filter needs a shard count and at least one shard id")
    marks = ", ".join("?" for _ in ids)
    return (
        f" AND (({SHARD_SQL}) IN ({marks}) OR (turn_deadline <= ? AND {_RUN_SQL}))",
        (count, *ids, ts - ORPHAN_AFTER, *_run_params(count, ts)),
    )


def _run_params(count: int, ts: float) -> tuple[float | int, ...]:
    return (count, count, ts - LIVE_HEARTBEAT, count, count)


def run_clause(count: int, ts: float) -> tuple[str, tuple[float | int, ...]]:
    """SQL keeping the games of guilds on shards that are run at ``ts`` (under ``count``
    shards), their outages credited to their clocks."""
    return f" AND {_RUN_SQL}", _run_params(count, ts)


# -- processes and their shards (PostgreSQL) --------------------------------------------

SHARD_LOCK: Final = 0x6267_7368  # "bgsh": advisory lock key of the shards (the shard id is the second key)
LIVE_HEARTBEAT: Final = 90.0
"""Seconds within which a heartbeat shows its shard is run (beats come every 30 s,
as :data:`bot.core.deadlines.HEARTBEAT`; :data:`bot.core.deadlines.STALE_AFTER` is this)."""
_RUN_SQL: Final = (
    "EXISTS (SELECT 1 FROM heartbeats WHERE heartbeats.shard_count = ? "
    f"AND heartbeats.shard_id = {SHARD_SQL} AND heartbeats.seen_at >= ?) "
    "AND NOT EXISTS (SELECT 1 FROM clock_credits WHERE clock_credits.shard_count = ? "
    f"AND clock_credits.shard_id = {SHARD_SQL})"
)
"""The row's guild is on a shard that is run (a live heartbeat under the shard count
given) and whose games' clocks are not owed an outage still (until they are credited,
its deadlines are early)."""
WAIT_LOG_EVERY: Final = 60.0
"""Seconds between two log lines of a process waiting for its shards."""
WAIT_POLL: Final = 2.0
LOCK_CHECK_EVERY: Final = 30.0
"""Seconds between two looks at the connection holding the shards' locks."""
TAKEN_LOG_EVERY: Final = 600.0
"""Seconds between two log lines while another process runs one of this process's shards."""
"""Seconds between two tries at the shards' locks while waiting."""


class ShardConflictError(StorageError):
    """This process cannot run its shards now: another process runs them, or the
    processes disagree on ``SHARD_COUNT``. The message says which and what to do."""


class ShardsTakenError(ShardConflictError):
    """Another process holds the lock of one of this process's shards."""


class ShardCountMismatchError(ShardConflictError):
    """Live heartbeats were written under another ``SHARD_COUNT``."""


@dataclass(frozen=True, slots=True)
class UnrunShard:
    """A shard nobody runs: no heartbeat, or none for :data:`LIVE_HEARTBEAT` seconds."""

    shard_count: int
    shard_id: int
    seen_at: float | None
    """When its last heartbeat was written (Unix seconds), None if never."""


class ShardLocks:
    """The shards' advisory locks held by this process: session-level locks on a
    connection of their own (not the pool's), so they last as long as the
    process; PostgreSQL frees them when that connection closes or dies.

    A connection lost (the server restarted, the network cut) loses its locks:
    a watch every ``check_every`` seconds notices, connects again and takes them
    again; if another process took one meanwhile, two processes run that shard,
    and it says so in the log (an error, then every :data:`TAKEN_LOG_EVERY`)."""

    def __init__(
        self, conn: Any, shard_ids: tuple[int, ...], dsn: str, *, check_every: float = LOCK_CHECK_EVERY
    ) -> None:
        self._conn: Any = conn
        self.shard_ids = shard_ids
        self._dsn = dsn
        self.check_every = check_every
        self.held = True
        """Whether this process holds every one of its shards' locks now."""
        self._watch: asyncio.Task[None] | None = None
        self._closed = False
        self._taken_logged_at = -TAKEN_LOG_EVERY

    def watch(self) -> None:
        """Start watching the locks' connection (on the running loop)."""
        if self._watch is None:
            self._watch = asyncio.create_task(self._keep(), name="bg-shard-locks")

    async def _keep(self) -> None:
        while not self._closed:
            await asyncio.sleep(self.check_every)
            await self.check()

    async def check(self) -> bool:
        """One look: whether the locks are still held, taken again if their connection was
        lost and nobody took them meanwhile (the watch's step; ``python -m bot check``'s too)."""
        if self.held:
            try:
                await self._conn.fetchval("SELECT 1", timeout=10)
                return True
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - any failure: the session, and its locks, may be gone
                log.warning("lost the connection holding the locks of shard %s; taking them again", _names(self))
                self.held = False
                self._conn.terminate()
        try:
            conn = await asyncpg.connect(self._dsn, timeout=10)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the database is away: try again on the next look
            return False
        taken = await _try_locks(conn, self.shard_ids)
        if taken:
            await conn.close()
            if time.monotonic() - self._taken_logged_at >= TAKEN_LOG_EVERY:
                self._taken_logged_at = time.monotonic()
                log.error(
                    "shard %s was taken by another process while this one's database connection was lost: "
                    "two processes run it now; stop one of them",
                    ", ".join(str(i) for i in taken),
                )
            return False
        self._conn, self.held = conn, True
        log.info("the locks of shard %s are held again", _names(self))
        return True

    async def close(self) -> None:
        """Let the shards go (idempotent): the connection closes, and its locks with it."""
        self._closed = True
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
        conn, self._conn = self._conn, None
        self.held = False
        if conn is not None:
            try:
                await conn.close(timeout=5)
            except Exception:  # noqa: BLE001 - a dead connection holds no locks either
                conn.terminate()


def _names(locks: ShardLocks) -> str:
    return ", ".join(str(i) for i in locks.shard_ids)


async def claim_shards(
    db: Database,
    shard: Shard | None,
    *,
    shard_count: int | None = None,
    wait: bool = True,
    poll: float = WAIT_POLL,
    log_every: float = WAIT_LOG_EVERY,
    check_every: float = LOCK_CHECK_EVERY,
) -> ShardLocks | None:
    """Make sure no other process runs this process's shards, on PostgreSQL (None on SQLite).

    The process runs ``shard`` (its ``(SHARD_COUNT, SHARD_IDS)``), or with None
    every shard of ``shard_count`` (1 when unsharded). It takes a session-level
    advisory lock per shard on a connection of its own and keeps them until
    :meth:`ShardLocks.close`. When another process holds one: with ``wait`` it
    tries again every ``poll`` seconds (a log line every ``log_every``) and
    returns once that process is gone; without, it raises :class:`ShardsTakenError`.
    Then, holding them, it refuses (:class:`ShardCountMismatchError`) if a
    heartbeat from the last :data:`LIVE_HEARTBEAT` seconds was written under
    another shard count: processes with different ``SHARD_COUNT`` would split
    the guilds differently, and two would serve some guilds.
    """
    if db.backend != "postgresql":
        return None

    ids = tuple(shard[1]) if shard is not None else tuple(range(shard_count or 1))
    beats_under = shard[0] if shard is not None else 1  # how this process's heartbeats are written
    try:
        conn = await asyncpg.connect(db.path, timeout=10, server_settings={"application_name": "discord-backgammon"})
    except Exception as exc:
        raise DatabaseUnavailableError() from exc
    locks = ShardLocks(conn, ids, db.path, check_every=check_every)
    try:
        waited_since = time.monotonic()
        next_log = waited_since
        while True:
            taken = await _try_locks(conn, ids)
            if not taken:
                break
            names = ", ".join(str(i) for i in taken)
            if not wait:
                raise ShardsTakenError(
                    f"shard {names} is already run by another process (SHARD_IDS overlap, or that process is "
                    "still stopping); stop it, or leave SHARD_WAIT on to start once it is gone"
                )
            if time.monotonic() >= next_log:
                log.warning(
                    "shard %s is run by another process: waiting for it to stop (%.0f s so far)",
                    names,
                    time.monotonic() - waited_since,
                )
                next_log = time.monotonic() + log_every
            await asyncio.sleep(poll)
        now = db.now()
        live = await conn.fetch(
            "SELECT DISTINCT shard_count FROM heartbeats WHERE shard_count <> $1 AND seen_at >= $2 ORDER BY 1",
            beats_under,
            now - LIVE_HEARTBEAT,
        )
        if live:
            counts = ", ".join(str(r["shard_count"]) for r in live)
            mine = f"SHARD_COUNT={beats_under}" if shard is not None else "one process for every shard"
            raise ShardCountMismatchError(
                f"other processes run with SHARD_COUNT={counts} (heartbeats of the last {LIVE_HEARTBEAT:.0f} s), "
                f"this one with {mine}: every process needs the same SHARD_COUNT and SHARD_IDS that do not "
                f"overlap; to change the count, stop them all and start again {LIVE_HEARTBEAT:.0f} s later"
            )
    except BaseException:
        await locks.close()
        raise
    locks.watch()
    return locks


async def _try_locks(conn: Any, ids: Sequence[int]) -> list[int]:
    """Try every shard's lock; all or none are kept (two processes each holding part
    of the other's shards would wait for each other). Returns the shards taken by others."""
    got: list[int] = []
    taken: list[int] = []
    for shard_id in ids:
        if await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", SHARD_LOCK, shard_id):
            got.append(shard_id)
        else:
            taken.append(shard_id)
    if taken:
        for shard_id in got:
            await conn.fetchval("SELECT pg_advisory_unlock($1, $2)", SHARD_LOCK, shard_id)
    return taken


async def unrun_shards(db: Database, *, now: float | None = None) -> list[UnrunShard]:
    """The shards nobody runs: of the shard count with the newest heartbeat, each
    shard without a heartbeat in the last :data:`LIVE_HEARTBEAT` seconds (never
    seen, or its process stopped or cut off from Discord). An empty list when all
    are run, or when no process ever beat. For ``python -m bot check``."""
    rows = await db.fetchall("SELECT shard_count, shard_id, seen_at FROM heartbeats")
    if not rows:
        return []
    ts = db.now() if now is None else now
    newest = max(rows, key=lambda r: r["seen_at"])
    count = int(newest["shard_count"])
    seen = {int(r["shard_id"]): float(r["seen_at"]) for r in rows if int(r["shard_count"]) == count}
    return [
        UnrunShard(count, shard_id, seen.get(shard_id))
        for shard_id in range(count)
        if seen.get(shard_id) is None or seen[shard_id] < ts - LIVE_HEARTBEAT
    ]
