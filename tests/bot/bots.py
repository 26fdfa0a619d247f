"""Bots for the tests, wired as :mod:`bot.__main__` wires the real one, on a test's store.

Every bot of the test process draws with the same drawing workers
(:data:`DRAWING`) and analyses with the same engine workers (:data:`ENGINES`):
starting worker processes for each of hundreds of bots would cost the suite
minutes (an engine worker loads the nets: seconds under load, which SimCord's
5 s settle after a game's end waited for). Closing a bot leaves them running;
they end with the process.
"""

from __future__ import annotations

import atexit
import copy
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any
from unittest import mock

import discord

import i18n
from bot import ai
from bot.ai import analyst as analysts
from bot.config import Settings
from bot.core import GameService
from bot.discord.boards import RENDER_WORKERS
from bot.discord.client import BackgammonBot, create_bot
from bot.store import Store
from engine import DiceSource
from renderer.pool import RenderWorkers


class SharedDrawing(RenderWorkers):
    """Drawing workers no bot ends (see the module's docstring)."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        atexit.register(self.end)

    def close(self) -> None:
        """A bot closing: the next test's bot draws with the same workers."""

    def end(self) -> None:
        RenderWorkers.close(self)


DRAWING = SharedDrawing(RENDER_WORKERS)


class SharedEngines(ai.Analyst):
    """The process's analyst, whose worker processes no bot ends (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        atexit.register(self.end)

    def close(self) -> None:
        """A bot closing: the next test's bot analyses with the same workers."""

    def end(self) -> None:
        ai.Analyst.close(self)


ENGINES = SharedEngines()
analysts._default = ENGINES  # what every bot's advice uses (bot.ai.default_analyst)
ai.close_default = lambda: None  # a bot's advice closing it: kept for the next test

_PAYLOADS: dict[tuple[object, ...], list[dict[str, Any]]] = {}
"""Synced command payloads, by the tree's commands and the catalogues read (see :func:`sync`)."""


def cached_sync(bot: BackgammonBot) -> Callable[..., Awaitable[Any]]:
    """``bot.tree.sync`` (global), with the translated payload built once per test process:
    discord.py asks the translator for every text in 32 locales (some 8,000 calls), which cost
    every SimCord test a fifth of a second. A changed catalogue or tree builds it again."""
    tree = bot.tree

    async def sync(*, guild: Any = None) -> Any:
        commands = tree._get_all_commands(guild=guild)
        catalogues = tuple(id(i18n.catalogue(language)) for language in i18n.LANGUAGES)
        key = (guild is None, tuple(command.qualified_name for command in commands), type(tree.translator), catalogues)
        if key not in _PAYLOADS:
            translator = tree.translator
            _PAYLOADS[key] = [
                await command.get_translated_payload(tree, translator) if translator else command.to_dict(tree)
                for command in commands
            ]
        if bot.application_id is None:
            raise discord.app_commands.MissingApplicationID
        payload = copy.deepcopy(_PAYLOADS[key])
        if guild is None:
            data = await tree._http.bulk_upsert_global_commands(bot.application_id, payload=payload)
        else:
            data = await tree._http.bulk_upsert_guild_commands(bot.application_id, guild.id, payload=payload)
        return [discord.app_commands.AppCommand(data=d, state=tree._state) for d in data]

    return sync


def build_bot(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    service: GameService | None = None,
    dice: DiceSource | None = None,
    clock: Callable[[], datetime] | None = None,
    synced: bool = True,
    **options: Any,
) -> BackgammonBot:
    """A bot (not logged in) on ``service``, else a new service on ``store`` (with
    ``dice`` and ``clock``), else on no database at all: a bot for its command tree
    only, which must not log in. ``synced``: its commands are synced globally at
    login, as ``python -m bot sync`` would have (SimCord answers only synced commands).
    ``options`` go to :func:`create_bot`."""
    settings = settings or Settings(token="t")
    if service is None:
        if store is not None:
            service = GameService(store, dice=dice, clock=clock, limits=settings.limits)
        else:
            service = mock.AsyncMock(spec=GameService)
    if isinstance(service, GameService) and not isinstance(service, mock.Mock):
        # Locales are written at once: SimCord's settle waits for a pending timer, and the
        # product's 2 s batching would add 2 s to every test's first interaction.
        service.languages.flush_seconds = 0
    bot = create_bot(settings, service=service, drawing=DRAWING, **options)
    if synced and not settings.dev_guild_id:
        set_up = bot.setup_hook

        async def setup_hook() -> None:
            await set_up()
            await bot.tree.sync()

        bot.setup_hook = setup_hook  # type: ignore[method-assign]
        bot.tree.sync = cached_sync(bot)  # type: ignore[method-assign, assignment]
    return bot
