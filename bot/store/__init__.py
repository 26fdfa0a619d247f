"""Persistence for the bot: SQLite (aiosqlite, the embedded default) or PostgreSQL (asyncpg).

The unit of storage is a *game* row: one match in one channel (a money game
is a match of length 0 holding a single game), with an append-only,
numbered *action log* of small JSON dicts that the engine replays. One
repository per concern sits on one :class:`~bot.store.database.Database`::

    store = await open_store("data/backgammon.sqlite3")   # or postgresql://...
    row = await store.games.get(7)
    await store.games.append(7, row.version, [{"kind": "roll", "player": 0, "dice": [6, 5]}])

- ``store.players``: who the bot has seen, and their names;
- ``store.games``: games and their logs, the compare-and-set append;
- ``store.challenges``: invitations, pending until answered;
- ``store.ratings``: leaderboards and each player's standing;
- ``store.schedule``: deadlines, reminders and expiries that fall due, and
  heartbeats (downtime is added to deadlines);
- ``store.stats``: dice statistics, the computer's record, analyses;
- ``store.summaries``: what each finished game left behind (its card, logs, exports);
- ``store.outbox``: messages owed to players until they are delivered;
- ``store.patience``: Serpent Poker Patience, the daily deals and the members' layouts;
- ``store.members``: notification preferences, digests and vacations;
- ``store.servers``: each server's settings (one merge under a lock for every writer);
- ``store.languages``: the language each member reads;
- ``store.tournaments``: tournaments, their entrants, rounds and tables;
- ``store.puzzles``: the servers' puzzles, answers and streaks, the members' drills.

The schema is in ``migrations/`` (numbered SQL files, one per dialect);
the drivers in :mod:`bot.store.drivers` run the shared SQL on each backend.
Nothing here imports the engine's game logic or anything above the store.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from types import TracebackType

from bot.store.challenges import ChallengeStore
from bot.store.database import DEFAULT_DB_PATH, Database
from bot.store.drivers.url import DatabaseTarget, parse_database_url, redact
from bot.store.errors import (
    ChallengeClosedError,
    ChallengeLimitError,
    ChannelBusyError,
    ConstraintError,
    DatabaseBusyError,
    DatabaseUnavailableError,
    GameOverError,
    NotFoundError,
    StaleVersionError,
    StorageError,
    StorageFullError,
)
from bot.store.games import GameStore
from bot.store.languages import LanguageStore
from bot.store.members import MemberStore, VacationRow
from bot.store.outbox import OutboxEntry, OutboxStore, Owed
from bot.store.patience import AttemptRow, DailyDealRow, DailyScore, PatienceStore
from bot.store.players import PlayerStore
from bot.store.puzzles import AnswerRow, DrillRow, PuzzleRow, PuzzleStore, ScoreRow
from bot.store.ratings import RatingStore
from bot.store.rows import (
    GLOBAL_SCOPE,
    ActionRow,
    AppendResult,
    ChallengeRow,
    DiceStats,
    GameRow,
    LeaderboardEntry,
    LeaderboardPage,
    MatchOutcome,
    PlayerRating,
    PlayerRow,
    PlayerStats,
    RatingChange,
    RatingPoint,
    SnapshotRow,
    utcnow,
)
from bot.store.schedule import ScheduleStore
from bot.store.schema import MIGRATIONS, SCHEMA_VERSION, Migration
from bot.store.servers import ServerStore
from bot.store.shards import (
    ORPHAN_AFTER,
    Shard,
    ShardConflictError,
    ShardCountMismatchError,
    ShardLocks,
    ShardsTakenError,
    claim_shards,
    serves,
    shard_of,
)
from bot.store.stats import StatsStore
from bot.store.summaries import SummaryStore
from bot.store.tournaments import (
    EntrantRow,
    EntrantsChangedError,
    Finish,
    NewPairing,
    PairingRow,
    PairingTakenError,
    TournamentClosedError,
    TournamentFullError,
    TournamentRecord,
    TournamentRow,
    TournamentStore,
)

__all__ = [
    "AnswerRow",
    "DrillRow",
    "PuzzleRow",
    "ScoreRow",
    "DEFAULT_DB_PATH",
    "GLOBAL_SCOPE",
    "MIGRATIONS",
    "ORPHAN_AFTER",
    "SCHEMA_VERSION",
    "ActionRow",
    "AppendResult",
    "AttemptRow",
    "ChallengeClosedError",
    "ChallengeLimitError",
    "ChallengeRow",
    "ChannelBusyError",
    "ConstraintError",
    "DailyDealRow",
    "DailyScore",
    "Database",
    "DatabaseBusyError",
    "DatabaseTarget",
    "DatabaseUnavailableError",
    "DiceStats",
    "GameOverError",
    "GameRow",
    "LeaderboardEntry",
    "LeaderboardPage",
    "MatchOutcome",
    "Migration",
    "NotFoundError",
    "OutboxEntry",
    "Owed",
    "PlayerRating",
    "PlayerRow",
    "PlayerStats",
    "RatingChange",
    "RatingPoint",
    "Shard",
    "ShardConflictError",
    "ShardCountMismatchError",
    "ShardsTakenError",
    "SnapshotRow",
    "StaleVersionError",
    "StorageError",
    "StorageFullError",
    "ServerStore",
    "Store",
    "VacationRow",
    "open_store",
    "parse_database_url",
    "redact",
    "serves",
    "shard_of",
    "EntrantRow",
    "EntrantsChangedError",
    "Finish",
    "NewPairing",
    "PairingRow",
    "PairingTakenError",
    "TournamentClosedError",
    "TournamentFullError",
    "TournamentRecord",
    "TournamentRow",
    "TournamentStore",
]


class Store:
    """The repositories over one open database (make one with :func:`open_store`)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.players = PlayerStore(db)
        self.games = GameStore(db)
        self.challenges = ChallengeStore(db)
        self.ratings = RatingStore(db)
        self.schedule = ScheduleStore(db)
        self.stats = StatsStore(db)
        self.outbox = OutboxStore(db)
        self.summaries = SummaryStore(db)
        self.patience = PatienceStore(db)
        self.members = MemberStore(db)
        self.tournaments = TournamentStore(db)
        self.puzzles = PuzzleStore(db)
        self.shard_locks: ShardLocks | None = None
        """The advisory locks of the shards this process runs (PostgreSQL, see :func:`claim_shards`)."""
        self.servers = ServerStore(db)
        self.languages = LanguageStore(db)

    @property
    def backend(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self.db.backend

    @property
    def path(self) -> str:
        """The SQLite path, or the PostgreSQL URL (with its password: log :func:`redact` of it)."""
        return self.db.path

    async def close(self) -> None:
        """Close the connection or pool (idempotent); then let this process's shards go."""
        try:
            await self.db.close()
        finally:
            locks, self.shard_locks = self.shard_locks, None
            if locks is not None:
                await locks.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def schema_version(self) -> int:
        return await self.db.schema_version()

    async def integrity_check(self) -> str:
        return await self.db.integrity_check()


async def open_store(
    url_or_path: str | os.PathLike[str] = DEFAULT_DB_PATH,
    *,
    clock: Callable[[], datetime] = utcnow,
    migrate_to: int | None = None,
    min_size: int | None = None,
    max_size: int | None = None,
    checkpoints: bool = True,
    snapshot_before_migration: bool = True,
    low_disk_bytes: int | None = None,
    run_shards: bool = False,
    shard: Shard | None = None,
    shard_count: int | None = None,
    shard_wait: bool = True,
) -> Store:
    """Open the store a ``DATABASE_URL`` (or a plain SQLite path) names, and migrate it.

    ``postgresql://user:password@host:port/dbname`` -> PostgreSQL (an asyncpg
    pool of ``min_size``..``max_size`` connections, default 1..10);
    ``sqlite:///relative.sqlite3``, ``sqlite:////absolute.sqlite3`` or a plain
    path -> SQLite. ``migrate_to`` stops at an earlier schema version.
    SQLite only: ``checkpoints``, ``snapshot_before_migration`` and ``low_disk_bytes`` (see :meth:`Database.open`).
    ``run_shards`` (the bot process, on PostgreSQL): first make sure no other
    process runs this one's shards, ``shard`` (or all of ``shard_count``), and
    hold them until the store is closed (:func:`claim_shards`, which waits for
    them when ``shard_wait``, else raises :class:`ShardsTakenError`).
    """
    db = await Database.open(
        url_or_path,
        clock=clock,
        migrate_to=migrate_to,
        min_size=min_size,
        max_size=max_size,
        checkpoints=checkpoints,
        snapshot_before_migration=snapshot_before_migration,
        low_disk_bytes=low_disk_bytes,
    )
    store = Store(db)
    if run_shards:
        try:
            store.shard_locks = await claim_shards(db, shard, shard_count=shard_count, wait=shard_wait)
        except BaseException:
            await db.close()
            raise
    return store
