"""Posting what the scheduler says is due: reminders, timeouts, expired challenges.

The core's :class:`~bot.core.scheduler.Scheduler` finds the notices; this is
its sink. A reminder is a line with a mention and a link to the board; a
timeout is the game's final board (through the same :class:`BoardPoster` as
every other board); an expired challenge's message is edited in place to say
so, and nothing new is posted: a thousand challenges expiring must not become
a thousand messages (the core tidies a few each pass of the scheduler).
"""

from __future__ import annotations

import logging

import discord

from bot.core.model import Notice, Outcome
from bot.discord import presenter
from bot.discord.boards import BoardPoster, InChannel

log = logging.getLogger(__name__)


class Notices:
    def __init__(self, client: discord.Client, poster: BoardPoster) -> None:
        self.client = client
        self.poster = poster

    async def post(self, notice: Notice) -> discord.Message | None:
        if notice.kind == "challenge_expired" and notice.challenge is not None:
            return await self._post_expired_challenge(notice)
        state = notice.view
        if state is None:
            return None
        channel_id = state.board_message[0] if state.board_message else state.channel_id
        where = InChannel(self.client, channel_id, state.guild_id)
        who = presenter.mention(notice.user_id) if notice.user_id else ""
        if notice.kind == "reminder":
            text = f"⏰ {who} {notice.text}."
            link = presenter.board_link(state)
            if link:
                text += f" [Go to the board]({link})"
            return await where.send({"content": text})
        # a timeout: the game ended; show the final board and the result
        others = " ".join(presenter.mention(p.user_id) for p in state.players if p.user_id != notice.user_id)
        return await self.poster.publish(
            Outcome(state, list(notice.events), list(notice.rating_changes)), where,
            old=state.board_message, headline=f"⌛ {who} {notice.text}. {others}".strip(), listeners=[],
        )

    async def _post_expired_challenge(self, notice: Notice) -> discord.Message | None:
        """The challenge's own message now says it expired, without its buttons."""
        challenge = notice.challenge
        assert challenge is not None
        if not challenge.message_id:
            return None
        channel = self.client.get_partial_messageable(challenge.channel_id, guild_id=challenge.guild_id)
        try:
            return await channel.get_partial_message(challenge.message_id).edit(
                content=presenter.challenge_closed_content(challenge, "expired"), view=None
            )
        except discord.HTTPException:
            log.debug("could not close expired challenge message", exc_info=True)
            return None
