"""``/patience``: Serpent Poker Patience, the server's daily puzzle.

``/patience daily`` (the server's deal of the UTC day, the same for
everyone), ``/patience hoyle`` (Hoyle's worked example) and ``/patience
random`` show the member's layout privately, with a button for each square
the next card may go on (:mod:`bot.discord.patience_panel`); ``/patience
play`` lays the next cards on typed squares; ``/patience leaderboard`` shows
a day's best. Each command and click is one call to the core
(:class:`bot.core.patience.PatienceService`); pictures are drawn by the
drawing workers; refusals are raised and answered privately by the one error
path. Submitting answers with the player's score, the best possible score
and a best layout (two pictures side by side); a daily result is also
announced in the channel in one line that pings nobody.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.patience import Attempt, PatienceResult, StaleLayoutError
from bot.discord import patience_panel as words
from bot.discord.cogs import Guarded
from bot.discord.cooldowns import cooldown, hold
from bot.discord.errors import report
from bot.discord.parts import Parts
from bot.discord.replies import (
    asked_at,
    edit_clicked,
    player_ref,
    require_permissions,
    send_private,
    send_public,
)
from i18n import N_, _
from renderer.patience import PatiencePicture

if TYPE_CHECKING:
    from bot.discord.client import BackgammonBot

log = logging.getLogger(__name__)

ScoringName = Literal["english", "american"]
DealKind = Literal["daily", "hoyle", "random"]
STALE_NOTE = N_("That panel was out of date: here is your layout as it stands.")


@app_commands.guild_only()
class PatienceCog(
    Guarded,
    commands.GroupCog,
    group_name="patience",
    group_description="Serpent Poker Patience: lay 25 cards, score poker hands",
):
    """Patience commands, and the panel's buttons (:class:`~bot.discord.patience_panel.PatienceButton`)."""

    def __init__(self, parts: Parts) -> None:
        self.patience = parts.service.patience
        self.drawing = parts.drawing
        self.table = parts.table
        self.cooldowns = parts.cooldowns
        self._warming: asyncio.Task[None] | None = None
        super().__init__()

    async def cog_load(self) -> None:
        # the solver's tables, in a thread, before the first submission needs them
        self._warming = asyncio.create_task(self.patience.warm_up(), name="patience-warm-up")

    async def cog_unload(self) -> None:
        if self._warming is not None and not self._warming.done():
            self._warming.cancel()

    # -- commands -------------------------------------------------------------------------------

    @cooldown("board")
    @app_commands.command(name="daily", description="Today's deal: the same for everyone here, one submission a day")
    async def daily(self, interaction: discord.Interaction) -> None:
        await self._start(interaction, "daily")

    @cooldown("board")
    @app_commands.command(name="hoyle", description="The deal of Hoyle's worked example (can you find his 81?)")
    @app_commands.describe(scoring="The score table (default: English)", new="Start again from an empty grid")
    async def hoyle(
        self, interaction: discord.Interaction, scoring: ScoringName | None = None, new: bool = False
    ) -> None:
        await self._start(interaction, "hoyle", scoring, new)

    @cooldown("board")
    @app_commands.command(name="random", description="A fresh deal of 25 cards, for practice")
    @app_commands.describe(
        scoring="The score table (default: English)", new="Drop your random deal in progress for a new one"
    )
    async def random(
        self, interaction: discord.Interaction, scoring: ScoringName | None = None, new: bool = False
    ) -> None:
        await self._start(interaction, "random", scoring, new)

    @cooldown("turn")
    @app_commands.command(name="play", description="Lay the next cards by typing their squares, as C3 C4 D4")
    @app_commands.describe(
        squares="Squares for the next cards: column A-E, row 1-5 (a whole path from card 1 works too)",
        deal="Which of your layouts (default: the one you played last)",
    )
    async def play(
        self, interaction: discord.Interaction, squares: app_commands.Range[str, 1, 150], deal: DealKind | None = None
    ) -> None:
        attempt = await self.table.quick(
            interaction, self.patience.lay(interaction.guild_id or 0, interaction.user.id, squares, kind=deal)
        )
        await self._show(interaction, attempt, edit=False)

    @cooldown("lookup")
    @app_commands.command(name="leaderboard", description="The best layouts of a day's deal here, with streaks")
    @app_commands.describe(day="Which day, as 2026-03-02 (default: today, UTC)")
    async def leaderboard(
        self, interaction: discord.Interaction, day: app_commands.Range[str, 1, 10] | None = None
    ) -> None:
        require_permissions(interaction, ("send_messages", "embed_links"))
        board = await self.table.quick(interaction, self.patience.leaderboard(interaction.guild_id or 0, day))
        guild = interaction.guild
        await send_public(interaction, embed=words.leaderboard_embed(board, guild.name if guild else None))

    # -- the panel's buttons ----------------------------------------------------------------------

    async def click(
        self, interaction: discord.Interaction, action: str, attempt_id: int, version: int, square: str | None
    ) -> None:
        """A click on a panel: lay a card (``p``), undo (``u``) or submit (``s``)."""
        try:
            hold(self.cooldowns, "review" if action == "s" else "turn", interaction.user)
            user = interaction.user.id
            note = None
            try:
                if action == "s":
                    result = await self.table.quick(
                        interaction, self.patience.submit(attempt_id, user, version=version)
                    )
                    await self._reveal(interaction, result, edit=True)
                    return
                if action == "p":
                    call = self.patience.place(attempt_id, user, square or "", version=version)
                else:
                    call = self.patience.undo(attempt_id, user, version=version)
                attempt = await self.table.quick(interaction, call)
            except StaleLayoutError as stale:
                attempt, note = stale.attempt, _(STALE_NOTE)
            await self._show(interaction, attempt, edit=True, note=note)
        except Exception as error:  # buttons have no tree.on_error: the same single error path
            await report(interaction, error)

    # -- showing ------------------------------------------------------------------------------------

    async def _start(
        self, interaction: discord.Interaction, kind: DealKind, scoring: str | None = None, new: bool = False
    ) -> None:
        attempt = await self.table.quick(
            interaction,
            self.patience.start(
                interaction.guild_id or 0, player_ref(interaction.user), kind, scoring=scoring, new=new
            ),
        )
        await self._show(interaction, attempt, edit=False)

    async def _show(
        self, interaction: discord.Interaction, attempt: Attempt, *, edit: bool, note: str | None = None
    ) -> None:
        """The panel: privately, as a new message (a command) or in the clicked one."""
        if attempt.submitted:
            result = await self.table.quick(interaction, self.patience.result(attempt.id, attempt.user_id))
            await self._reveal(interaction, result, edit=edit)
            return
        picture = PatiencePicture.of(attempt.layout, attempt.scoring, title=attempt.title)
        png = await self.table.quick(interaction, self.drawing.picture(picture, asked_at=asked_at(interaction)))
        file = discord.File(io.BytesIO(png), filename=words.picture_name(attempt))
        content, view = words.panel_text(attempt, note), words.controls(attempt)
        if edit:
            await edit_clicked(interaction, content=content, attachments=[file], view=view)
        else:
            await send_private(interaction, content=content, file=file, view=view)

    async def _reveal(self, interaction: discord.Interaction, result: PatienceResult, *, edit: bool) -> None:
        """The result: the player's layout and a best one, side by side; a daily one
        also announced in the channel (once, when submitted)."""
        attempt, asked = result.attempt, asked_at(interaction)
        pictures: tuple[PatiencePicture, ...] = (
            PatiencePicture.of(
                attempt.layout,
                attempt.scoring,
                title=_("{title}: yours").format(title=attempt.title),
                best=result.best,
                show_legal=False,
            ),
        )
        if result.best_layout is not None:  # a daily deal's best: once its day is over
            pictures += (
                PatiencePicture.of(
                    result.best_layout,
                    attempt.scoring,
                    title=_("{title}: a best layout").format(title=attempt.title),
                    best=result.best,
                    show_legal=False,
                ),
            )
        pngs = await self.table.quick(
            interaction, asyncio.gather(*(self.drawing.picture(p, asked_at=asked) for p in pictures))
        )
        files = [
            discord.File(io.BytesIO(png), filename=words.picture_name(attempt, which))
            for png, which in zip(pngs, ("yours", "best"))
        ]
        content = words.reveal_text(result)
        if edit:
            await edit_clicked(interaction, content=content, attachments=files, view=None)
        else:
            await send_private(interaction, content=content, files=files)
        if result.just_submitted and attempt.kind == "daily":
            name = getattr(interaction.user, "display_name", None) or interaction.user.name
            try:
                await send_public(interaction, content=words.daily_line(name, result))
            except discord.HTTPException as error:  # the result is stored and shown to the player: enough
                log.warning("could not announce a daily patience result: %s", error)


async def setup(bot: BackgammonBot) -> None:
    """The extension's entry (``bot.load_extension("bot.discord.cogs.patience")``): its parts come from the client."""
    await bot.add_cog(PatienceCog(bot.parts))


__all__ = ["PatienceCog", "STALE_NOTE", "setup"]
