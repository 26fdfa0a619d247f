"""Game analysis added to game-over messages.

When a game ends, its result is posted first; the analysis (each player's
error rate, blunders with the better play, luck) runs in the background
(:meth:`bot.core.advice.Advice.summaries`, kept in the database) and is then
added to the game-over message with the game's chart (or posted under it),
so no answer ever waits on it.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence

import discord

from bot.core.advice import Advice
from bot.core.model import GameState, Outcome, ServiceError
from bot.discord import lessons, presenter
from bot.discord.boards import picture_in_worker
from bot.discord.limits import fit
from renderer.pool import RenderError

log = logging.getLogger(__name__)

MAX_EMBEDS_CHARS = 5800
"""Discord allows 6000 characters over all embeds of a message."""


def _file(chart: tuple[str, bytes]) -> discord.File:
    name, png = chart
    return discord.File(io.BytesIO(png), filename=name)


class AnalysisNotes:
    """Adds the analyst's notes to the messages of games that just ended."""

    def __init__(self, advice: Advice) -> None:
        self.advice = advice
        self._tasks: set[asyncio.Task[None]] = set()

    def available(self) -> bool:
        return self.advice.available()

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

    async def _annotate(self, view: GameState, ended: int, message: discord.Message, embeds: list[discord.Embed]) -> None:
        try:
            numbers = [n for n, game in enumerate(view.match.games, start=1) if game.result is not None][-ended:]
            if not numbers:
                return
            embed = presenter.analysis_embed(view, await self.advice.summaries(view, numbers))
            chart = await self._chart(view, numbers[-1])
            if chart is not None:
                embed.set_image(url=f"attachment://{chart[0]}")
            if sum(len(e) for e in embeds) + len(embed) <= MAX_EMBEDS_CHARS and len(embeds) < 10:
                try:
                    if chart is None:
                        await message.edit(**fit(embeds=[*embeds, embed]))
                    else:
                        await message.edit(**fit(embeds=[*embeds, embed], attachments=[*message.attachments, _file(chart)]))
                    return
                except discord.HTTPException:
                    log.debug("could not add the analysis to game-over message %s", message.id, exc_info=True)
            extra = {} if chart is None else {"file": _file(chart)}
            await message.channel.send(
                **fit(embed=embed, reference=message.to_reference(fail_if_not_exists=False), **extra)
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the analysis of game %s failed", view.id)

    async def _chart(self, view: GameState, number: int) -> tuple[str, bytes] | None:
        """The chart of game ``number`` of the match (its file name and PNG), None if it can't be drawn."""
        try:
            details = await self.advice.service.analysis_details(view.id)
            charts = lessons.game_charts(view, {number: details[number]} if number in details else {})
            if not charts:
                return None
            name, chart = charts[-1]
            # nobody waits for it: a 70 ms chart among the boards held up every board behind it
            return name, await picture_in_worker(chart, background=True)
        except (RenderError, ServiceError):
            log.warning("could not draw the chart of game %s", view.id, exc_info=True)
            return None

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    async def wait(self) -> None:
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
