"""Game analysis added to game-over messages.

When a game ends, its result is posted first; the analysis (each player's
error rate, blunders with the better play, luck) runs in the background
(:meth:`bot.core.advice.Advice.summaries`, kept in the database) and is then
added to the game-over message with the game's chart (or posted under it),
so no answer ever waits on it.

Nobody waits for it either, so it waits for the bot: the analyses run one at
a time, each in a quiet moment (:mod:`bot.discord.quiet`), or once its game
has been over for :data:`PATIENCE_SECONDS` however busy the bot is. Even in
the idle class an analysis took some 7% of the cores from a saturated bot,
and the boards of the games still being played waited for it
(``bench/e2e_load.py``).
"""

from __future__ import annotations

import asyncio
import collections
import io
import logging
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

import discord

from bot.core.advice import Advice
from bot.core.model import GameState, Outcome, ServiceError
from bot.discord import lessons, presenter
from bot.discord.limits import fit
from bot.discord.quiet import POLL_SECONDS, QUIET_SECONDS, until_quiet
from renderer.pool import RenderError, RenderWorkers

log = logging.getLogger(__name__)

MAX_EMBEDS_CHARS = 5800
"""Discord allows 6000 characters over all embeds of a message."""
PATIENCE_SECONDS = 180.0
"""An analysis waits for a quiet moment until its game has been over this long:
a bot busy for minutes still analyses."""


class _Ended(NamedTuple):
    """A game-over message waiting for its games' analysis."""

    state: GameState
    games_ended: int
    """How many games ended in it (the last ones of the match)."""
    message: discord.Message
    embeds: list[discord.Embed]
    over_since: float
    """When (by :attr:`AnalysisNotes.clock`)."""


def _file(chart: tuple[str, bytes]) -> discord.File:
    name, png = chart
    return discord.File(io.BytesIO(png), filename=name)


class AnalysisNotes:
    """Adds the analyst's notes to the messages of games that just ended."""

    def __init__(
        self,
        advice: Advice,
        drawing: RenderWorkers,
        *,
        kept_up_for: Callable[[], float],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``drawing``: where the charts are drawn; ``kept_up_for``: seconds the bot has
        kept up with its boards (see :data:`QUIET_SECONDS`); ``clock``: seconds, for the patience."""
        self.advice = advice
        self.drawing = drawing
        self.kept_up_for = kept_up_for
        self.clock = clock
        self.quiet = QUIET_SECONDS
        self.patience = PATIENCE_SECONDS
        self.poll = POLL_SECONDS
        self._waiting: collections.deque[_Ended] = collections.deque()
        """The games to analyse, in the order they ended."""
        self._runner: asyncio.Task[None] | None = None
        """Analyses them one by one while there are any (no task waits idle)."""

    def available(self) -> bool:
        return self.advice.available()

    # -- after a game ----------------------------------------------------------------------

    def after_game(self, outcome: Outcome, message: discord.Message | None, embeds: Sequence[discord.Embed]) -> None:
        """If games ended in this outcome, analyse them in the background and add the result to ``message``."""
        ended = sum(1 for e in outcome.events if e.kind == "game_over")
        if not ended or message is None or outcome.state.status == "abandoned":
            return
        if outcome.state.options.is_tables:
            return  # no engine analyses plakoto, fevga, nardy or tavli
        if not self.available():
            return
        self._waiting.append(_Ended(outcome.state, ended, message, list(embeds), self.clock()))
        if self._runner is None or self._runner.done():
            self._runner = asyncio.create_task(self._run(), name="bg-analyses")

    async def _run(self) -> None:
        """Each game in turn, once the bot is quiet or the game's patience has run out."""
        while self._waiting:
            await self._until_quiet(self._waiting[0].over_since)
            ended = self._waiting.popleft()
            await self._annotate(ended.state, ended.games_ended, ended.message, ended.embeds)

    async def _annotate(
        self, state: GameState, ended: int, message: discord.Message, embeds: list[discord.Embed]
    ) -> None:
        try:
            numbers = [n for n, game in enumerate(state.match.games, start=1) if game.result is not None][-ended:]
            if not numbers:
                return
            embed = presenter.analysis_embed(state, await self.advice.summaries(state, numbers))
            chart = await self._chart(state, numbers[-1])
            if chart is not None:
                embed.set_image(url=f"attachment://{chart[0]}")
            if sum(len(e) for e in embeds) + len(embed) <= MAX_EMBEDS_CHARS and len(embeds) < 10:
                try:
                    if chart is None:
                        await message.edit(**fit(embeds=[*embeds, embed]))
                    else:
                        await message.edit(
                            **fit(embeds=[*embeds, embed], attachments=[*message.attachments, _file(chart)])
                        )
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
            log.exception("the analysis of game %s failed", state.id)

    async def _until_quiet(self, over_since: float) -> None:
        """Until the bot has kept up with its boards for :attr:`quiet` seconds, or the
        game has been over (since ``over_since``, by :attr:`clock`) for :attr:`patience`."""
        await until_quiet(
            over_since, self.patience, kept_up_for=self.kept_up_for, clock=self.clock, quiet=self.quiet, poll=self.poll
        )

    async def _chart(self, state: GameState, number: int) -> tuple[str, bytes] | None:
        """The chart of game ``number`` of the match (its file name and PNG), None if it can't be drawn."""
        try:
            details = await self.advice.service.archive.analysis_details(state.id)
            charts = lessons.game_charts(state, {number: details[number]} if number in details else {})
            if not charts:
                return None
            name, chart = charts[-1]
            # nobody waits for it: a 70 ms chart among the boards held up every board behind it
            return name, await self.drawing.picture(chart, background=True)
        except (RenderError, ServiceError):
            log.warning("could not draw the chart of game %s", state.id, exc_info=True)
            return None

    @property
    def busy(self) -> bool:
        return self._runner is not None and not self._runner.done()

    async def wait(self) -> None:
        while self.busy:
            assert self._runner is not None
            await asyncio.gather(self._runner, return_exceptions=True)

    async def close(self) -> None:
        """Drop the games still waiting and stop the analysis under way."""
        self._waiting.clear()
        runner = self._runner
        if runner is not None:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
