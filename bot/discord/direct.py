"""Direct messages: a member's turn, reminder and daily digest, where they asked
for them (:mod:`bot.core.notifications`), with the channel as the fallback
when a member has closed their direct messages."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta
from typing import Any

import discord

import i18n
from bot.core.lru import Lru
from bot.core.model import Delivery, Outcome
from bot.core.narration import span
from bot.discord import presenter, speech
from bot.discord.limits import fit, pinging, plain, shown
from i18n import _, ngettext

log = logging.getLogger(__name__)

TOLD_KEPT = 20_000
"""Games whose last player to act is remembered (an older one may tell its player once more)."""
CLOSED_FOR = 6 * 3600.0
"""Seconds a member's closed direct messages are remembered: no retry (each refusal counts
toward Discord's invalid-request limit) until then, or until they change ``/bg settings``."""
CLOSED_KEPT = 50_000


class ClosedDms:
    """Members whose direct messages were refused lately (one per bot: ``client.closed_dms``)."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self._until: Lru[int, float] = Lru(CLOSED_KEPT)

    def closed(self, user_id: int) -> bool:
        until = self._until.get(user_id)
        if until is None:
            return False
        if until <= self.clock():
            self._until.pop(user_id, None)
            return False
        return True

    def refused(self, user_id: int) -> None:
        self._until[user_id] = self.clock() + CLOSED_FOR

    def forget(self, user_id: int) -> None:
        """They may have opened them (a change of ``/bg settings``): try again."""
        self._until.pop(user_id, None)


async def open_dm(client: discord.Client, user_id: int) -> discord.DMChannel:
    user = client.get_user(user_id) or await client.fetch_user(user_id)
    return user.dm_channel or await user.create_dm()


async def send_direct(client: discord.Client, user_id: int, content: str) -> discord.Message | None:
    """Send ``content`` to a member's direct messages; None when they can't be reached there
    (refused lately: not tried again for a while, see :class:`ClosedDms`)."""
    closed: ClosedDms | None = getattr(client, "closed_dms", None)
    if closed is not None and closed.closed(user_id):
        return None
    try:
        channel = await open_dm(client, user_id)
        return await channel.send(**fit(content=content, allowed_mentions=discord.AllowedMentions.none()))
    except (discord.Forbidden, discord.NotFound) as error:
        log.info("direct messages to %s are closed (%s): the channel instead", user_id, error)
        if closed is not None:
            closed.refused(user_id)
        return None


def digest_text(data: dict[str, Any]) -> str:
    """The daily digest from its games (core: :meth:`bot.core.members.Members.digest`)."""
    games = data.get("games") or []
    waiting = len(games) + int(data.get("more") or 0)
    lines = [
        "☀️ "
        + ngettext(
            "Your daily digest: {count} game waiting for your move.",
            "Your daily digest: {count} games waiting for your move.",
            waiting,
        ).format(count=waiting)
    ]
    for game in games:
        line = "• " + _("Game #{game} vs {opponent}: {left} left").format(
            game=int(game["game"]), opponent=shown(str(game.get("opponent", "?"))), left=game.get("left", "?")
        )
        if game.get("last"):
            line += _("; they played {play}").format(play=plain(str(game["last"])))
        if game.get("link"):
            line += f" · [{_('board')}]({game['link']})"
        lines.append(line)
    if data.get("more"):
        more = int(data["more"])
        lines.append(
            "… "
            + ngettext(
                "and {count} more: `/bg games` in each server.", "and {count} more: `/bg games` in each server.", more
            ).format(count=more)
        )
    lines.append(_("Change this with `/bg settings`."))
    return "\n".join(lines)


def digest_pointer(user_id: int) -> str:
    """The digest's stand-in in a channel (direct messages closed): a pointer, never the list
    (its games may be in channels, or servers, this channel's readers cannot see)."""
    return f"{presenter.mention(user_id)} ☀️ " + _(
        "Your daily digest could not be sent by direct message: `/bg games` shows the games waiting for your move."
    )


def reminder_text(delivery: Delivery, *, mention: bool) -> str:
    who = " ".join(presenter.mention(u) for u in delivery.ping) if mention else ""
    data = delivery.data or {}
    said = plain(delivery.text)  # owed before reminders were worded where they are read
    if "game" in data and "left" in data:
        said = _("{name}, it's your move in game #{game}: {left} left before it is forfeited").format(
            name=shown(str(data.get("name", ""))),
            game=int(data["game"]),
            left=str(span(timedelta(seconds=float(data["left"])))),
        )
    text = " ".join(p for p in ("⏰", who, f"{said}.") if p)
    if delivery.board_message is not None:
        text += f" [{_('Go to the board')}]({presenter.jump_url(delivery.guild_id, *delivery.board_message)})"
    return text


class TurnMessages:
    """After a board is posted: a direct message to the player to act who asked for one
    (once per turn), else, if their direct messages are closed, a ping in the channel."""

    def __init__(self, client: discord.Client, members: Any) -> None:
        self.client = client
        self.members = members
        self._told: Lru[int, int] = Lru(TOLD_KEPT)
        """game id -> the member whose turn its last board showed (the most recent games)."""
        self._tasks: set[asyncio.Task[None]] = set()

    def after_post(self, outcome: Outcome, message: discord.Message | None, embeds: Any) -> None:
        state = outcome.state
        actor = state.to_act() if state.is_active else None
        if actor is None or actor.is_bot or message is None:
            self._told.pop(state.id, None)
            return
        before, self._told[state.id] = self._told.get(state.id), actor.user_id
        if before == actor.user_id:
            return  # the same player's turn goes on (a roll, then the play): told already
        task = asyncio.create_task(self._tell(state, actor.user_id, message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _tell(self, state: Any, user_id: int, message: discord.Message) -> None:
        try:
            prefs = await self.members.prefs(user_id)
            if not prefs.messages_on_turn(self.members.clock()):
                return
            i18n.speak(await speech.member(self.client, user_id))  # this task's: a message to them
            what = presenter.what_to_do(state) or _("to move")
            opponent = next((p.name for p in state.players if p.user_id != user_id), "?")
            link = presenter.jump_url(state.guild_id, message.channel.id, message.id)
            text = "🎲 " + _("Your move in game #{game} vs {opponent}: {what}.").format(
                game=state.id, opponent=shown(opponent), what=what
            )
            text += f" [{_('Go to the board')}]({link})"
            if await send_direct(self.client, user_id, text) is None:
                i18n.speak(await speech.public(self.client, state.guild_id))  # the channel's readers
                await message.channel.send(
                    **fit(
                        content=f"{presenter.mention(user_id)} "
                        + _("it's your move (I couldn't send you a direct message)."),
                        allowed_mentions=pinging(user_id),
                    )
                )
        except Exception:
            log.warning("could not tell %s it is their turn in game %s", user_id, state.id, exc_info=True)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
