"""``/bglearn``: pictures that teach — the old masters' openings, the server's puzzles, drills.

A group of its own: ``/bg`` holds 24 of the 25 subcommands Discord allows a
group. Like the other cogs, each command reads its options, calls the core,
and shows the result; refusals are raised and answered privately.
"""

from __future__ import annotations

import io
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import lessons
from bot.discord.boards import render_in_worker
from bot.discord.cooldowns import cooldown, family_of, hold
from bot.discord.parts import Parts
from bot.discord.replies import asked_at, require_option_lengths, require_permissions, send_public
from engine.openings import covered_rolls, parse_roll

RollChoice = Literal[tuple(f"{high}-{low}" for high, low in covered_rolls())]  # type: ignore[valid-type]
"""The opening throws the old texts give a play for."""


@app_commands.guild_only()
class LearnCog(commands.GroupCog, group_name="bglearn", group_description="Learn: the old masters' openings, puzzles, drills"):
    """Openings, puzzles and drills."""

    def __init__(self, parts: Parts) -> None:
        self.settings = parts.settings
        self.service = parts.service
        self.advice = parts.advice
        self.table = parts.table
        self.cooldowns = parts.cooldowns
        super().__init__()

    async def interaction_check(self, interaction: discord.Interaction) -> bool:  # type: ignore[override]
        """Before every command: its text options within their declared lengths, and the member's cooldown."""
        require_option_lengths(interaction)
        hold(self.cooldowns, family_of(interaction), interaction.user)
        return True

    # -- the old masters' openings ----------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(name="openings", description="The old masters' opening plays beside the neural net's, on a board")
    @app_commands.describe(roll="One opening throw (default: every throw the old texts cover)")
    async def openings(self, interaction: discord.Interaction, roll: RollChoice | None = None) -> None:  # type: ignore[valid-type]
        require_permissions(interaction, ("send_messages", "attach_files", "embed_links"))
        rolls = [parse_roll(roll)] if roll else list(covered_rolls())
        items = await self.table.quick(interaction, self.advice.openings(rolls))
        if roll:
            item, entry = items[0], None
            embed = lessons.opening_embed(item)
        else:
            item, entry = lessons.biggest_departure(items)
            embed = lessons.openings_embed(items)
        png = await render_in_worker(lessons.opening_scene(item, entry), asked_at=asked_at(interaction))
        name = f"opening-{item.roll[0]}-{item.roll[1]}.png"
        embed.set_image(url=f"attachment://{name}")
        await send_public(interaction, embed=embed, file=discord.File(io.BytesIO(png), filename=name))


async def setup(bot: Any) -> None:
    """The extension's entry (``bot.load_extension("bot.discord.cogs.learn")``): its parts come from the client."""
    await bot.add_cog(LearnCog(bot.parts))
