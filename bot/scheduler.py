"""The background task behind reminders, timeouts and expired challenges.

It asks the service what is due (:meth:`GameService.process_due`), posts each
notice in the game's channel with a mention, then sleeps until the service's
next wake-up time, but never longer than :data:`MAX_SLEEP` seconds, so a
deadline set by another process (or after a restart) is seen within a minute.
``process_due`` is idempotent, so running it again after a crash is safe.

Several processes (``SHARD_COUNT``/``SHARD_IDS``, one database)
---------------------------------------------------------------
Every process runs a scheduler.  Each reminder is claimed and each timeout is
a compare-and-set forfeit in the database, so whichever process gets a due
game first fires it and the others skip it: every notice goes out exactly
once.  Posting is a REST call, which works for any channel from any process,
so a notice for a guild on another process's shard is still delivered.

To keep each process to its own guilds, the scheduler hands its shard
``(shard_count, shard_ids)`` to ``process_due(now, shard=...)`` and
``next_wakeup(shard=...)``: the service claims only those guilds' work,
and takes over another shard's once it is a few minutes overdue (that
process may be down).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import discord

from bot import presenter
from bot.store import Shard, serves
from bot.service import Notice
from bot.ui.components import game_controls
from bot.ui.table import render_in_worker

if TYPE_CHECKING:
    from bot.app import BackgammonBot

log = logging.getLogger(__name__)

MAX_SLEEP = 60.0
MIN_SLEEP = 1.0


class Scheduler:
    def __init__(
        self,
        bot: BackgammonBot,
        *,
        max_sleep: float = MAX_SLEEP,
        min_sleep: float = MIN_SLEEP,
        shard: tuple[int, Sequence[int]] | None = None,
    ) -> None:
        self.bot = bot
        self.max_sleep = max_sleep
        self.min_sleep = min_sleep
        self._shard: Shard | None = (shard[0], tuple(sorted(shard[1]))) if shard is not None else None
        self._task: asyncio.Task[None] | None = None

    # -- shards --------------------------------------------------------------------

    @property
    def shard(self) -> Shard | None:
        """This process's ``(shard_count, shard_ids)``, or None when it serves every guild.

        From the constructor, else from the bot's ``SHARD_COUNT``/``SHARD_IDS``
        settings; None when unsharded or when ``SHARD_IDS`` is unset (this
        process runs every shard).  A service that accepts it sweeps only the
        games and challenges of guilds with ``(guild_id >> 22) % shard_count
        in shard_ids`` (direct messages, guild 0, on shard 0).
        """
        if self._shard is not None:
            return self._shard
        settings = getattr(self.bot, "settings", None)
        return getattr(settings, "shard", None)

    def serves(self, guild_id: int | None) -> bool:
        """Whether this process's shards receive ``guild_id``'s events."""
        return serves(self.shard, guild_id)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if not self.running:
            self._task = asyncio.create_task(self._run(), name="bg-scheduler")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the scheduler failed; trying again shortly")
            await asyncio.sleep(await self.delay())

    async def delay(self) -> float:
        """Seconds until the next thing is due, between MIN_SLEEP and MAX_SLEEP."""
        try:
            service = self.bot.service
            wakeup = await service.next_wakeup(shard=self.shard)
        except Exception:
            log.exception("could not read the next wake-up time")
            return self.max_sleep
        if wakeup is None:
            return self.max_sleep
        seconds = (wakeup - self.bot.service.clock()).total_seconds()
        return min(max(seconds, self.min_sleep), self.max_sleep)

    async def run_once(self, now: datetime | None = None) -> list[Notice]:
        """Process and post everything due at ``now`` (default: the service's clock).

        Only this process's shard when the service can filter by it (see
        :attr:`shard`); otherwise every due game, whichever shard its guild
        is on (still exactly once across processes: the service claims each).
        """
        service = self.bot.service
        notices = await service.process_due(now, shard=self.shard)
        for notice in notices:
            try:
                await self.post(notice)
            except Exception:
                log.exception("could not post a %s notice", notice.kind)
        return notices

    # -- posting -------------------------------------------------------------------

    async def post(self, notice: Notice) -> discord.Message | None:
        if notice.kind == "challenge_expired" and notice.challenge is not None:
            return await self._post_expired_challenge(notice)
        view = notice.view
        if view is None:
            return None
        channel_id = view.board_message[0] if view.board_message else view.channel_id
        channel = self.bot.get_partial_messageable(channel_id, guild_id=view.guild_id)
        who = presenter.mention(notice.user_id) if notice.user_id else ""
        if notice.kind == "reminder":
            text = f"⏰ {who} {notice.text}."
            link = presenter.board_link(view)
            if link:
                text += f" [Go to the board]({link})"
            return await self._send(channel, content=text)
        # a timeout: the game ended; show the final board and the result
        others = " ".join(presenter.mention(p.user_id) for p in view.players if p.user_id != notice.user_id)
        events = list(notice.events)
        content = f"⌛ {who} {notice.text}. {others}".strip()
        content += "\n" + presenter.board_content(view, events, ping=False)
        png = await render_in_worker(self.bot.service.scene(view))
        embed = presenter.result_embed(view, events or [], notice.rating_changes)
        kwargs: dict[str, object] = {"content": content[: presenter.MAX_CONTENT], "file": discord.File(io.BytesIO(png), filename="board.png")}
        if embed is not None:
            embed.set_image(url="attachment://board.png")
            kwargs["embed"] = embed
        controls = game_controls(view)
        if controls is not None:
            kwargs["view"] = controls
        message = await self._send(channel, **kwargs)
        if view.board_message is not None:
            await self.bot.table.strip_buttons(*view.board_message)
        return message

    async def _post_expired_challenge(self, notice: Notice) -> discord.Message | None:
        challenge = notice.challenge
        assert challenge is not None
        channel = self.bot.get_partial_messageable(challenge.channel_id, guild_id=challenge.guild_id)
        if challenge.message_id:
            try:
                await channel.get_partial_message(challenge.message_id).edit(
                    content=presenter.challenge_closed_content(challenge, "expired"), view=None
                )
            except discord.HTTPException:
                log.debug("could not close expired challenge message", exc_info=True)
        who = presenter.mention(notice.user_id) if notice.user_id else ""
        return await self._send(channel, content=f"⌛ {who} {notice.text}.".strip())

    async def _send(self, channel: discord.abc.Messageable, **kwargs: object) -> discord.Message | None:
        try:
            return await channel.send(**kwargs)  # type: ignore[arg-type]
        except discord.Forbidden:
            log.warning("missing permission to post in channel %s", getattr(channel, "id", "?"))
        except discord.HTTPException:
            log.warning("could not post in channel %s", getattr(channel, "id", "?"), exc_info=True)
        return None
