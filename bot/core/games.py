"""Games: everything a player does in a game, with no Discord types.

The Discord layer translates an interaction into one call here. Each call
loads the match (replaying its action log, or from a cache checked against
the stored version), asks the engine to apply the action, and appends the new
actions in one compare-and-set transaction. Two calls racing on one game
(a double click, both players at once, two bot processes) get exactly one
winner; the other gets :class:`StaleGameError` ("the game has moved on").

What the service does by itself: the opening throw when a game starts, forced
plays (exactly one legal play) and lost turns, the next game of a match, the
rating update when a match ends (in the same transaction). Its parts:
:attr:`GameService.challenges` (invitations), :attr:`GameService.deadlines`
(reminders and timeouts), :attr:`GameService.patience` (Serpent Poker
Patience, :mod:`bot.core.patience`) and :attr:`GameService.tournaments` (server
tournaments, whose matches it starts and whose results come from here),
sharing its player names and clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from bot.core import narration
from bot.core.challenges import Challenges, new_fair_dice, practice_id
from bot.core.deadlines import Deadlines
from bot.core.deliveries import Deliveries, board_debt
from bot.core.lru import Lru
from bot.core.members import Members
from bot.core.model import (
    REMINDER_FRACTION,
    SERVICE_ACTIONS,
    ChallengeError,
    ChallengeOptions,
    Event,
    GameListing,
    GameRecord,
    GameState,
    GameSummary,
    Limits,
    NoGameError,
    Notice,
    NotInGameError,
    NotYourTurnError,
    Outcome,
    PlayerRef,
    RuleError,
    ServiceError,
    StaleGameError,
    storage_errors_as_service_errors,
)
from bot.core.patience import PatienceService
from bot.core.players import PlayerNames
from bot.core.summaries import records_from, summarise, summary_of
from bot.core.tournaments.service import Tournaments, update_owed
from bot.store import (
    GLOBAL_SCOPE,
    ActionRow,
    ChannelBusyError,
    DiceStats,
    GameOverError,
    GameRow,
    LeaderboardPage,
    MatchOutcome,
    NotFoundError,
    Owed,
    PlayerStats,
    StaleVersionError,
    Store,
    open_store,
    redact,
)
from engine import (
    Action,
    DiceSource,
    Game,
    GameError,
    IllegalPlayError,
    Match,
    NotationError,
    Phase,
    SecureDice,
    WinKind,
    export_match,
)
from engine.fairdice import FairDice, Verification, dice_in_log, new_seed
from engine.fairdice import verify as verify_dice
from engine.snapshot import FORMAT as SNAPSHOT_FORMAT
from engine.snapshot import SnapshotError, format_snapshot, parse_snapshot

log = logging.getLogger(__name__)

KEPT_BOARDS = 10_000
"""Board messages remembered (the least recently posted are forgotten first)."""
T = TypeVar("T")

REBUILD_ON_LOOP = 200
"""A log up to this many actions is replayed on the event loop (a few milliseconds);
a longer one in a thread, so that a long match never holds everyone else up."""

SNAPSHOT_ON_LOOP = 1_000
"""A snapshot of a match up to this many actions (about 45 characters each) is
written and read on the event loop (1 to 3 milliseconds); a longer one in a thread."""
SNAPSHOT_CHARACTERS_ON_LOOP = 50 * SNAPSHOT_ON_LOOP


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
        self._locks: dict[int, asyncio.Lock] = {}
        # Memory stays bounded however many games a busy week touches: the least
        # recently used games drop out (their lock too, when free) and are read
        # again from their row and log when next asked for.
        self._cache: Lru[int, tuple[int, Match]] = Lru(self.limits.cached_games, self._evicted)
        self._rows: Lru[int, GameRow] = Lru(self.limits.cached_games, self._evicted)
        """The newest row of each active game this service wrote or read. Actions
        start from it without a read: the compare-and-set append catches a row
        another process has moved on since."""
        self._owns_store = False
        self._latest: Lru[int, GameState] = Lru(
            self.limits.cached_games
        )  # channel id -> newest view of its active game
        self._boards: dict[int, tuple[tuple[int, int], int]] = {}  # game id -> (its board message, version shown)
        self._heavy: asyncio.Semaphore | None = None
        self._backfills: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.names = PlayerNames(store)
        self.challenges = Challenges(store, self.names, self.clock, self.start_game, seed_source, self.limits)
        self.deliveries = Deliveries(store, self.clock, self.challenges, self.state_of, self._remember_board)
        self.members = Members(store, self.clock, self.state_of, wake=self.deliveries.wake)
        self.deadlines = Deadlines(
            store,
            self.clock,
            self.challenges,
            self.deliveries,
            self.state_of,
            self._time_out,
            self.limits.expiries_per_sweep,
            members=self.members,
            due_per_sweep=self.limits.due_per_sweep,
        )
        self.patience = PatienceService(store, self.names, self.clock, seed_source)
        self.finish_listeners: list[Callable[[GameRow], Awaitable[None]]] = []
        """Told of every match that ends (finished or abandoned), after it is stored."""
        self.tournaments = Tournaments(
            store,
            self.names,
            self.clock,
            self.deliveries,
            start_game=self.start_game,
            time_out=self.time_out_now,
            forfeit=self.forfeit,
        )
        self.finish_listeners.append(self.tournaments.after_game)

    @classmethod
    async def open(
        cls,
        database_url: str,
        *,
        pool: Mapping[str, int] | None = None,
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
            raise ChallengeError(f"{computer.name} is not the computer")
        if not options.computer_level:
            raise ChallengeError("say which level the computer plays at")
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
            raise ChallengeError(f"{computer.name} must accept a practice game first: challenge them to it")
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

    # -- turn actions -------------------------------------------------------------

    async def roll(self, game_id: int, user_id: int, *, version: int | None = None) -> Outcome:
        return await self._act(game_id, user_id, version, lambda game, seat: game.roll(seat))

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

    async def abandon(self, game_id: int, moderator_id: int) -> Outcome:
        """A moderator ends a stuck game: no result, no rating change. Never
        their own game: a losing player would walk away from the loss."""
        async with self._lock(game_id):
            row = await self._active_row(game_id)
            if row.seat_of(moderator_id) is not None:
                raise ServiceError(
                    "you play in this game, so you can't abandon it: resign or forfeit, or ask another moderator"
                )
            match = await self._match(row)
            view_before = await self._view(row, match)
            actions = [{"kind": "abandon", "moderator": moderator_id}]
            owed = board_debt(
                guild_id=row.guild_id,
                channel_id=row.channel_id,
                game_id=row.id,
                version=row.version + 1,
                since=row.version + 1,
                match=match,
                forced=(),
            )
            summary = await self._summary(row, match, "abandoned", actions)
            try:
                result = await self.store.games.append(
                    game_id,
                    row.version,
                    actions,
                    actor=moderator_id,
                    updates={"status": "abandoned"},
                    summary=summary,
                    owed=[owed, *self._tournament_owed(row)],
                )
            except StaleVersionError:
                self._forget(game_id)
                raise StaleGameError(view=await self.get_game(game_id)) from None
            self._forget(game_id)
            board, others = result.owed[:1], result.owed[1:]
            self.deliveries.hold(board)  # the caller posts the board; the dispatcher the rest
            if others:
                self.deliveries.wake()
            view = await self._view(result.game, match)
            await self._finished(result.game)
            names = " and ".join(p.name for p in view_before.players)
            return Outcome(
                view,
                [Event("abandon", None, f"the game between {names} was abandoned by a moderator (unrated)")],
                owed=tuple(board),
            )

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
            raise NotYourTurnError(f"it's not your turn: {await self.names.name(row.players[game.turn])} is to act")

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
        if game.phase is Phase.OPENING:  # (the winner of a hit may throw first, without one)
            game.opening_roll()
        self._follow_up(match, forced)

    def _follow_up(self, match: Match, forced: set[int]) -> None:
        """What happens by itself: forced plays (their log entries' ids go
        into ``forced``), and the next game of a match."""
        game = match.game
        assert game is not None
        while True:
            if game.phase is Phase.ROLL and game.position.is_closed_out() and not game.can_double(game.turn):
                game.roll(game.turn)  # on the bar against a closed board, nothing to decide: the dance is thrown
                continue
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
        headline: str | None = None,
        ping: tuple[int, ...] = (),
        held: bool = True,
    ) -> Outcome:
        """Run ``step`` on a copy of the match and store the new actions atomically,
        with the board they owe the players (under ``headline``, pinging ``ping``),
        held for the caller to deliver (``held``) or left to the dispatcher.

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
        summary: dict[str, Any] | None = None
        if finished:
            outcome = self._match_outcome(row, match)
            updates["result"] = self._result_summary(match)
            service_actions = [a for a in new_actions if a.get("kind") in SERVICE_ACTIONS]
            summary = await self._summary(row, match, "finished", service_actions)
        else:
            game = match.game
            assert game is not None
            if (await self.names.get(row.players[game.turn])).is_bot:
                # The computer is never reminded nor timed out; if its turn
                # fails, people can retry it or forfeit.
                updates.update(turn_deadline=None, reminder_at=None)
            else:
                updates.update(self._deadline(ChallengeOptions.from_dict(row.settings), now))
            updates["turn"] = game.turn
        owed = board_debt(
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            game_id=row.id,
            version=row.version + len(new_actions),
            since=before,
            match=match,
            forced=forced,
            headline=headline,
            ping=ping,
        )
        extra = self._tournament_owed(row) if finished else []
        snapshot = None if finished else await self._snapshot(row.version, len(new_actions), match)
        try:
            with self.deliveries.storing(row.id) if held else contextlib.nullcontext():
                result = await self.store.games.append(
                    row.id,
                    row.version,
                    new_actions,
                    updates=updates,
                    outcome=outcome,
                    summary=summary,
                    owed=[owed, *extra],
                    snapshot=snapshot,
                )
                board = result.owed[:1]  # the board; the rest (a tournament's update) is the dispatcher's
                if held:
                    self.deliveries.hold(board)  # before the dispatcher may look again
        except (StaleVersionError, GameOverError):  # another process moved the game on
            self._forget(row.id)
            raise StaleGameError(view=await self.get_game(row.id)) from None
        if not held or len(result.owed) > 1:
            self.deliveries.wake()
        if finished:
            self._forget(row.id)
        else:
            self._keep(row.id, result.version, match)
            self._rows[row.id] = result.game
        view = await self._view(result.game, match)
        events = narration.describe(view, match, before, forced)
        if finished:
            await self._finished(result.game)
        return Outcome(view, events, result.rating_changes, owed=tuple(board))

    async def _snapshot(self, version: int, added: int, match: Match) -> tuple[int, str] | None:
        """The snapshot to store with ``added`` actions appended at ``version``: one
        each time the log passes a multiple of ``Limits.snapshot_every`` (``match``
        is this step's own copy; a long one is written out in a thread)."""
        every = self.limits.snapshot_every
        if (version + added) // every == version // every:
            return None
        if version + added <= SNAPSHOT_ON_LOOP:
            return SNAPSHOT_FORMAT, format_snapshot(match)
        return SNAPSHOT_FORMAT, await self._off_loop(format_snapshot, match)

    @staticmethod
    def _tournament_owed(row: GameRow) -> list[Owed]:
        """A tournament match that ends owes its announcement a redraw (in the ending transaction)."""
        tournament = row.settings.get("tournament")
        return [update_owed(row.guild_id, row.channel_id, int(tournament))] if tournament else []

    async def _finished(self, row: GameRow) -> None:
        """Tell the listeners a match ended (a tournament advances); their failures are
        logged, not the player's: the scheduler's pass catches up."""
        for listener in self.finish_listeners:
            try:
                await listener(row)
            except Exception:
                log.exception("after game %s ended, a listener failed", row.id)

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

    # -- queries -----------------------------------------------------------------

    async def get_game(self, game_id: int) -> GameState:
        row = await self._row(game_id)
        return await self._view(row, await self._match(row))

    async def game_in_channel(self, channel_id: int) -> GameState | None:
        row = await self.store.games.active_in(channel_id)
        if row is None:
            return None
        return await self._view(row, await self._match(row))

    async def active_games(self, guild_id: int, user_id: int) -> list[GameState]:
        rows = await self.store.games.active_for(user_id, guild_id)
        return [await self._view(row, await self._match(row)) for row in rows]

    async def game_list(self, guild_id: int, user_id: int) -> list[GameListing]:
        """A member's active games here, oldest first, from their rows: whose turn it
        is is kept with every action, so no match is rebuilt (a game last moved before
        turns were kept is rebuilt once, and its turn kept)."""
        listed = []
        for row in await self.store.games.active_for(user_id, guild_id):
            turn = row.turn
            if turn is None:
                game = (await self._match(row)).game
                if game is not None and not game.is_over:
                    turn = game.turn
                    await self.store.games.note_turn(row.id, row.version, turn)
            listed.append(
                GameListing(
                    row.id,
                    row.guild_id,
                    row.channel_id,
                    await self._players(row),
                    turn,
                    row.turn_deadline,
                    row.board_message,
                )
            )
        return listed

    async def waiting_for(
        self, user_id: int, *, after: tuple[float, int] | None = None, limit: int = 200, their_turn: bool = False
    ) -> list[tuple[int, int, tuple[float, int]]]:
        """A page of the active games a player sits in, the longest untouched first:
        ``(game id, guild id, key)``; pass the last key as ``after`` for the next page.
        ``their_turn``: only those waiting for this player (the turn kept in each row)."""
        return await self.store.games.waiting_page(user_id, after=after, limit=limit, their_turn=their_turn)

    async def history(self, guild_id: int, user_id: int, limit: int = 10) -> list[GameSummary]:
        """A player's finished games here, newest first, from their summaries (no log is replayed)."""
        rows = await self.store.games.finished_for(user_id, guild_id, limit=limit)
        ids = [row.id for row in rows]
        cards = await self.store.summaries.cards(ids)
        changes = await self.store.summaries.rating_changes(ids)
        found = []
        for row in rows:
            card = cards.get(row.id)
            if card is None:
                card = (await self._backfill(row.id))["card"]
            found.append(summary_of(row, card, await self._players(row), changes.get(row.id, [])))
        return found

    async def look_up(self, game_id: int) -> GameState | GameSummary:
        """A game by its number: one still played as it stands, a finished one as
        summarised when it ended (its log is not replayed here)."""
        row = await self._row(game_id)
        if row.is_active:
            return await self._view(row, await self._match(row))
        card = await self._part(game_id, "card")
        changes = await self.store.summaries.rating_changes([game_id])
        return summary_of(row, card, await self._players(row), changes.get(game_id, []))

    async def game_records(self, game_id: int) -> tuple[GameRecord, ...]:
        """Each game of a match as logged (replays and analyses: drawn or analysed
        in other processes, which replay the logs themselves)."""
        found = await self.look_up(game_id)
        if isinstance(found, GameState):
            return await self._off_loop(found.records)
        return records_from(await self._part(game_id, "games"))

    async def export_mat(self, game_id: int) -> str:
        """The match in the ``.mat`` format (GNU Backgammon, XG)."""
        found = await self.look_up(game_id)
        if isinstance(found, GameSummary):
            return str(await self._part(game_id, "mat"))
        names = (found.players[0].name, found.players[1].name)
        return await self._off_loop(export_match, found.match, names, event=f"Discord game #{found.id}")

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

    def _remember_board(self, game_id: int, board: tuple[int, int], version: int) -> None:
        """The game's new board message (the store has it already), for the cached
        row and for :meth:`known_board`."""
        known = self._boards.pop(game_id, None)
        self._boards[game_id] = (board, version) if known is None or known[1] <= version else known
        while len(self._boards) > KEPT_BOARDS:
            del self._boards[next(iter(self._boards))]
        cached = self._rows.get(game_id)
        if cached is not None and (cached.board_version is None or cached.board_version <= version):
            self._rows[game_id] = replace(
                cached, board_channel_id=board[0], board_message_id=board[1], board_version=version
            )

    async def save_analysis(
        self, game_id: int, game_number: int, ply: int, summary: str, detail: dict[str, Any] | None = None
    ) -> None:
        """Keep the analysis of one game of a match (numbered from 1), with the numbers behind it."""
        await self.store.stats.save_analysis(game_id, game_number, ply, summary, detail)

    async def analyses(self, game_id: int) -> dict[int, str]:
        """The kept analyses of a match's games: game number -> summary."""
        return await self.store.stats.analyses(game_id)

    async def analysis_details(self, game_id: int) -> dict[int, dict[str, Any]]:
        """The numbers behind the kept analyses of a match's games: game number -> detail."""
        return await self.store.stats.analysis_details(game_id)

    async def computer_record(self, guild_id: int | None, computer_id: int) -> tuple[int, int]:
        """The computer's (wins, losses) against people in a server (None: everywhere)."""
        return await self.store.stats.computer_record(computer_id, guild_id)

    async def remember_player(self, player: PlayerRef) -> None:
        await self.names.remember(player)

    async def state_of(self, row: GameRow) -> GameState:
        """A stored game as it stands at its row's version."""
        return await self._view(row, await self._match(row))

    async def time_out_now(self, game_id: int, why: str) -> Notice | None:
        """Decide a game now by the move deadline rule: the player to move forfeits
        (a tournament round's deadline); ``why`` heads the final board. None if it is over."""
        row = await self.store.games.get(game_id)
        if not row.is_active:
            return None
        return await self._time_out(row, why=why)

    async def _time_out(self, row: GameRow, *, why: str | None = None) -> Notice | None:
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

            players = await self.names.get(fresh.players[seat]), await self.names.get(fresh.players[1 - seat])
            text = f"{players[0].name} ran out of time in game #{row.id} and forfeits"
            if why:
                text = f"{why}: {players[0].name}, to move, forfeits game #{row.id}"
            outcome = await self._commit(
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
                "timeout", outcome.view, None, players[0].user_id, text, outcome.events, outcome.rating_changes
            )

    # -- loading -------------------------------------------------------------------

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
            if len(self._locks) > 2 * self.limits.cached_games:
                self._release_locks()
        return lock

    def _release_locks(self) -> None:
        """Drop the locks nobody holds or waits for, of games not in memory."""
        for game_id, lock in list(self._locks.items()):
            if not lock.locked() and game_id not in self._rows and game_id not in self._cache:
                del self._locks[game_id]

    def _evicted(self, game_id: int) -> None:
        """A game dropped out of memory: its lock goes too, if free."""
        lock = self._locks.get(game_id)
        if lock is not None and not lock.locked() and game_id not in self._rows and game_id not in self._cache:
            del self._locks[game_id]

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
        lock = self._locks.get(game_id)
        if lock is not None and not lock.locked():
            del self._locks[game_id]

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
        # A stored snapshot (engine.snapshot) spares replaying all but the tail.
        snapshot, tail = await self.store.games.snapshot_and_tail(row.id, format=SNAPSHOT_FORMAT, upto=row.version)
        actions = [a.action for a in tail]
        state = snapshot.state if snapshot is not None else None
        try:
            match = await self._rebuild_soon(row.settings, actions, state)
            if state is not None and match.version != row.version:
                raise SnapshotError(f"it rebuilds version {match.version}, not {row.version}")
        except (SnapshotError, GameError, NotationError, IllegalPlayError) as error:
            if state is None:
                raise
            # A snapshot that does not read back, or its tail does not apply:
            # the log alone decides (and the next snapshot replaces this one).
            log.warning(
                "game %s: snapshot at version %s not used (%s); replaying its log",
                row.id,
                snapshot.version if snapshot else None,
                error,
            )
            actions = [a.action for a in await self.store.games.actions(row.id) if a.seq <= row.version]
            match = await self._rebuild_soon(row.settings, actions, None)
        if row.is_active:
            self._keep(row.id, row.version, match)
        return match

    def _keep(self, game_id: int, version: int, match: Match) -> None:
        """Cache ``match`` as of ``version``, without the legal plays its game found:
        it waits for a player now, and views find them afresh (GameState.legal_plays)."""
        if match.game is not None:
            match.game.forget_legal_plays()
        self._cache[game_id] = (version, match)

    async def _rebuild_soon(
        self, settings: dict[str, Any], actions: list[dict[str, Any]], snapshot: str | None
    ) -> Match:
        """:meth:`rebuild`, on the loop when it is short (a tail of up to
        :data:`REBUILD_ON_LOOP` actions, a snapshot of up to :data:`SNAPSHOT_ON_LOOP`), else in a thread."""
        if len(actions) <= REBUILD_ON_LOOP and (snapshot is None or len(snapshot) <= SNAPSHOT_CHARACTERS_ON_LOOP):
            return self.rebuild(settings, actions, snapshot)
        return await self._off_loop(self.rebuild, settings, actions, snapshot)

    async def _off_loop(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run CPU-heavy ``work`` (a long replay, a summary) in a thread, one at a
        time: the event loop keeps answering everyone meanwhile (a thread takes the
        interpreter from it only in short turns, and one thread at most)."""
        if self._heavy is None:
            self._heavy = asyncio.Semaphore(1)
        async with self._heavy:
            return await asyncio.to_thread(work, *args, **kwargs)

    async def _players(self, row: GameRow) -> tuple[PlayerRef, PlayerRef]:
        return (await self.names.get(row.player0), await self.names.get(row.player1))

    # -- summaries -------------------------------------------------------------------

    async def _summary(
        self, row: GameRow, match: Match, status: str, service_actions: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """The summary of the match ``row`` holds as it ends now (in a thread: the
        ``.mat`` replays every game). ``match`` is this step's own copy: nothing
        else touches it meanwhile."""
        names = (await self.names.name(row.player0), await self.names.name(row.player1))
        return await self._off_loop(self._summarise, row, match, names, status, service_actions)

    @staticmethod
    def _summarise(
        row: GameRow, match: Match, names: tuple[str, str], status: str, service_actions: list[dict[str, Any]]
    ) -> dict[str, Any]:
        stored = [action.to_dict() for action in match.log] + service_actions
        return summarise(
            row, match, names, status=status, stored_actions=stored, fair_dice=_public_fair_dice(row, revealed=True)
        )

    async def _part(self, game_id: int, part: str) -> Any:
        """One part of a finished game's summary (made now if the game has none yet)."""
        value = await self.store.summaries.part(game_id, part)  # type: ignore[arg-type]
        if value is None:
            value = (await self._backfill(game_id))[part]
        return value

    def _backfill(self, game_id: int) -> asyncio.Future[dict[str, Any]]:
        """Summarise a game that ended before summaries existed, once (whoever
        asks meanwhile waits for the same work), and keep the summary."""
        running = self._backfills.get(game_id)
        if running is None:
            running = self._backfills[game_id] = asyncio.ensure_future(self._summarise_stored(game_id))
            running.add_done_callback(lambda _: self._backfills.pop(game_id, None))
        return asyncio.shield(running)

    async def _summarise_stored(self, game_id: int) -> dict[str, Any]:
        row, actions = await self.store.games.with_actions(game_id)
        if row.is_active:
            raise ServiceError(f"game #{game_id} is still being played")
        names = (await self.names.name(row.player0), await self.names.name(row.player1))
        summary = await self._off_loop(self._summarise_log, row, actions, names)
        await self.store.summaries.save(game_id, summary)
        log.info("summarised game %s, which ended before summaries were kept", game_id)
        return summary

    def _summarise_log(self, row: GameRow, actions: list[ActionRow], names: tuple[str, str]) -> dict[str, Any]:
        log_ = [a.action for a in actions]
        match = self.rebuild(row.settings, log_)
        return summarise(
            row, match, names, status=row.status, stored_actions=log_, fair_dice=_public_fair_dice(row, revealed=True)
        )

    def rebuild(self, settings: dict[str, Any], actions: list[dict[str, Any]], snapshot: str | None = None) -> Match:
        """Replay a stored action log into a match (service-only actions skipped);
        with ``snapshot`` (:mod:`engine.snapshot`), the match it holds and then
        ``actions``, the log after it.

        :raises SnapshotError: for a snapshot the engine cannot read.
        """
        if snapshot is None:
            options = ChallengeOptions.from_dict(settings)
            source = self._dice_source(settings, len(dice_in_log(actions)))
            match = Match(options.game_settings(), dice=source)
        else:
            match = parse_snapshot(snapshot)
            thrown = len(dice_in_log(match.log)) + len(dice_in_log(actions))
            match.use_dice(self._dice_source(settings, thrown))
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
        return FairDice(bytes.fromhex(fair["seed"]), fair["nonce"], counter=thrown, salt=fair.get("salt"))

    async def verify(self, game_id: int) -> Verification:
        """Recompute every die of a finished game from its revealed seed."""
        row = await self._row(game_id)
        fair = row.settings.get("fair_dice")
        if not fair:
            raise ServiceError(f"game #{game_id} was played before provably fair dice")
        if row.is_active:
            raise ServiceError(
                f"game #{game_id} is still being played: its seed is revealed when it ends "
                f"(commitment {fair['commitment'][:16]}...)"
            )
        records = records_from(await self._part(game_id, "games"))
        thrown = dice_in_log(action for record in records for action in record.actions)
        return await self._off_loop(
            verify_dice, fair["seed"], fair["commitment"], fair["nonce"], thrown, salt=fair.get("salt")
        )

    async def export_json(self, game_id: int) -> str:
        """The game's log with its dice commitment (and seed once over), for
        ``scripts/verify_dice.py`` and other tools."""
        row = await self._row(game_id)
        if not row.is_active:
            return str(await self._part(game_id, "export"))
        row, actions = await self.store.games.with_actions(game_id)
        players = await self._players(row)
        export = {
            "game": row.id,
            "players": [p.name for p in players],
            "settings": ChallengeOptions.from_dict(row.settings).to_dict(),
            "status": row.status,
            "dice": _public_fair_dice(row),
            "actions": [a.action for a in actions],
        }
        return await self._off_loop(json.dumps, export, indent=1)

    async def _view(self, row: GameRow, match: Match) -> GameState:
        players = await self._players(row)
        board = row.board_message
        view = GameState(
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
            board_version=row.board_version,
            result=row.result,
            fair_dice=_public_fair_dice(row),
        )
        known = self._latest.get(row.channel_id)
        if row.is_active and (known is None or known.id != row.id or known.version <= row.version):
            self._latest[row.channel_id] = view
        elif not row.is_active and known is not None and known.id == row.id:
            del self._latest[row.channel_id]
        return view

    def known_board(self, game_id: int) -> tuple[int, int] | None:
        """The newest board message of a game this process has recorded (no read):
        posting a board takes the controls off this one too, even if the caller
        looked at the game before another post replaced it."""
        known = self._boards.get(game_id)
        return known[0] if known is not None else None

    @property
    def cached_games(self) -> int:
        """Games kept rebuilt in memory (the health server's gauge)."""
        return len(self._cache)

    def shown_version(self, game_id: int) -> int | None:
        """The version of a game its newest board recorded by this process shows (no read)."""
        known = self._boards.get(game_id)
        return known[1] if known is not None else None

    def peek_game_in_channel(self, channel_id: int) -> GameState | None:
        """The latest view of this channel's game this process has seen, without
        touching the database (for answers that can't wait, like autocomplete).
        It may be a moment behind another process; actions still check the version."""
        return self._latest.get(channel_id)


def _public_fair_dice(row: GameRow, *, revealed: bool = False) -> dict[str, str] | None:
    """The dice commitment and nonce; the seed too once the game is over
    (``revealed``: the game is ending now)."""
    fair = row.settings.get("fair_dice")
    if not fair:
        return None
    public = {"commitment": fair["commitment"], "nonce": fair["nonce"]}
    if fair.get("salt"):
        public["salt"] = fair["salt"]
    if revealed or not row.is_active:
        public["seed"] = fair["seed"]  # revealed once the game is over
    return public
