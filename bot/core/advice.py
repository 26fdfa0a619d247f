"""Advice from GNU Backgammon's nets: hints, game analyses, the computer's levels.

The core's only door to :mod:`bot.ai`. The layers above ask here for a hint
or a game's analysis and get our own values back; when the engines are not
installed they get :class:`AnalysisUnavailableError` (a :class:`ServiceError`)
with a message fit to show. Analyses of finished games are kept in the
database, so each game is analysed once.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from bot import ai
from bot.core.computer import ComputerPlayer
from bot.core.games import GameService
from bot.core.model import UNAVAILABLE_MESSAGE, AnalysisUnavailableError, GameState, GameSummary, ServiceError
from bot.core.openings import OpeningVerdict, start_and_roll, verdict
from i18n import N_

LEVELS: tuple[str, ...] = tuple(level.value for level in ai.Level)
"""The computer's levels, weakest first: ``beginner``, ``intermediate``, ``expert``."""
DEFAULT_LEVEL: str = ai.DEFAULT_LEVEL.value
UNAVAILABLE_DETAIL = N_(
    "the computer, hints and analysis need the gnubg-nn and bgsage engines, which are not installed here."
)

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "UNAVAILABLE_DETAIL",
    "UNAVAILABLE_MESSAGE",
    "Advice",
    "AnalysisUnavailableError",
    "parse_level",
]

F = TypeVar("F", bound=Callable[..., Any])


def _engines_required(method: F) -> F:
    @functools.wraps(method)
    async def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except ai.AnalysisUnavailable as error:
            raise AnalysisUnavailableError(error.message) from error

    return checked  # type: ignore[return-value]


def parse_level(value: str | None) -> str:
    """A level's name from what a player typed (default: the strongest).

    :raises ServiceError: for a name that is not a level.
    """
    try:
        return ai.Level.parse(value).value
    except ValueError as error:
        raise ServiceError(str(error)) from None


class Advice:
    """Hints, analyses and computer players for one bot process.

    :param service: the games, whose kept analyses it reads and writes.
    :param analyst: the engines (the process's shared one by default).
    :param hint_level: the level ``/bg hint`` thinks at.
    :param ply: the depth of game analyses.
    :param opening_ply: the depth the opening throws are valued at (once per process).
    """

    def __init__(
        self,
        service: GameService,
        analyst: ai.Analyst | None = None,
        *,
        hint_level: str | int = DEFAULT_LEVEL,
        ply: int = 0,
        opening_ply: int = 2,
    ) -> None:
        self.service = service
        self.opening_ply = opening_ply
        self._openings: dict[tuple[int, int], OpeningVerdict] = {}
        self._analyst = analyst
        self.hint_level = hint_level
        self.ply = ply
        self._players: dict[tuple[int, str], ComputerPlayer] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    @property
    def analyst(self) -> ai.Analyst:
        if self._analyst is None:
            self._analyst = ai.default_analyst()
        return self._analyst

    @staticmethod
    def available() -> bool:
        """Whether the engines can be used on this server."""
        return ai.available()

    def require(self) -> None:
        """:raises AnalysisUnavailableError: when the engines are not installed."""
        if not self.available():
            raise AnalysisUnavailableError()

    def computer(self, user_id: int, level: str | None) -> ComputerPlayer:
        """The computer player sitting as ``user_id`` at ``level`` (one per level)."""
        name = parse_level(level)
        player = self._players.get((user_id, name))
        if player is None:
            player = self._players[(user_id, name)] = ComputerPlayer(self.service, user_id, name, analyst=self.analyst)
        return player

    @_engines_required
    async def hint(self, state: GameState) -> list[str]:
        """The best plays with their equities, or the cube action, in lines for the player to act."""
        advice = await self.analyst.ahint(state.game, level=self.hint_level)
        return advice.lines()

    async def openings(self, rolls: Sequence[tuple[int, int]]) -> list[OpeningVerdict]:
        """The old texts' plays of each opening throw beside the neural net's best,
        with what each gives up; without the engines, the texts' plays alone."""
        if not self.available():
            return [verdict(roll, None) for roll in rolls]
        found = []
        for roll in rolls:
            known = self._openings.get(roll)
            if known is None:
                position, dice = start_and_roll(roll)
                try:
                    ranked = await self.analyst.aplay_equities(position, dice, ply=self.opening_ply)
                except ai.AnalysisUnavailable:
                    return [verdict(r, None) for r in rolls]
                known = self._openings[roll] = verdict(roll, [(c.text, c.equity) for c in ranked], self.opening_ply)
            found.append(known)
        return found

    @staticmethod
    def finished_games(state: GameState) -> list[int]:
        """Numbers (from 1) of the match's games that can be analysed now."""
        return [
            number
            for number, game in enumerate(state.match.games, start=1)
            if game.result is not None or (not state.is_active and game.log)
        ]

    @_engines_required
    async def summaries(self, state: GameState, numbers: Sequence[int] | None = None) -> list[tuple[int, str]]:
        """``(number, summary)`` of the given (default: every finished) game of a
        match in play or just ended, analysing in a low-priority worker process
        what was not analysed before, and keeping it."""
        wanted = list(numbers) if numbers is not None else self.finished_games(state)
        names = (state.players[0].name, state.players[1].name)

        async def analyse(number: int) -> ai.GameAnalysis:
            return await self.analyst.aanalyse_game(state.match.games[number - 1], ply=self.ply)

        return await self._kept_or_analysed(state.id, names, wanted, analyse)

    @_engines_required
    async def analysis(self, summary: GameSummary) -> list[tuple[int, str]]:
        """``(number, summary)`` of every game of a finished match: the kept
        analyses, and for the others each game's log analysed in the low-priority
        worker process (which replays it there, off the bot's event loop)."""
        names = (summary.players[0].name, summary.players[1].name)
        records: dict[int, Any] = {}

        async def analyse(number: int) -> ai.GameAnalysis:
            if not records:
                records.update((r.number, r) for r in await self.service.archive.game_records(summary.id))
            record = records[number]
            return await self.analyst.aanalyse_log(
                list(record.actions), record.settings, score=record.score, crawford=record.crawford, ply=self.ply
            )

        return await self._kept_or_analysed(summary.id, names, summary.analysable(), analyse)

    @_engines_required
    async def details(self, summary: GameSummary) -> dict[int, dict[str, Any]]:
        """The numbers behind the analysis of every game of a finished match (each
        move's chances and luck, the mistakes), analysing what was not yet."""
        await self.analysis(summary)
        return await self.service.archive.analysis_details(summary.id)

    async def _kept_or_analysed(
        self,
        game_id: int,
        names: tuple[str, str],
        wanted: list[int],
        analyse: Callable[[int], Awaitable[ai.GameAnalysis]],
    ) -> list[tuple[int, str]]:
        lock = self._locks.setdefault(game_id, asyncio.Lock())
        async with lock:
            stored = await self.service.archive.analyses(game_id)
            detailed = await self.service.archive.analysis_details(game_id)
            for number in wanted:
                if number not in stored or number not in detailed:  # kept before details existed: again
                    analysis = await analyse(number)
                    stored[number] = analysis.summary(names)
                    await self.service.archive.save_analysis(
                        game_id, number, self.ply, stored[number], analysis.detail()
                    )
        if not lock.locked():
            self._locks.pop(game_id, None)
        return [(number, stored[number]) for number in wanted]

    async def close(self) -> None:
        """Shut the engines' worker processes down (waits for work in progress)."""
        analyst, self._analyst = self._analyst, None
        if analyst is not None:
            await analyst.aclose()
        await asyncio.to_thread(ai.close_default)
