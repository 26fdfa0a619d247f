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
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Final, TypeVar, cast

from bot.ai import UNAVAILABLE_MESSAGE
from bot.config import DUE_PER_SWEEP, EXPIRIES_PER_SWEEP, Limits  # the limits are settings
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
    StorageFullError,
)
from engine import UNLIMITED, Game, GameSettings, Match, Phase, Play, WinKind, legal_plays
from engine.dice import DiceSource
from engine.reasons import GAME_NAMES
from engine.variants import PRESETS, VARIANTS, TablesGame, VariantMatch, family, preset_settings
from i18n import N_, _, ngettext, worded

CHALLENGE_LIFETIME = timedelta(hours=24)
KEPT_CHALLENGES = 10_000
"""Pending challenges a service remembers (the oldest are forgotten first, and read again if needed)."""
REMINDER_FRACTION = 0.75
"""A reminder goes out when this much of the time per move has passed."""
AUTOMATIC_DOUBLES_LIMIT = 2
"""How many opening ties double the cube when automatic doubles are simply on."""
CUBE_LIMIT: Final = 64
"""The highest cube by default; a challenge may set a lower one (a power of two)."""
CUBE_LIMITS = (2, 4, 8, 16, 32, 64)
HOYLE_LENGTH = 2
"""Hoyle's rubber is the best of three games: a match to two points, a gammon counting two."""
MAX_MATCH_LENGTH = 25

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

    def __init__(self, message: str | None = None, state: GameState | None = None) -> None:
        super().__init__(message or _("the game has moved on"))
        self.state = state


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


class SavingPausedError(BusyError):
    """The database cannot grow (its disk is full): nothing was changed, and the store
    has logged it once already (not once per click)."""


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
                except StorageFullError as error:
                    raise SavingPausedError(str(error)) from error
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
class TeamSeat:
    """A side played by a team in consultation (:mod:`bot.core.consultations`): its seat's
    player is the team (``team_id``: the role's or the thread's id), its members vote."""

    seat: int
    team_id: int
    kind: str
    """``role`` (the members of a role) or ``thread`` (the members of a private thread)."""
    thread_id: int
    """The team's private thread: its discussion, its prompts and tallies."""
    captain_id: int
    """Who breaks a tie."""

    @classmethod
    def from_dict(cls, data: Any) -> TeamSeat:
        if isinstance(data, TeamSeat):
            return data
        return cls(
            int(data["seat"]), int(data["team_id"]), str(data["kind"]), int(data["thread_id"]), int(data["captain_id"])
        )


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
    automatic_doubles: int = 0
    """Money: how many ties of the opening throw double the cube: 0 (none), a
    count, or :data:`~engine.UNLIMITED` (every tie, up to :attr:`cube_limit`).
    ``True`` and ``False`` (as stored before counts) mean
    :data:`AUTOMATIC_DOUBLES_LIMIT` and 0."""
    opening_reroll: bool = False
    cube_limit: int = CUBE_LIMIT
    """The highest value the cube may reach, automatic doubles included."""
    early_doubles: bool = True
    """False: nobody may double before the game's first play (the old texts: "at any time after the first turn")."""
    hoyle: bool = False
    """Hoyle's rubber: no cube, best of three games (a 2-point match, a gammon
    counting two), the winner of a hit throws first in the next game, and the
    opening winner chooses to play the opening dice or throw again."""
    backgammon_value: int = 3
    """What a backgammon counts: 3, or 4 "as may have been agreed" (Hoyle's rubber only)."""
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
    gnubg_id: str | None = None
    """A practice challenge: the GNU Backgammon ID (``PositionID:MatchID``) its game starts from."""
    rematch_of: int | None = None
    """A rematch: the finished game it plays again."""
    challenger_seat: int = 0
    """Where the challenger sits (0 or 1): a rematch swaps the players' colours."""
    tournament: int | None = None
    """A tournament's match: the tournament (:mod:`bot.core.tournaments`)."""
    unrated: bool = False
    """Kept out of the ratings by choice (a tournament that is not rated)."""
    variant: str = "backgammon"
    """The game played (:data:`engine.variants.VARIANTS`): backgammon, one of its
    presets (nackgammon, tavla, takhteh, portes), plakoto, fevga, nardy or tavli."""

    @property
    def family(self) -> str:
        """The rating family (:func:`engine.variants.family`)."""
        return family(self.variant)

    @property
    def is_tables(self) -> bool:
        """A game of plakoto, fevga, nardy or tavli: no cube, no gnubg nets."""
        return self.variant not in PRESETS

    kibitzers: bool = True
    """Onlookers may answer what they would play while a player thinks (:mod:`bot.core.kibitzers`)."""
    chouette: int | None = None
    """A chouette's checker game (:mod:`bot.core.chouettes`): the box against the captain,
    without a cube of its own (each team member's cube is the chouette's), unrated."""
    teams: tuple[TeamSeat, ...] = ()
    """The sides played by teams in consultation (:mod:`bot.core.consultations`)."""

    def team_at(self, seat: int) -> TeamSeat | None:
        """The team that plays ``seat`` (None: a member or the computer)."""
        for team in self.teams:
            if team.seat == seat:
                return team
        return None

    @property
    def rated(self) -> bool:
        """Only games between two people that start from the opening are rated
        (and not those of an unrated tournament, nor a chouette's, nor a team's: its result
        goes to the team's own record)."""
        return not (self.computer_level or self.practice or self.unrated or self.chouette is not None or self.teams)

    def validate(self, max_stake: int | None = None) -> None:
        """:raises ChallengeError: with what is wrong (``max_stake``: the limit, else the default one)."""
        if max_stake is None:
            max_stake = Limits().max_stake

        def whole(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        if not whole(self.match_length) or not 0 <= self.match_length <= MAX_MATCH_LENGTH:
            raise ChallengeError(
                _("a match is 1 to {max_match_length} points (0 for a money game)").format(
                    max_match_length=MAX_MATCH_LENGTH
                )
            )
        if not whole(self.stake) or not 1 <= self.stake <= max_stake:
            raise ChallengeError(
                _("the stake is a whole number from 1 to {max_stake} per point").format(max_stake=max_stake)
            )
        if not whole(self.move_days) or not 1 <= self.move_days <= 14:
            raise ChallengeError(_("the time per move is 1 to 14 days"))
        if self.match_length and (self.jacoby or self.beavers or self.automatic_doubles):
            raise ChallengeError(_("Jacoby, beavers and automatic doubles are for money games only"))
        if not whole(self.automatic_doubles) or not UNLIMITED <= self.automatic_doubles <= 6:
            raise ChallengeError(_("automatic doubles are off, a count of ties up to 6, or every tie"))
        if not whole(self.cube_limit) or self.cube_limit not in CUBE_LIMITS:
            raise ChallengeError(_("the cube limit is one of {join}").format(join=", ".join(map(str, CUBE_LIMITS))))
        if self.challenger_seat not in (0, 1):
            raise ChallengeError(_("the challenger sits at seat 0 or 1"))
        if self.variant not in VARIANTS:
            raise ChallengeError(
                _("the game is one of {games}").format(games=", ".join(variant_name(name) for name in VARIANTS))
            )
        if self.variant not in ("backgammon", "nackgammon"):
            cubeless = (self.jacoby, self.beavers, self.automatic_doubles, self.hoyle, self.opening_reroll)
            if any(cubeless) or self.cube_limit != CUBE_LIMIT or not self.early_doubles:
                raise ChallengeError(
                    _("{game} has no cube and its own opening: leave out the cube options").format(
                        game=variant_name(self.variant)
                    )
                )
            if self.gnubg_id:
                raise ChallengeError(_("a practice game from a position is backgammon"))
        if self.variant in ("tavla", "takhteh", "portes") and not self.match_length:
            raise ChallengeError(
                _("{game} is played as a match: give its length").format(game=variant_name(self.variant))
            )
        if self.variant == "tavli" and self.match_length not in (3, 5, 7):
            raise ChallengeError(_("tavli is played to 3, 5 or 7 points"))
        if self.backgammon_value not in (3, 4):
            raise ChallengeError(_("a backgammon counts 3, or 4 by agreement"))
        if self.teams and (
            self.hoyle
            or self.is_tables
            or len({t.seat for t in self.teams}) != len(self.teams)
            or any(t.seat not in (0, 1) or t.kind not in ("role", "thread") for t in self.teams)
        ):
            raise ChallengeError(_("a team plays backgammon in consultation, one team a side"))
        if self.hoyle:
            if self.match_length != HOYLE_LENGTH:
                raise ChallengeError(_("Hoyle's rubber is the best of three games (a 2-point match)"))
            if self.jacoby or self.beavers or self.automatic_doubles or self.cube_limit != CUBE_LIMIT:
                raise ChallengeError(
                    _("Hoyle's rubber has no cube: leave out Jacoby, beavers, automatic doubles and the cube limit")
                )
            if self.opening_reroll:
                raise ChallengeError(
                    _("in Hoyle's rubber the opening winner chooses to throw again: leave out opening_reroll")
                )
        elif self.backgammon_value != 3:
            raise ChallengeError(_("a backgammon counts 4 only in Hoyle's rubber (rules: hoyle)"))
        try:
            self.game_settings()  # the engine's own rules for a playable game
        except ValueError as error:
            raise ChallengeError(worded(error)) from None

    def __post_init__(self) -> None:
        if not isinstance(self.teams, tuple) or any(not isinstance(t, TeamSeat) for t in self.teams):
            object.__setattr__(self, "teams", tuple(TeamSeat.from_dict(t) for t in self.teams or ()))
        if isinstance(self.automatic_doubles, bool):  # stored (and offered) as on/off before counts
            object.__setattr__(self, "automatic_doubles", AUTOMATIC_DOUBLES_LIMIT if self.automatic_doubles else 0)

    def new_match(self, dice: DiceSource | None = None) -> Match:
        """A new match of this game (nothing played yet). Plakoto, fevga, nardy and
        tavli are a :class:`engine.variants.VariantMatch`, which answers to a
        :class:`engine.Match`'s names, so the service keeps and replays both alike."""
        if self.is_tables:
            return cast(Match, VariantMatch(self.variant, self.match_length, dice=dice))
        return Match(self.game_settings(), dice=dice)

    def game_settings(self) -> GameSettings:
        if self.variant in ("tavla", "takhteh", "portes"):
            return replace(preset_settings(self.variant, self.match_length), closed_out=self.closed_out)
        if self.is_tables:
            return GameSettings(match_length=self.match_length, cube=False)
        if self.hoyle:
            return replace(GameSettings.hoyle(self.backgammon_value), closed_out=self.closed_out)
        if self.chouette is not None:  # the cubes are the chouette's, one per team member
            return GameSettings(match_length=0, cube=False, closed_out=self.closed_out)
        return GameSettings(
            match_length=self.match_length,
            jacoby=self.jacoby,
            beavers=self.beavers,
            automatic_doubles=self.automatic_doubles,
            opening_reroll=self.opening_reroll,
            cube_limit=self.cube_limit,
            double_before_first_play=self.early_doubles,
            closed_out=self.closed_out,
            start="nackgammon" if self.variant == "nackgammon" else "standard",
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
        if self.practice and self.gnubg_id:
            kind = _("a practice game (unrated) from the position {position}").format(position=f"`{self.gnubg_id}`")
        elif self.hoyle:
            kind = _("Hoyle's rubber (best of three games, no cube, a gammon counts two)")
        elif self.is_tables and not self.match_length:
            kind = _("a game of {game}").format(game=variant_name(self.variant))
        elif self.variant != "backgammon" and self.match_length:
            kind = _("a {length}-point match of {game}").format(
                length=self.match_length, game=variant_name(self.variant)
            )
        elif self.match_length:
            kind = _("a {length}-point match").format(length=self.match_length)
        elif self.variant != "backgammon":
            kind = _("a money game of {game} at {stake} per point").format(
                game=variant_name(self.variant), stake=self.stake
            )
        else:
            kind = _("a money game at {stake} per point").format(stake=self.stake)
        automatic = (
            _("automatic doubles on every tie")
            if self.automatic_doubles == UNLIMITED
            else ngettext(
                "automatic doubles (up to {count} tie)",
                "automatic doubles (up to {count} ties)",
                self.automatic_doubles,
            ).format(count=self.automatic_doubles)
        )
        rules = [
            name
            for name, on in (
                ("Jacoby", self.jacoby),
                (_("beavers"), self.beavers),
                (automatic, self.automatic_doubles),
                (_("opening re-throw"), self.opening_reroll),
                (
                    _("cube up to {limit}").format(limit=self.cube_limit),
                    self.cube_limit != CUBE_LIMIT and not self.hoyle,
                ),
                (_("no double before the first play"), not self.early_doubles and not self.hoyle),
                (_("a backgammon counts 4"), self.backgammon_value == 4),
                (_("closed out: no throw (the old rule)"), self.closed_out == "skip"),
                (_("no kibitzer polls"), not self.kibitzers),
                (_("played in consultation"), bool(self.teams)),
            )
            if on
        ]
        days = ngettext("{count} day per move", "{count} days per move", self.move_days).format(count=self.move_days)
        if self.rematch_of is not None:
            kind = _("a rematch of game #{game}: {kind}").format(game=self.rematch_of, kind=kind)
        if self.chouette is not None:
            kind = _("a chouette's game (each team member's cube is the chouette's, unrated)")
        if self.tournament is not None:
            kind = (
                _("a tournament match ({kind}, unrated)") if self.unrated else _("a tournament match ({kind})")
            ).format(kind=kind)
        return ", ".join([kind, days, *rules])


VARIANT_NAMES = {
    "backgammon": GAME_NAMES["backgammon"].template,
    "nackgammon": N_("nackgammon"),
    "tavla": N_("tavla"),
    "takhteh": N_("takhteh"),
    **{game: GAME_NAMES[game].template for game in ("portes", "plakoto", "fevga", "nardy", "tavli")},
}
"""Each game's name as members read it (translated where used): the engine's names of the
games its refusals say (:data:`engine.reasons.GAME_NAMES`), and the presets' own."""


def variant_name(variant: str) -> str:
    """The name of ``variant`` in the language in force."""
    return _(VARIANT_NAMES.get(variant, variant))


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
class GameListing:
    """An active game as a list of a member's games shows it (``/bg games``): read
    from its row, whose turn included, without rebuilding the match."""

    id: int
    guild_id: int
    channel_id: int
    players: tuple[PlayerRef, PlayerRef]
    turn: int | None
    """The seat to act (None: nobody, the match is over)."""
    deadline: datetime | None
    board_message: tuple[int, int] | None
    status: str = "active"

    def seat(self, user_id: int) -> int | None:
        for index, player in enumerate(self.players):
            if player.user_id == user_id:
                return index
        return None

    def to_act(self) -> PlayerRef | None:
        """Who must act now (None once the match is over)."""
        return None if self.turn is None else self.players[self.turn]


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
    match: Match  # or an engine.variants.VariantMatch, which answers to the same names
    deadline: datetime | None
    board_message: tuple[int, int] | None
    result: dict[str, Any] | None = None
    fair_dice: dict[str, str] | None = None
    """``commitment`` and ``nonce`` of the provably fair dice; ``seed`` too once the game is over."""
    board_version: int | None = None
    """The version :attr:`board_message` shows (older than :attr:`version` while a board is owed)."""
    _play_texts: tuple[str, ...] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def game(self) -> Game:
        """The current game of the match (a :class:`engine.variants.TablesGame`
        in plakoto, fevga, nardy and tavli, which answers to the same names)."""
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

    def legal_plays(self) -> list[Play]:
        """The legal plays now (empty unless a play is due), found afresh: the
        service keeps none with a game waiting for its player (see
        :meth:`engine.Game.forget_legal_plays`), and this view does not either."""
        game = self.game
        if game.phase is not Phase.PLAY or game.dice is None:
            return []
        if isinstance(game, TablesGame):
            return game.legal_plays()  # the game's own generator
        return legal_plays(game.position, game.dice)

    def legal_play_texts(self) -> list[str]:
        """Canonical notation of every legal play now, sorted (empty unless a play
        is due). Kept with this view as strings: the board's menu, its turn line
        and every keystroke of ``/bg move`` ask, and strings cost the collector
        nothing. A game the service keeps spelt its plays when it forgot them
        (:meth:`engine.Game.forget_legal_plays`): no search here then."""
        texts = self._play_texts
        if texts is None:
            texts = self.game.legal_play_texts() if self.match.game is not None else ()
            object.__setattr__(self, "_play_texts", texts)
        return list(texts)

    @property
    def game_count(self) -> int:
        """How many games of the match were started."""
        return len(self.match.games)

    def records(self) -> tuple[GameRecord, ...]:
        """Each game of the match as logged (for a replay of a game still played)."""
        return records_of(self.match)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game of a match as logged, with what its replay starts from: enough to
    draw it or analyse it somewhere else (a drawing worker, an analysis process)."""

    number: int
    """From 1, in the match."""
    settings: dict[str, Any]
    """The engine's :class:`~engine.GameSettings` as a dict."""
    score: tuple[int, int]
    """The match score when this game started."""
    crawford: bool
    actions: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "settings": self.settings,
            "score": list(self.score),
            "crawford": self.crawford,
            "actions": list(self.actions),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        score = data.get("score") or (0, 0)
        return cls(
            number=int(data["number"]),
            settings=dict(data.get("settings") or {}),
            score=(int(score[0]), int(score[1])),
            crawford=bool(data.get("crawford")),
            actions=tuple(data.get("actions") or ()),
        )


def records_of(match: Match) -> tuple[GameRecord, ...]:
    """Each game of ``match`` as logged."""
    return tuple(
        GameRecord(
            number=number,
            settings=game.settings.to_dict(),
            score=game.score,
            crawford=game.crawford,
            actions=tuple(action.to_dict() for action in game.log),
        )
        for number, game in enumerate(match.games, start=1)
    )


@dataclass(frozen=True, slots=True)
class GameLine:
    """How one game of a finished match ended (no result: it was cut short by a
    forfeit of the match or an abandon)."""

    number: int
    winner: int | None
    kind: WinKind | None
    points: int
    reason: str | None
    actions: int
    """Logged actions: 0 if the game never started."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A finished (or abandoned) match as it ended: what looking back at it needs,
    with no engine state. Written once when the match ends (see :mod:`bot.core.summaries`)."""

    id: int
    guild_id: int
    channel_id: int
    players: tuple[PlayerRef, PlayerRef]
    options: ChallengeOptions
    version: int
    status: str
    score: tuple[int, int]
    winner_seat: int | None
    forfeited: bool
    games: tuple[GameLine, ...]
    final_position: str | None
    """The GNU Backgammon ID of the last position."""
    rating_changes: tuple[RatingChange, ...] = ()
    fair_dice: dict[str, str] | None = None
    """``commitment``, ``nonce`` and the revealed ``seed`` of the provably fair dice."""
    finished_at: datetime | None = None

    @property
    def is_active(self) -> bool:
        return False

    @property
    def game_count(self) -> int:
        return len(self.games)

    def seat(self, user_id: int) -> int | None:
        for index, player in enumerate(self.players):
            if player.user_id == user_id:
                return index
        return None

    def analysable(self) -> list[int]:
        """Numbers (from 1) of the games that can be analysed: every game that was played."""
        return [line.number for line in self.games if line.actions]


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, in one line for people."""

    kind: str
    player: int | None
    text: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of an action: the game as it now stands and what happened."""

    state: GameState
    events: list[Event]
    rating_changes: list[RatingChange] = field(default_factory=list)
    owed: tuple[int, ...] = ()
    """The outbox entries its board settles (:mod:`bot.core.deliveries`)."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """A message the outbox owes, worded for the deliverer (:mod:`bot.core.deliveries`).

    ``board``: :attr:`outcome` is the game as it stands, with everything since
    its last board shown, under :attr:`headline` (a timeout) pinging :attr:`ping`.
    ``reminder``: :attr:`text` for :attr:`ping`, linking to the game's :attr:`board_message`.
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
    board_message: tuple[int, int] | None = None
    """A reminder's game's live board (channel, message), to link to: read from the
    game's row, so a backlog of reminders replays no game's log."""
    challenge: ChallengeView | None = None
    text: str = ""
    dm_to: int | None = None
    """Send it to this member as a direct message (the channel when they have closed them)."""
    data: dict[str, Any] = field(default_factory=dict)
    """A feature's own kind: what its wording found (its deliverer knows the keys; a digest's games)."""


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the scheduler should post: a reminder, a timeout, an expired challenge."""

    kind: str
    state: GameState | None
    challenge: ChallengeView | None
    user_id: int | None
    text: str
    events: list[Event] = field(default_factory=list)
    rating_changes: list[RatingChange] = field(default_factory=list)


__all__ = [
    "AUTOMATIC_DOUBLES_LIMIT",
    "CHALLENGE_LIFETIME",
    "CUBE_LIMIT",
    "CUBE_LIMITS",
    "DUE_PER_SWEEP",
    "EXPIRIES_PER_SWEEP",
    "HOYLE_LENGTH",
    "KEPT_CHALLENGES",
    "MAX_MATCH_LENGTH",
    "REMINDER_FRACTION",
    "SERVICE_ACTIONS",
    "UNAVAILABLE_MESSAGE",
    "VARIANT_NAMES",
    "AnalysisUnavailableError",
    "BusyError",
    "ChallengeError",
    "ChallengeOptions",
    "ChallengeView",
    "Delivery",
    "DiceStats",
    "Event",
    "GameLine",
    "GameListing",
    "GameRecord",
    "GameState",
    "GameSummary",
    "LeaderboardEntry",
    "LeaderboardPage",
    "Limits",
    "NoGameError",
    "NotInGameError",
    "NotYourTurnError",
    "Notice",
    "Outcome",
    "PlayerRating",
    "PlayerRef",
    "PlayerStats",
    "RatingChange",
    "RuleError",
    "ServiceError",
    "Shard",
    "StaleGameError",
    "TeamSeat",
    "storage_errors_as_service_errors",
    "variant_name",
    "SavingPausedError",
]
