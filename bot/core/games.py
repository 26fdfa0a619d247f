"""Games: everything a player does in a game, with no Discord types.

The Discord layer translates an interaction into one call here. Each call
loads the match (from :attr:`GameService.cache`, checked against the stored
version, or rebuilt from the store), asks the engine to apply the action, and
:attr:`GameService.recorder` appends the new actions in one compare-and-set
transaction. Two calls racing on one game (a double click, both players at
once, two bot processes) get exactly one winner; the other gets
:class:`StaleGameError` ("the game has moved on").

What the service does by itself: the opening throw when a game starts, forced
plays (exactly one legal play) and lost turns, the next game of a match, the
rating update when a match ends (in the same transaction). Its parts, which
callers name: :attr:`~GameService.lookups` (games as they stand, standings),
:attr:`~GameService.archive` (finished matches: history, exports, the dice
check, analyses), :attr:`~GameService.cache` (the games in memory),
:attr:`~GameService.challenges` (invitations), :attr:`~GameService.deadlines`
(reminders and timeouts), :attr:`~GameService.patience` (Serpent Poker
Patience, :mod:`bot.core.patience`) and :attr:`~GameService.tournaments`
(server tournaments, whose matches it starts and whose results come from
here), sharing its player names (:attr:`~GameService.names`) and clock.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from bot.core.archive import Archive
from bot.core.challenges import Challenges, new_fair_dice, practice_id
from bot.core.deadlines import Deadlines
from bot.core.deliveries import Deliveries
from bot.core.game_cache import GameCache
from bot.core.languages import Languages
from bot.core.lookups import Lookups
from bot.core.members import Members
from bot.core.model import (
    ChallengeError,
    ChallengeOptions,
    Limits,
    Notice,
    NotInGameError,
    NotYourTurnError,
    Outcome,
    PlayerRef,
    ServiceError,
    StaleGameError,
    storage_errors_as_service_errors,
)
from bot.core.patience import PatienceService
from bot.core.players import PlayerNames
from bot.core.recorder import Recorder, follow_up, start_next_game, turn_deadline
from bot.core.tournaments.service import Tournaments
from bot.store import (
    ChannelBusyError,
    GameRow,
    Store,
    open_store,
    redact,
)
from engine import (
    Action,
    DiceSource,
    Game,
    Match,
    Phase,
    WinKind,
)
from engine.fairdice import new_seed
from i18n import Said, _

log = logging.getLogger(__name__)


def _utcnow() -> datetime:
    return datetime.now(UTC)


@storage_errors_as_service_errors
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
        limits: Limits | None = None,
    ) -> None:
        self.store = store
        self.limits = limits or Limits()
        self.dice: DiceSource | None = dice
        self.seed_source = seed_source
        self.clock = clock or _utcnow
        self._owns_store = False
        self.names = PlayerNames(store)
        self.cache = GameCache(store, self.names, self.limits, dice)
        self.archive = Archive(store, self.cache)
        self.lookups = Lookups(store, self.cache)
        self.challenges = Challenges(store, self.names, self.clock, self.start_game, seed_source, self.limits)
        self.deliveries = Deliveries(store, self.clock, self.challenges, self.cache.state_of, self.cache.remember_board)
        self.recorder = Recorder(store, self.clock, self.names, self.cache, self.archive, self.lookups, self.deliveries)
        self.members = Members(store, self.clock, self.cache.state_of, wake=self.deliveries.wake)
        self.deadlines = Deadlines(
            store,
            self.clock,
            self.challenges,
            self.deliveries,
            self.cache.state_of,
            self._time_out,
            self.limits.expiries_per_sweep,
            members=self.members,
            due_per_sweep=self.limits.due_per_sweep,
        )
        self.languages = Languages(store)
        self.patience = PatienceService(store, self.names, self.clock, seed_source)
        self.tournaments = Tournaments(
            store,
            self.names,
            self.clock,
            self.deliveries,
            start_game=self.start_game,
            time_out=self.time_out_now,
            forfeit=self.forfeit,
        )
        self.recorder.finish_listeners.append(self.tournaments.after_game)
        self.roll_guards: list[Callable[[int], Awaitable[None]]] = []
        """Asked before a roll (with the game's id); a guard refuses it with a
        :class:`ServiceError` (a chouette's double waiting for its answer)."""

    @classmethod
    async def open(
        cls,
        database_url: str,
        *,
        pool: Mapping[str, Any] | None = None,
        dice: DiceSource | None = None,
        clock: Callable[[], datetime] | None = None,
        limits: Limits | None = None,
    ) -> GameService:
        """Open the database ``database_url`` names (a SQLite path, or a URL: it may
        hold a password, and only its redacted form is logged) and a service on it,
        which closes the database when it is closed."""
        store = await open_store(database_url, **(pool or {}))
        log.info("database: %s (%s)", redact(database_url), store.backend)
        service = cls(store, dice=dice, clock=clock, limits=limits)
        service._owns_store = True
        return service

    async def close(self) -> None:
        """Close the database if this service opened it."""
        await self.languages.close()  # the locales seen, written before the store closes
        if self._owns_store:
            await self.store.close()

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
        ratings and leaderboards. With ``gnubg_id`` (a GNU Backgammon ID or an
        XGID) the game starts from that position (a practice game).
        """
        if not computer.is_bot:
            raise ChallengeError(_("{name} is not the computer").format(name=computer.name))
        if not options.computer_level:
            raise ChallengeError(_("say which level the computer plays at"))
        return await self._new_unchallenged_game(guild_id, channel_id, human, computer, options, gnubg_id)

    async def setup_practice(
        self,
        guild_id: int,
        channel_id: int,
        player: PlayerRef,
        computer: PlayerRef,
        position_id: str,
        *,
        options: ChallengeOptions | None = None,
    ) -> Outcome:
        """An unrated practice game against the computer from a GNU Backgammon ID
        (``PositionID:MatchID``) or an XGID, at once: one game, ``player`` seated as
        player 0 of the Match ID (the top player of the XGID). Against a member it
        is a challenge they accept (:meth:`Challenges.create_practice`): nobody is
        seated in a game unasked."""
        if not computer.is_bot:
            raise ChallengeError(
                _("{name} must accept a practice game first: challenge them to it").format(name=computer.name)
            )
        options = replace(
            options or ChallengeOptions(),
            practice=True,
            match_length=0,
            jacoby=False,
            beavers=False,
            automatic_doubles=False,
        )
        return await self._new_unchallenged_game(guild_id, channel_id, player, computer, options, position_id)

    async def _new_unchallenged_game(
        self,
        guild_id: int,
        channel_id: int,
        player0: PlayerRef,
        player1: PlayerRef,
        options: ChallengeOptions,
        position_id: str | None,
    ) -> Outcome:
        options.validate(self.limits.max_stake)
        # an XGID becomes its GNU Backgammon ID; checked before anything is written
        gnubg_id = practice_id(position_id) if position_id is not None else None
        await self.names.remember(player0)
        await self.names.remember(player1)
        return await self.start_game(
            guild_id, channel_id, (player0.user_id, player1.user_id), options, gnubg_id=gnubg_id
        )

    async def start_game(
        self,
        guild_id: int,
        channel_id: int,
        players: tuple[int, int],
        options: ChallengeOptions,
        *,
        challenge_id: int | None = None,
        gnubg_id: str | None = None,
        fair: dict[str, Any] | None = None,
        pairing_id: int | None = None,
    ) -> Outcome:
        """Create the stored game with its fair-dice record (``fair``: committed
        with its challenge, else a new one) and make its first moves.
        ``pairing_id``: a tournament table the game is played at (claimed in the
        game's creating transaction: :class:`~bot.store.PairingTakenError` if
        it has a game already)."""
        now = self.clock()
        if fair is None:
            fair = new_fair_dice(self.seed_source(), f"{challenge_id or 'direct'}")
        try:
            row = await self.store.games.create(
                guild_id=guild_id,
                channel_id=channel_id,
                player0=players[0],
                player1=players[1],
                settings={**options.to_dict(), "fair_dice": fair},
                match_length=options.match_length,
                challenge_id=challenge_id,
                pairing_id=pairing_id,
                **turn_deadline(options, now),
            )
        except ChannelBusyError:
            raise ChallengeError(_("there is already a game in this channel: finish it first")) from None
        match = options.new_match(self.cache.dice_source(row.settings, 0))

        def start(m: Match, forced: set[int]) -> None:
            if gnubg_id is None:
                start_next_game(m, forced)
                return
            game = m.new_game()
            game.apply(Action("setup", text=gnubg_id))
            follow_up(m, forced)

        async with self.cache.lock(row.id):
            return await self.recorder.record(row, match, start, actor=None)

    # -- turn actions -------------------------------------------------------------

    async def roll(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.roll(seat), guards=self.roll_guards)

    async def use_opening(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        """Under Hoyle's opening choice: play the opening throw's two dice instead of throwing again."""
        return await self._act(game_id, user_id, version, lambda game, seat: game.use_opening(seat))

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
        """Give up the whole match: this game is lost as a single game at the
        current cube, and the opponent wins the match. Never a gammon or a
        backgammon from the position: at the opening the back checkers stand in
        the winner's home board, and a forfeit there must not score three times
        the cube (two accounts could farm the points leaderboard with it)."""

        def give_up(game: Game, seat: int) -> None:
            game.forfeit(seat, WinKind.SINGLE, "forfeit")

        return await self._act(game_id, user_id, None, give_up, any_turn=True, whole_match=True)

    async def concede(self, game_id: int, user_id: int, kind: WinKind = WinKind.SINGLE) -> Outcome:
        """``user_id`` loses the game now by ``kind`` (a chouette's checker game that has
        nobody left on one side: the cubes were settled by the chouette)."""

        def give_up(game: Game, seat: int) -> None:
            game.forfeit(seat, kind, "resign")

        return await self._act(game_id, user_id, None, give_up, any_turn=True)

    async def reseat(self, game_id: int, seat: int, user_id: int) -> None:
        """Seat ``user_id`` at ``seat`` of an active game (a chouette's next captain)."""
        async with self.cache.lock(game_id):
            await self.store.games.reseat(game_id, seat, user_id)
            self.cache.forget(game_id)

    async def abandon(self, game_id: int, moderator_id: int) -> Outcome:
        """A moderator ends a stuck game: no result, no rating change. Never
        their own game: a losing player would walk away from the loss."""
        async with self.cache.lock(game_id):
            row = await self.cache.active_row(game_id)
            if row.seat_of(moderator_id) is not None:
                raise ServiceError(
                    _("you play in this game, so you can't abandon it: resign or forfeit, or ask another moderator")
                )
            match = await self.cache.match(row)
            return await self.recorder.abandon(row, match, moderator_id)

    async def _act(
        self,
        game_id: int,
        user_id: int,
        version: int | None,
        action: Callable[[Game, int], object],
        *,
        any_turn: bool = False,
        whole_match: bool = False,
        guards: Sequence[Callable[[int], Awaitable[None]]] = (),
    ) -> Outcome:
        async with self.cache.lock(game_id):
            for guard in guards:  # under the game's lock: what a guard saw stands until the action is stored
                await guard(game_id)
            cached = self.cache.rows.get(game_id)
            if cached is not None:
                try:
                    return await self._act_on(cached, user_id, version, action, any_turn, whole_match)
                except ServiceError:
                    # Refused, or the store had moved on: decide again from the stored row,
                    # which another process may have changed since this one cached it
                    # (the cached match still serves if the versions agree).
                    self.cache.rows.pop(game_id, None)
            row = await self.cache.active_row(game_id)
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
            raise NotInGameError(_("you're not in this game"))
        if version is not None and version != row.version:
            raise StaleGameError(state=await self.cache.state(row, await self.cache.match(row)))
        match = await self.cache.match(row)
        game = match.game
        assert game is not None
        if not any_turn and game.turn != seat and game.phase is not Phase.OVER:
            raise NotYourTurnError(
                _("it's not your turn: {value} is to act").format(value=await self.names.name(row.players[game.turn]))
            )

        def apply(m: Match, forced: set[int]) -> None:
            g = m.game
            assert g is not None
            action(g, seat)
            if not whole_match:
                follow_up(m, forced)

        return await self.recorder.record(row, match, apply, actor=user_id, whole_match=whole_match)

    async def time_out_now(self, game_id: int, why: str) -> Notice | None:
        """Decide a game now by the move deadline rule: the player to move forfeits
        (a tournament round's deadline); ``why`` heads the final board. None if it is over."""
        row = await self.store.games.get(game_id)
        if not row.is_active:
            return None
        return await self._time_out(row, why=why)

    async def _time_out(self, row: GameRow, *, why: str | None = None) -> Notice | None:
        async with self.cache.lock(row.id):
            fresh = await self.store.games.get(row.id)
            if not fresh.is_active or fresh.version != row.version:
                return None
            match = await self.cache.match(fresh)
            game = match.game
            assert game is not None
            seat = game.turn

            def time_out(m: Match, forced: set[int]) -> None:
                g = m.game
                assert g is not None
                g.forfeit(seat, WinKind.SINGLE, "timeout")

            players = await self.names.get(fresh.players[seat]), await self.names.get(fresh.players[1 - seat])
            text = Said("{name} ran out of time in game #{game} and forfeits", name=players[0].name, game=row.id)
            if why:
                text = Said(
                    "{reason}: {name}, to move, forfeits game #{game}", reason=why, name=players[0].name, game=row.id
                )
            outcome = await self.recorder.record(
                fresh,
                match,
                time_out,
                actor=None,
                whole_match=True,
                headline=text,
                ping=tuple(p.user_id for p in players if not p.is_bot),
                held=False,
            )
            return Notice(
                "timeout", outcome.state, None, players[0].user_id, text, outcome.events, outcome.rating_changes
            )
