"""The values the store hands out and takes in, and how columns are encoded.

Timestamps are stored as REAL Unix seconds (UTC) and come back as aware
:class:`datetime.datetime` objects in UTC (naive ones passed in are taken to
be UTC). Settings, results and actions are compact JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal, overload

GLOBAL_SCOPE: Final = 0
"""Rating scope of the global leaderboard (per-guild scopes use the guild id)."""

GameStatus = Literal["active", "finished", "abandoned"]
ChallengeStatus = Literal["pending", "accepted", "declined", "cancelled", "expired"]
LeaderboardOrder = Literal["rating", "points", "net", "wins"]

Row = Any
"""A result row: ``sqlite3.Row`` or ``asyncpg.Record`` (both index by name and position)."""


def utcnow() -> datetime:
    return datetime.now(UTC)


@overload
def to_ts(value: datetime) -> float: ...
@overload
def to_ts(value: None) -> None: ...
@overload
def to_ts(value: datetime | None) -> float | None: ...
def to_ts(value: datetime | None) -> float | None:
    """Convert a datetime (naive = UTC) to Unix seconds."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def from_ts(value: float | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromtimestamp(value, UTC)


def req_ts(value: float) -> datetime:
    return datetime.fromtimestamp(value, UTC)


def dump_json(value: Any) -> str:
    """Serialise to compact JSON (raises TypeError/ValueError if not JSON-able)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def load_json(value: str | None) -> Any:
    return None if value is None else json.loads(value)


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
            prefs=load_json(row["prefs"]) or {},
            created_at=req_ts(row["created_at"]),
            updated_at=req_ts(row["updated_at"]),
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
    board_version: int | None = None
    """The version of the game its board message shows (None: no board yet)."""
    turn: int | None = None
    """The seat whose turn it is (None: finished, or not known yet for a game last moved long ago)."""

    @classmethod
    def from_row(cls, row: Row) -> GameRow:
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            player0=row["player0"],
            player1=row["player1"],
            settings=load_json(row["settings"]) or {},
            status=row["status"],
            match_length=row["match_length"],
            score0=row["score0"],
            score1=row["score1"],
            version=row["version"],
            turn_deadline=from_ts(row["turn_deadline"]),
            reminder_at=from_ts(row["reminder_at"]),
            reminder_sent=bool(row["reminder_sent"]),
            result=load_json(row["result"]),
            winner=row["winner"],
            board_channel_id=row["board_channel_id"],
            board_message_id=row["board_message_id"],
            created_at=req_ts(row["created_at"]),
            updated_at=req_ts(row["updated_at"]),
            finished_at=from_ts(row["finished_at"]),
            board_version=row["board_version"],
            turn=row["turn"],
        )

    @property
    def players(self) -> tuple[int, int]:
        """``(player0, player1)`` user ids."""
        return (self.player0, self.player1)

    @property
    def board_message(self) -> tuple[int, int] | None:
        """``(channel id, message id)`` of the game's board message, if it has one."""
        if self.board_channel_id is None or self.board_message_id is None:
            return None
        return (self.board_channel_id, self.board_message_id)

    @property
    def is_active(self) -> bool:
        return self.status == "active"

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
            action=load_json(row["action"]),
            dice=(d1, d2) if d1 is not None and d2 is not None else None,
            play=row["play"],
            created_at=req_ts(row["created_at"]),
        )


@dataclass(frozen=True, slots=True)
class SnapshotRow:
    """A stored snapshot of an active game's state at ``version`` (its first
    ``version`` actions), in the engine's snapshot ``format`` (``state`` is the
    engine's text: the store never reads it)."""

    game_id: int
    version: int
    format: int
    state: str
    updated_at: datetime

    @classmethod
    def from_row(cls, row: Row) -> SnapshotRow:
        return cls(
            game_id=row["game_id"],
            version=row["version"],
            format=row["format"],
            state=row["state"],
            updated_at=req_ts(row["updated_at"]),
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
            settings=load_json(row["settings"]) or {},
            match_length=row["match_length"],
            status=row["status"],
            game_id=row["game_id"],
            message_id=row["message_id"],
            created_at=req_ts(row["created_at"]),
            updated_at=req_ts(row["updated_at"]),
            expires_at=from_ts(row["expires_at"]),
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
            updated_at=req_ts(row["updated_at"]),
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
class RatingPoint:
    """One rated match in a player's rating history (:meth:`bot.store.ratings.RatingStore.history`)."""

    game_id: int
    at: float
    """When it ended (Unix seconds)."""
    rating_before: float
    rating_after: float
    won: bool
    points: int | None
    """Net points it won (stake included); None for matches rated before points were kept."""
    opponent: int | None
    opponent_rating: float | None
    """The opponent's rating before the match."""
    opponent_name: str = ""


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


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What :meth:`GameStore.append` wrote."""

    game: GameRow
    actions: list[ActionRow]
    rating_changes: list[RatingChange] = field(default_factory=list)
    owed: list[int] = field(default_factory=list)
    """Ids of the outbox entries written with the actions."""

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


def dice_of(action: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """The ``dice`` of an action as two ints 1..6, or (None, None)."""
    dice = action.get("dice")
    if isinstance(dice, (list, tuple)) and len(dice) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        return int(dice[0]), int(dice[1])
    return None, None
