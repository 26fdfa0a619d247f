"""The parts the Discord layer is built from, handed to each extension's cog."""

from __future__ import annotations

from dataclasses import dataclass

from bot.config import Settings
from bot.core.advice import Advice
from bot.core.games import GameService
from bot.core.progress import Progress
from bot.core.puzzles import Puzzles
from bot.core.scheduler import Scheduler
from bot.discord.cooldowns import Cooldowns
from bot.discord.dispatcher import Dispatcher
from bot.discord.replays import Replays
from bot.discord.table import Table
from renderer.pool import RenderWorkers


@dataclass(frozen=True, slots=True)
class Parts:
    settings: Settings
    service: GameService
    advice: Advice
    table: Table
    cooldowns: Cooldowns
    replays: Replays
    drawing: RenderWorkers
    """The bot's drawing workers: boards, charts, replays (:mod:`renderer.pool`)."""
    dispatcher: Dispatcher
    """Where a feature registers how its own kinds of owed messages are posted."""
    progress: Progress
    """Ratings and error rates over time (the rating chart of ``/bg stats``)."""
    puzzles: Puzzles
    """The servers' puzzles and the members' drills (``/bglearn``)."""
    scheduler: Scheduler | None = None
    """Where a feature adds its own due work (None: the bot runs without one)."""
