"""The bot: a :class:`commands.Bot` that owns the store, the service and the scheduler.

:func:`create_bot` builds it without side effects; everything that needs the
event loop (opening the database, adding the cog, registering the persistent
buttons, starting the scheduler, syncing the slash commands) happens in
:meth:`BackgammonBot.setup_hook`, which discord.py runs at login.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

import discord
from discord import app_commands
from discord.ext import commands

from bot import ai
from bot.config import Settings
from bot.scheduler import Scheduler
from bot.service import GameService
from bot.store import Store, open_store
from bot.ui.components import DYNAMIC_ITEMS
from bot.ui.errors import report
from bot.ui.table import Table, warm_up_renderer
from engine import DiceSource

log = logging.getLogger("bot")

INTENTS = discord.Intents(guilds=True)
"""Only guild and channel events: the bot works through interactions, so it
neither needs nor parses the message events every channel post would send."""


class BackgammonTree(app_commands.CommandTree["BackgammonBot"]):
    """The command tree; its ``on_error`` is the one error path of every slash command."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:  # type: ignore[override]
        await report(interaction, error)


class BackgammonBot(commands.Bot):
    """The backgammon bot. Build it with :func:`create_bot`."""

    user: discord.ClientUser  # filled in at login

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        service: GameService | None = None,
        dice: DiceSource | None = None,
        clock: Callable[[], datetime] | None = None,
        scheduler: bool = True,
    ) -> None:
        # A board game never joins a voice channel: no start-up warnings about voice libraries.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=INTENTS,
            help_command=None,
            tree_cls=BackgammonTree,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False),
            **(settings.shard_options if isinstance(self, commands.AutoShardedBot) else {}),
        )
        self.settings = settings
        self.store: Store | None = store if store is not None else (service.store if service is not None else None)
        self._service = service
        self._owns_store = False
        self._dice = dice
        self._clock = clock
        self.table = Table(self)
        self.scheduler = Scheduler(self) if scheduler else None

    @property
    def service(self) -> GameService:
        if self._service is None:
            raise RuntimeError("the bot is not set up yet (setup_hook has not run)")
        return self._service

    async def setup_hook(self) -> None:
        if self._service is None:
            if self.store is None:
                # DATABASE_URL (may hold a password: only the redacted form is logged) or DATABASE_PATH
                self.store = await open_store(self.settings.database_url, **self.settings.pool_options)
                self._owns_store = True
                log.info("database: %s (%s)", self.settings.database_redacted, self.store.backend)
            self._service = GameService(self.store, dice=self._dice, clock=self._clock)
        from bot.cogs.game import GameCog
        from bot.cogs.trust import TrustCog

        await self.add_cog(GameCog(self))
        await self.add_cog(TrustCog(self))
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self.scheduler is not None:
            self.scheduler.start()
        await warm_up_renderer()
        ai.available()  # import the engines now, not on the event loop when the first game ends
        await self.sync_commands()

    async def sync_commands(self) -> None:
        """Sync the slash commands: to the dev guild (instant) if one is set, else globally."""
        if self.settings.dev_guild_id:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), self.settings.dev_guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands (Discord may take a while to show changes)", len(synced))

    async def on_ready(self) -> None:
        log.info("ready as %s (%s) in %d servers", self.user, self.user.id, len(self.guilds))
        await self.table.computer.resume()  # the computer's turns left waiting by a restart

    async def close(self) -> None:
        if self.scheduler is not None:
            await self.scheduler.stop()
        await self.table.close()  # the computer's turns, analyses, the analyst's worker processes
        await super().close()
        if self._owns_store and self.store is not None:
            await self.store.close()


def create_bot(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    service: GameService | None = None,
    dice: DiceSource | None = None,
    clock: Callable[[], datetime] | None = None,
    scheduler: bool = True,
) -> BackgammonBot:
    """A new, not yet started bot. Nothing is opened or connected until login.

    With ``SHARD_COUNT`` set it is a :class:`ShardedBackgammonBot` (an
    :class:`commands.AutoShardedBot` running ``SHARD_IDS``), else a plain one.
    """
    if settings is None:
        settings = Settings.from_env()
    cls = ShardedBackgammonBot if settings.sharded else BackgammonBot
    return cls(settings, store=store, service=service, dice=dice, clock=clock, scheduler=scheduler)


class ShardedBackgammonBot(BackgammonBot, commands.AutoShardedBot):
    """The bot as an :class:`commands.AutoShardedBot`: ``shard_count``/``shard_ids`` from the settings."""
