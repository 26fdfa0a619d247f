"""The application core's values and errors: what the Discord layer is handed.

Nothing here knows Discord or the database: a :class:`GameState` is a stored
match with its engine state, an :class:`Outcome` what an action did, a
:class:`Notice` what falls due (a reminder, a timeout, an expiry). Every
refusal is a :class:`ServiceError` whose ``message`` is fit to show a player.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from bot.ai import UNAVAILABLE_MESSAGE
from bot.store import (  # the store's values the layers above are shown, through the core
    DatabaseBusyError,
    DatabaseUnavailableError,
    DiceStats,
    LeaderboardEntry,
    LeaderboardPage,
    PlayerRating,
    PlayerStats,
    RatingChange,
    Shard,
)
from engine import Game, GameSettings, Match, format_play

CHALLENGE_LIFETIME = timedelta(hours=24)
KEPT_CHALLENGES = 10_000
"""Pending challenges a service remembers (the oldest are forgotten first, and read again if needed)."""
REMINDER_FRACTION = 0.75
"""A reminder goes out when this much of the time per move has passed."""
AUTOMATIC_DOUBLES_LIMIT = 2
"""How many opening ties may double the cube when automatic doubles are on."""
MAX_MATCH_LENGTH = 25
MAX_STAKE = 1_000_000

# Actions the service logs for itself; the engine never sees them.
SERVICE_ACTIONS = frozenset({"abandon", "match_forfeit"})



# -- errors -------------------------------------------------------------------


class ServiceError(Exception):
    """An action was refused; :attr:`message` tells the player what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotInGameError(ServiceError):
    """The user is not one of the two players."""


class NotYourTurnError(ServiceError):
    """The user plays in this game but it is the other player's move."""


class StaleGameError(ServiceError):
    """The game changed since the user looked at it (a stale button, a race)."""

    def __init__(self, message: str = "the game has moved on", view: GameState | None = None) -> None:
        super().__init__(message)
        self.view = view


class NoGameError(ServiceError):
    """There is no such game (or no active game here)."""


class ChallengeError(ServiceError):
    """A challenge cannot be made, accepted or answered."""


class RuleError(ServiceError):
    """The engine refused the action: illegal play, unreadable notation, wrong phase."""


class AnalysisUnavailableError(ServiceError):
    """The engines behind the computer, hints and analysis are not installed here."""

    def __init__(self, message: str = UNAVAILABLE_MESSAGE) -> None:
        super().__init__(message)


class BusyError(ServiceError):
    """The database is busy or out of reach for a moment; nothing was changed."""


C = TypeVar("C", bound=type)


def storage_errors_as_service_errors(cls: C) -> C:
    """Class decorator: every public coroutine method of ``cls`` turns the
    store's "busy" and "unavailable" errors into :class:`BusyError`, so the
    layers above the core see only :class:`ServiceError` (with the store's
    player-fit wording)."""
    for name, method in list(vars(cls).items()):
        if name.startswith("_") or not inspect.iscoroutinefunction(method):
            continue

        def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(method)
            async def translated(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await method(*args, **kwargs)
                except (DatabaseBusyError, DatabaseUnavailableError) as error:
                    raise BusyError(str(error)) from error

            return translated

        setattr(cls, name, wrap(method))
    return cls


# -- values -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerRef:
    """A Discord user as the service knows them."""

    user_id: int
    name: str
    is_bot: bool = False


@dataclass(frozen=True, slots=True)
class ChallengeOptions:
    """What the challenger chose: money game or match, time per move, rules."""

    match_length: int = 0
    """0 for a money game, else points to win the match."""
    stake: int = 1
    """Money game: what one point is worth on the points leaderboard."""
    move_days: int = 3
    """Time per move in days (1 to 14)."""
    jacoby: bool = False
    beavers: bool = False
    automatic_doubles: bool = False
    opening_reroll: bool = False
    hints: bool = False
    """Both players agreed to allow hints (used by the analysis commands)."""
    thread: bool = False
    """The game is played in a new thread, made when the challenge is accepted."""
    computer_level: str | None = None
    """Set for a game against the computer: its level (beginner, intermediate, expert)."""
    practice: bool = False
    """A practice game (from a set-up position): one game, unrated."""
    closed_out: str = "roll"
    """On the bar against a closed board: ``roll`` (today's rule: roll and dance) or
    ``skip`` (the old texts' rule: no roll). Games stored before it existed are ``skip``."""

    @property
    def rated(self) -> bool:
        """Only games between two people that start from the opening are rated."""
        return not (self.computer_level or self.practice)

    def validate(self) -> None:
        """:raises ChallengeError: with what is wrong."""
        def whole(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        if not whole(self.match_length) or not 0 <= self.match_length <= MAX_MATCH_LENGTH:
            raise ChallengeError(f"a match is 1 to {MAX_MATCH_LENGTH} points (0 for a money game)")
        if not whole(self.stake) or not 1 <= self.stake <= MAX_STAKE:
            raise ChallengeError("the stake is a whole number of at least 1")
        if not whole(self.move_days) or not 1 <= self.move_days <= 14:
            raise ChallengeError("the time per move is 1 to 14 days")
        if self.match_length and (self.jacoby or self.beavers or self.automatic_doubles):
            raise ChallengeError("Jacoby, beavers and automatic doubles are for money games only")
        try:
            self.game_settings()  # the engine's own rules for a playable game
        except ValueError as error:
            raise ChallengeError(str(error)) from None

    def game_settings(self) -> GameSettings:
        return GameSettings(
            match_length=self.match_length,
            jacoby=self.jacoby,
            beavers=self.beavers,
            automatic_doubles=AUTOMATIC_DOUBLES_LIMIT if self.automatic_doubles else 0,
            opening_reroll=self.opening_reroll,
            closed_out=self.closed_out,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChallengeOptions:
        """Options as :meth:`to_dict` stored them; those stored before ``closed_out``
        existed were played under ``skip`` and load so."""
        known = set(cls.__dataclass_fields__)
        values = {k: v for k, v in data.items() if k in known}
        values.setdefault("closed_out", "skip")
        return cls(**values)

    def describe(self) -> str:
        """One line for a challenge message."""
        kind = f"a {self.match_length}-point match" if self.match_length else f"a money game at {self.stake} per point"
        rules = [name for name, on in (
            ("Jacoby", self.jacoby), ("beavers", self.beavers),
            ("automatic doubles", self.automatic_doubles), ("opening re-throw", self.opening_reroll),
        ) if on]
        days = f"{self.move_days} day{'s' if self.move_days != 1 else ''} per move"
        return ", ".join([kind, days, *rules])


@dataclass(frozen=True, slots=True)
class ChallengeView:
    id: int
    guild_id: int
    channel_id: int
    challenger: PlayerRef
    challenged: PlayerRef
    options: ChallengeOptions
    status: str
    expires_at: datetime | None
    game_id: int | None = None
    message_id: int | None = None
    fair_dice: dict[str, str] | None = None
    """The dice's public ``commitment`` and ``nonce``, published with the challenge
    (the seed behind them stays secret until the game ends)."""


@dataclass(frozen=True, slots=True)
class GameState:
    """A stored match and its engine state, as of :attr:`version`."""

    id: int
    guild_id: int
    channel_id: int
    players: tuple[PlayerRef, PlayerRef]
    options: ChallengeOptions
    version: int
    status: str
    match: Match
    deadline: datetime | None
    board_message: tuple[int, int] | None
    result: dict[str, Any] | None = None
    fair_dice: dict[str, str] | None = None
    """``commitment`` and ``nonce`` of the provably fair dice; ``seed`` too once the game is over."""
    board_version: int | None = None
    """The version :attr:`board_message` shows (older than :attr:`version` while a board is owed)."""

    @property
    def game(self) -> Game:
        """The current game of the match."""
        assert self.match.game is not None
        return self.match.game

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def seat(self, user_id: int) -> int | None:
        for index, player in enumerate(self.players):
            if player.user_id == user_id:
                return index
        return None

    def to_act(self) -> PlayerRef | None:
        """Who must act now (None once the match is over)."""
        if not self.is_active or self.game.is_over:
            return None
        return self.players[self.game.turn]

    def legal_play_texts(self) -> list[str]:
        """Canonical notation of every legal play now (empty unless a play is due)."""
        return sorted(format_play(play) for play in self.game.legal_plays())


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, in one line for people."""

    kind: str
    player: int | None
    text: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of an action: the game as it now stands and what happened."""

    view: GameState
    events: list[Event]
    rating_changes: list[RatingChange] = field(default_factory=list)
    owed: tuple[int, ...] = ()
    """The outbox entries its board settles (:mod:`bot.core.deliveries`)."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """A message the outbox owes, worded for the deliverer (:mod:`bot.core.deliveries`).

    ``board``: :attr:`outcome` is the game as it stands, with everything since
    its last board shown, under :attr:`headline` (a timeout) pinging :attr:`ping`.
    ``reminder``: :attr:`text` for :attr:`ping`, about the game :attr:`state`.
    ``challenge_expired``: :attr:`challenge` ran out; :attr:`text` says so.
    :attr:`retried`: an earlier attempt may have reached Discord: look first.
    """

    kind: str
    entries: tuple[int, ...]
    guild_id: int
    channel_id: int
    attempts: int = 0
    retried: bool = False
    outcome: Outcome | None = None
    headline: str | None = None
    ping: tuple[int, ...] = ()
    state: GameState | None = None
    challenge: ChallengeView | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the scheduler should post: a reminder, a timeout, an expired challenge."""

    kind: str
    view: GameState | None
    challenge: ChallengeView | None
    user_id: int | None
    text: str
    events: list[Event] = field(default_factory=list)
    rating_changes: list[RatingChange] = field(default_factory=list)


__all__ = [
    "AUTOMATIC_DOUBLES_LIMIT", "CHALLENGE_LIFETIME", "KEPT_CHALLENGES", "MAX_MATCH_LENGTH", "MAX_STAKE",
    "REMINDER_FRACTION", "SERVICE_ACTIONS", "UNAVAILABLE_MESSAGE",
    "AnalysisUnavailableError", "BusyError", "ChallengeError", "ChallengeOptions", "ChallengeView", "Delivery",
    "DiceStats", "Event", "GameState", "LeaderboardEntry", "LeaderboardPage", "NoGameError", "NotInGameError",
    "NotYourTurnError", "Notice", "Outcome", "PlayerRating", "PlayerRef", "PlayerStats", "RatingChange",
    "RuleError", "ServiceError", "Shard", "StaleGameError", "storage_errors_as_service_errors",
]
