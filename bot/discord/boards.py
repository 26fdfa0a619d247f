"""Board messages: one path that draws a game's board and puts it where it belongs.

The rule for messages: the *board message* of a game is the one message with
the current controls. When the same player acts again (Roll, then choose a
play), that message is edited in place. When the turn passes to the other
player, a new board message is posted with a mention of them (so they get a
notification) and the old one keeps its picture but loses its buttons.

:meth:`BoardPoster.publish` does all of it for every caller (a command's
reply, a click, the computer's moves, the dispatcher's owed boards): draw,
send through a :class:`Target`, settle the outbox entries the board
delivers and record it as the game's board (one transaction), take the
controls off the board before, then tell the listeners (the computer's seat, the
analysis notes). A board's picture is named ``board-<game>-<version>.png``,
so after a crash the dispatcher can tell whether it was posted.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import io
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord

import i18n
from bot.core.games import GameService
from bot.core.lru import Lru
from bot.core.model import Event, GameState, Outcome, variant_name
from bot.discord import presenter, speech
from bot.discord.components import game_controls, let_go
from bot.discord.limits import fit, pinging
from bot.discord.replies import asked_at, send_public
from engine.gnubgid import decode_match_id
from engine.variants import TablesGame
from i18n import _
from renderer import CLASSIC, BoardScene, Theme
from renderer.charts import WarmUp
from renderer.from_game import scene_from_game
from renderer.pool import RenderWorkers
from renderer.tables import TablesPicture

log = logging.getLogger(__name__)

Payload = dict[str, Any]
"""``content``, ``file``, ``embeds`` and ``view`` of a board message."""

Listener = Callable[[Outcome, "discord.Message | None", Sequence[discord.Embed]], None]
"""Told of every outcome once it is on the board (the computer's seat, the analysis notes)."""

RENDER_WORKERS = 2
"""Drawing worker processes of a bot (:func:`open_drawing`): drawing holds the GIL, which
the event loop needs for everyone else's clicks, so every picture is drawn in one of them.
Under load, boards asked for earlier (``asked_at``, epoch seconds) are drawn first;
pictures nobody waits for (``background``) and replays once no board waits."""


def open_drawing(workers: int = RENDER_WORKERS) -> RenderWorkers:
    """A bot's drawing workers (started by :func:`warm_up`, ended by ``close``)."""
    return RenderWorkers(workers)


async def warm_up(drawing: RenderWorkers) -> None:
    """Start the drawing workers (and their board caches, and matplotlib for the
    charts) before the first click needs them."""
    await drawing.start()
    await asyncio.gather(*(drawing.picture(WarmUp()) for _ in range(drawing.count)))


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


def tables_picture(state: GameState, viewpoint_user_id: int | None = None, theme: Theme = CLASSIC) -> TablesPicture:
    """The board of a game of plakoto, fevga or nardy, as :func:`scene_for` chooses the side."""
    game = state.game
    assert isinstance(game, TablesGame)
    seat = state.seat(viewpoint_user_id) if viewpoint_user_id is not None else None
    if seat is None:
        seat = game.turn
    position = game.position_for(seat)
    dice = (game.dice.high, game.dice.low) if game.dice is not None and seat == game.player_on_roll else None
    number = len(state.match.games)
    caption = variant_name(game.game)
    if state.options.variant == "tavli" or state.match.length:
        caption = _("{game} · game {number}").format(game=caption, number=number)
    names = (state.players[seat].name, state.players[1 - seat].name)
    return TablesPicture(position.position_id(), names=names, dice=dice, caption=caption, theme=theme)


def scene_for_id(gnubg_id: str, *, from_bottom: bool = False, theme: Theme = CLASSIC) -> BoardScene:
    """The board of a GNU Backgammon ID (``PositionID:MatchID`` or a Position ID
    alone), its players named as GNU Backgammon names them: O (player 0) and X
    (player 1). Drawn from the side of the player on roll, or with
    ``from_bottom`` from player 1's (the bottom player of an XGID).

    :raises IdError: if an ID cannot be read.
    """
    position_id, _, match_id = gnubg_id.partition(":")
    on_roll = decode_match_id(match_id).player_on_roll if match_id else 0
    names = ("O", "X") if on_roll == 0 else ("X", "O")
    viewpoint = 1 if from_bottom and on_roll == 0 else 0
    return BoardScene.from_ids(position_id, match_id or None, names=names, viewpoint=viewpoint, theme=theme)


def picture_name(state: GameState) -> str:
    """The board picture's file name: which game and version it shows."""
    return f"board-{state.id}-{state.version}.png"


def _fields(payload: Payload) -> dict[str, Any]:
    return fit(**{k: v for k, v in payload.items() if v is not None})


def _edit_fields(payload: Payload) -> dict[str, Any]:
    """An edit's fields: what the payload leaves out is cleared (attachments, embeds)."""
    return fit(
        content=payload.get("content"),
        attachments=[payload["file"]] if payload.get("file") else [],
        embeds=payload.get("embeds") or [],
        view=payload.get("view"),
        allowed_mentions=payload.get("allowed_mentions"),
    )


class AlreadyShown(Exception):
    """A board not posted: this version of the game, or a newer one, went up while
    it waited (its owed entries are settled by that board)."""


class Target(Protocol):
    """Where a board goes; ``send`` returns the message, or None if it could not be sent."""

    async def send(self, payload: Payload) -> discord.Message | None: ...


@dataclass(frozen=True, slots=True)
class Editor:
    """How a board message can be edited through the interaction that posted it:
    its webhook, which Discord's global limit (50 requests a second, counting the
    channel's routes) leaves alone. The token is a secret, kept only in memory."""

    application_id: int
    token: str = field(repr=False)
    message_id: int
    usable_until: datetime.datetime
    """A minute before the token's 15 minutes are up."""


@dataclass(frozen=True, slots=True)
class Voice:
    """The interaction a game's board last went out through: its webhook can post
    in that channel while the token lasts (the computer's move after a player's
    click), on routes Discord's global limit leaves alone. The token is a secret."""

    application_id: int
    token: str = field(repr=False)
    usable_until: datetime.datetime

    @classmethod
    def of(cls, interaction: discord.Interaction) -> Voice:
        usable_until = interaction.expires_at - datetime.timedelta(minutes=1)
        return cls(interaction.application_id, interaction.token, usable_until)

    def editor(self, message: discord.Message) -> Editor:
        """How to edit ``message``, posted through this interaction."""
        return Editor(self.application_id, self.token, message.id, self.usable_until)


def _spent(through: Editor | Voice) -> bool:
    return discord.utils.utcnow() >= through.usable_until


def _webhook(client: discord.Client, through: Editor | Voice) -> discord.Webhook:
    """The interaction's webhook (its follow-ups' routes)."""
    return discord.Webhook.partial(through.application_id, through.token, client=client)


class ThroughVoice:
    """A new board as a follow-up of the interaction a game last went out through
    (:class:`Voice`); None (the caller's fallback then) if that fails."""

    def __init__(self, client: discord.Client, voice: Voice) -> None:
        self.client = client
        self._voice = voice

    async def send(self, payload: Payload) -> discord.Message | None:
        try:
            return await _webhook(self.client, self._voice).send(wait=True, **_fields(payload))
        except discord.HTTPException as error:
            log.debug("could not post through the game's interaction: %s", error)
            return None

    def editor(self, message: discord.Message) -> Editor:
        return self._voice.editor(message)

    def voice(self) -> Voice:
        return self._voice


EDITORS_KEPT = 20_000
"""Boards remembered with their :class:`Editor`, and games with their :class:`Voice`
(the least recently used forgotten first)."""
TOKEN_SECONDS = 15 * 60
"""An interaction's token is of no use after 15 minutes: its editor and voice are let go then."""


class _Answer:
    """A board sent through an interaction: the game's :class:`Voice` from then on."""

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction

    def voice(self) -> Voice:
        return Voice.of(self.interaction)


class _NewAnswer(_Answer):
    """A new message sent through the interaction, which its token can edit later."""

    def editor(self, message: discord.Message) -> Editor:
        return self.voice().editor(message)


class Reply(_NewAnswer):
    """The answer to a command, seen by everyone (however it was acknowledged)."""

    async def send(self, payload: Payload) -> discord.Message:
        return await send_public(self.interaction, **payload)


class Followup(_NewAnswer):
    """A new message under a click or an answered command."""

    async def send(self, payload: Payload) -> discord.Message:
        message = await self.interaction.followup.send(wait=True, **_fields(payload))
        self.interaction.extras["answered"] = True
        return message


class EditClicked(_Answer):
    """The clicked board itself, edited in place (the same player acts again). It was
    posted through an earlier interaction, whose :class:`Editor` is kept already."""

    async def send(self, payload: Payload) -> discord.Message | None:
        await self.interaction.edit_original_response(
            **fit(
                content=payload["content"],
                attachments=[payload["file"]],
                embeds=payload["embeds"],
                view=payload["view"],
                allowed_mentions=payload.get("allowed_mentions"),
            )
        )
        return self.interaction.message


class InChannel:
    """A channel or thread, outside any interaction (the computer's moves, owed messages).

    ``nonce``: Discord posts a message only once per nonce (for a few minutes),
    so a post retried after a lost answer does not appear twice. A failure is
    kept in :attr:`error` (None is returned).
    """

    def __init__(
        self, client: discord.Client, channel_id: int, guild_id: int | None = None, *, nonce: str | None = None
    ) -> None:
        self.client = client
        self.channel_id = channel_id
        self.guild_id = guild_id
        self.nonce = nonce
        self.error: discord.HTTPException | None = None

    async def send(self, payload: Payload) -> discord.Message | None:
        try:
            channel = self.client.get_partial_messageable(self.channel_id, guild_id=self.guild_id)
            if self.nonce is not None:
                return await channel.send(nonce=self.nonce, **_fields(payload))
            return await channel.send(**_fields(payload))
        except discord.HTTPException as error:
            self.error = error
            log.warning("could not post in channel %s: %s", self.channel_id, error)
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
            return await channel.get_partial_message(message_id).edit(**_edit_fields(payload))
        except discord.HTTPException as error:
            log.debug("could not edit board %s/%s: %s", channel_id, message_id, error)
            return None


def sent(file: discord.File) -> None:
    """Untie a sent file from itself. discord.py's ``File.close()`` puts the buffer's
    own ``close`` back on the buffer as an attribute, a bound method pointing at
    the buffer: every board's PNG then waited for the garbage collector, three
    quarters of what it freed under load once clicks were untied (``let_go``)."""
    vars(file.fp).pop("close", None)


class _EditThrough:
    """A board edited through the interaction that posted it (:class:`Editor`); None if that fails."""

    def __init__(self, client: discord.Client, editor: Editor) -> None:
        self.client = client
        self._editor = editor

    async def send(self, payload: Payload) -> discord.Message | None:
        editor = self._editor
        try:
            return await _webhook(self.client, editor).edit_message(editor.message_id, **_edit_fields(payload))
        except discord.HTTPException as error:
            log.debug("could not edit board %s through its interaction: %s", editor.message_id, error)
            return None

    def editor(self, message: discord.Message) -> Editor:
        return self._editor


class BoardPoster:
    """Draws boards and posts them; one per bot."""

    def __init__(self, client: discord.Client, service: GameService, drawing: RenderWorkers) -> None:
        self.client = client
        self.service = service
        self.drawing = drawing
        self.listeners: list[Listener] = []
        self._locks: dict[int, tuple[asyncio.Lock, list[int]]] = {}
        """game id -> its posting lock and how many posts use it (forgotten at 0)."""
        self._editors: Lru[int, Editor] = Lru(EDITORS_KEPT, ttl=TOKEN_SECONDS)
        """board message id -> how to edit it through the interaction that posted it."""
        self._voices: Lru[int, Voice] = Lru(EDITORS_KEPT, ttl=TOKEN_SECONDS)
        """game id -> the interaction its board last went out through."""

    @contextlib.asynccontextmanager
    async def _posting(self, game_id: int) -> AsyncIterator[None]:
        lock, users = self._locks.setdefault(game_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[game_id]

    async def payload(
        self,
        state: GameState,
        events: Sequence[Event] = (),
        rating_changes: Sequence[Any] = (),
        *,
        asked_at: float | None = None,
        headline: str | None = None,
        pings: Sequence[int] = (),
    ) -> Payload:
        """content / file / embeds / view / allowed_mentions of a board message.
        ``headline`` goes first (a notice, pinging ``pings``); then nobody is
        pinged by the turn line, else the player to act is."""
        if isinstance(state.game, TablesGame):
            png = await self.drawing.picture(tables_picture(state), asked_at=asked_at)
        else:
            png = await self.drawing.render(scene_for(state), asked_at=asked_at)
        actor = state.to_act() if state.is_active else None
        members = self.service.members
        away = members.away_until(state.guild_id, actor.user_id) if actor is not None and not actor.is_bot else None
        # the player to act is pinged only as they asked (not by DM or digest, not in quiet hours)
        ping = (
            headline is None
            and actor is not None
            and not actor.is_bot
            and bool(await members.pings([actor.user_id], turn=True))
        )
        pings = await members.pings(list(pings))
        with i18n.speaking(await speech.public(self.client, state.guild_id)):  # a board is public
            content = presenter.board_content(state, events, ping=ping, away=away)
            view = game_controls(state)
            embed = presenter.result_embed(state, events, rating_changes)
        if headline:
            content = f"{headline}\n{content}"[: presenter.MAX_CONTENT]
        name = picture_name(state)
        payload: Payload = {
            "content": content,
            "file": discord.File(io.BytesIO(png), filename=name),
            "embeds": [],
            "view": view,
            "allowed_mentions": pinging(*pings, *presenter.turn_pings(state, ping=ping)),
        }
        if embed is not None:
            embed.set_image(url=f"attachment://{name}")
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
        pings: Sequence[int] = (),
        alongside: Awaitable[Any] | None = None,
        fallback: Target | None = None,
        listeners: Sequence[Listener] | None = None,
        unless_shown: bool = False,
    ) -> discord.Message | None:
        """Draw the outcome's board and send it through ``target`` (``fallback`` if
        that fails); take the controls off ``old`` (unless it is the message
        ``skip``, already answered); settle what the board delivers and make it
        the game's board; then tell the listeners (``listeners``: only these).
        ``alongside`` runs while the board is drawn (the click's own answer).
        Returns the message, or None if it could not be sent (the outbox
        entries then go back to the dispatcher).

        :raises AlreadyShown: with ``unless_shown``, if a board of this version
            of the game or a newer one was posted meanwhile (the dispatcher's
            boards: worded from the game as it was, they must not go up after
            a click's newer board)."""
        state = outcome.state
        deliveries = self.service.deliveries
        shown = outcome.events if events is None else events
        message: discord.Message | None = None
        async with self._posting(state.id):  # one post of a game at a time: each sees the last one's board
            newest = self.service.cache.shown_version(state.id)
            if unless_shown and newest is not None and newest >= state.version:
                await deliveries.delivered(outcome.owed)
                raise AlreadyShown(f"game {state.id}: version {newest} is on the board, this one shows {state.version}")
            try:
                drawing = self.payload(
                    state, shown, outcome.rating_changes, asked_at=asked, headline=headline, pings=pings
                )
                if alongside is not None:
                    payload, _ = await asyncio.gather(drawing, alongside)
                else:
                    payload = await drawing
                message = await target.send(payload)
                sent_by = target
                if message is None and fallback is not None:
                    # the first target used up the file: draw it again for the second
                    payload = await self.payload(
                        state, shown, outcome.rating_changes, asked_at=asked, headline=headline, pings=pings
                    )
                    message = await fallback.send(payload)
                    sent_by = fallback
                if message is None:
                    deliveries.release(outcome.owed)
                else:
                    if asked is not None and (metrics := getattr(self.client, "metrics", None)) is not None:
                        metrics.board_posted(asked)
                    self._remember(state.id, sent_by, message)
                    await self.shown(state, message, old, owed=outcome.owed, skip=skip)
            except BaseException:
                deliveries.release(outcome.owed, maybe_posted=True)
                raise
        let_go(payload["view"])
        sent(payload["file"])
        for listener in self.listeners if listeners is None else listeners:
            listener(outcome, message, payload["embeds"])
        return message

    async def shown(
        self,
        state: GameState,
        message: discord.Message,
        old: tuple[int, int] | None,
        *,
        owed: Sequence[int] = (),
        skip: int | None = None,
    ) -> None:
        """``message`` shows ``state``: settle ``owed`` and make it the game's
        board, then take the controls off the previous board. (In this order: a
        command reading the game meanwhile already sees the new board. A crash
        in between leaves the old board's buttons, which carry the old version:
        a click on them says the game moved on and links to the new board.)"""
        board = (message.channel.id, message.id)
        before = {
            b
            for b in (old, self.service.cache.known_board(state.id))
            if b is not None and b[1] not in (message.id, skip)
        }
        if owed or state.board_message != board or state.board_version != state.version:
            await self.service.deliveries.delivered(owed, state=state, board=board)
        for channel_id, message_id in before:
            await self.strip(channel_id, message_id)

    def _remember(self, game_id: int, target: Target, message: discord.Message) -> None:
        """Keep how ``message`` can be edited through its interaction, and the game's
        interaction to post through, if it went out through one."""
        editor_of, voice_of = getattr(target, "editor", None), getattr(target, "voice", None)
        editor = editor_of(message) if editor_of is not None else None
        if editor is not None:
            self._editors[message.id] = editor
        if voice_of is not None:
            self._voices[game_id] = voice_of()

    def new_board(self, game_id: int, channel: InChannel) -> Target:
        """Where a new board of the game goes without an interaction of its own (the
        computer's move): through the interaction its board last went out through,
        while that lasts, else ``channel`` (also the fallback to give :meth:`publish`)."""
        voice = self._voices.get(game_id)
        if voice is None or _spent(voice):
            return channel
        return ThroughVoice(self.client, voice)

    def same_board(self, board: tuple[int, int]) -> Target:
        """The board message ``board`` edited in place: through the interaction that
        posted it, while that lasts, else on the channel's route."""
        editor = self._editors.get(board[1])
        if editor is None or _spent(editor):
            return EditBoard(self.client, board)
        return _EditThrough(self.client, editor)

    async def strip(self, channel_id: int, message_id: int) -> None:
        """Remove the controls of an older board (best effort): through the
        interaction that posted it while its token lasts, else in the channel.
        At 200 saturating games the players' ``/bg move`` alone took the controls
        off some 1,700 boards a run, 40 a second on the channel's routes, which
        Discord's global limit of 50 a second counts (interactions' are not)."""
        editor = self._editors.pop(message_id, None)
        if editor is not None and not _spent(editor):
            try:
                await _webhook(self.client, editor).edit_message(message_id, **fit(view=None))
                return
            except discord.HTTPException as error:
                log.debug("could not strip buttons of %s/%s through its interaction: %s", channel_id, message_id, error)
        try:
            channel = self.client.get_partial_messageable(channel_id)
            await channel.get_partial_message(message_id).edit(**fit(view=None))
        except discord.HTTPException as error:
            log.debug("could not strip buttons of %s/%s: %s", channel_id, message_id, error)


__all__ = [
    "AlreadyShown",
    "BoardPoster",
    "EditBoard",
    "EditClicked",
    "Editor",
    "Followup",
    "InChannel",
    "Payload",
    "Reply",
    "Target",
    "ThroughVoice",
    "Voice",
    "asked_at",
    "picture_name",
    "scene_for",
    "scene_for_id",
    "open_drawing",
    "warm_up",
]
