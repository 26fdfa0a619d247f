"""What every cog of the bot shares: the bot, its table and its game service."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.app import BackgammonBot
    from bot.service import GameService
    from bot.ui.table import Table


class BotCogMixin:
    """Gives a cog ``bot``, ``table`` (posting boards, answering clicks) and ``service``."""

    def __init__(self, bot: BackgammonBot) -> None:
        self.bot = bot
        super().__init__()

    @property
    def table(self) -> Table:
        return self.bot.table

    @property
    def service(self) -> GameService:
        return self.bot.service
