"""Game analysis after each game and for ``/bg analysis``.

When a game ends, its result is posted first; the analysis (each player's
error rate, blunders with the better play, luck) runs in the background and
is then added to the game-over message (or posted under it), so no answer
ever waits on it.

Analyses are kept in memory, keyed by stored game id and game number within
the match, for ``/bg analysis`` to reuse. (Kept across restarts they would need
a table, see the report: ``game_analyses(game_id, game_number, ply, summary,
created_at, PRIMARY KEY (game_id, game_number))``.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord

from bot import ai, presenter
from bot.service import GameView, Outcome
from engine import Game

if TYPE_CHECKING:
    from bot.ui.table import Table

log = logging.getLogger(__name__)

MAX_EMBEDS_CHARS = 5800
"""Discord allows 6000 characters over all embeds of a message."""


def _embed_chars(embed: discord.Embed) -> int:
    return len(embed)


class Analyses:
    """The analyst's notes: one summary per finished game of a stored game."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.ply = 0
        self._locks: dict[int, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @staticmethod
    def available() -> bool:
        return ai.available()

    def finished_games(self, view: GameView) -> list[int]:
        """Numbers (1-based) of the games of this match that can be analysed now."""
        return [
            number
            for number, game in enumerate(view.match.games, start=1)
            if game.result is not None or (not view.is_active and game.log)
        ]

    async def summaries(self, view: GameView, numbers: Sequence[int] | None = None) -> list[tuple[int, str]]:
        """``(number, summary)`` of the given (default: all finished) games,
        analysing what is missing; analyses are kept in the database."""
        wanted = list(numbers) if numbers is not None else self.finished_games(view)
        names = (view.players[0].name, view.players[1].name)
        service = self.table.service
        lock = self._locks.setdefault(view.id, asyncio.Lock())
        async with lock:
            stored = await service.analyses(view.id)
            for number in wanted:
                if number not in stored:
                    analysis = await self.analyse(view.match.games[number - 1])
                    stored[number] = analysis.summary(names)
                    await service.save_analysis(view.id, number, self.ply, stored[number])
        if not lock.locked():
            self._locks.pop(view.id, None)
        return [(number, stored[number]) for number in wanted]

    async def analyse(self, game: Game) -> ai.GameAnalysis:
        """One game's analysis (in the analyst's low-priority worker process)."""
        return await ai.default_analyst().aanalyse_game(game, ply=self.ply)

    # -- after a game ----------------------------------------------------------------------

    def after_game(self, outcome: Outcome, message: discord.Message | None, embeds: Sequence[discord.Embed]) -> None:
        """If games ended in this outcome, analyse them in the background and add the result to ``message``."""
        ended = sum(1 for e in outcome.events if e.kind == "game_over")
        if not ended or message is None or outcome.view.status == "abandoned":
            return
        if not self.available():
            return
        task = asyncio.create_task(
            self._annotate(outcome.view, ended, message, list(embeds)), name=f"bg-analysis-{outcome.view.id}"
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _annotate(self, view: GameView, ended: int, message: discord.Message, embeds: list[discord.Embed]) -> None:
        try:
            numbers = [n for n, game in enumerate(view.match.games, start=1) if game.result is not None][-ended:]
            if not numbers:
                return
            embed = presenter.analysis_embed(view, await self.summaries(view, numbers))
            if sum(_embed_chars(e) for e in embeds) + _embed_chars(embed) <= MAX_EMBEDS_CHARS and len(embeds) < 10:
                try:
                    await message.edit(embeds=[*embeds, embed])
                    return
                except discord.HTTPException:
                    log.debug("could not add the analysis to game-over message %s", message.id, exc_info=True)
            await message.channel.send(embed=embed, reference=message.to_reference(fail_if_not_exists=False))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the analysis of game %s failed", view.id)

    async def wait(self) -> None:
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
