"""The computer as a player: it acts through the game service like anyone else.

:class:`ComputerPlayer` reads the game, asks :mod:`bot.ai` what to do, and
calls the same :class:`~bot.core.games.GameService` methods a person's buttons
call (with the version it looked at, so a race is refused, never doubled).
No Discord types here: the Discord layer posts the outcomes.
"""

from __future__ import annotations

import asyncio
import logging
import random

from bot.ai import AnalysisUnavailable, Analyst, Level, default_analyst
from bot.ai.tables import choose_play
from bot.core.games import GameService
from bot.core.model import AnalysisUnavailableError, GameState, Outcome, StaleGameError
from engine import Game, Phase, WinKind, format_play
from engine.tables import format_tables_play
from engine.variants import TablesGame

log = logging.getLogger(__name__)

MAX_ACTIONS_PER_TURN = 200
"""A safety stop: no turn (with its forced plays and next games) takes this many actions."""

HOPELESS = 1e-4
"""The computer resigns a single game when its chances of winning (and of
losing a gammon) are below this."""


class ComputerPlayer:
    """A computer opponent in the games where ``user_id`` sits.

    :param service: the game service.
    :param user_id: the computer's player id in the store.
    :param level: beginner, intermediate or expert.
    :param analyst: the engines (shared by default).
    :param rng: the beginner's noise (seed it for reproducible games).
    :param resigns: whether it offers to resign hopeless positions.
    """

    def __init__(
        self,
        service: GameService,
        user_id: int,
        level: Level | str = Level.EXPERT,
        *,
        analyst: Analyst | None = None,
        rng: random.Random | None = None,
        resigns: bool = True,
    ) -> None:
        self.service = service
        self.user_id = user_id
        self.level = Level.parse(level)
        self.analyst = analyst or default_analyst()
        self.rng = rng or random.Random()
        self.resigns = resigns
        self._resigned: set[tuple[int, int]] = set()

    def is_to_act(self, state: GameState) -> bool:
        player = state.to_act()
        return player is not None and player.user_id == self.user_id

    async def take_turn(self, game_id: int) -> list[Outcome]:
        """Act while it is the computer's turn in ``game_id``; return what happened.

        Stops quietly when the game has moved on under it (a human acted
        first): the caller may call again.
        """
        outcomes: list[Outcome] = []
        state = await self.service.lookups.get_game(game_id)
        for _ in range(MAX_ACTIONS_PER_TURN):
            if not self.is_to_act(state):
                return outcomes
            try:
                outcome = await self._act(state)
            except AnalysisUnavailable as error:
                raise AnalysisUnavailableError(error.message) from error
            except StaleGameError as error:
                log.info("game %s moved on under the computer", game_id)
                state = error.state or await self.service.lookups.get_game(game_id)
                continue
            outcomes.append(outcome)
            state = outcome.state
        raise RuntimeError(f"the computer took more than {MAX_ACTIONS_PER_TURN} actions in game {game_id}")

    async def decide(self, state: GameState) -> str:
        """What the computer does now: ``resign``, ``double``, ``roll``, ``use_opening``, ``play:<notation>``,
        ``beaver``, ``take``, ``pass``, ``accept`` or ``reject``."""
        game = state.game
        seat = state.seat(self.user_id)
        assert seat is not None
        if isinstance(game, TablesGame):
            return await decide_tables(game, self.rng)
        if game.phase is Phase.ROLL:
            if self.resigns and await self._hopeless(state, seat):
                self._resigned.add((state.id, len(state.match.games)))
                return "resign"
            if game.can_double(seat):
                advice = await self.analyst.acube_action(game, level=self.level)
                if advice.double:
                    return "double"
            if game.opening_offer is not None and await self._opening_dice_are_worth_playing(game):
                return "use_opening"
            return "roll"
        if game.phase is Phase.PLAY:
            assert game.dice is not None
            play = await self.analyst.achoose_play(game.position, game.dice, level=self.level, rng=self.rng)
            return "play:" + format_play(play)
        if game.phase is Phase.DOUBLED:
            advice = await self.analyst.acube_action(game, level=self.level)
            if advice.take and advice.beaver and game.can_beaver(seat):
                return "beaver"
            return "take" if advice.take else "pass"
        if game.phase is Phase.RESIGNATION:
            return "accept" if self.analyst.resignation_verdict(game, seat) else "reject"
        raise RuntimeError(f"the computer cannot act in phase {game.phase.value}")

    async def _opening_dice_are_worth_playing(self, game: Game) -> bool:
        """Hoyle's choice: the opening dice when their best play is worth at least
        an average fresh throw (the position's equity before rolling)."""
        assert game.opening_offer is not None
        best = await self.analyst.abest_plays(game.position, game.opening_offer, level=self.level, n=1)
        before = await self.analyst.aevaluate(game.position)
        return bool(best) and best[0].equity >= before.equity

    async def _act(self, state: GameState) -> Outcome:
        decision = await self.decide(state)
        service, gid, uid, version = self.service, state.id, self.user_id, state.version
        if decision.startswith("play:"):
            return await service.play(gid, uid, decision[5:], version=version)
        if decision == "resign":
            return await service.resign(gid, uid, 1, version=version)
        method = {
            "double": service.double,
            "roll": service.roll,
            "beaver": service.beaver,
            "use_opening": service.use_opening,
            "take": service.take,
            "pass": service.pass_double,
            "accept": service.accept_resignation,
            "reject": service.reject_resignation,
        }[decision]
        return await method(gid, uid, version=version)

    async def _hopeless(self, state: GameState, seat: int) -> bool:
        """No chance to win and no gammon to save: resign a single game (once a game)."""
        game = state.game
        if (state.id, len(state.match.games)) in self._resigned:
            return False
        if game.position.off[1] == 0:
            return False  # the opponent has not started bearing off: keep playing
        probs = await self.analyst.aevaluate(game.position)
        return probs.win < HOPELESS and probs.lose_gammon < HOPELESS and game.loss_value(seat) is WinKind.SINGLE


async def decide_tables(game: TablesGame, rng: random.Random | None = None) -> str:
    """The computer's action in plakoto, fevga or nardy: roll, or the play
    :func:`bot.ai.tables.choose_play` picks (in a thread: a search over the game's own evaluation)."""
    if game.phase is Phase.ROLL:
        return "roll"
    if game.phase is Phase.PLAY:
        plays = game.legal_plays()
        play = await asyncio.to_thread(choose_play, plays, rng=rng)
        return "play:" + format_tables_play(play)
    raise RuntimeError(f"the computer cannot act in phase {game.phase.value}")


__all__ = ["ComputerPlayer", "HOPELESS", "MAX_ACTIONS_PER_TURN"]
