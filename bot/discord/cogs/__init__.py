"""The slash command groups, one cog each, loaded as extensions by name."""

from __future__ import annotations

import discord

from bot.discord.cooldowns import Cooldowns, family_of, hold
from bot.discord.replies import require_option_lengths


class Guarded:
    """Mixed into every cog: before each of its commands, the text options within
    their declared lengths and the member's cooldown (a cog sets ``cooldowns``)."""

    cooldowns: Cooldowns

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        require_option_lengths(interaction)
        hold(self.cooldowns, family_of(interaction), interaction.user)
        return True
