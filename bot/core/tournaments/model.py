"""A tournament's values as the core hands them up, and its refusals.

:class:`TournamentOptions` is what the organiser chose; :class:`TournamentView`
a tournament as it stands (entrants, every table so far, the standings), the
one value the Discord layer words, draws and counts from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from bot.core.model import MAX_MATCH_LENGTH, PlayerRef, ServiceError
from bot.core.tournaments.pairing import FORMATS, KNOCKOUT, ROUND_ROBIN, SWISS, Standing
from i18n import N_, _, ngettext

NAME_MAX = 60
MAX_PLAYERS = 128
ROUND_ROBIN_MAX_PLAYERS = 16
"""A round robin of n players takes n - 1 rounds: more than 16 would run for months."""
MAX_SWISS_ROUNDS = 12
MAX_ROUND_DAYS = 30
MAX_SIGNUP_HOURS = 24 * 30
FORMAT_NAMES = {KNOCKOUT: N_("knockout"), ROUND_ROBIN: N_("round robin"), SWISS: N_("Swiss")}
SEEDINGS = ("rating", "random")


class TournamentError(ServiceError):
    """A tournament action was refused; ``message`` says why."""


@dataclass(frozen=True, slots=True)
class TournamentOptions:
    """What the organiser chose."""

    format: str = KNOCKOUT
    match_length: int = 3
    """Points to win each match (1 to 25)."""
    move_days: int = 2
    """Time per move in days (1 to 14), as in any game."""
    round_days: int = 7
    """Time per round in days: a match still going at the round's deadline is
    decided by the move deadline rule (the player to move forfeits)."""
    max_players: int = 0
    """The most who may sign up (0: as many as the format takes, :attr:`capacity`)."""
    seeding: str = "rating"
    """``rating`` (the server rating, the best first) or ``random``."""
    rated: bool = True
    """Whether the matches count for the server's ratings."""
    swiss_rounds: int = 0
    """Swiss: how many rounds (0: enough to find a winner, log2 of the field)."""
    signup_hours: int | None = None
    """Sign-up closes and the tournament starts this many hours after it is made
    (None: the organiser starts it with ``/bgtourney start``)."""

    def validate(self) -> None:
        """:raises TournamentError: saying what is wrong."""

        def whole(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        if self.format not in FORMATS:
            raise TournamentError(_("the format is knockout, round robin or Swiss"))
        if not whole(self.match_length) or not 1 <= self.match_length <= MAX_MATCH_LENGTH:
            raise TournamentError(
                _("each match is 1 to {max_match_length} points").format(max_match_length=MAX_MATCH_LENGTH)
            )
        if not whole(self.move_days) or not 1 <= self.move_days <= 14:
            raise TournamentError(_("the time per move is 1 to 14 days"))
        if not whole(self.round_days) or not 1 <= self.round_days <= MAX_ROUND_DAYS:
            raise TournamentError(
                _("the time per round is 1 to {max_round_days} days").format(max_round_days=MAX_ROUND_DAYS)
            )
        if self.round_days < self.move_days:
            raise TournamentError(
                _("a round needs at least the time of one move: make the round longer or the moves shorter")
            )
        most = ROUND_ROBIN_MAX_PLAYERS if self.format == ROUND_ROBIN else MAX_PLAYERS
        if not whole(self.max_players) or not (self.max_players == 0 or 2 <= self.max_players <= most):
            raise TournamentError(
                _("a {format_names} takes 2 to {most} players").format(
                    format_names=_(FORMAT_NAMES[self.format]), most=most
                )
            )
        if self.seeding not in SEEDINGS:
            raise TournamentError(_("seeding is by server rating or random"))
        if not whole(self.swiss_rounds) or not 0 <= self.swiss_rounds <= MAX_SWISS_ROUNDS:
            raise TournamentError(
                _("a Swiss has 1 to {max_swiss_rounds} rounds").format(max_swiss_rounds=MAX_SWISS_ROUNDS)
            )
        if self.swiss_rounds and self.format != SWISS:
            raise TournamentError(_("only a Swiss takes a number of rounds"))
        if self.signup_hours is not None and (
            not whole(self.signup_hours) or not 1 <= self.signup_hours <= MAX_SIGNUP_HOURS
        ):
            raise TournamentError(
                _("sign-up closes 1 to {max_signup_hours} hours from now").format(max_signup_hours=MAX_SIGNUP_HOURS)
            )

    @property
    def capacity(self) -> int:
        """How many may sign up."""
        if self.max_players:
            return self.max_players
        return ROUND_ROBIN_MAX_PLAYERS if self.format == ROUND_ROBIN else MAX_PLAYERS

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentOptions:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

    def describe(self) -> str:
        """One line: "knockout, 5-point matches, 2 days per move, 7 days per round, rated"."""
        kind = _(FORMAT_NAMES[self.format])
        if self.swiss_rounds:
            kind = _("{format} of {count} rounds").format(format=kind, count=self.swiss_rounds)
        parts = [
            kind,
            _("{length}-point matches").format(length=self.match_length),
            ngettext("{count} day per move", "{count} days per move", self.move_days).format(count=self.move_days),
            ngettext("{count} day per round", "{count} days per round", self.round_days).format(count=self.round_days),
            _("rated") if self.rated else _("unrated"),
            _("seeded by rating") if self.seeding == "rating" else _("random seeding"),
        ]
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Entrant:
    player: PlayerRef
    seed: int | None
    withdrawn: bool = False
    place: int | None = None


@dataclass(frozen=True, slots=True)
class Pairing:
    """One pairing of a round, at its ``table``: ``a`` against ``b`` (None: a bye), and how it went."""

    id: int
    round: int
    table: int
    a: PlayerRef
    b: PlayerRef | None
    winner: int | None
    outcome: str | None
    """None while it is played; ``bye``, ``won``, ``forfeit`` or ``void`` (nobody won)."""
    game_id: int | None = None
    thread_id: int | None = None

    @property
    def decided(self) -> bool:
        return self.outcome is not None

    @property
    def is_bye(self) -> bool:
        return self.b is None


@dataclass(frozen=True, slots=True)
class StandingLine:
    """A player's line in the standings, with their name."""

    player: PlayerRef
    standing: Standing


@dataclass(frozen=True, slots=True)
class TournamentView:
    """A tournament as it stands."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    organiser: PlayerRef
    name: str
    options: TournamentOptions
    status: str
    """``signup``, ``running``, ``finished`` or ``cancelled``."""
    round: int
    rounds: int
    starts_at: datetime | None
    round_deadline: datetime | None
    champion: PlayerRef | None
    entrants: tuple[Entrant, ...]
    tables: tuple[Pairing, ...] = ()
    standings: tuple[StandingLine, ...] = ()
    field_size: int = 0
    """Players at the start (the entrants, withdrawn ones included)."""

    @property
    def format(self) -> str:
        return self.options.format

    @property
    def is_open(self) -> bool:
        return self.status == "signup"

    @property
    def is_running(self) -> bool:
        return self.status == "running"

    @property
    def is_over(self) -> bool:
        return self.status in ("finished", "cancelled")

    def entrant(self, user_id: int) -> Entrant | None:
        return next((e for e in self.entrants if e.player.user_id == user_id), None)

    def round_tables(self, number: int | None = None) -> list[Pairing]:
        """The tables of round ``number`` (default: the current round)."""
        wanted = self.round if number is None else number
        return [t for t in self.tables if t.round == wanted]


@dataclass(frozen=True, slots=True)
class MatchToOpen:
    """A table whose match the Discord layer is to open: a thread, then the game."""

    pairing_id: int
    tournament_id: int
    guild_id: int
    channel_id: int
    """Where the tournament lives (the match's thread goes under it)."""
    name: str
    round: int
    table: int
    players: tuple[PlayerRef, PlayerRef]
    thread_id: int | None
    game_id: int | None


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """A member's finished tournaments, for ``/bg stats``."""

    played: int
    titles: int
    best_place: int | None
    best_name: str | None = None
    best_field: int | None = None
