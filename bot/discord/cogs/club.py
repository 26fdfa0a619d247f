"""``/bgclub``: the channel as a club. Kibitzer polls (the onlookers' answers, revealed
after the player acted) and the server's table of kibitzers.

A group of its own: ``/bg`` holds 24 of the 25 subcommands Discord allows a
group. The polls' buttons and pickers (:mod:`bot.discord.kibitzing`) come here;
the reveal is owed to the outbox by the core (:mod:`bot.core.kibitzers`) and
posted by :meth:`ClubCog.post_reveal`, the dispatcher's handler for its kind.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.kibitzers import REVEAL_KIND, Kibitzers, RevealDelivery, poll_of
from bot.core.model import Outcome
from bot.discord.cogs import Guarded
from bot.discord.cooldowns import cooldown, hold
from bot.discord.dispatcher import NotDelivered
from bot.discord.errors import report
from bot.discord.kibitzing import (
    DYNAMIC_ITEMS,
    SELECT_LIMIT,
    KibitzModal,
    answer_words,
    picker,
    reveal_text,
    table_embed,
)
from bot.discord.limits import pinging, shown
from bot.discord.parts import Parts
from bot.discord.refusals import UserError
from bot.discord.replies import require_permissions, send_private, send_public
from i18n import _

if TYPE_CHECKING:
    from bot.discord.client import BackgammonBot

log = logging.getLogger(__name__)


@app_commands.guild_only()
class ClubCog(
    Guarded,
    commands.GroupCog,
    group_name="bgclub",
    group_description="Play together: kibitzer polls and the server's kibitzers",
):
    """Kibitzer polls."""

    def __init__(self, parts: Parts) -> None:
        self.service = parts.service
        self.table = parts.table
        self.cooldowns = parts.cooldowns
        self.dispatcher = parts.dispatcher
        self.kibitzers = Kibitzers(
            parts.service.store,
            parts.service.clock,
            parts.service.lookups.get_game,
            parts.service.deliveries,
            analyst=lambda: parts.advice.analyst,  # the bot's own engines and their worker processes
        )
        self._open: set[int] = set()
        """Games with a poll answered and not yet revealed (in this process)."""
        self._reveals: set[asyncio.Task[Any]] = set()
        super().__init__()
        self.dispatcher.handlers[REVEAL_KIND] = self.post_reveal
        if self.table is not None:
            self.table.poster.listeners.append(self.after_post)
        if parts.scheduler is not None:
            parts.scheduler.add_job("kibitzers", lambda now, shard: self.kibitzers.reveal_leftovers(shard))

    async def cog_unload(self) -> None:
        if self.table is not None and self.after_post in self.table.poster.listeners:
            self.table.poster.listeners.remove(self.after_post)
        for task in list(self._reveals):
            task.cancel()
        await asyncio.gather(*self._reveals, return_exceptions=True)

    # -- the table ---------------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(
        name="kibitzers", description="This server's kibitzers: answers given, how often the net agreed"
    )
    async def kibitzers_table(self, interaction: discord.Interaction) -> None:
        require_permissions(interaction, ("embed_links",))
        scores = await self.table.quick(interaction, self.kibitzers.table(interaction.guild_id or 0))
        place = interaction.guild.name if interaction.guild is not None else None
        await send_public(interaction, embed=table_embed(scores, place), allowed_mentions=pinging())

    # -- the polls ---------------------------------------------------------------------------

    async def ask(self, interaction: discord.Interaction, game_id: int, version: int) -> None:
        """ "What would you play?": the picker, for an onlooker only."""
        try:
            hold(self.cooldowns, "lookup", interaction.user)
            state = await self.table.quick(interaction, self.service.lookups.get_game(game_id))
            if state.seat(interaction.user.id) is not None:
                raise UserError(_("You play in this game: the poll is for the onlookers."))
            poll = poll_of(state)
            if poll is None or state.version != version:
                raise UserError(_("The player has acted: this poll is closed, and its answers follow the board."))
            if len(poll.answers) > SELECT_LIMIT:
                await interaction.response.send_modal(KibitzModal(game_id, version))
                return
            mine = await self.kibitzers.answer_of(game_id, version, interaction.user.id)
            text = _("What would you play? Only you see your answer; the room's answers show once the player acts.")
            if mine is not None:
                text += "\n" + _("Your answer so far: {answer}.").format(answer=answer_words(mine))
            await send_private(interaction, content=text, view=picker(game_id, version, list(poll.answers)))
        except Exception as error:  # buttons have no tree.on_error: the same single error path
            await report(interaction, error)

    async def vote(self, interaction: discord.Interaction, game_id: int, version: int, answer: str) -> None:
        """An onlooker's answer: kept, and acknowledged to them alone (no count, no hint)."""
        try:
            hold(self.cooldowns, "lookup", interaction.user)
            state = await self.table.quick(interaction, self.service.lookups.get_game(game_id))
            await self.table.quick(interaction, self.kibitzers.vote(state, version, interaction.user.id, answer))
            self._open.add(game_id)
            stored = await self.kibitzers.answer_of(game_id, version, interaction.user.id)
            actor = state.to_act()
            who = shown(actor.name) if actor is not None else "?"
            await send_private(
                interaction,
                content=_("Your answer: {answer}. The room's answers show once {player} has acted.").format(
                    answer=answer_words(stored or answer), player=who
                ),
            )
        except Exception as error:
            await report(interaction, error)

    # -- the reveal --------------------------------------------------------------------------

    def after_post(self, outcome: Outcome, message: discord.Message | None, embeds: Sequence[discord.Embed]) -> None:
        """A board went up: if its game had a poll open, its player has acted."""
        state = outcome.state
        if state.id not in self._open:
            return
        task = asyncio.get_running_loop().create_task(self._reveal(state), name=f"bg-kibitz-{state.id}")
        self._reveals.add(task)
        task.add_done_callback(self._reveals.discard)

    async def _reveal(self, state: Any) -> None:
        try:
            await self.kibitzers.reveal_after(state)
            if not await self.kibitzers.polls.open_polls(state.id):
                self._open.discard(state.id)
        except Exception:
            log.exception("could not reveal the polls of game %s", state.id)

    async def idle(self) -> None:
        """Until the reveals under way are owed (tests)."""
        while self._reveals:
            await asyncio.gather(*list(self._reveals), return_exceptions=True)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Connected (again): polls whose player acted while the bot was away are revealed."""
        task = asyncio.get_running_loop().create_task(self._leftovers(), name="bg-kibitz-leftovers")
        self._reveals.add(task)
        task.add_done_callback(self._reveals.discard)

    async def _leftovers(self) -> None:
        try:
            await self.kibitzers.reveal_leftovers(self.dispatcher.shard)
            self._open.update(p.game_id for p in await self.kibitzers.polls.open_polls(shard=self.dispatcher.shard))
        except Exception:
            log.exception("could not reveal the polls left over")

    async def post_reveal(self, delivery: Any) -> None:
        """Post a poll's reveal in the game's channel, once (after a crash, look first)."""
        assert isinstance(delivery, RevealDelivery) and delivery.reveal is not None
        reveal = delivery.reveal
        player = await self.service.names.name(reveal.player_id)
        text = reveal_text(reveal, player)
        head = text.split("\n", 1)[0]
        if delivery.retried:
            found = await self.dispatcher.look_back(delivery.channel_id, lambda m: m.content.startswith(head))
            if found is not None:
                await self.dispatcher.deliveries.delivered(delivery.entries)
                return
        where = self.dispatcher.where(delivery)
        message = await where.send({"content": text, "allowed_mentions": pinging()})
        if message is None:
            raise where.error or NotDelivered("the kibitzers' reveal could not be posted")
        await self.dispatcher.deliveries.delivered(delivery.entries)


async def setup(bot: BackgammonBot) -> None:
    """The extension's entry: its parts come from the client; the polls' buttons are its own."""
    await bot.add_cog(ClubCog(bot.parts))
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
