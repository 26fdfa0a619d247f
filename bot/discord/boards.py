"""Board messages: one path that draws a game's board and puts it where it belongs.

The rule for messages: the *board message* of a game is the one message with
the current controls. When the same player acts again (Roll, then choose a
play), that message is edited in place. When the turn passes to the other
player, a new board message is posted with a mention of them (so they get a
notification) and the old one keeps its picture but loses its buttons.

:meth:`BoardPoster.publish` does all of it for every caller (a command's
reply, a click, the computer's moves, a timeout): draw, send through a
:class:`Target`, remember the message as the game's board, take the controls
off the one before, then tell the listeners (the computer's seat, the
analysis notes).
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import discord

from bot.core.games import GameService
from bot.core.model import Event, GameState, Outcome
from bot.discord import presenter
from bot.discord.components import game_controls
from bot.discord.replies import asked_at, send_public
from renderer import CLASSIC, BoardScene, ReplayGif, ReplayJob, Theme
from renderer.from_game import scene_from_game
from renderer.pool import RenderWorkers

log = logging.getLogger(__name__)

Payload = dict[str, Any]
"""``content``, ``file``, ``embeds`` and ``view`` of a board message."""

Listener = Callable[[Outcome, "discord.Message | None", Sequence[discord.Embed]], None]
"""Told of every outcome once it is on the board (the computer's seat, the analysis notes)."""

RENDER_WORKERS = 2
_render_workers = RenderWorkers(RENDER_WORKERS)
"""Shared by every bot in this process (tests make many); started on first use."""


async def render_in_worker(scene: BoardScene, *, asked_at: float | None = None) -> bytes:
    """A board's PNG from a worker process: drawing holds the GIL, which the
    event loop needs for everyone else's clicks. Under load, boards asked for
    earlier (``asked_at``, epoch seconds; default now) are drawn first."""
    return await _render_workers.render(scene, asked_at=asked_at)


async def replay_in_worker(job: ReplayJob) -> ReplayGif:
    """A replay's GIF from the same workers, once no board waits (:mod:`renderer.pool`)."""
    return await _render_workers.replay(job)


async def warm_up_renderer() -> None:
    """Start the drawing workers (and their board caches) before the first click needs them."""
    await _render_workers.start()


def scene_for(state: GameState, viewpoint_user_id: int | None = None, theme: Theme = CLASSIC) -> BoardScene:
    """The board to show: from the side of ``viewpoint_user_id`` if they play,
    else from the side of the player to act."""
    seat = state.seat(viewpoint_user_id) if viewpoint_user_id is not None else None
    if seat is None:
        seat = state.game.turn
    return scene_from_game(
        state.game,
        (state.players[0].name, state.players[1].name),
        viewer=seat,
        stake=state.options.stake,
        theme=theme,
    )


def _fields(payload: Payload) -> dict[str, Any]:
    return {k: v for k, v in payload.items() if v is not None}


class Target(Protocol):
    """Where a board goes; ``send`` returns the message, or None if it could not be sent."""

    async def send(self, payload: Payload) -> discord.Message | None: ...


class Reply:
    """The answer to a command, seen by everyone (however it was acknowledged)."""

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction

    async def send(self, payload: Payload) -> discord.Message:
        return await send_public(self.interaction, **payload)


class Followup:
    """A new message under a click or an answered command."""

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction

    async def send(self, payload: Payload) -> discord.Message:
        message = await self.interaction.followup.send(wait=True, **_fields(payload))
        self.interaction.extras["answered"] = True
        return message


class EditClicked:
    """The clicked board itself, edited in place (the same player acts again)."""

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction

    async def send(self, payload: Payload) -> discord.Message | None:
        await self.interaction.edit_original_response(
            content=payload["content"], attachments=[payload["file"]], embeds=payload["embeds"], view=payload["view"],
        )
        return self.interaction.message


class InChannel:
    """A channel or thread, outside any interaction (the computer's moves, notices)."""

    def __init__(self, client: discord.Client, channel_id: int, guild_id: int | None = None) -> None:
        self.client = client
        self.channel_id = channel_id
        self.guild_id = guild_id

    async def send(self, payload: Payload) -> discord.Message | None:
        try:
            channel = self.client.get_partial_messageable(self.channel_id, guild_id=self.guild_id)
            return await channel.send(**_fields(payload))
        except discord.HTTPException:
            log.warning("could not post in channel %s", self.channel_id, exc_info=True)
            return None


class EditBoard:
    """A board message edited in place by its ids (None if it is gone)."""

    def __init__(self, client: discord.Client, board: tuple[int, int]) -> None:
        self.client = client
        self.board = board

    async def send(self, payload: Payload) -> discord.Message | None:
        channel_id, message_id = self.board
        try:
            channel = self.client.get_partial_messageable(channel_id)
            return await channel.get_partial_message(message_id).edit(
                content=payload.get("content"),
                attachments=[payload["file"]] if payload.get("file") else [],
                embeds=payload.get("embeds") or [],
                view=payload.get("view"),
            )
        except discord.HTTPException as error:
            log.debug("could not edit board %s/%s: %s", channel_id, message_id, error)
            return None


class BoardPoster:
    """Draws boards and posts them; one per bot."""

    def __init__(self, client: discord.Client, service: GameService) -> None:
        self.client = client
        self.service = service
        self.listeners: list[Listener] = []

    async def payload(
        self,
        state: GameState,
        events: Sequence[Event] = (),
        rating_changes: Sequence[Any] = (),
        *,
        asked_at: float | None = None,
        headline: str | None = None,
    ) -> Payload:
        """content / file / embeds / view of a board message. ``headline`` goes
        first (a notice); then nobody is pinged by the turn line."""
        png = await render_in_worker(scene_for(state), asked_at=asked_at)
        content = presenter.board_content(state, events, ping=headline is None)
        if headline:
            content = f"{headline}\n{content}"[: presenter.MAX_CONTENT]
        payload: Payload = {
            "content": content,
            "file": discord.File(io.BytesIO(png), filename="board.png"),
            "embeds": [],
            "view": game_controls(state),
        }
        embed = presenter.result_embed(state, events, rating_changes)
        if embed is not None:
            embed.set_image(url="attachment://board.png")
            payload["embeds"] = [embed]
        return payload

    async def publish(
        self,
        outcome: Outcome,
        target: Target,
        *,
        old: tuple[int, int] | None,
        skip: int | None = None,
        events: Sequence[Event] | None = None,
        asked: float | None = None,
        headline: str | None = None,
        alongside: Awaitable[Any] | None = None,
        fallback: Target | None = None,
        listeners: Sequence[Listener] | None = None,
    ) -> discord.Message | None:
        """Draw the outcome's board and send it through ``target`` (``fallback`` if
        that fails); make it the game's board and take the controls off ``old``
        (unless it is the message ``skip``, already answered); then tell the
        listeners (``listeners``: only these). ``alongside`` runs while the board is drawn (the click's
        own answer). Returns the message, or None if it could not be sent."""
        state = outcome.view
        shown = outcome.events if events is None else events
        drawing = self.payload(state, shown, outcome.rating_changes, asked_at=asked, headline=headline)
        if alongside is not None:
            payload, _ = await asyncio.gather(drawing, alongside)
        else:
            payload = await drawing
        message = await target.send(payload)
        if message is None and fallback is not None:
            # the first target used up the file: draw it again for the second
            payload = await self.payload(state, shown, outcome.rating_changes, asked_at=asked, headline=headline)
            message = await fallback.send(payload)
        if message is not None:
            await self.remember(state, message, old, skip=skip)
        for listener in self.listeners if listeners is None else listeners:
            listener(outcome, message, payload["embeds"])
        return message

    async def remember(
        self, state: GameState, message: discord.Message, old: tuple[int, int] | None, *, skip: int | None = None
    ) -> None:
        """Make ``message`` the game's board; take the controls off the previous one."""
        if state.board_message is None or state.board_message != (message.channel.id, message.id):
            try:
                await self.service.set_board_message(state.id, message.channel.id, message.id)
            except Exception:  # a finished game may refuse; the board is only a convenience
                log.debug("could not store board message of game %s", state.id, exc_info=True)
        if old is not None and old[1] not in (message.id, skip):
            await self.strip(*old)

    async def strip(self, channel_id: int, message_id: int) -> None:
        """Remove the controls of an older board (best effort)."""
        try:
            channel = self.client.get_partial_messageable(channel_id)
            await channel.get_partial_message(message_id).edit(view=None)
        except discord.HTTPException as error:
            log.debug("could not strip buttons of %s/%s: %s", channel_id, message_id, error)


__all__ = [
    "BoardPoster", "EditBoard", "EditClicked", "Followup", "InChannel", "Payload", "Reply", "Target",
    "asked_at", "render_in_worker", "replay_in_worker", "scene_for", "warm_up_renderer",
]
