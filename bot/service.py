"""The game service: everything a player can do, with no Discord types.

The Discord layer translates an interaction into one call here. Each call
loads the match (replaying its action log, or from a cache checked against
the stored version), asks the engine to apply the action, and appends the new
actions in one compare-and-set transaction. Two calls racing on one game
(a double click, both players at once, two bot processes) get exactly one
winner; the other gets :class:`StaleGameError` ("the game has moved on").

What the service does by itself: the opening throw when a game starts, forced
plays (exactly one legal play) and lost turns, the next game of a match, the
rating update when a match ends, reminders at 75% of the time per move and a
forfeit when the time runs out.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from engine import (
    Action,
    DiceSource,
    Game,
    GameError,
    GameSettings,
    IllegalPlayError,
    Match,
    NotationError,
    Phase,
    SecureDice,
    WinKind,
    export_match,
    format_play,
)
from engine.fairdice import FairDice, Verification, dice_in_log, new_seed
from engine.fairdice import commitment as seed_commitment
from engine.fairdice import verify as verify_dice
from renderer import CLASSIC, BoardScene, Theme
from renderer.from_game import scene_from_game
from bot.store import (
    GLOBAL_SCOPE,
    ChallengeClosedError,
    ChallengeRow,
    ChannelBusyError,
    DiceStats,
    GameOverError,
    GameRow,
    LeaderboardPage,
    MatchOutcome,
    NotFoundError,
    PlayerStats,
    RatingChange,
    Shard,
    StaleVersionError,
    StorageError,
    Store,
)

log = logging.getLogger(__name__)

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

    def __init__(self, message: str = "the game has moved on", view: GameView | None = None) -> None:
        super().__init__(message)
        self.view = view


class NoGameError(ServiceError):
    """There is no such game (or no active game here)."""


class ChallengeError(ServiceError):
    """A challenge cannot be made, accepted or answered."""


class RuleError(ServiceError):
    """The engine refused the action: illegal play, unreadable notation, wrong phase."""


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

    def game_settings(self) -> GameSettings:
        return GameSettings(
            match_length=self.match_length,
            jacoby=self.jacoby,
            beavers=self.beavers,
            automatic_doubles=AUTOMATIC_DOUBLES_LIMIT if self.automatic_doubles else 0,
            opening_reroll=self.opening_reroll,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChallengeOptions:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

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


@dataclass(frozen=True, slots=True)
class GameView:
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

    view: GameView
    events: list[Event]
    rating_changes: list[RatingChange] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the scheduler should post: a reminder, a timeout, an expired challenge."""

    kind: str
    view: GameView | None
    challenge: ChallengeView | None
    user_id: int | None
    text: str
    events: list[Event] = field(default_factory=list)
    rating_changes: list[RatingChange] = field(default_factory=list)


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


# -- the service --------------------------------------------------------------


class GameService:
    """Game operations over a :class:`~bot.store.Store`.

    Dice are provably fair: each game draws a secret seed, publishes its
    SHA-256 commitment, derives every die from it (:mod:`engine.fairdice`)
    and reveals the seed when the game is over.

    :param dice: a dice source to use instead (tests; not provably fair).
    :param seed_source: where game seeds come from (secure by default).
    :param clock: returns the current UTC time (tests pass a fake clock).
    """

    def __init__(
        self,
        store: Store,
        *,
        dice: DiceSource | None = None,
        seed_source: Callable[[], bytes] = new_seed,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = store
        self.dice: DiceSource | None = dice
        self.seed_source = seed_source
        self.clock = clock or _utcnow
        self._locks: dict[int, asyncio.Lock] = {}
        self._cache: dict[int, tuple[int, Match]] = {}
        self._rows: dict[int, GameRow] = {}
        """The newest row of each active game this service wrote or read. Actions
        start from it without a read: the compare-and-set append catches a row
        another process has moved on since."""
        self._players: dict[int, PlayerRef] = {}  # names change rarely; refreshed by _remember
        self._latest: dict[int, GameView] = {}  # channel id -> newest view of its active game
        self._pending: dict[int, ChallengeView] = {}
        """Pending challenges this service made or read, oldest first. Answering
        one starts from here without a read: the answer's own transaction checks
        that it is still pending, which catches one another process answered."""

    # -- challenges -------------------------------------------------------------

    async def challenge(
        self,
        guild_id: int,
        channel_id: int,
        challenger: PlayerRef,
        challenged: PlayerRef,
        options: ChallengeOptions,
    ) -> ChallengeView:
        """Challenge ``challenged`` to a money game or a match in this channel."""
        if challenger.user_id == challenged.user_id:
            raise ChallengeError("you can't challenge yourself: pick another member")
        if challenged.is_bot:
            raise ChallengeError(f"{challenged.name} is a bot and can't play")
        options.validate()
        if not options.thread and await self.store.games.active_in(channel_id) is not None:
            raise ChallengeError(
                "there is already a game in this channel: finish it first, or challenge with thread=True"
            )
        await self._remember(challenger)
        await self._remember(challenged)
        row = await self.store.challenges.create(
            guild_id=guild_id,
            channel_id=channel_id,
            challenger=challenger.user_id,
            challenged=challenged.user_id,
            settings=options.to_dict(),
            match_length=options.match_length,
            expires_at=self.clock() + CHALLENGE_LIFETIME,
        )
        return self._keep(await self._challenge_view(row))

    async def get_challenge(self, challenge_id: int) -> ChallengeView:
        """A challenge as stored now (read from the database)."""
        try:
            row = await self.store.challenges.get(challenge_id)
        except NotFoundError:
            self._pending.pop(challenge_id, None)
            raise ChallengeError("that challenge does not exist any more") from None
        return self._keep(await self._challenge_view(row))

    async def pending_challenge(self, challenge_id: int) -> ChallengeView:
        """A challenge that can still be answered, as this service last saw it
        (no read if it made or read it before; answering it checks again).

        :raises ChallengeError: it was answered, withdrawn or expired, or never existed.
        """
        challenge = self._pending.get(challenge_id) or await self.get_challenge(challenge_id)
        if challenge.status != "pending":
            raise ChallengeError(f"this challenge is already {challenge.status}")
        return challenge

    def _keep(self, challenge: ChallengeView) -> ChallengeView:
        """Remember a pending challenge, forget an answered one."""
        self._pending.pop(challenge.id, None)
        if challenge.status == "pending":
            self._pending[challenge.id] = challenge
            while len(self._pending) > KEPT_CHALLENGES:
                del self._pending[next(iter(self._pending))]
        return challenge

    async def accept(self, challenge_id: int, user_id: int, *, channel_id: int | None = None) -> Outcome:
        """The challenged player accepts: the game starts with the opening throw."""
        challenge = await self.pending_challenge(challenge_id)
        if user_id != challenge.challenged.user_id:
            raise ChallengeError(f"only {challenge.challenged.name} can accept this challenge")
        if challenge.expires_at is not None and challenge.expires_at <= self.clock():
            raise ChallengeError("this challenge has expired: challenge again")
        self._pending.pop(challenge_id, None)  # answered now, or refused: the next look reads it
        try:
            return await self._start_game(
                challenge.guild_id,
                channel_id or challenge.channel_id,
                (challenge.challenger.user_id, challenge.challenged.user_id),
                challenge.options,
                challenge_id=challenge_id,
            )
        except ChallengeClosedError:
            raise ChallengeError("this challenge was already answered") from None

    async def play_computer(
        self,
        guild_id: int,
        channel_id: int,
        human: PlayerRef,
        computer: PlayerRef,
        options: ChallengeOptions,
        *,
        gnubg_id: str | None = None,
    ) -> Outcome:
        """Start a game against the computer at once (no challenge to accept).

        Games against the computer are unrated: they stay out of the human
        ratings and leaderboards. With ``gnubg_id`` the game starts from that
        position (a practice game).
        """
        if not computer.is_bot:
            raise ChallengeError(f"{computer.name} is not the computer")
        if not options.computer_level:
            raise ChallengeError("say which level the computer plays at")
        return await self._new_unchallenged_game(guild_id, channel_id, human, computer, options, gnubg_id)

    async def setup_practice(
        self,
        guild_id: int,
        channel_id: int,
        player: PlayerRef,
        opponent: PlayerRef,
        gnubg_id: str,
        *,
        options: ChallengeOptions | None = None,
    ) -> Outcome:
        """An unrated practice game from a GNU Backgammon ID (``PositionID:MatchID``):
        one game, ``player`` seated as player 0 of the Match ID."""
        options = replace(options or ChallengeOptions(), practice=True, match_length=0,
                          jacoby=False, beavers=False, automatic_doubles=False)
        if player.user_id == opponent.user_id:
            raise ChallengeError("a practice game needs an opponent: a member or the computer")
        return await self._new_unchallenged_game(guild_id, channel_id, player, opponent, options, gnubg_id)

    async def _new_unchallenged_game(
        self,
        guild_id: int,
        channel_id: int,
        player0: PlayerRef,
        player1: PlayerRef,
        options: ChallengeOptions,
        gnubg_id: str | None,
    ) -> Outcome:
        options.validate()
        if gnubg_id is not None:
            try:
                Game.from_gnubg_id(gnubg_id)  # check it before anything is written
            except ValueError as error:
                raise ChallengeError(f"that is not a GNU Backgammon ID I can read: {error}") from None
        await self._remember(player0)
        await self._remember(player1)
        return await self._start_game(
            guild_id, channel_id, (player0.user_id, player1.user_id), options, gnubg_id=gnubg_id
        )

    async def _start_game(
        self,
        guild_id: int,
        channel_id: int,
        players: tuple[int, int],
        options: ChallengeOptions,
        *,
        challenge_id: int | None = None,
        gnubg_id: str | None = None,
    ) -> Outcome:
        """Create the stored game with its fair-dice seed and make its first moves."""
        now = self.clock()
        seed = self.seed_source()
        fair = {
            "commitment": seed_commitment(seed),
            "nonce": f"bg-{challenge_id or 'direct'}-{secrets.token_hex(8)}",
            "seed": seed.hex(),
        }
        try:
            row = await self.store.games.create(
                guild_id=guild_id,
                channel_id=channel_id,
                player0=players[0],
                player1=players[1],
                settings={**options.to_dict(), "fair_dice": fair},
                match_length=options.match_length,
                challenge_id=challenge_id,
                **self._deadline(options, now),
            )
        except ChannelBusyError:
            raise ChallengeError("there is already a game in this channel: finish it first") from None
        match = Match(options.game_settings(), dice=self._dice_source(row.settings, 0))

        def start(m: Match, forced: set[int]) -> None:
            if gnubg_id is None:
                self._start_next_game(m, forced)
                return
            game = m.new_game()
            game.apply(Action("setup", text=gnubg_id))
            self._follow_up(m, forced)

        async with self._lock(row.id):
            return await self._commit(row, match, start, actor=None)

    async def decline(self, challenge_id: int, user_id: int) -> ChallengeView:
        challenge = await self.pending_challenge(challenge_id)
        if user_id != challenge.challenged.user_id:
            raise ChallengeError(f"only {challenge.challenged.name} can decline this challenge")
        return await self._close_challenge(challenge_id, "declined")

    async def cancel(self, challenge_id: int, user_id: int) -> ChallengeView:
        challenge = await self.pending_challenge(challenge_id)
        if user_id != challenge.challenger.user_id:
            raise ChallengeError(f"only {challenge.challenger.name} can withdraw this challenge")
        return await self._close_challenge(challenge_id, "cancelled")

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        await self.store.challenges.set_message(challenge_id, message_id)
        kept = self._pending.get(challenge_id)
        if kept is not None:
            self._pending[challenge_id] = replace(kept, message_id=message_id)

    async def _close_challenge(self, challenge_id: int, status: str) -> ChallengeView:
        self._pending.pop(challenge_id, None)
        try:
            row = await self.store.challenges.set_status(challenge_id, status)  # type: ignore[arg-type]
        except ChallengeClosedError:
            raise ChallengeError("this challenge was already answered") from None
        return await self._challenge_view(row)

    # -- turn actions -------------------------------------------------------------

    async def roll(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.roll(seat))

    async def play(self, game_id: int, user_id: int, text: str, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.play(seat, text))

    async def double(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.double(seat))

    async def take(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.take(seat))

    async def pass_double(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.drop(seat))

    async def beaver(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.beaver(seat))

    async def resign(self, game_id: int, user_id: int, level: int = 1, *, version: int | None = None) -> Outcome:
        return await self._act(
            game_id, user_id, version, lambda game, seat: game.offer_resignation(seat, level), any_turn=True
        )

    async def accept_resignation(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.accept_resignation(seat))

    async def reject_resignation(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.reject_resignation(seat))

    async def forfeit(self, game_id: int, user_id: int) -> Outcome:
        """Give up the whole match: this game is lost at its current value
        (gammon or backgammon if it stands so), and the opponent wins the match."""

        def give_up(game: Game, seat: int) -> None:
            game.forfeit(seat, game.loss_value(seat), "forfeit")

        return await self._act(game_id, user_id, None, give_up, any_turn=True, whole_match=True)

    async def abandon(self, game_id: int, moderator_id: int) -> Outcome:
        """A moderator ends a stuck game: no result, no rating change."""
        async with self._lock(game_id):
            row = await self._active_row(game_id)
            match = await self._match(row)
            view_before = await self._view(row, match)
            actions = [{"kind": "abandon", "moderator": moderator_id}]
            try:
                result = await self.store.games.append(
                    game_id, row.version, actions, actor=moderator_id, updates={"status": "abandoned"}
                )
            except StaleVersionError:
                self._forget(game_id)
                raise StaleGameError(view=await self.get_game(game_id)) from None
            self._forget(game_id)
            view = await self._view(result.game, match)
            names = " and ".join(p.name for p in view_before.players)
            return Outcome(view, [Event("abandon", None, f"the game between {names} was abandoned by a moderator (unrated)")])

    async def _act(
        self,
        game_id: int,
        user_id: int,
        version: int | None,
        action: Callable[[Game, int], object],
        *,
        any_turn: bool = False,
        whole_match: bool = False,
    ) -> Outcome:
        async with self._lock(game_id):
            cached = self._rows.get(game_id)
            if cached is not None:
                try:
                    return await self._act_on(cached, user_id, version, action, any_turn, whole_match)
                except ServiceError:
                    # Refused, or the store had moved on: decide again from the stored row,
                    # which another process may have changed since this one cached it
                    # (the cached match still serves if the versions agree).
                    self._rows.pop(game_id, None)
            row = await self._active_row(game_id)
            return await self._act_on(row, user_id, version, action, any_turn, whole_match)

    async def _act_on(
        self,
        row: GameRow,
        user_id: int,
        version: int | None,
        action: Callable[[Game, int], object],
        any_turn: bool,
        whole_match: bool,
    ) -> Outcome:
        seat = row.seat_of(user_id)
        if seat is None:
            raise NotInGameError("you're not in this game")
        if version is not None and version != row.version:
            raise StaleGameError(view=await self._view(row, await self._match(row)))
        match = await self._match(row)
        game = match.game
        assert game is not None
        if not any_turn and game.turn != seat and game.phase is not Phase.OVER:
            raise NotYourTurnError(f"it's not your turn: {await self._name(row.players[game.turn])} is to act")

        def apply(m: Match, forced: set[int]) -> None:
            g = m.game
            assert g is not None
            action(g, seat)
            if not whole_match:
                self._follow_up(m, forced)

        return await self._commit(row, match, apply, actor=user_id, whole_match=whole_match)

    # -- the engine step and the transaction -------------------------------------

    def _start_next_game(self, match: Match, forced: set[int]) -> None:
        game = match.new_game()
        game.opening_roll()
        self._follow_up(match, forced)

    def _follow_up(self, match: Match, forced: set[int]) -> None:
        """What happens by itself: forced plays (their log entries' ids go
        into ``forced``), and the next game of a match."""
        game = match.game
        assert game is not None
        while True:
            if game.phase is Phase.PLAY and len(game.legal_plays()) == 1:
                game.play(game.turn, game.legal_plays()[0])
                forced.add(id(game.log[-1]))
                continue
            if game.is_over and not match.is_over:
                self._start_next_game(match, forced)
            return

    async def _commit(
        self,
        row: GameRow,
        match: Match,
        step: Callable[[Match, set[int]], None],
        *,
        actor: int | None,
        whole_match: bool = False,
    ) -> Outcome:
        """Run ``step`` on a copy of the match and store the new actions atomically.

        The match in the cache (and in views already handed out) is never
        changed: a refused action, a lost race or a storage error leaves no trace.
        """
        match = copy.deepcopy(match)
        before = match.version
        forced: set[int] = set()
        try:
            step(match, forced)
        except (IllegalPlayError, NotationError, GameError) as error:
            raise RuleError(str(error)) from None
        new_actions = [a.to_dict() for a in match.log[before:]]
        if whole_match and not match.is_over:
            new_actions.append({"kind": "match_forfeit"})
        updates: dict[str, Any] = {"score0": match.score[0], "score1": match.score[1]}
        outcome: MatchOutcome | None = None
        now = self.clock()
        finished = match.is_over or whole_match
        if finished:
            outcome = self._match_outcome(row, match)
            updates["result"] = self._result_summary(match)
        else:
            game = match.game
            assert game is not None
            if (await self._player(row.players[game.turn])).is_bot:
                # The computer is never reminded nor timed out; if its turn
                # fails, people can retry it or forfeit.
                updates.update(turn_deadline=None, reminder_at=None)
            else:
                updates.update(self._deadline(ChallengeOptions.from_dict(row.settings), now))
        try:
            result = await self.store.games.append(
                row.id, row.version, new_actions, updates=updates, outcome=outcome
            )
        except (StaleVersionError, GameOverError):  # another process moved the game on
            self._forget(row.id)
            raise StaleGameError(view=await self.get_game(row.id)) from None
        if finished:
            self._forget(row.id)
        else:
            self._cache[row.id] = (result.version, match)
            self._rows[row.id] = result.game
        view = await self._view(result.game, match)
        events = self._describe(view, match, before, forced)
        return Outcome(view, events, result.rating_changes)

    @staticmethod
    def _winner_seat(match: Match) -> int:
        """Who won: the match's winner, or for a forfeited match the last game's."""
        if match.winner is not None:
            return match.winner
        last = match.game.result if match.game else None
        return last.winner if last else 0

    def _match_outcome(self, row: GameRow, match: Match) -> MatchOutcome:
        winner_seat = self._winner_seat(match)
        loser_seat = 1 - winner_seat
        options = ChallengeOptions.from_dict(row.settings)
        stake = options.stake if match.is_money else 1
        gammons = [0, 0]
        backgammons = [0, 0]
        for game in match.games:
            if game.result is None:
                continue
            if game.result.kind is WinKind.GAMMON:
                gammons[game.result.winner] += 1
            elif game.result.kind is WinKind.BACKGAMMON:
                backgammons[game.result.winner] += 1
        score = match.score
        return MatchOutcome(
            winner=row.players[winner_seat],
            loser=row.players[loser_seat],
            winner_points=score[winner_seat] * stake,
            loser_points=score[loser_seat] * stake,
            winner_gammons=gammons[winner_seat],
            winner_backgammons=backgammons[winner_seat],
            loser_gammons=gammons[loser_seat],
            loser_backgammons=backgammons[loser_seat],
            rated=options.rated,
        )

    def _result_summary(self, match: Match) -> dict[str, Any]:
        last = match.game.result if match.game else None
        return {
            "winner_seat": self._winner_seat(match),
            "score": list(match.score),
            "last_game": last.to_dict() if last else None,
            "forfeited": not match.is_over,
        }

    def _deadline(self, options: ChallengeOptions, now: datetime) -> dict[str, datetime]:
        span = timedelta(days=options.move_days)
        return {"turn_deadline": now + span, "reminder_at": now + span * REMINDER_FRACTION}

    # -- describing what happened ---------------------------------------------------

    def _describe(self, view: GameView, match: Match, before: int, forced: set[int]) -> list[Event]:
        names = [p.name for p in view.players]
        events: list[Event] = []
        # Walk the games so each game's result comes right after its last move.
        offset = 0  # index in match.log of this game's "game" marker
        for number, game in enumerate(match.games, start=1):
            marker, offset = offset, offset + 1 + len(game.log)
            if offset <= before:
                continue
            if marker >= before and number > 1:
                events.append(Event("new_game", None, f"game {number} begins"))
            for action in game.log[max(0, before - marker - 1):]:
                text = _describe_action(action, names)
                if not text:
                    continue
                kind = action.kind
                if kind == "play" and action.auto:
                    kind = "dance"
                elif id(action) in forced:
                    kind = "forced"
                    text = f"{names[action.player or 0]} has only one play: {action.text}"
                events.append(Event(kind, action.player, text))
            if game.result is not None:
                r = game.result
                kind_word = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[int(r.kind)]
                how = {"bearoff": "", "pass": " (double passed)", "resign": " (resignation)"}.get(
                    r.reason, f" ({r.reason})"
                )
                events.append(Event(
                    "game_over", r.winner,
                    f"{names[r.winner]} wins {kind_word}{how}: {r.points} point{'s' if r.points != 1 else ''}",
                ))
        if match.is_over or view.status == "finished":
            winner = match.winner
            if winner is None and view.result:
                winner = view.result.get("winner_seat")
            if winner is not None:
                if match.is_money:
                    text = f"{names[winner]} wins the money game"
                else:
                    s = match.score
                    text = f"{names[winner]} wins the {match.length}-point match {max(s)}-{min(s)}"
                if view.result and view.result.get("forfeited"):
                    text += " (forfeit)"
                events.append(Event("match_over", winner, text))
        elif view.is_active:
            game = view.game
            if game.position.bar[0] and game.phase in (Phase.ROLL, Phase.PLAY):
                events.append(Event("bar", game.player_on_roll, f"{names[game.player_on_roll]} is on the bar"))
        return events

    # -- queries -----------------------------------------------------------------

    async def get_game(self, game_id: int) -> GameView:
        row = await self._row(game_id)
        return await self._view(row, await self._match(row))

    async def game_in_channel(self, channel_id: int) -> GameView | None:
        row = await self.store.games.active_in(channel_id)
        if row is None:
            return None
        return await self._view(row, await self._match(row))

    async def active_games(self, guild_id: int, user_id: int) -> list[GameView]:
        rows = await self.store.games.active_for(user_id, guild_id)
        return [await self._view(row, await self._match(row)) for row in rows]

    async def history(self, guild_id: int, user_id: int, limit: int = 10) -> list[GameView]:
        rows = await self.store.games.finished_for(user_id, guild_id, limit=limit)
        return [await self._view(row, await self._match(row)) for row in rows]

    async def export_mat(self, game_id: int) -> str:
        view = await self.get_game(game_id)
        return export_match(
            view.match,
            (view.players[0].name, view.players[1].name),
            event=f"Discord game #{view.id}",
        )

    async def leaderboard(
        self, guild_id: int | None, kind: str = "rating", offset: int = 0, limit: int = 10
    ) -> LeaderboardPage:
        if kind not in ("rating", "points"):
            raise ServiceError("the leaderboard is by rating or by points")
        if not 1 <= limit <= 100:
            raise ServiceError("a leaderboard page shows 1 to 100 players")
        scope = GLOBAL_SCOPE if guild_id is None else guild_id
        return await self.store.ratings.leaderboard(scope, order=kind, offset=max(offset, 0), limit=limit)  # type: ignore[arg-type]

    async def stats(self, guild_id: int | None, user_id: int) -> PlayerStats | None:
        scope = GLOBAL_SCOPE if guild_id is None else guild_id
        return await self.store.ratings.player_stats(user_id, scope)

    async def dice_stats(self, guild_id: int | None, user_id: int) -> DiceStats:
        return await self.store.stats.dice_stats(user_id, guild_id)

    def scene(self, view: GameView, viewpoint_user_id: int | None = None, theme: Theme = CLASSIC) -> BoardScene:
        """The board to show: from the side of ``viewpoint_user_id`` if they
        play, else from the side of the player to act."""
        seat = view.seat(viewpoint_user_id) if viewpoint_user_id is not None else None
        if seat is None:
            seat = view.game.turn
        return scene_from_game(
            view.game,
            (view.players[0].name, view.players[1].name),
            viewer=seat,
            stake=view.options.stake,
            theme=theme,
        )

    async def set_board_message(self, game_id: int, channel_id: int, message_id: int) -> None:
        await self.store.games.set_board_message(game_id, channel_id, message_id)
        cached = self._rows.get(game_id)
        if cached is not None:
            self._rows[game_id] = replace(
                cached, board_channel_id=channel_id, board_message_id=message_id
            )

    async def save_analysis(self, game_id: int, game_number: int, ply: int, summary: str) -> None:
        """Keep the analysis of one game of a match (numbered from 1)."""
        await self.store.stats.save_analysis(game_id, game_number, ply, summary)

    async def analyses(self, game_id: int) -> dict[int, str]:
        """The kept analyses of a match's games: game number -> summary."""
        return await self.store.stats.analyses(game_id)

    async def computer_record(self, guild_id: int | None, computer_id: int) -> tuple[int, int]:
        """The computer's (wins, losses) against people in a server (None: everywhere)."""
        return await self.store.stats.computer_record(computer_id, guild_id)

    async def remember_player(self, player: PlayerRef) -> None:
        await self._remember(player)

    # -- deadlines -----------------------------------------------------------------

    async def next_wakeup(self, *, shard: Shard | None = None) -> datetime | None:
        return await self.store.schedule.next_wakeup(shard=shard)

    async def process_due(self, now: datetime | None = None, *, shard: Shard | None = None) -> list[Notice]:
        """Send what is due: expired challenges, reminders, timeouts.

        Safe to run in several processes and after a restart: a reminder is
        claimed atomically before it is reported, and a timeout is a
        compare-and-set forfeit, so each happens once. With ``shard``
        (shard count, shard ids) only games and challenges of guilds on those
        Discord shards are handled, so the process that serves a guild claims
        its notices; another shard's work is taken over once it is a few
        minutes overdue (its process may be down).
        """
        now = now or self.clock()
        notices: list[Notice] = []
        for row in await self.store.schedule.expire_challenges(now, shard=shard):
            view = self._keep(await self._challenge_view(row))
            notices.append(Notice(
                "challenge_expired", None, view, view.challenger.user_id,
                f"{view.challenger.name}'s challenge to {view.challenged.name} expired unanswered",
            ))
        for row in await self.store.schedule.due_reminders(now, shard=shard):
            if row.turn_deadline is not None and row.turn_deadline <= now:
                continue  # the timeout below covers it
            if not await self.store.schedule.claim_reminder(row.id, row.version):
                continue
            view = await self._view(row, await self._match(row))
            player = view.to_act()
            if player is None:
                continue
            left = (row.turn_deadline - now) if row.turn_deadline else timedelta(0)
            notices.append(Notice(
                "reminder", view, None, player.user_id,
                f"{player.name}, it's your move in game #{row.id}: {_span(left)} left before it is forfeited",
            ))
        for row in await self.store.schedule.due_deadlines(now, shard=shard):
            try:
                notice = await self._time_out(row)
            except (StaleGameError, ServiceError):
                continue
            except StorageError:
                # Try again on the next pass; what was claimed above still goes out.
                log.warning("timeout of game %s failed; will retry", row.id, exc_info=True)
                continue
            if notice is not None:
                notices.append(notice)
        return notices

    async def _time_out(self, row: GameRow) -> Notice | None:
        async with self._lock(row.id):
            fresh = await self.store.games.get(row.id)
            if not fresh.is_active or fresh.version != row.version:
                return None
            match = await self._match(fresh)
            game = match.game
            assert game is not None
            seat = game.turn

            def time_out(m: Match, forced: set[int]) -> None:
                g = m.game
                assert g is not None
                g.forfeit(seat, WinKind.SINGLE, "timeout")

            outcome = await self._commit(fresh, match, time_out, actor=None, whole_match=True)
            loser = outcome.view.players[seat]
            return Notice(
                "timeout", outcome.view, None, loser.user_id,
                f"{loser.name} ran out of time in game #{row.id} and forfeits",
                outcome.events, outcome.rating_changes,
            )

    # -- loading -------------------------------------------------------------------

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    async def _row(self, game_id: int) -> GameRow:
        try:
            row = await self.store.games.get(game_id)
        except NotFoundError:
            raise NoGameError(f"there is no game #{game_id}") from None
        if row.is_active:
            self._rows[game_id] = row
        else:
            self._forget(game_id)
        return row

    def _forget(self, game_id: int) -> None:
        """Drop what is cached of a game (it ended, or another process moved it on)."""
        self._cache.pop(game_id, None)
        self._rows.pop(game_id, None)

    async def _active_row(self, game_id: int) -> GameRow:
        row = await self._row(game_id)
        if not row.is_active:
            raise NoGameError(f"game #{game_id} is over")
        return row

    async def _match(self, row: GameRow) -> Match:
        cached = self._cache.get(row.id)
        if cached is not None and cached[0] == row.version:
            return cached[1]
        # Only the actions the row's version counts: another process may have
        # appended more between the two reads, and this view is "as of" the row.
        actions = [a.action for a in await self.store.games.actions(row.id) if a.seq <= row.version]
        match = self.rebuild(row.settings, actions)
        if row.is_active:
            self._cache[row.id] = (row.version, match)
        return match

    def rebuild(self, settings: dict[str, Any], actions: list[dict[str, Any]]) -> Match:
        """Replay a stored action log into a match (service-only actions skipped)."""
        options = ChallengeOptions.from_dict(settings)
        source = self._dice_source(settings, len(dice_in_log(actions)))
        match = Match(options.game_settings(), dice=source)
        for action in actions:
            if action.get("kind") in SERVICE_ACTIONS:
                continue
            match.apply(action)
        return match

    def _dice_source(self, settings: dict[str, Any], thrown: int) -> DiceSource:
        """The game's dice, going on after ``thrown`` dice already in its log."""
        if self.dice is not None:
            return self.dice
        fair = settings.get("fair_dice")
        if not fair:
            return SecureDice()
        return FairDice(bytes.fromhex(fair["seed"]), fair["nonce"], counter=thrown)

    async def verify(self, game_id: int) -> Verification:
        """Recompute every die of a finished game from its revealed seed."""
        row, actions = await self.store.games.with_actions(game_id)
        fair = row.settings.get("fair_dice")
        if not fair:
            raise ServiceError(f"game #{game_id} was played before provably fair dice")
        if row.is_active:
            raise ServiceError(
                f"game #{game_id} is still being played: its seed is revealed when it ends "
                f"(commitment {fair['commitment'][:16]}...)"
            )
        return verify_dice(fair["seed"], fair["commitment"], fair["nonce"], dice_in_log(a.action for a in actions))

    async def export_json(self, game_id: int) -> str:
        """The game's log with its dice commitment (and seed once over), for
        ``scripts/verify_dice.py`` and other tools."""
        row, actions = await self.store.games.with_actions(game_id)
        view = await self._view(row, await self._match(row))
        export = {
            "game": row.id,
            "players": [p.name for p in view.players],
            "settings": view.options.to_dict(),
            "status": row.status,
            "dice": view.fair_dice,
            "actions": [a.action for a in actions],
        }
        return json.dumps(export, indent=1)

    async def _view(self, row: GameRow, match: Match) -> GameView:
        players = (await self._player(row.player0), await self._player(row.player1))
        board = (
            (row.board_channel_id, row.board_message_id)
            if row.board_channel_id is not None and row.board_message_id is not None
            else None
        )
        view = GameView(
            id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            players=players,
            options=ChallengeOptions.from_dict(row.settings),
            version=row.version,
            status=row.status,
            match=match,
            deadline=row.turn_deadline,
            board_message=board,
            result=row.result,
            fair_dice=_public_fair_dice(row),
        )
        known = self._latest.get(row.channel_id)
        if row.is_active and (known is None or known.id != row.id or known.version <= row.version):
            self._latest[row.channel_id] = view
        elif not row.is_active and known is not None and known.id == row.id:
            del self._latest[row.channel_id]
        return view

    def peek_game_in_channel(self, channel_id: int) -> GameView | None:
        """The latest view of this channel's game this process has seen, without
        touching the database (for answers that can't wait, like autocomplete).
        It may be a moment behind another process; actions still check the version."""
        return self._latest.get(channel_id)

    async def _player(self, user_id: int) -> PlayerRef:
        known = self._players.get(user_id)
        if known is not None:
            return known
        row = await self.store.players.get(user_id)
        name = row.display_name if row and row.display_name else f"player {user_id}"
        player = PlayerRef(user_id, name, bool(row.is_bot) if row else False)
        self._players[user_id] = player
        return player

    async def _name(self, user_id: int) -> str:
        return (await self._player(user_id)).name

    async def _remember(self, player: PlayerRef) -> None:
        """Store a player's current name (a write only when it changed since this service last saw it)."""
        if self._players.get(player.user_id) == player:
            return
        await self.store.players.upsert(player.user_id, player.name, is_bot=player.is_bot)
        self._players[player.user_id] = player

    async def _challenge_view(self, row: ChallengeRow) -> ChallengeView:
        challenged = await self._player(row.challenged) if row.challenged is not None else PlayerRef(0, "anyone")
        return ChallengeView(
            id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            challenger=await self._player(row.challenger),
            challenged=challenged,
            options=ChallengeOptions.from_dict(row.settings),
            status=row.status,
            expires_at=row.expires_at,
            game_id=row.game_id,
            message_id=row.message_id,
        )


def _public_fair_dice(row: GameRow) -> dict[str, str] | None:
    fair = row.settings.get("fair_dice")
    if not fair:
        return None
    public = {"commitment": fair["commitment"], "nonce": fair["nonce"]}
    if not row.is_active:
        public["seed"] = fair["seed"]  # revealed once the game is over
    return public


# -- wording ------------------------------------------------------------------------


def _span(delta: timedelta) -> str:
    hours = max(int(delta.total_seconds() // 3600), 0)
    if hours >= 48:
        return f"{hours // 24} days"
    if hours >= 1:
        return f"{hours} hour{'s' if hours != 1 else ''}"
    minutes = max(int(delta.total_seconds() // 60), 1)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def _describe_action(action: Action, names: list[str]) -> str:
    who = names[action.player] if action.player is not None else ""
    kind = action.kind
    if kind == "setup":
        return f"the game starts from the position {action.text}"
    if kind == "opening":
        assert action.dice is not None
        d0, d1 = action.dice
        if d0 == d1:
            return f"opening throw: both threw {d0}, throwing again"
        starter = 0 if d0 > d1 else 1
        return f"opening throw: {names[0]} {d0}, {names[1]} {d1}: {names[starter]} starts"
    if kind == "roll":
        assert action.dice is not None
        high, low = max(action.dice), min(action.dice)
        return f"{who} rolled {high}-{low}"
    if kind == "play":
        if action.auto:
            return f"{who} can't move and loses the turn"
        return f"{who} played {action.text}"
    if kind == "closed_out":
        return f"{who} is closed out and can't roll"
    if kind == "double":
        return f"{who} doubles to {action.value}"
    if kind == "take":
        return f"{who} takes"
    if kind == "pass":
        return f"{who} passes"
    if kind == "beaver":
        return f"{who} beavers: the cube is at {action.value}"
    if kind == "resign":
        level = {1: "a single game", 2: "a gammon", 3: "a backgammon"}.get(action.value or 1, "a single game")
        return f"{who} offers to resign {level}"
    if kind == "accept":
        return f"{who} accepts the resignation"
    if kind == "reject":
        return f"{who} rejects the resignation; play goes on"
    if kind == "forfeit":
        return f"{who} {'ran out of time' if action.text == 'timeout' else 'forfeits'}"
    return ""
