"""The recorder: each step of a match, stored as one compare-and-set transaction.

:meth:`Recorder.record` runs a step (a player's action, the opening throw, a
timeout) on a copy of the match, adds what happens by itself (forced plays,
a dance against a closed board, the next game of a match), and appends the new
actions with the board they owe the players, the next deadline, a snapshot now
and then, and, when the match ends, its summary and rating update, in one
transaction. A lost race leaves no trace: the cached match is never changed.
"""

from __future__ import annotations

import contextlib
import copy
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from bot.core import narration
from bot.core.archive import Archive
from bot.core.deliveries import Deliveries, board_debt
from bot.core.game_cache import GameCache
from bot.core.lookups import Lookups
from bot.core.model import (
    REMINDER_FRACTION,
    SERVICE_ACTIONS,
    ChallengeOptions,
    Event,
    Outcome,
    RuleError,
    StaleGameError,
    storage_errors_as_service_errors,
)
from bot.core.players import PlayerNames
from bot.core.tournaments.service import update_owed
from bot.store import GameOverError, GameRow, MatchOutcome, Owed, StaleVersionError, Store
from engine import GameError, IllegalPlayError, Match, NotationError, Phase, Position, WinKind
from i18n import Said, worded

log = logging.getLogger(__name__)


@storage_errors_as_service_errors
class Recorder:
    """Stores the steps of the matches of a :class:`~bot.store.Store`, and tells
    :attr:`finish_listeners` of each match that ends."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime],
        names: PlayerNames,
        cache: GameCache,
        archive: Archive,
        lookups: Lookups,
        deliveries: Deliveries,
    ) -> None:
        self.store = store
        self.clock = clock
        self.names = names
        self.cache = cache
        self.archive = archive
        self.lookups = lookups
        self.deliveries = deliveries
        self.finish_listeners: list[Callable[[GameRow], Awaitable[None]]] = []
        """Told of every match that ends (finished or abandoned), after it is stored."""

    async def record(
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
            raise RuleError(worded(error)) from None
        new_actions = [a.to_dict() for a in match.log[before:]]
        if whole_match and not match.is_over:
            new_actions.append({"kind": "match_forfeit"})
        updates: dict[str, Any] = {"score0": match.score[0], "score1": match.score[1]}
        outcome: MatchOutcome | None = None
        now = self.clock()
        finished = match.is_over or whole_match
        summary: dict[str, Any] | None = None
        if finished:
            outcome = match_outcome(row, match)
            updates["result"] = match_result(match)
            service_actions = [a for a in new_actions if a.get("kind") in SERVICE_ACTIONS]
            summary = await self.archive.summary(row, match, "finished", service_actions)
        else:
            game = match.game
            assert game is not None
            if (await self.names.get(row.players[game.turn])).is_bot:
                # The computer is never reminded nor timed out; if its turn
                # fails, people can retry it or forfeit.
                updates.update(turn_deadline=None, reminder_at=None)
            else:
                updates.update(turn_deadline(ChallengeOptions.from_dict(row.settings), now))
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
        extra = tournament_owed(row) if finished else []
        snapshot = None if finished else await self.cache.snapshot(row.version, len(new_actions), match)
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
            self.cache.forget(row.id)
            raise StaleGameError(state=await self.lookups.get_game(row.id)) from None
        if not held or len(result.owed) > 1:
            self.deliveries.wake()
        if finished:
            self.cache.forget(row.id)
        else:
            self.cache.keep(row.id, result.version, match)
            self.cache.rows[row.id] = result.game
        state = await self.cache.state(result.game, match)
        events = narration.describe(state, match, before, forced)
        if finished:
            await self.finished(result.game)
        return Outcome(state, events, result.rating_changes, owed=tuple(board))

    async def abandon(self, row: GameRow, match: Match, moderator_id: int) -> Outcome:
        """Store a moderator's end of a stuck game (no result, no rating change)."""
        view_before = await self.cache.state(row, match)
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
        summary = await self.archive.summary(row, match, "abandoned", actions)
        try:
            result = await self.store.games.append(
                row.id,
                row.version,
                actions,
                actor=moderator_id,
                updates={"status": "abandoned"},
                summary=summary,
                owed=[owed, *tournament_owed(row)],
            )
        except StaleVersionError:
            self.cache.forget(row.id)
            raise StaleGameError(state=await self.lookups.get_game(row.id)) from None
        self.cache.forget(row.id)
        board, others = result.owed[:1], result.owed[1:]
        self.deliveries.hold(board)  # the caller posts the board; the dispatcher the rest
        if others:
            self.deliveries.wake()
        state = await self.cache.state(result.game, match)
        await self.finished(result.game)
        first, second = (p.name for p in view_before.players)
        said = Said(
            "the game between {name} and {name2} was abandoned by a moderator (unrated)", name=first, name2=second
        )
        return Outcome(
            state,
            [Event("abandon", None, said)],
            owed=tuple(board),
        )

    async def finished(self, row: GameRow) -> None:
        """Tell the listeners a match ended (a tournament advances); their failures are
        logged, not the player's: the scheduler's pass catches up."""
        for listener in self.finish_listeners:
            try:
                await listener(row)
            except Exception:
                log.exception("after game %s ended, a listener failed", row.id)


def start_next_game(match: Match, forced: set[int]) -> None:
    game = match.new_game()
    if game.phase is Phase.OPENING:  # (the winner of a hit may throw first, without one)
        game.opening_roll()
    follow_up(match, forced)


def follow_up(match: Match, forced: set[int]) -> None:
    """What happens by itself: forced plays (their log entries' ids go
    into ``forced``), and the next game of a match."""
    game = match.game
    assert game is not None
    while True:
        if (
            game.phase is Phase.ROLL
            and isinstance(game.position, Position)  # plakoto, fevga and nardy have no bar
            and game.position.is_closed_out()
            and not game.can_double(game.turn)
        ):
            game.roll(game.turn)  # on the bar against a closed board, nothing to decide: the dance is thrown
            continue
        if game.phase is Phase.PLAY and len(game.legal_plays()) == 1:
            game.play(game.turn, game.legal_plays()[0])
            forced.add(id(game.log[-1]))
            continue
        if game.is_over and not match.is_over:
            start_next_game(match, forced)
        return


def winner_seat(match: Match) -> int:
    """Who won: the match's winner, or for a forfeited match the last game's."""
    if match.winner is not None:
        return match.winner
    last = match.game.result if match.game else None
    return last.winner if last else 0


def match_outcome(row: GameRow, match: Match) -> MatchOutcome:
    won = winner_seat(match)
    lost = 1 - won
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
        winner=row.players[won],
        loser=row.players[lost],
        winner_points=score[won] * stake,
        loser_points=score[lost] * stake,
        winner_gammons=gammons[won],
        winner_backgammons=backgammons[won],
        loser_gammons=gammons[lost],
        loser_backgammons=backgammons[lost],
        rated=options.rated,
    )


def match_result(match: Match) -> dict[str, Any]:
    last = match.game.result if match.game else None
    return {
        "winner_seat": winner_seat(match),
        "score": list(match.score),
        "last_game": last.to_dict() if last else None,
        "forfeited": not match.is_over,
    }


def tournament_owed(row: GameRow) -> list[Owed]:
    """A tournament match that ends owes its announcement a redraw (in the ending transaction)."""
    tournament = row.settings.get("tournament")
    return [update_owed(row.guild_id, row.channel_id, int(tournament))] if tournament else []


def turn_deadline(options: ChallengeOptions, now: datetime) -> dict[str, datetime]:
    span = timedelta(days=options.move_days)
    return {"turn_deadline": now + span, "reminder_at": now + span * REMINDER_FRACTION}
