"""The parts the Discord layer is built from, handed to each extension's cog."""

from __future__ import annotations

from dataclasses import dataclass

from bot.config import Settings
from bot.core.advice import Advice
from bot.core.games import GameService
from bot.discord.cooldowns import Cooldowns
from bot.discord.replays import Replays
from bot.discord.table import Table


@dataclass(frozen=True, slots=True)
class Parts:
    settings: Settings
    service: GameService
    advice: Advice
    table: Table
    cooldowns: Cooldowns
    replays: Replays
