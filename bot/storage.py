"""Persistent storage for the backgammon bot: SQLite (aiosqlite) or PostgreSQL (asyncpg).

The unit of storage is a *game* row: one match in one channel (a money game
is a match of length 0 containing a single game).  Everything that happens in
it is kept as an append-only, numbered *action log* of small JSON dicts
(``{"kind": "roll", "player": 0, "dice": [6, 5]}``); the engine can always
rebuild the match by replaying it.  This module never imports the engine: it
stores settings and actions as JSON and gives them back.

Concurrency model
-----------------
* ``games.version`` always equals the number of actions of that game.  Every
  write that appends actions is a compare-and-set on that version
  (:meth:`Store.append_actions`): the caller says which version it based its
  decision on, and if someone else moved first it gets
  :class:`StaleVersionError` and nothing is written.
* One :class:`Store`, one set of queries, two drivers (:mod:`bot.db`):

  - SQLite (the embedded default): one connection per store, write
    transactions are ``BEGIN IMMEDIATE`` (so two connections or processes
    never deadlock on a lock upgrade; ``busy_timeout`` makes the loser wait),
    an :class:`asyncio.Lock` keeps the store's tasks from interleaving, WAL
    with ``synchronous=NORMAL``.
  - PostgreSQL (several bot processes on one database): an asyncpg pool,
    write transactions are ``BEGIN`` + ``SELECT ... FOR UPDATE`` on the rows
    a decision is based on (the game row for an append), so racing appends in
    any number of processes still have exactly one winner.  A lost server
    raises :class:`DatabaseUnavailableError`; the pool reconnects by itself.

  Pick one with :func:`open_store` (``DATABASE_URL``: ``postgresql://...``,
  ``sqlite:///path`` or a plain path); ``Store.open`` accepts the same.
* The queries are written once, with ``?`` placeholders and portable SQL;
  each numbered migration has a SQLite and a PostgreSQL variant
  (:attr:`Migration.sql`, :attr:`Migration.pg_sql`).

Timestamps are stored as REAL Unix seconds (UTC) and returned as aware
:class:`datetime.datetime` objects in UTC.  Naive datetimes passed in are
taken to be UTC.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal, Protocol, TypeVar

from bot.db.errors import (
    ChallengeClosedError,
    ChannelBusyError,
    DatabaseBusyError,
    DatabaseUnavailableError,
    GameOverError,
    NotFoundError,
    StaleVersionError,
    StorageError,
)
from bot.db.sqlite import SqliteDriver, split_sql  # noqa: F401  (re-exported for tests and tools)
from bot.db.url import DatabaseTarget, parse_database_url
from engine.ratings import DEFAULT_RATING, Rating, effective_length, rate_match


def _integrity_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [sqlite3.IntegrityError]
    try:
        import asyncpg
    except ImportError:  # pragma: no cover - asyncpg is a dependency
        pass
    else:
        errors.append(asyncpg.IntegrityConstraintViolationError)
    return tuple(errors)

__all__ = [
    "DEFAULT_DB_PATH",
    "ORPHAN_AFTER",
    "Shard",
    "GLOBAL_SCOPE",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "ActionRow",
    "AppendResult",
    "ChallengeClosedError",
    "ChallengeRow",
    "ChannelBusyError",
    "DatabaseBusyError",
    "DatabaseUnavailableError",
    "DiceStats",
    "GameOverError",
    "GameRow",
    "LeaderboardEntry",
    "LeaderboardPage",
    "MatchOutcome",
    "Migration",
    "NewAction",
    "NotFoundError",
    "PlayerRating",
    "PlayerRow",
    "PlayerStats",
    "RatingChange",
    "RatingHistoryRow",
    "StaleVersionError",
    "StorageError",
    "Store",
    "open_store",
    "parse_database_url",
]

T = TypeVar("T")

DEFAULT_DB_PATH: Final = Path("data") / "backgammon.sqlite3"
GLOBAL_SCOPE: Final = 0
"""Rating scope of the global leaderboard (per-guild scopes use the guild id)."""

BUSY_TIMEOUT_MS: Final = 5000

GameStatus = Literal["active", "finished", "abandoned"]
ChallengeStatus = Literal["pending", "accepted", "declined", "cancelled", "expired"]
LeaderboardOrder = Literal["rating", "points", "net", "wins"]


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


# The classes live in bot.db.errors (shared with the drivers) and are
# re-exported here: StorageError, StaleVersionError, ChannelBusyError,
# NotFoundError, GameOverError, ChallengeClosedError, DatabaseBusyError,
# DatabaseUnavailableError.


# --------------------------------------------------------------------------
# Migrations
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered schema step; applied in its own transaction.

    ``sql`` is the SQLite script, ``pg_sql`` the PostgreSQL one (same
    version number, same tables, columns and indexes; BIGINT ids,
    DOUBLE PRECISION times, identity keys, a plpgsql trigger).
    """

    version: int
    name: str
    sql: str
    pg_sql: str | None = None


_NOW_SQL = "((julianday('now') - 2440587.5) * 86400.0)"

_PG_NOW_SQL = "(EXTRACT(EPOCH FROM clock_timestamp())::double precision)"

# PostgreSQL variants of the migrations: same version numbers, tables,
# columns, constraints and index names.  Discord ids are BIGINT, times are
# DOUBLE PRECISION Unix seconds, counters BIGINT, keys identity columns.
_PG_MIGRATION_1 = f"""
CREATE TABLE players (
    user_id      BIGINT  PRIMARY KEY,
    display_name TEXT    NOT NULL DEFAULT '',
    is_bot       INTEGER NOT NULL DEFAULT 0 CHECK (is_bot IN (0, 1)),
    created_at   DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL},
    updated_at   DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL}
);

CREATE TABLE games (
    id               BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    guild_id         BIGINT  NOT NULL DEFAULT 0,
    channel_id       BIGINT  NOT NULL,
    player0          BIGINT  NOT NULL REFERENCES players (user_id),
    player1          BIGINT  NOT NULL REFERENCES players (user_id),
    settings         TEXT    NOT NULL DEFAULT '{{}}',
    status           TEXT    NOT NULL DEFAULT 'active'
                     CHECK (status IN ('active', 'finished', 'abandoned')),
    match_length     INTEGER NOT NULL DEFAULT 0 CHECK (match_length >= 0),
    score0           BIGINT  NOT NULL DEFAULT 0,
    score1           BIGINT  NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
    turn_deadline    DOUBLE PRECISION,
    reminder_at      DOUBLE PRECISION,
    reminder_sent    INTEGER NOT NULL DEFAULT 0 CHECK (reminder_sent IN (0, 1)),
    result           TEXT,
    winner           BIGINT,
    board_channel_id BIGINT,
    board_message_id BIGINT,
    created_at       DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL},
    updated_at       DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL},
    finished_at      DOUBLE PRECISION
);

-- At most one active game per channel (a thread is its own channel).
CREATE UNIQUE INDEX games_one_active_per_channel
    ON games (channel_id) WHERE status = 'active';

CREATE TABLE actions (
    game_id    BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    actor      BIGINT,
    kind       TEXT    NOT NULL,
    action     TEXT    NOT NULL,
    die1       INTEGER CHECK (die1 BETWEEN 1 AND 6),
    die2       INTEGER CHECK (die2 BETWEEN 1 AND 6),
    play       TEXT,
    created_at DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL},
    PRIMARY KEY (game_id, seq)
);

-- The log is append-only.
CREATE FUNCTION actions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'actions are append-only' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER actions_append_only BEFORE UPDATE ON actions
    FOR EACH ROW EXECUTE FUNCTION actions_append_only();

CREATE TABLE challenges (
    id           BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    guild_id     BIGINT  NOT NULL DEFAULT 0,
    channel_id   BIGINT  NOT NULL,
    challenger   BIGINT  NOT NULL REFERENCES players (user_id),
    challenged   BIGINT  REFERENCES players (user_id),
    settings     TEXT    NOT NULL DEFAULT '{{}}',
    match_length INTEGER NOT NULL DEFAULT 0 CHECK (match_length >= 0),
    status       TEXT    NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'accepted', 'declined',
                                   'cancelled', 'expired')),
    game_id      BIGINT  REFERENCES games (id),
    message_id   BIGINT,
    created_at   DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL},
    updated_at   DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL},
    expires_at   DOUBLE PRECISION
);

CREATE INDEX challenges_pending_by_channel
    ON challenges (channel_id) WHERE status = 'pending';
"""

_PG_MIGRATION_2 = f"""
CREATE TABLE ratings (
    scope       BIGINT  NOT NULL,            -- guild id, 0 = global
    user_id     BIGINT  NOT NULL REFERENCES players (user_id),
    rating      DOUBLE PRECISION NOT NULL DEFAULT 1500,
    experience  BIGINT  NOT NULL DEFAULT 0,
    games       BIGINT  NOT NULL DEFAULT 0,  -- finished rated matches
    wins        BIGINT  NOT NULL DEFAULT 0,
    gammons     BIGINT  NOT NULL DEFAULT 0,  -- games won with a gammon
    backgammons BIGINT  NOT NULL DEFAULT 0,  -- games won with a backgammon
    points_won  BIGINT  NOT NULL DEFAULT 0,
    points_lost BIGINT  NOT NULL DEFAULT 0,
    best_rating DOUBLE PRECISION NOT NULL DEFAULT 1500,
    updated_at  DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL},
    PRIMARY KEY (scope, user_id)
);

CREATE INDEX ratings_by_rating ON ratings (scope, rating DESC);
CREATE INDEX ratings_by_points ON ratings (scope, points_won DESC);

CREATE TABLE rating_history (
    id               BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    game_id          BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    scope            BIGINT  NOT NULL,
    user_id          BIGINT  NOT NULL,
    rating_before    DOUBLE PRECISION NOT NULL,
    rating_after     DOUBLE PRECISION NOT NULL,
    experience_after BIGINT  NOT NULL,
    won              INTEGER NOT NULL CHECK (won IN (0, 1)),
    created_at       DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL},
    UNIQUE (game_id, scope, user_id)
);

CREATE INDEX rating_history_by_user ON rating_history (scope, user_id, id);

CREATE INDEX games_by_player0 ON games (player0, status, guild_id);
CREATE INDEX games_by_player1 ON games (player1, status, guild_id);
CREATE INDEX games_due_deadline ON games (turn_deadline)
    WHERE status = 'active' AND turn_deadline IS NOT NULL;
CREATE INDEX games_due_reminder ON games (reminder_at)
    WHERE status = 'active' AND reminder_sent = 0 AND reminder_at IS NOT NULL;
CREATE INDEX challenges_due_expiry ON challenges (expires_at)
    WHERE status = 'pending' AND expires_at IS NOT NULL;
CREATE INDEX actions_rolls_by_actor ON actions (actor) WHERE die1 IS NOT NULL;
"""

_PG_MIGRATION_3 = f"""
ALTER TABLE players ADD COLUMN prefs TEXT NOT NULL DEFAULT '{{}}';

CREATE TABLE guild_settings (
    guild_id   BIGINT PRIMARY KEY,
    settings   TEXT NOT NULL DEFAULT '{{}}',
    updated_at DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL}
);
"""

MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration(
        1,
        "core tables",
        f"""
        CREATE TABLE players (
            user_id      INTEGER PRIMARY KEY,
            display_name TEXT    NOT NULL DEFAULT '',
            is_bot       INTEGER NOT NULL DEFAULT 0 CHECK (is_bot IN (0, 1)),
            created_at   REAL    NOT NULL DEFAULT {_NOW_SQL},
            updated_at   REAL    NOT NULL DEFAULT {_NOW_SQL}
        );

        CREATE TABLE games (
            id               INTEGER PRIMARY KEY AUTOINCREMENT,
            guild_id         INTEGER NOT NULL DEFAULT 0,
            channel_id       INTEGER NOT NULL,
            player0          INTEGER NOT NULL REFERENCES players (user_id),
            player1          INTEGER NOT NULL REFERENCES players (user_id),
            settings         TEXT    NOT NULL DEFAULT '{{}}',
            status           TEXT    NOT NULL DEFAULT 'active'
                             CHECK (status IN ('active', 'finished', 'abandoned')),
            match_length     INTEGER NOT NULL DEFAULT 0 CHECK (match_length >= 0),
            score0           INTEGER NOT NULL DEFAULT 0,
            score1           INTEGER NOT NULL DEFAULT 0,
            version          INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
            turn_deadline    REAL,
            reminder_at      REAL,
            reminder_sent    INTEGER NOT NULL DEFAULT 0 CHECK (reminder_sent IN (0, 1)),
            result           TEXT,
            winner           INTEGER,
            board_channel_id INTEGER,
            board_message_id INTEGER,
            created_at       REAL    NOT NULL DEFAULT {_NOW_SQL},
            updated_at       REAL    NOT NULL DEFAULT {_NOW_SQL},
            finished_at      REAL
        );

        -- At most one active game per channel (a thread is its own channel).
        CREATE UNIQUE INDEX games_one_active_per_channel
            ON games (channel_id) WHERE status = 'active';

        CREATE TABLE actions (
            game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seq        INTEGER NOT NULL CHECK (seq >= 1),
            actor      INTEGER,
            kind       TEXT    NOT NULL,
            action     TEXT    NOT NULL,
            die1       INTEGER CHECK (die1 BETWEEN 1 AND 6),
            die2       INTEGER CHECK (die2 BETWEEN 1 AND 6),
            play       TEXT,
            created_at REAL    NOT NULL DEFAULT {_NOW_SQL},
            PRIMARY KEY (game_id, seq)
        ) WITHOUT ROWID;

        -- The log is append-only.
        CREATE TRIGGER actions_append_only BEFORE UPDATE ON actions
        BEGIN
            SELECT RAISE(ABORT, 'actions are append-only');
        END;

        CREATE TABLE challenges (
            id           INTEGER PRIMARY KEY AUTOINCREMENT,
            guild_id     INTEGER NOT NULL DEFAULT 0,
            channel_id   INTEGER NOT NULL,
            challenger   INTEGER NOT NULL REFERENCES players (user_id),
            challenged   INTEGER REFERENCES players (user_id),
            settings     TEXT    NOT NULL DEFAULT '{{}}',
            match_length INTEGER NOT NULL DEFAULT 0 CHECK (match_length >= 0),
            status       TEXT    NOT NULL DEFAULT 'pending'
                         CHECK (status IN ('pending', 'accepted', 'declined',
                                           'cancelled', 'expired')),
            game_id      INTEGER REFERENCES games (id),
            message_id   INTEGER,
            created_at   REAL    NOT NULL DEFAULT {_NOW_SQL},
            updated_at   REAL    NOT NULL DEFAULT {_NOW_SQL},
            expires_at   REAL
        );

        CREATE INDEX challenges_pending_by_channel
            ON challenges (channel_id) WHERE status = 'pending';
        """,
        _PG_MIGRATION_1,
    ),
    Migration(
        2,
        "ratings and scheduler indexes",
        f"""
        CREATE TABLE ratings (
            scope       INTEGER NOT NULL,            -- guild id, 0 = global
            user_id     INTEGER NOT NULL REFERENCES players (user_id),
            rating      REAL    NOT NULL DEFAULT 1500,
            experience  INTEGER NOT NULL DEFAULT 0,
            games       INTEGER NOT NULL DEFAULT 0,  -- finished rated matches
            wins        INTEGER NOT NULL DEFAULT 0,
            gammons     INTEGER NOT NULL DEFAULT 0,  -- games won with a gammon
            backgammons INTEGER NOT NULL DEFAULT 0,  -- games won with a backgammon
            points_won  INTEGER NOT NULL DEFAULT 0,
            points_lost INTEGER NOT NULL DEFAULT 0,
            best_rating REAL    NOT NULL DEFAULT 1500,
            updated_at  REAL    NOT NULL DEFAULT {_NOW_SQL},
            PRIMARY KEY (scope, user_id)
        ) WITHOUT ROWID;

        CREATE INDEX ratings_by_rating ON ratings (scope, rating DESC);
        CREATE INDEX ratings_by_points ON ratings (scope, points_won DESC);

        CREATE TABLE rating_history (
            id               INTEGER PRIMARY KEY AUTOINCREMENT,
            game_id          INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            scope            INTEGER NOT NULL,
            user_id          INTEGER NOT NULL,
            rating_before    REAL    NOT NULL,
            rating_after     REAL    NOT NULL,
            experience_after INTEGER NOT NULL,
            won              INTEGER NOT NULL CHECK (won IN (0, 1)),
            created_at       REAL    NOT NULL DEFAULT {_NOW_SQL},
            UNIQUE (game_id, scope, user_id)
        );

        CREATE INDEX rating_history_by_user ON rating_history (scope, user_id, id);

        CREATE INDEX games_by_player0 ON games (player0, status, guild_id);
        CREATE INDEX games_by_player1 ON games (player1, status, guild_id);
        CREATE INDEX games_due_deadline ON games (turn_deadline)
            WHERE status = 'active' AND turn_deadline IS NOT NULL;
        CREATE INDEX games_due_reminder ON games (reminder_at)
            WHERE status = 'active' AND reminder_sent = 0 AND reminder_at IS NOT NULL;
        CREATE INDEX challenges_due_expiry ON challenges (expires_at)
            WHERE status = 'pending' AND expires_at IS NOT NULL;
        CREATE INDEX actions_rolls_by_actor ON actions (actor) WHERE die1 IS NOT NULL;
        """,
        _PG_MIGRATION_2,
    ),
    Migration(
        3,
        "player preferences and guild settings",
        f"""
        ALTER TABLE players ADD COLUMN prefs TEXT NOT NULL DEFAULT '{{}}';

        CREATE TABLE guild_settings (
            guild_id   INTEGER PRIMARY KEY,
            settings   TEXT NOT NULL DEFAULT '{{}}',
            updated_at REAL NOT NULL DEFAULT {_NOW_SQL}
        );
        """,
        _PG_MIGRATION_3,
    ),
    Migration(
        4,
        "game analyses",
        f"""
        CREATE TABLE game_analyses (
            game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            game_number INTEGER NOT NULL,
            ply         INTEGER NOT NULL,
            summary     TEXT NOT NULL,
            created_at  REAL NOT NULL DEFAULT {_NOW_SQL},
            PRIMARY KEY (game_id, game_number)
        );
        """,
        f"""
        CREATE TABLE game_analyses (
            game_id     BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            game_number INTEGER NOT NULL,
            ply         INTEGER NOT NULL,
            summary     TEXT NOT NULL,
            created_at  DOUBLE PRECISION NOT NULL DEFAULT {_PG_NOW_SQL},
            PRIMARY KEY (game_id, game_number)
        );
        """,
    ),
)

SCHEMA_VERSION: Final = len(MIGRATIONS)


# --------------------------------------------------------------------------
# Conversions
# --------------------------------------------------------------------------


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _to_ts(value: datetime | None) -> float | None:
    """Convert a datetime (naive = UTC) to Unix seconds."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.timestamp()


def _from_ts(value: float | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromtimestamp(value, timezone.utc)


def _req_ts(value: float) -> datetime:
    return datetime.fromtimestamp(value, timezone.utc)


def _dump(value: Any) -> str:
    """Serialise to compact JSON (raises TypeError/ValueError if not JSON-able)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _load(value: str | None) -> Any:
    return None if value is None else json.loads(value)


Row = Any
"""A result row: ``sqlite3.Row`` or ``asyncpg.Record`` (both index by name and position)."""


# --------------------------------------------------------------------------
# Row dataclasses
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """A Discord user known to the bot."""

    user_id: int
    display_name: str
    is_bot: bool
    prefs: dict[str, Any]
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, row: Row) -> PlayerRow:
        return cls(
            user_id=row["user_id"],
            display_name=row["display_name"],
            is_bot=bool(row["is_bot"]),
            prefs=_load(row["prefs"]) or {},
            created_at=_req_ts(row["created_at"]),
            updated_at=_req_ts(row["updated_at"]),
        )


@dataclass(frozen=True, slots=True)
class GameRow:
    """One match in one channel; ``version`` == number of logged actions."""

    id: int
    guild_id: int
    channel_id: int
    player0: int
    player1: int
    settings: dict[str, Any]
    status: GameStatus
    match_length: int
    score0: int
    score1: int
    version: int
    turn_deadline: datetime | None
    reminder_at: datetime | None
    reminder_sent: bool
    result: dict[str, Any] | None
    winner: int | None
    board_channel_id: int | None
    board_message_id: int | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None

    @classmethod
    def from_row(cls, row: Row) -> GameRow:
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            player0=row["player0"],
            player1=row["player1"],
            settings=_load(row["settings"]) or {},
            status=row["status"],
            match_length=row["match_length"],
            score0=row["score0"],
            score1=row["score1"],
            version=row["version"],
            turn_deadline=_from_ts(row["turn_deadline"]),
            reminder_at=_from_ts(row["reminder_at"]),
            reminder_sent=bool(row["reminder_sent"]),
            result=_load(row["result"]),
            winner=row["winner"],
            board_channel_id=row["board_channel_id"],
            board_message_id=row["board_message_id"],
            created_at=_req_ts(row["created_at"]),
            updated_at=_req_ts(row["updated_at"]),
            finished_at=_from_ts(row["finished_at"]),
        )

    @property
    def players(self) -> tuple[int, int]:
        """``(player0, player1)`` user ids."""
        return (self.player0, self.player1)

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    @property
    def is_money_game(self) -> bool:
        return self.match_length == 0

    def seat_of(self, user_id: int) -> int | None:
        """Return 0 or 1 for a player of this game, None for anyone else."""
        if user_id == self.player0:
            return 0
        if user_id == self.player1:
            return 1
        return None

    def opponent_of(self, user_id: int) -> int:
        """Return the other player's id (ValueError if ``user_id`` isn't playing)."""
        seat = self.seat_of(user_id)
        if seat is None:
            raise ValueError(f"user {user_id} is not in game {self.id}")
        return self.players[1 - seat]


@dataclass(frozen=True, slots=True)
class ActionRow:
    """One logged action; ``action`` is the dict exactly as appended."""

    game_id: int
    seq: int
    actor: int | None
    kind: str
    action: dict[str, Any]
    dice: tuple[int, int] | None
    play: str | None
    created_at: datetime

    @classmethod
    def from_row(cls, row: Row) -> ActionRow:
        d1, d2 = row["die1"], row["die2"]
        return cls(
            game_id=row["game_id"],
            seq=row["seq"],
            actor=row["actor"],
            kind=row["kind"],
            action=_load(row["action"]),
            dice=(d1, d2) if d1 is not None and d2 is not None else None,
            play=row["play"],
            created_at=_req_ts(row["created_at"]),
        )


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    """A challenge; ``challenged`` None means open to anyone in the channel."""

    id: int
    guild_id: int
    channel_id: int
    challenger: int
    challenged: int | None
    settings: dict[str, Any]
    match_length: int
    status: ChallengeStatus
    game_id: int | None
    message_id: int | None
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None

    @classmethod
    def from_row(cls, row: Row) -> ChallengeRow:
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            challenger=row["challenger"],
            challenged=row["challenged"],
            settings=_load(row["settings"]) or {},
            match_length=row["match_length"],
            status=row["status"],
            game_id=row["game_id"],
            message_id=row["message_id"],
            created_at=_req_ts(row["created_at"]),
            updated_at=_req_ts(row["updated_at"]),
            expires_at=_from_ts(row["expires_at"]),
        )


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A ratings row (one player in one scope) with the cached display name."""

    scope: int
    user_id: int
    display_name: str
    rating: float
    experience: int
    games: int
    wins: int
    gammons: int
    backgammons: int
    points_won: int
    points_lost: int
    best_rating: float
    updated_at: datetime

    @property
    def losses(self) -> int:
        return self.games - self.wins

    @property
    def net_points(self) -> int:
        return self.points_won - self.points_lost

    @property
    def as_rating(self) -> Rating:
        """The pure :class:`engine.ratings.Rating` for formula previews."""
        return Rating(self.rating, self.experience)

    @classmethod
    def from_row(cls, row: Row) -> PlayerRating:
        return cls(
            scope=row["scope"],
            user_id=row["user_id"],
            display_name=row["display_name"] or "",
            rating=row["rating"],
            experience=row["experience"],
            games=row["games"],
            wins=row["wins"],
            gammons=row["gammons"],
            backgammons=row["backgammons"],
            points_won=row["points_won"],
            points_lost=row["points_lost"],
            best_rating=row["best_rating"],
            updated_at=_req_ts(row["updated_at"]),
        )


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's ratings row plus their rank (1-based, by rating) in the scope."""

    stats: PlayerRating
    rank: int
    ranked_players: int


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """One leaderboard line: 1-based position and the ratings row."""

    rank: int
    stats: PlayerRating


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    """A page of the leaderboard and the total number of ranked players."""

    entries: list[LeaderboardEntry]
    total: int
    offset: int
    limit: int

    @property
    def has_more(self) -> bool:
        return self.offset + len(self.entries) < self.total


@dataclass(frozen=True, slots=True)
class RatingChange:
    """How one player's rating moved in one scope when a match finished."""

    scope: int
    user_id: int
    before: float
    after: float
    experience: int
    won: bool

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class RatingHistoryRow:
    """One entry of a player's rating history (for graphs and /history)."""

    game_id: int
    scope: int
    user_id: int
    rating_before: float
    rating_after: float
    experience_after: int
    won: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """What the service knows when a match ends; drives the ratings update.

    ``match_length`` None means "the game's own match_length" (0 = money game,
    rated as a 1-point match).  ``*_points`` are the points each player scored
    in the match.  ``*_gammons`` / ``*_backgammons`` count the games each
    player won with a gammon / backgammon (a backgammon is not also a gammon).
    With ``rated=False`` no ratings or statistics are written.
    """

    winner: int
    loser: int
    winner_points: int = 1
    loser_points: int = 0
    winner_gammons: int = 0
    winner_backgammons: int = 0
    loser_gammons: int = 0
    loser_backgammons: int = 0
    match_length: int | None = None
    rated: bool = True


_INFER: Final = object()
_INTEGRITY_ERRORS: Final = _integrity_errors()


@dataclass(frozen=True, slots=True)
class NewAction:
    """An action with an explicit actor (user id, or None for the system).

    Plain dicts passed to :meth:`Store.append_actions` get their actor from
    the ``actor`` argument, or else from their ``"player"`` seat (0/1).
    """

    action: Mapping[str, Any]
    actor: int | None


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What :meth:`Store.append_actions` wrote."""

    game: GameRow
    actions: list[ActionRow]
    rating_changes: list[RatingChange] = field(default_factory=list)

    @property
    def version(self) -> int:
        return self.game.version


@dataclass(frozen=True, slots=True)
class DiceStats:
    """Counts of a player's rolls, keyed by (high die, low die)."""

    counts: dict[tuple[int, int], int]

    @property
    def rolls(self) -> int:
        return sum(self.counts.values())

    @property
    def doubles(self) -> int:
        return sum(n for (a, b), n in self.counts.items() if a == b)

    @property
    def pips(self) -> int:
        return sum((a + b) * (2 if a == b else 1) * n for (a, b), n in self.counts.items())


# Columns callers may change through ``updates`` / ``set_game_fields``.
_GAME_UPDATABLE: Final = frozenset(
    {
        "status",
        "score0",
        "score1",
        "turn_deadline",
        "reminder_at",
        "reminder_sent",
        "result",
        "winner",
        "settings",
        "board_channel_id",
        "board_message_id",
        "finished_at",
    }
)
_TIME_COLUMNS: Final = frozenset({"turn_deadline", "reminder_at", "finished_at"})
_JSON_COLUMNS: Final = frozenset({"result", "settings"})
_GAME_STATUSES: Final = frozenset({"active", "finished", "abandoned"})


Shard = tuple[int, tuple[int, ...]]
"""(shard count, shard ids): the Discord shards one bot process serves."""

ORPHAN_AFTER: Final = 300.0
"""Seconds after which due work of other shards is taken over (their process may be down)."""


def _shard_clause(shard: Shard | None, column: str, ts: float) -> tuple[str, tuple[float | int, ...]]:
    """SQL keeping rows of guilds on ``shard``: Discord puts a guild on shard
    ``(guild_id >> 22) % shard_count`` (direct messages, guild 0, on shard 0).
    Rows of other shards overdue by :data:`ORPHAN_AFTER` are kept too, so the
    work of a process that is down is still done (claims keep it to once)."""
    if shard is None:
        return "", ()
    count, ids = shard
    if count < 1 or not ids:
        raise ValueError("a shard filter needs a shard count and at least one shard id")
    marks = ", ".join("?" for _ in ids)
    return (
        f" AND (((guild_id / 4194304) % ?) IN ({marks}) OR {column} <= ?)",
        (count, *ids, ts - ORPHAN_AFTER),
    )


def _dice_of(action: Mapping[str, Any]) -> tuple[int | None, int | None]:
    dice = action.get("dice")
    if (
        isinstance(dice, (list, tuple))
        and len(dice) == 2
        and all(isinstance(d, int) and 1 <= d <= 6 for d in dice)
    ):
        return int(dice[0]), int(dice[1])
    return None, None


# --------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------


class Tx(Protocol):
    """The statements of one transaction, in the shared (``?``-placeholder) SQL."""

    dialect: str
    for_update: str
    """`` FOR UPDATE`` on PostgreSQL, empty on SQLite (BEGIN IMMEDIATE locks everything)."""
    skip_locked: str
    """`` FOR UPDATE SKIP LOCKED`` on PostgreSQL, empty on SQLite."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int: ...
    async def executemany(self, sql: str, rows: Any) -> None: ...
    async def insert_id(self, sql: str, params: Sequence[Any] = ()) -> int: ...
    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...
    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


class Driver(Protocol):
    """What :class:`Store` needs from a backend (see :mod:`bot.db`)."""

    backend: str
    dialect: str

    async def close(self) -> None: ...
    async def transact(self, body: Callable[[Tx], Awaitable[T]]) -> T: ...
    def snapshot(self) -> AbstractAsyncContextManager[Tx]: ...
    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...
    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...
    async def schema_version(self) -> int: ...
    async def migrate(self, migrations: Sequence[Migration], target: int) -> None: ...
    async def integrity_check(self) -> str: ...


class Store:
    """Async game store on SQLite or PostgreSQL.

    Create with ``await open_store(url_or_path)`` or ``await Store.open(...)``
    (the same thing).
    """

    def __init__(
        self,
        driver: Driver,
        path: str,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        """Wrap an open driver; use :meth:`open` instead of calling this."""
        self._driver: Driver | None = driver
        self.backend: str = driver.backend
        """``"sqlite"`` or ``"postgresql"``."""
        self.path = path
        """The SQLite path, or the PostgreSQL URL."""
        self.clock = clock

    # ---------------------------------------------------------------- life

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] = DEFAULT_DB_PATH,
        *,
        clock: Callable[[], datetime] = _utcnow,
        migrate_to: int | None = None,
        min_size: int | None = None,
        max_size: int | None = None,
    ) -> Store:
        """Open and migrate the database named by a path or ``DATABASE_URL``.

        A plain path or ``sqlite:///path`` opens SQLite, creating the folder
        and file if needed (``":memory:"`` gives a private in-memory
        database).  ``postgresql://user:password@host:port/dbname`` opens a
        PostgreSQL connection pool of ``min_size``..``max_size`` connections
        (default 1..10; ignored for SQLite).  ``migrate_to`` stops at an
        earlier schema version (for tests of old databases).

        Raises :class:`DatabaseUnavailableError` if the PostgreSQL server
        cannot be reached.
        """
        migrations = MIGRATIONS
        target = len(migrations) if migrate_to is None else migrate_to
        if not 0 <= target <= len(migrations):
            raise ValueError(f"migrate_to must be in 0..{len(migrations)}")
        where = parse_database_url(path)
        driver = await _connect(where, min_size=min_size, max_size=max_size)
        try:
            store = cls(driver, where.location, clock)
            await driver.migrate(migrations, target)
        except BaseException:
            await driver.close()
            raise
        return store

    async def close(self) -> None:
        """Close the connection or pool (idempotent)."""
        driver = self._driver
        if driver is not None:
            await driver.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def schema_version(self) -> int:
        """Return the schema version (``PRAGMA user_version`` / ``schema_version`` table)."""
        return await self._db.schema_version()

    # ------------------------------------------------------------ plumbing

    def _now(self) -> float:
        ts = _to_ts(self.clock())
        assert ts is not None
        return ts

    @property
    def _db(self) -> Driver:
        if self._driver is None:
            raise StorageError("the database is closed")
        return self._driver

    async def _transact(self, body: Callable[[Tx], Awaitable[T]]) -> T:
        """Run ``body`` as one write transaction: ``BEGIN IMMEDIATE`` on SQLite (all
        of it on the driver's writer thread), ``BEGIN`` on PostgreSQL.

        Commits when the body returns, rolls back if it raises; the connection
        is left outside any transaction. The body awaits only its statements.
        """
        return await self._db.transact(body)

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self._db.fetchall(sql, params)

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return await self._db.fetchone(sql, params)

    @staticmethod
    async def _one(conn: Tx, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return await conn.fetchone(sql, params)

    async def _touch_player(self, conn: Tx, user_id: int, now: float) -> None:
        await conn.execute(
            """
            INSERT INTO players (user_id, created_at, updated_at) VALUES (?, ?, ?)
            ON CONFLICT (user_id) DO NOTHING
            """,
            (user_id, now, now),
        )

    # ------------------------------------------------------------- players

    async def upsert_player(self, user_id: int, display_name: str, *, is_bot: bool = False) -> PlayerRow:
        """Create or refresh a player's cached display name and bot flag."""
        now = self._now()

        async def transaction(conn: Tx) -> Row | None:
            await conn.execute(
                """
                INSERT INTO players (user_id, display_name, is_bot, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET
                    display_name = excluded.display_name,
                    is_bot = excluded.is_bot,
                    updated_at = excluded.updated_at
                """,
                (user_id, display_name, int(is_bot), now, now),
            )
            return await self._one(conn, "SELECT * FROM players WHERE user_id = ?", (user_id,))

        row = await self._transact(transaction)
        assert row is not None
        return PlayerRow.from_row(row)

    async def get_player(self, user_id: int) -> PlayerRow | None:
        """Return a player, or None if the bot has never seen them."""
        row = await self._fetchone("SELECT * FROM players WHERE user_id = ?", (user_id,))
        return PlayerRow.from_row(row) if row else None

    async def set_player_prefs(self, user_id: int, prefs: Mapping[str, Any]) -> PlayerRow:
        """Replace a player's preferences (e.g. ``{"dm_reminders": False}``)."""
        now = self._now()
        payload = _dump(dict(prefs))

        async def transaction(conn: Tx) -> Row | None:
            await self._touch_player(conn, user_id, now)
            await conn.execute(
                "UPDATE players SET prefs = ?, updated_at = ? WHERE user_id = ?",
                (payload, now, user_id),
            )
            return await self._one(conn, "SELECT * FROM players WHERE user_id = ?", (user_id,))

        row = await self._transact(transaction)
        assert row is not None
        return PlayerRow.from_row(row)

    # -------------------------------------------------------------- guilds

    async def get_guild_settings(self, guild_id: int) -> dict[str, Any]:
        """Return a guild's settings dict (empty if never set)."""
        row = await self._fetchone("SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return _load(row["settings"]) if row else {}

    async def set_guild_settings(self, guild_id: int, settings: Mapping[str, Any]) -> None:
        """Replace a guild's settings dict."""
        now = self._now()
        payload = _dump(dict(settings))

        async def transaction(conn: Tx) -> None:
            await conn.execute(
                """
                INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (guild_id) DO UPDATE SET
                    settings = excluded.settings, updated_at = excluded.updated_at
                """,
                (guild_id, payload, now),
            )

        await self._transact(transaction)

    # --------------------------------------------------------------- games

    async def create_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        player0: int,
        player1: int,
        settings: Mapping[str, Any] | None = None,
        match_length: int = 0,
        turn_deadline: datetime | None = None,
        reminder_at: datetime | None = None,
        challenge_id: int | None = None,
    ) -> GameRow:
        """Create an active game at version 0 (no actions yet).

        Raises :class:`ChannelBusyError` if the channel already has an active
        game.  With ``challenge_id`` the (pending) challenge is marked
        accepted and linked to the game in the same transaction; if it is no
        longer pending :class:`ChallengeClosedError` is raised and nothing is
        written.  Unknown players get a row with an empty display name.
        """
        if match_length < 0:
            raise ValueError("match_length must be >= 0")
        now = self._now()
        payload = _dump(dict(settings or {}))

        async def transaction(conn: Tx) -> Row | None:
            if challenge_id is not None:
                await self._require_pending_challenge(conn, challenge_id)
            busy = await self._one(
                conn,
                "SELECT id FROM games WHERE channel_id = ? AND status = 'active'",
                (channel_id,),
            )
            if busy is not None:
                raise ChannelBusyError(channel_id=channel_id)
            await self._touch_player(conn, player0, now)
            await self._touch_player(conn, player1, now)
            try:
                game_id = await conn.insert_id(
                    """
                    INSERT INTO games (guild_id, channel_id, player0, player1, settings,
                                       match_length, turn_deadline, reminder_at,
                                       created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    (
                        guild_id,
                        channel_id,
                        player0,
                        player1,
                        payload,
                        match_length,
                        _to_ts(turn_deadline),
                        _to_ts(reminder_at),
                        now,
                        now,
                    ),
                )
            except _INTEGRITY_ERRORS as exc:
                # Another process created a game in this channel meanwhile.
                if "games.channel_id" in str(exc) or "games_one_active_per_channel" in str(exc):
                    raise ChannelBusyError(channel_id=channel_id) from exc
                raise StorageError() from exc
            if challenge_id is not None:
                await conn.execute(
                    """
                    UPDATE challenges SET status = 'accepted', game_id = ?, updated_at = ?
                    WHERE id = ? AND status = 'pending'
                    """,
                    (game_id, now, challenge_id),
                )
            return await self._one(conn, "SELECT * FROM games WHERE id = ?", (game_id,))

        row = await self._transact(transaction)
        assert row is not None
        return GameRow.from_row(row)

    async def get_game(self, game_id: int) -> GameRow:
        """Return a game by id; :class:`NotFoundError` if there is none."""
        row = await self._fetchone("SELECT * FROM games WHERE id = ?", (game_id,))
        if row is None:
            raise NotFoundError(f"Game #{game_id} does not exist.")
        return GameRow.from_row(row)

    async def active_game(self, channel_id: int) -> GameRow | None:
        """Return the active game in a channel (or thread), if any."""
        row = await self._fetchone(
            "SELECT * FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
        )
        return GameRow.from_row(row) if row else None

    async def active_games_for_player(self, user_id: int, guild_id: int | None = None) -> list[GameRow]:
        """Return a player's active games (in one guild, or everywhere), oldest first."""
        rows = await self._fetchall(
            """
            SELECT * FROM games
            WHERE status = 'active' AND (player0 = ? OR player1 = ?)
              AND (CAST(? AS BIGINT) IS NULL OR guild_id = ?)
            ORDER BY created_at, id
            """,
            (user_id, user_id, guild_id, guild_id),
        )
        return [GameRow.from_row(r) for r in rows]

    async def finished_games_for_player(
        self,
        user_id: int,
        guild_id: int | None = None,
        *,
        offset: int = 0,
        limit: int = 20,
        opponent: int | None = None,
    ) -> list[GameRow]:
        """Return a player's finished/abandoned games, newest first (paged)."""
        rows = await self._fetchall(
            """
            SELECT * FROM games
            WHERE status IN ('finished', 'abandoned') AND (player0 = ? OR player1 = ?)
              AND (CAST(? AS BIGINT) IS NULL OR guild_id = ?)
              AND (CAST(? AS BIGINT) IS NULL OR player0 = ? OR player1 = ?)
            ORDER BY finished_at DESC, id DESC
            LIMIT ? OFFSET ?
            """,
            (user_id, user_id, guild_id, guild_id, opponent, opponent, opponent, limit, offset),
        )
        return [GameRow.from_row(r) for r in rows]

    async def count_finished_games_for_player(self, user_id: int, guild_id: int | None = None) -> int:
        """Return how many finished/abandoned games a player has (for paging)."""
        row = await self._fetchone(
            """
            SELECT COUNT(*) FROM games
            WHERE status IN ('finished', 'abandoned') AND (player0 = ? OR player1 = ?)
              AND (CAST(? AS BIGINT) IS NULL OR guild_id = ?)
            """,
            (user_id, user_id, guild_id, guild_id),
        )
        return int(row[0]) if row else 0

    async def game_with_actions(self, game_id: int) -> tuple[GameRow, list[ActionRow]]:
        """Return a game and its whole log from one consistent snapshot.

        Use this to rebuild a match: ``len(actions) == game.version`` always.
        """
        async with self._db.snapshot() as snap:
            row = await snap.fetchone("SELECT * FROM games WHERE id = ?", (game_id,))
            rows = await snap.fetchall("SELECT * FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
        if row is None:
            raise NotFoundError(f"Game #{game_id} does not exist.")
        return GameRow.from_row(row), [ActionRow.from_row(r) for r in rows]

    async def actions(self, game_id: int, *, after_seq: int = 0) -> list[ActionRow]:
        """Return a game's actions with ``seq > after_seq``, in order."""
        rows = await self._fetchall(
            "SELECT * FROM actions WHERE game_id = ? AND seq > ? ORDER BY seq",
            (game_id, after_seq),
        )
        return [ActionRow.from_row(r) for r in rows]

    async def append_action(
        self,
        game_id: int,
        expected_version: int,
        action: Mapping[str, Any] | NewAction,
        *,
        actor: Any = _INFER,
        updates: Mapping[str, Any] | None = None,
        outcome: MatchOutcome | None = None,
    ) -> AppendResult:
        """Append one action; see :meth:`append_actions`."""
        return await self.append_actions(
            game_id, expected_version, [action], actor=actor, updates=updates, outcome=outcome
        )

    async def append_actions(
        self,
        game_id: int,
        expected_version: int,
        actions: Sequence[Mapping[str, Any] | NewAction],
        *,
        actor: Any = _INFER,
        updates: Mapping[str, Any] | None = None,
        outcome: MatchOutcome | None = None,
    ) -> AppendResult:
        """Compare-and-set: append actions and update the game in ONE transaction.

        The actions get ``seq = expected_version + 1, + 2, ...`` and the
        game's version becomes ``expected_version + len(actions)``, but only
        if the stored version still equals ``expected_version``; otherwise
        :class:`StaleVersionError` is raised and nothing is written.
        Appending to a game that is not active raises :class:`GameOverError`.

        ``actor`` (user id or None for the system) applies to every plain dict;
        if omitted it is inferred from the action's ``"player"`` seat (0/1 ->
        that player's user id, else None).  Wrap an action in
        :class:`NewAction` to give it its own actor.  ``dice`` ([d1, d2]) and
        ``play`` (str) keys are also copied to their own columns for stats.

        ``updates`` may set: status, score0, score1, turn_deadline,
        reminder_at, reminder_sent, result (dict), winner, settings (dict),
        board_channel_id, board_message_id, finished_at.  Setting
        ``turn_deadline`` resets ``reminder_sent`` unless given too.  Setting
        status to finished/abandoned fills ``finished_at`` and clears the
        deadline and reminder.

        ``outcome`` finishes the match: status becomes 'finished' (unless
        ``updates`` says 'abandoned'), ``winner`` is set, ``result`` defaults
        to ``{"winner", "loser", "winner_points", "loser_points"}`` unless
        given in ``updates``, and — when rated —
        both players' rows in the guild scope and the global scope (0) are
        updated with the FIBS formula, all in the same transaction.  The
        changes are returned in ``AppendResult.rating_changes``.
        """
        if not actions:
            raise ValueError("append_actions needs at least one action")
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        prepared: list[tuple[Mapping[str, Any], Any]] = []
        for item in actions:
            if isinstance(item, NewAction):
                prepared.append((item.action, item.actor))
            else:
                prepared.append((item, actor))
        encoded: list[tuple[Mapping[str, Any], Any, str, str]] = []
        for action, who in prepared:
            kind = action.get("kind")
            if not isinstance(kind, str) or not kind:
                raise ValueError(f"action needs a non-empty 'kind': {action!r}")
            encoded.append((action, who, kind, _dump(dict(action))))
        columns = self._encode_updates(updates or {})

        now = self._now()

        async def transaction(conn: Tx) -> tuple[Row | None, list[RatingChange], list[tuple[Any, ...]]]:
            # FOR UPDATE (PostgreSQL): a racing append waits here and then sees our version.
            row = await self._one(conn, "SELECT * FROM games WHERE id = ?" + conn.for_update, (game_id,))
            if row is None:
                raise NotFoundError(f"Game #{game_id} does not exist.")
            game = GameRow.from_row(row)
            if game.version != expected_version:
                raise StaleVersionError(game_id=game_id, expected=expected_version, actual=game.version)
            if not game.is_active:
                raise GameOverError()

            if outcome is not None:
                if {outcome.winner, outcome.loser} != {game.player0, game.player1}:
                    raise ValueError("outcome winner/loser must be the game's two players")
                columns.setdefault("status", "finished")
                columns["winner"] = outcome.winner
                columns.setdefault(
                    "result",
                    _dump(
                        {
                            "winner": outcome.winner,
                            "loser": outcome.loser,
                            "winner_points": outcome.winner_points,
                            "loser_points": outcome.loser_points,
                        }
                    ),
                )
            self._finish_columns(columns, now)

            seq = expected_version
            action_params: list[tuple[Any, ...]] = []
            for action, who, kind, payload in encoded:
                seq += 1
                if who is _INFER:
                    seat = action.get("player")
                    who = game.players[seat] if seat in (0, 1) and not isinstance(seat, bool) else None
                d1, d2 = _dice_of(action)
                play = action.get("play")
                action_params.append(
                    (game_id, seq, who, kind, payload, d1, d2, play if isinstance(play, str) else None, now)
                )
            await conn.executemany(
                """
                INSERT INTO actions (game_id, seq, actor, kind, action, die1, die2, play, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                action_params,
            )

            columns["version"] = seq
            columns["updated_at"] = now
            assignments = ", ".join(f"{name} = ?" for name in columns)
            # RETURNING gives the new row in the same round trip (fewer trips
            # inside the write transaction = more actions per second).
            new_row = await conn.fetchone(
                f"UPDATE games SET {assignments} WHERE id = ? AND version = ? RETURNING *",
                (*columns.values(), game_id, expected_version),
            )
            if new_row is None:  # cannot happen with the row locked; belt and braces
                raise StaleVersionError(game_id=game_id, expected=expected_version)

            changes: list[RatingChange] = []
            if outcome is not None and outcome.rated:
                changes = await self._apply_outcome(conn, game, outcome, now)
            return new_row, changes, action_params

        new_row, changes, action_params = await self._transact(transaction)
        stamp = _req_ts(now)
        return AppendResult(
            game=GameRow.from_row(new_row),
            actions=[
                ActionRow(
                    game_id=game_id,
                    seq=params[1],
                    actor=params[2],
                    kind=params[3],
                    action=dict(action),
                    dice=(params[5], params[6]) if params[5] is not None and params[6] is not None else None,
                    play=params[7],
                    created_at=stamp,
                )
                for (action, _, _, _), params in zip(encoded, action_params)
            ],
            rating_changes=changes,
        )

    @staticmethod
    def _encode_updates(updates: Mapping[str, Any]) -> dict[str, Any]:
        """Validate ``updates`` and convert values to column values."""
        unknown = set(updates) - _GAME_UPDATABLE
        if unknown:
            raise ValueError(f"cannot update game columns: {sorted(unknown)}")
        columns: dict[str, Any] = {}
        for name, value in updates.items():
            if name in _TIME_COLUMNS:
                columns[name] = _to_ts(value)
            elif name in _JSON_COLUMNS:
                columns[name] = None if value is None else _dump(value)
            elif name == "reminder_sent":
                columns[name] = int(bool(value))
            elif name == "status":
                if value not in _GAME_STATUSES:
                    raise ValueError(f"bad game status {value!r}")
                columns[name] = value
            else:
                columns[name] = value
        if "turn_deadline" in columns and "reminder_sent" not in columns:
            columns["reminder_sent"] = 0
        return columns

    @staticmethod
    def _finish_columns(columns: dict[str, Any], now: float) -> None:
        """Fill the bookkeeping columns of a game that is ending."""
        if columns.get("status") in ("finished", "abandoned"):
            columns.setdefault("finished_at", now)
            columns["turn_deadline"] = None
            columns["reminder_at"] = None

    async def _apply_outcome(
        self, conn: Tx, game: GameRow, outcome: MatchOutcome, now: float
    ) -> list[RatingChange]:
        """Update both players' ratings rows in the guild and global scopes."""
        length = game.match_length if outcome.match_length is None else outcome.match_length
        n = effective_length(length)
        scopes = [GLOBAL_SCOPE] if game.guild_id == GLOBAL_SCOPE else [game.guild_id, GLOBAL_SCOPE]
        changes: list[RatingChange] = []
        for scope in scopes:
            # Lock both rows (creating them at the default rating) in user id
            # order, so two matches of the same players finishing at once in
            # two processes queue instead of losing an update or deadlocking.
            pair = sorted({outcome.winner, outcome.loser})
            for uid in pair:
                await self._touch_player(conn, uid, now)
                await conn.execute(
                    """
                    INSERT INTO ratings (scope, user_id, rating, experience, best_rating, updated_at)
                    VALUES (?, ?, ?, 0, ?, ?)
                    ON CONFLICT (scope, user_id) DO NOTHING
                    """,
                    (scope, uid, DEFAULT_RATING, DEFAULT_RATING, now),
                )
            rows = await conn.fetchall(
                "SELECT user_id, rating, experience FROM ratings WHERE scope = ? AND user_id IN (?, ?)"
                " ORDER BY user_id" + conn.for_update,
                (scope, pair[0], pair[-1]),
            )
            current: dict[int, Rating] = {r["user_id"]: Rating(r["rating"], r["experience"]) for r in rows}
            new_w, new_l = rate_match(current[outcome.winner], current[outcome.loser], n)
            for uid, new, won, pts_won, pts_lost, gammons, backgammons in (
                (
                    outcome.winner,
                    new_w,
                    1,
                    outcome.winner_points,
                    outcome.loser_points,
                    outcome.winner_gammons,
                    outcome.winner_backgammons,
                ),
                (
                    outcome.loser,
                    new_l,
                    0,
                    outcome.loser_points,
                    outcome.winner_points,
                    outcome.loser_gammons,
                    outcome.loser_backgammons,
                ),
            ):
                await conn.execute(
                    """
                    INSERT INTO ratings (scope, user_id, rating, experience, games, wins,
                                         gammons, backgammons, points_won, points_lost,
                                         best_rating, updated_at)
                    VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (scope, user_id) DO UPDATE SET
                        rating      = excluded.rating,
                        experience  = excluded.experience,
                        games       = ratings.games + 1,
                        wins        = ratings.wins + excluded.wins,
                        gammons     = ratings.gammons + excluded.gammons,
                        backgammons = ratings.backgammons + excluded.backgammons,
                        points_won  = ratings.points_won + excluded.points_won,
                        points_lost = ratings.points_lost + excluded.points_lost,
                        best_rating = CASE WHEN ratings.best_rating > excluded.rating
                                           THEN ratings.best_rating ELSE excluded.rating END,
                        updated_at  = excluded.updated_at
                    """,
                    (
                        scope,
                        uid,
                        new.rating,
                        new.experience,
                        won,
                        gammons,
                        backgammons,
                        pts_won,
                        pts_lost,
                        max(DEFAULT_RATING, new.rating),
                        now,
                    ),
                )
                await conn.execute(
                    """
                    INSERT INTO rating_history (game_id, scope, user_id, rating_before,
                                                rating_after, experience_after, won, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    (game.id, scope, uid, current[uid].rating, new.rating, new.experience, won, now),
                )
                changes.append(
                    RatingChange(scope, uid, current[uid].rating, new.rating, new.experience, bool(won))
                )
        return changes

    async def save_analysis(self, game_id: int, game_number: int, ply: int, summary: str) -> None:
        """Keep the analysis of game ``game_number`` (from 1) of a stored match; a newer one replaces it."""

        async def transaction(conn: Tx) -> None:
            await conn.execute(
                """
                INSERT INTO game_analyses (game_id, game_number, ply, summary, created_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (game_id, game_number) DO UPDATE SET
                    ply = excluded.ply, summary = excluded.summary, created_at = excluded.created_at
                """,
                (game_id, game_number, ply, summary, self._now()),
            )

        await self._transact(transaction)

    async def analyses(self, game_id: int) -> dict[int, str]:
        """Stored analyses of a match's games: game number -> summary."""
        rows = await self._fetchall(
            "SELECT game_number, summary FROM game_analyses WHERE game_id = ? ORDER BY game_number",
            (game_id,),
        )
        return {int(r["game_number"]): str(r["summary"]) for r in rows}

    async def computer_record(self, computer_id: int, guild_id: int | None = None) -> tuple[int, int]:
        """(wins, losses) of a player over finished games, e.g. the computer's against people."""
        where = "" if guild_id is None else " AND guild_id = ?"
        params: tuple[Any, ...] = (computer_id, computer_id, computer_id)
        if guild_id is not None:
            params += (guild_id,)
        row = await self._fetchone(
            """
            SELECT
                COALESCE(SUM(CASE WHEN winner = ? THEN 1 ELSE 0 END), 0) AS wins,
                COUNT(*) AS games
            FROM games
            WHERE status = 'finished' AND winner IS NOT NULL AND (player0 = ? OR player1 = ?)
            """ + where,
            params,
        )
        wins = int(row["wins"]) if row else 0
        games = int(row["games"]) if row else 0
        return wins, games - wins

    async def set_board_message(self, game_id: int, channel_id: int, message_id: int) -> None:
        """Remember where the latest board post is (does not change the version)."""

        async def transaction(conn: Tx) -> None:
            updated = await conn.execute(
                "UPDATE games SET board_channel_id = ?, board_message_id = ? WHERE id = ?",
                (channel_id, message_id, game_id),
            )
            if updated != 1:
                raise NotFoundError(f"Game #{game_id} does not exist.")

        await self._transact(transaction)

    async def claim_reminder(self, game_id: int, version: int) -> bool:
        """Atomically mark the current turn's reminder as sent.

        Returns True if this caller should send the reminder: the game is
        still active at ``version`` and no reminder was sent for this turn.
        Does not change the version.
        """

        async def transaction(conn: Tx) -> bool:
            claimed = await conn.execute(
                """
                UPDATE games SET reminder_sent = 1
                WHERE id = ? AND version = ? AND status = 'active' AND reminder_sent = 0
                """,
                (game_id, version),
            )
            return claimed == 1
        return await self._transact(transaction)

    async def due_deadlines(
        self, now: datetime | None = None, *, limit: int = 100, shard: Shard | None = None
    ) -> list[GameRow]:
        """Active games whose turn deadline is at or before ``now``, oldest first
        (only guilds on ``shard`` when given, see :func:`_shard_clause`)."""
        ts = _to_ts(now) if now is not None else self._now()
        where, params = _shard_clause(shard, "turn_deadline", ts)
        rows = await self._fetchall(
            """
            SELECT * FROM games
            WHERE status = 'active' AND turn_deadline IS NOT NULL AND turn_deadline <= ?
            """ + where + """
            ORDER BY turn_deadline LIMIT ?
            """,
            (ts, *params, limit),
        )
        return [GameRow.from_row(r) for r in rows]

    async def due_reminders(
        self, now: datetime | None = None, *, limit: int = 100, shard: Shard | None = None
    ) -> list[GameRow]:
        """Active games whose reminder time passed and whose reminder isn't sent
        (only guilds on ``shard`` when given, see :func:`_shard_clause`)."""
        ts = _to_ts(now) if now is not None else self._now()
        where, params = _shard_clause(shard, "reminder_at", ts)
        rows = await self._fetchall(
            """
            SELECT * FROM games
            WHERE status = 'active' AND reminder_sent = 0
              AND reminder_at IS NOT NULL AND reminder_at <= ?
            """ + where + """
            ORDER BY reminder_at LIMIT ?
            """,
            (ts, *params, limit),
        )
        return [GameRow.from_row(r) for r in rows]

    async def next_wakeup(self, *, shard: Shard | None = None) -> datetime | None:
        """Earliest pending deadline, reminder or challenge expiry (for a scheduler sleep);
        with ``shard``, other shards' times count :data:`ORPHAN_AFTER` later."""
        if shard is None:
            return await self._earliest_due("", ())
        count, ids = shard
        marks = ", ".join("?" for _ in ids)
        own = await self._earliest_due(f" AND ((guild_id / 4194304) % ?) IN ({marks})", (count, *ids))
        anyone = await self._earliest_due("", ())
        if anyone is not None:
            anyone += timedelta(seconds=ORPHAN_AFTER)
        candidates = [t for t in (own, anyone) if t is not None]
        return min(candidates) if candidates else None

    async def _earliest_due(self, where: str, params: tuple[int, ...]) -> datetime | None:
        row = await self._fetchone(
            """
            SELECT MIN(t) FROM (
                SELECT MIN(turn_deadline) AS t FROM games
                    WHERE status = 'active' AND turn_deadline IS NOT NULL""" + where + """
                UNION ALL
                SELECT MIN(reminder_at) FROM games
                    WHERE status = 'active' AND reminder_sent = 0 AND reminder_at IS NOT NULL""" + where + """
                UNION ALL
                SELECT MIN(expires_at) FROM challenges
                    WHERE status = 'pending' AND expires_at IS NOT NULL""" + where + """
            ) AS due
            """,
            params * 3,
        )
        return _from_ts(row[0]) if row else None

    # ---------------------------------------------------------- challenges

    async def create_challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger: int,
        challenged: int | None,
        settings: Mapping[str, Any] | None = None,
        match_length: int = 0,
        expires_at: datetime | None = None,
        message_id: int | None = None,
    ) -> ChallengeRow:
        """Create a pending challenge (``challenged`` None = open to anyone)."""
        if match_length < 0:
            raise ValueError("match_length must be >= 0")
        now = self._now()
        payload = _dump(dict(settings or {}))

        async def transaction(conn: Tx) -> Row | None:
            await self._touch_player(conn, challenger, now)
            if challenged is not None:
                await self._touch_player(conn, challenged, now)
            challenge_id = await conn.insert_id(
                """
                INSERT INTO challenges (guild_id, channel_id, challenger, challenged, settings,
                                        match_length, message_id, created_at, updated_at,
                                        expires_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (
                    guild_id,
                    channel_id,
                    challenger,
                    challenged,
                    payload,
                    match_length,
                    message_id,
                    now,
                    now,
                    _to_ts(expires_at),
                ),
            )
            return await self._one(conn, "SELECT * FROM challenges WHERE id = ?", (challenge_id,))

        row = await self._transact(transaction)
        assert row is not None
        return ChallengeRow.from_row(row)

    async def get_challenge(self, challenge_id: int) -> ChallengeRow:
        """Return a challenge; :class:`NotFoundError` if there is none."""
        row = await self._fetchone("SELECT * FROM challenges WHERE id = ?", (challenge_id,))
        if row is None:
            raise NotFoundError(f"Challenge #{challenge_id} does not exist.")
        return ChallengeRow.from_row(row)

    async def pending_challenges(
        self, channel_id: int | None = None, *, user_id: int | None = None
    ) -> list[ChallengeRow]:
        """Pending challenges in a channel and/or involving a user, oldest first."""
        rows = await self._fetchall(
            """
            SELECT * FROM challenges
            WHERE status = 'pending'
              AND (CAST(? AS BIGINT) IS NULL OR channel_id = ?)
              AND (CAST(? AS BIGINT) IS NULL OR challenger = ? OR challenged = ?)
            ORDER BY created_at, id
            """,
            (channel_id, channel_id, user_id, user_id, user_id),
        )
        return [ChallengeRow.from_row(r) for r in rows]

    async def expired_challenges(self, now: datetime | None = None) -> list[ChallengeRow]:
        """Pending challenges whose expiry time is at or before ``now``."""
        ts = _to_ts(now) if now is not None else self._now()
        rows = await self._fetchall(
            """
            SELECT * FROM challenges
            WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ?
            ORDER BY expires_at, id
            """,
            (ts,),
        )
        return [ChallengeRow.from_row(r) for r in rows]

    async def expire_challenges(
        self, now: datetime | None = None, *, shard: Shard | None = None
    ) -> list[ChallengeRow]:
        """Mark every overdue pending challenge 'expired'; return those rows.

        Each challenge is returned by exactly one caller, even with several
        bot processes expiring at once (on PostgreSQL rows another process is
        expiring are skipped, ``FOR UPDATE SKIP LOCKED``).
        """
        ts = _to_ts(now) if now is not None else self._now()
        stamp = self._now()
        where, params = _shard_clause(shard, "expires_at", ts)

        async def transaction(conn: Tx) -> list[ChallengeRow]:
            rows = await conn.fetchall(
                """
                SELECT id FROM challenges
                WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ?
                """ + where + """
                ORDER BY expires_at, id
                """
                + conn.skip_locked,
                (ts, *params),
            )
            ids = [r["id"] for r in rows]
            result: list[ChallengeRow] = []
            for cid in ids:
                changed = await conn.execute(
                    "UPDATE challenges SET status = 'expired', updated_at = ? WHERE id = ? AND status = 'pending'",
                    (stamp, cid),
                )
                if changed != 1:
                    continue
                row = await self._one(conn, "SELECT * FROM challenges WHERE id = ?", (cid,))
                assert row is not None
                result.append(ChallengeRow.from_row(row))
            return result

        result = await self._transact(transaction)
        return result

    async def set_challenge_status(
        self, challenge_id: int, status: ChallengeStatus, *, game_id: int | None = None
    ) -> ChallengeRow:
        """Move a *pending* challenge to ``status``.

        Raises :class:`ChallengeClosedError` if it is not pending any more
        (someone else answered first), :class:`NotFoundError` if unknown.
        To accept and start the game atomically use
        ``create_game(..., challenge_id=...)`` instead.
        """
        if status not in ("accepted", "declined", "cancelled", "expired"):
            raise ValueError(f"bad challenge status {status!r}")
        now = self._now()

        async def transaction(conn: Tx) -> Row | None:
            await self._require_pending_challenge(conn, challenge_id)
            await conn.execute(
                """
                UPDATE challenges SET status = ?, game_id = COALESCE(?, game_id), updated_at = ?
                WHERE id = ?
                """,
                (status, game_id, now, challenge_id),
            )
            return await self._one(conn, "SELECT * FROM challenges WHERE id = ?", (challenge_id,))

        row = await self._transact(transaction)
        assert row is not None
        return ChallengeRow.from_row(row)

    async def set_challenge_message(self, challenge_id: int, message_id: int | None) -> None:
        """Remember the message that shows the challenge (for editing it later)."""

        async def transaction(conn: Tx) -> None:
            updated = await conn.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )
            if updated != 1:
                raise NotFoundError(f"Challenge #{challenge_id} does not exist.")

        await self._transact(transaction)

    async def _require_pending_challenge(self, conn: Tx, challenge_id: int) -> None:
        row = await self._one(conn, "SELECT status FROM challenges WHERE id = ?" + conn.for_update, (challenge_id,))
        if row is None:
            raise NotFoundError(f"Challenge #{challenge_id} does not exist.")
        if row["status"] != "pending":
            raise ChallengeClosedError(f"This challenge was already {row['status']}.", status=row["status"])

    # -------------------------------------------------------------- ratings

    async def get_rating(self, user_id: int, scope: int = GLOBAL_SCOPE) -> PlayerRating | None:
        """Return a player's ratings row in a scope, or None if unrated there."""
        row = await self._fetchone(
            """
            SELECT r.*, p.display_name FROM ratings r
            LEFT JOIN players p ON p.user_id = r.user_id
            WHERE r.scope = ? AND r.user_id = ?
            """,
            (scope, user_id),
        )
        return PlayerRating.from_row(row) if row else None

    async def player_stats(self, user_id: int, scope: int = GLOBAL_SCOPE) -> PlayerStats | None:
        """Return a player's ratings row with their rank by rating in the scope."""
        rows = await self._fetchall(
            """
            SELECT r.*, p.display_name,
                   (SELECT COUNT(*) FROM ratings o
                     WHERE o.scope = r.scope AND o.games > 0
                       AND (o.rating > r.rating
                            OR (o.rating = r.rating AND o.games > r.games)
                            OR (o.rating = r.rating AND o.games = r.games
                                AND o.user_id < r.user_id))) + 1 AS rank_,
                   (SELECT COUNT(*) FROM ratings o
                     WHERE o.scope = r.scope AND o.games > 0) AS ranked_
            FROM ratings r LEFT JOIN players p ON p.user_id = r.user_id
            WHERE r.scope = ? AND r.user_id = ?
            """,
            (scope, user_id),
        )
        rows = list(rows)
        if not rows:
            return None
        row = rows[0]
        return PlayerStats(PlayerRating.from_row(row), int(row["rank_"]), int(row["ranked_"]))

    async def leaderboard(
        self,
        scope: int = GLOBAL_SCOPE,
        *,
        order: LeaderboardOrder = "rating",
        offset: int = 0,
        limit: int = 10,
        min_games: int = 1,
    ) -> LeaderboardPage:
        """Return one page of the leaderboard and the total ranked count.

        ``order``: 'rating', 'points' (points won), 'net' (won - lost) or
        'wins'.  Ties break on rating, then games played, then user id.
        """
        order_sql = {
            "rating": "r.rating DESC",
            "points": "r.points_won DESC, r.rating DESC",
            "net": "(r.points_won - r.points_lost) DESC, r.rating DESC",
            "wins": "r.wins DESC, r.rating DESC",
        }.get(order)
        if order_sql is None:
            raise ValueError(f"bad leaderboard order {order!r}")
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        async with self._db.snapshot() as snap:
            rows = list(
                await snap.fetchall(
                    f"""
                    SELECT r.*, p.display_name FROM ratings r
                    LEFT JOIN players p ON p.user_id = r.user_id
                    WHERE r.scope = ? AND r.games >= ?
                    ORDER BY {order_sql}, r.games DESC, r.user_id
                    LIMIT ? OFFSET ?
                    """,
                    (scope, max(min_games, 1), limit, offset),
                )
            )
            total_rows = list(
                await snap.fetchall(
                    "SELECT COUNT(*) FROM ratings WHERE scope = ? AND games >= ?",
                    (scope, max(min_games, 1)),
                )
            )
        entries = [LeaderboardEntry(offset + i + 1, PlayerRating.from_row(r)) for i, r in enumerate(rows)]
        return LeaderboardPage(entries, int(total_rows[0][0]), offset, limit)

    async def rating_history(
        self, user_id: int, scope: int = GLOBAL_SCOPE, *, limit: int = 50
    ) -> list[RatingHistoryRow]:
        """A player's most recent rating changes in a scope, oldest first."""
        rows = await self._fetchall(
            """
            SELECT * FROM (
                SELECT * FROM rating_history WHERE scope = ? AND user_id = ?
                ORDER BY id DESC LIMIT ?
            ) AS recent ORDER BY id
            """,
            (scope, user_id, limit),
        )
        return [
            RatingHistoryRow(
                game_id=r["game_id"],
                scope=r["scope"],
                user_id=r["user_id"],
                rating_before=r["rating_before"],
                rating_after=r["rating_after"],
                experience_after=r["experience_after"],
                won=bool(r["won"]),
                created_at=_req_ts(r["created_at"]),
            )
            for r in rows
        ]

    async def dice_stats(self, user_id: int, guild_id: int | None = None) -> DiceStats:
        """Count a player's logged rolls (derived from the action log)."""
        rows = await self._fetchall(
            """
            SELECT CASE WHEN a.die1 >= a.die2 THEN a.die1 ELSE a.die2 END AS hi,
                   CASE WHEN a.die1 >= a.die2 THEN a.die2 ELSE a.die1 END AS lo,
                   COUNT(*) AS n
            FROM actions a JOIN games g ON g.id = a.game_id
            WHERE a.actor = ? AND a.die1 IS NOT NULL AND (CAST(? AS BIGINT) IS NULL OR g.guild_id = ?)
            GROUP BY hi, lo
            """,
            (user_id, guild_id, guild_id),
        )
        return DiceStats({(r["hi"], r["lo"]): r["n"] for r in rows})

    # ---------------------------------------------------------- maintenance

    async def integrity_check(self) -> str:
        """SQLite: ``PRAGMA integrity_check``'s first line; PostgreSQL: a liveness check.

        'ok' if fine.
        """
        return await self._db.integrity_check()


async def _connect(where: DatabaseTarget, *, min_size: int | None, max_size: int | None) -> Driver:
    if where.backend == "postgresql":
        from bot.db.postgres import DEFAULT_MAX_SIZE, DEFAULT_MIN_SIZE, PostgresDriver

        return await PostgresDriver.connect(
            where.location,
            min_size=DEFAULT_MIN_SIZE if min_size is None else min_size,
            max_size=DEFAULT_MAX_SIZE if max_size is None else max_size,
            lock_timeout_ms=BUSY_TIMEOUT_MS,
        )
    return await SqliteDriver.connect(where.location, busy_timeout_ms=BUSY_TIMEOUT_MS)


async def open_store(
    url_or_path: str | os.PathLike[str] = DEFAULT_DB_PATH,
    *,
    clock: Callable[[], datetime] = _utcnow,
    migrate_to: int | None = None,
    min_size: int | None = None,
    max_size: int | None = None,
) -> Store:
    """Open the store named by ``DATABASE_URL`` (or a plain SQLite path) and migrate it.

    ``postgresql://user:password@host:port/dbname`` -> PostgreSQL (asyncpg
    pool of ``min_size``..``max_size`` connections, default 1..10);
    ``sqlite:///relative.sqlite3``, ``sqlite:////absolute.sqlite3`` or a
    plain path -> SQLite.  Same as :meth:`Store.open`.
    """
    return await Store.open(
        url_or_path, clock=clock, migrate_to=migrate_to, min_size=min_size, max_size=max_size
    )
