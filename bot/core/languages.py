"""Which language a member or a server reads.

- An answer to a member: the language they chose (``/bg settings language``),
  else their client's (the interaction's locale).
- A message with no interaction to a member (a reminder, a digest, a direct
  message): their choice, else the locale of their latest interaction.
- A public post (a board, a challenge, a tournament's or a puzzle's post): the
  server's language (``/bgtools language``), else the server's preferred locale
  when the bot speaks it, else English.

Members' locales are remembered only when they change, a few at a time in one
write (:meth:`Languages.seen` is called for every interaction and is a dict
lookup when nothing changed). The choices are few and kept in memory whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import i18n
from bot.core.lru import Lru
from bot.store import Store

log = logging.getLogger(__name__)

SERVER_KEY = "language"
"""The server's language in its settings (:mod:`bot.store.servers`)."""
REMEMBERED = 100_000
"""Members whose latest locale this process remembers (an unknown one costs one write)."""
FLUSH_SECONDS = 2.0
"""Locales seen are written together, this long after the first unwritten one."""


class Languages:
    def __init__(self, store: Store, *, flush_seconds: float = FLUSH_SECONDS) -> None:
        self.store = store
        self.flush_seconds = flush_seconds
        self._seen: Lru[int, str] = Lru(REMEMBERED)
        self._chosen: dict[int, str] | None = None
        self._servers: Lru[int, str] = Lru(10_000)
        """Servers' chosen languages ("" for none) as read from their settings."""
        self._pending: dict[int, str] = {}
        self._flushing: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def load(self) -> None:
        """Read the members' choices (at start)."""
        self._chosen = await self.store.languages.chosen()

    # -- members -------------------------------------------------------------------------------

    def for_interaction(self, user_id: int, locale: str | None) -> str:
        """The language to answer a member in, remembering the locale they came with."""
        if locale:
            self.seen(user_id, locale)
        chosen = (self._chosen or {}).get(user_id)
        return chosen if chosen in i18n.LANGUAGES else i18n.language_of(locale)

    def seen(self, user_id: int, locale: str) -> None:
        if self._seen.get(user_id) == locale:
            return
        self._seen[user_id] = locale
        self._pending[user_id] = locale
        if self._flushing is None:
            with contextlib.suppress(RuntimeError):  # no loop (a test wording text): nothing to write
                self._flushing = asyncio.get_running_loop().call_later(self.flush_seconds, self._flush_soon)

    def _flush_soon(self) -> None:
        task = asyncio.get_running_loop().create_task(self.flush(), name="bg-languages")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush(self) -> None:
        """Write the locales seen since the last write."""
        self._flushing = None
        pending, self._pending = self._pending, {}
        if not pending:
            return
        try:
            await self.store.languages.remember(pending.items())
        except Exception as error:  # the database: remembered on their next interaction
            log.warning("could not remember %d members' locales: %s", len(pending), error)
            for user_id in pending:
                self._seen.pop(user_id)

    async def close(self) -> None:
        if self._flushing is not None:
            self._flushing.cancel()
        if self._pending:
            await self.flush()
        for task in list(self._tasks):
            with contextlib.suppress(Exception):
                await task

    async def member(self, user_id: int) -> str:
        """The language of a message to a member with no interaction to answer."""
        chosen = (self._chosen or {}).get(user_id)
        if chosen in i18n.LANGUAGES:
            return chosen
        locale = self._seen.get(user_id)
        if locale is None:
            locale, chosen = await self.store.languages.of(user_id)
            if chosen in i18n.LANGUAGES:
                return chosen
        return i18n.language_of(locale)

    def chosen(self, user_id: int) -> str | None:
        return (self._chosen or {}).get(user_id)

    async def choose(self, user_id: int, language: str | None) -> None:
        """A member's choice (None: their client's language)."""
        if language is not None and language not in i18n.LANGUAGES:
            raise ValueError(f"no catalogue for {language!r}")
        await self.store.languages.choose(user_id, language)
        chosen = self._chosen if self._chosen is not None else {}
        if language is None:
            chosen.pop(user_id, None)
        else:
            chosen[user_id] = language
        self._chosen = chosen

    # -- servers -------------------------------------------------------------------------------

    async def server(self, guild_id: int | None, preferred_locale: str | None = None) -> str:
        """The language of a public post in a server."""
        if guild_id is None:
            return i18n.language_of(preferred_locale)
        chosen = self._servers.get(guild_id)
        if chosen is None:
            chosen = str((await self.store.servers.get(guild_id)).get(SERVER_KEY) or "")
            self._servers[guild_id] = chosen
        return chosen if chosen in i18n.LANGUAGES else i18n.language_of(preferred_locale)

    def server_known(self, guild_id: int | None, preferred_locale: str | None = None) -> str | None:
        """The server's language when this process knows it without a read, else None."""
        if guild_id is None:
            return i18n.language_of(preferred_locale)
        chosen = self._servers.get(guild_id)
        if chosen is None:
            return None
        return chosen if chosen in i18n.LANGUAGES else i18n.language_of(preferred_locale)

    async def set_server(self, guild_id: int, language: str | None) -> None:
        """A manager's choice for the server (None: its preferred locale)."""
        if language is not None and language not in i18n.LANGUAGES:
            raise ValueError(f"no catalogue for {language!r}")
        await self.store.servers.update(guild_id, {SERVER_KEY: language})
        self._servers[guild_id] = language or ""
