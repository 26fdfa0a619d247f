"""Where actions meet the channel: call the service, then show the board.

The rule for messages: the *board message* of a game is the one message with
the current controls. When the same player acts again (Roll, then choose a
play), that message is edited in place. When the turn passes to the other
player, a new board message is posted with a mention of them (so they get a
notification) and the old one keeps its picture but loses its buttons.

Every answer is given within Discord's 3 seconds: commands and clicks defer
before rendering, and also before the service call if that call is slow
(:data:`SLOW_CALL_SECONDS`). A click whose action passes the turn is answered
by taking the buttons off the clicked board, which acknowledges it in the same
request.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from bot import presenter
from renderer.pool import RenderWorkers
from bot.service import (
    ChallengeError,
    Event,
    GameView,
    NotInGameError,
    NotYourTurnError,
    Outcome,
    PlayerRef,
    StaleGameError,
)
from bot.ui import builder
from bot.ui.analysis import Analyses
from bot.ui.components import (
    challenge_controls,
    disabled_copy,
    game_controls,
    leaderboard_controls,
)
from bot.ui.computer import ComputerSeat
from bot.ui.errors import UserError, answer_privately, player_message, report
from engine import Phase, format_play
from renderer import BoardScene

if TYPE_CHECKING:
    from bot.app import BackgammonBot
    from bot.service import GameService

log = logging.getLogger(__name__)

T = TypeVar("T")

RENDER_WORKERS = 2
_render_workers = RenderWorkers(RENDER_WORKERS)
"""Shared by every bot in this process (tests make many); started on first use."""


async def render_in_worker(scene: BoardScene, *, asked_at: float | None = None) -> bytes:
    """A board's PNG from a worker process: drawing holds the GIL, which the
    event loop needs for everyone else's clicks. Under load, boards asked for
    earlier (``asked_at``, epoch seconds; default now) are drawn first."""
    return await _render_workers.render(scene, asked_at=asked_at)


def asked_at(interaction: discord.Interaction) -> float:
    """When the player clicked or typed: Discord's timestamp in the interaction's id."""
    return interaction.created_at.timestamp()


async def warm_up_renderer() -> None:
    """Start the drawing workers (and their board caches) before the first click needs them."""
    await _render_workers.start()


SLOW_CALL_SECONDS = 0.1
"""A service call still running after this long gets the interaction deferred
first, so the first answer stays well inside Discord's 3 seconds even when busy.
A call that finishes sooner is answered directly, saving Discord requests."""
BUSY_CALLS = 8
"""With this many service calls already waiting, a new interaction is deferred
at once: a crowd of calls finishes no faster than it queues."""
LEADERBOARD_PAGE = 10

BOARD_PERMISSIONS = ("send_messages", "attach_files", "embed_links")
CHANNEL_PERMISSIONS = ("send_messages", "attach_files", "embed_links")
THREAD_PERMISSIONS = ("create_public_threads", "send_messages_in_threads")


def permission_name(flag: str) -> str:
    return flag.replace("_", " ").title()


def require_permissions(interaction: discord.Interaction, flags: Sequence[str]) -> None:
    """:raises UserError: naming the permissions the bot lacks in this channel."""
    have = interaction.app_permissions
    if isinstance(interaction.channel, discord.Thread):
        flags = ["send_messages_in_threads" if f == "send_messages" else f for f in flags]
    missing = [f for f in dict.fromkeys(flags) if not getattr(have, f, False)]
    if missing:
        names = ", ".join(permission_name(f) for f in missing)
        raise UserError(
            f"I'm missing the {names} permission{'s' if len(missing) > 1 else ''} in this channel. "
            "Ask a moderator to grant it (I need Send Messages, Attach Files, Embed Links and "
            "Use Application Commands; Create Public Threads for thread games)."
        )


def player_ref(user: discord.abc.User) -> PlayerRef:
    return PlayerRef(user.id, getattr(user, "display_name", None) or user.name, bool(user.bot))


class Table:
    """The game's presence in Discord; one per bot."""

    def __init__(self, bot: BackgammonBot) -> None:
        self.bot = bot
        self.waiting_calls = 0
        """Service calls of interactions not yet acknowledged (see :meth:`_first`)."""
        self.computer = ComputerSeat(self)
        self.analyses = Analyses(self)

    async def close(self) -> None:
        """Stop the computer's turns and the analyses in progress; shut the analyst's workers down."""
        await self.computer.close()
        await self.analyses.close()
        from bot import ai

        if ai._default is not None:  # only if it was ever used
            await ai._default.aclose()

    async def idle(self) -> None:
        """Until the computer's turns and the analyses in progress are posted."""
        while self.computer.busy or self.analyses._tasks:
            await self.computer.wait()
            await self.analyses.wait()

    def after_post(
        self, outcome: Outcome, message: discord.Message | None, embeds: Sequence[discord.Embed] = ()
    ) -> None:
        """After an outcome is on the board: the computer's turn, the analysis of an ended game."""
        self.computer.kick(outcome.view, outcome.events)
        self.analyses.after_game(outcome, message, embeds)

    @property
    def service(self) -> GameService:
        return self.bot.service

    # -- pictures and payloads --------------------------------------------------------

    async def render_file(self, view: GameView, *, asked_at: float | None = None) -> discord.File:
        scene = self.service.scene(view)
        png = await render_in_worker(scene, asked_at=asked_at)
        return discord.File(io.BytesIO(png), filename="board.png")

    async def board_payload(
        self,
        view: GameView,
        events: Sequence[Event] = (),
        rating_changes: Sequence[Any] = (),
        *,
        asked_at: float | None = None,
    ) -> dict[str, Any]:
        """content / file / embeds / view for a board message; ``asked_at``: see :func:`render_in_worker`."""
        file = await self.render_file(view, asked_at=asked_at)
        embed = presenter.result_embed(view, events, rating_changes)
        payload: dict[str, Any] = {
            "content": presenter.board_content(view, events),
            "file": file,
            "embeds": [],
            "view": game_controls(view),
        }
        if embed is not None:
            embed.set_image(url="attachment://board.png")
            payload["embeds"] = [embed]
        return payload

    # -- helpers -------------------------------------------------------------------------

    async def quick(self, interaction: discord.Interaction, call: Awaitable[T]) -> T:
        """Await a service call; if it is slow, acknowledge first (3-second rule).

        A command's acknowledgement is a *private* "thinking...": a refusal then
        stays private, and a public result is posted with :meth:`send_public`.
        A click's is a silent deferral of the clicked message's update.
        """
        task = asyncio.ensure_future(call)
        if not interaction.response.is_done() and not await self._first(task):
            if interaction.type is discord.InteractionType.component:
                await interaction.response.defer()
            else:
                await self.defer(interaction, ephemeral=True)
        return await task

    async def _first(self, task: asyncio.Future[Any]) -> bool:
        """Whether ``task`` finished within the grace time (no grace when busy)."""
        if self.waiting_calls >= BUSY_CALLS or SLOW_CALL_SECONDS <= 0:
            return task.done()
        self.waiting_calls += 1
        try:
            await asyncio.wait((task,), timeout=SLOW_CALL_SECONDS)
        finally:
            self.waiting_calls -= 1
        return task.done()

    async def defer(self, interaction: discord.Interaction, *, ephemeral: bool = False) -> None:
        if not interaction.response.is_done():
            interaction.extras["ephemeral_defer"] = ephemeral
            await interaction.response.defer(thinking=True, ephemeral=ephemeral)

    @staticmethod
    async def send_public(interaction: discord.Interaction, **payload: Any) -> discord.Message:
        """Post a message everyone sees, however the interaction was acknowledged so far."""
        kwargs = {k: v for k, v in payload.items() if v is not None}
        if not interaction.response.is_done():
            callback = await interaction.response.send_message(**kwargs)
            resource = callback.resource
            message = resource if isinstance(resource, discord.Message) else await interaction.original_response()
        elif interaction.extras.get("ephemeral_defer"):
            # the private "thinking..." can't become public: post in the channel, drop the placeholder
            channel = interaction.channel
            assert isinstance(channel, discord.abc.Messageable)
            message = await channel.send(**kwargs)
            try:
                await interaction.delete_original_response()
            except discord.HTTPException:
                log.debug("could not remove the thinking placeholder", exc_info=True)
        else:
            message = await interaction.followup.send(wait=True, **kwargs)
        interaction.extras["answered"] = True
        return message

    @staticmethod
    async def send_private(interaction: discord.Interaction, **payload: Any) -> None:
        kwargs = {k: v for k, v in payload.items() if v is not None}
        if interaction.response.is_done():
            await interaction.followup.send(ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(ephemeral=True, **kwargs)
        interaction.extras["answered"] = True

    async def game_here(self, interaction: discord.Interaction) -> GameView:
        """The active game of this channel, or a private answer saying where the user's games are."""
        view = await self.service.game_in_channel(interaction.channel_id or 0)
        if view is not None:
            return view
        hint = ""
        if interaction.guild_id is not None:
            mine = await self.service.active_games(interaction.guild_id, interaction.user.id)
            if mine:
                hint = " Your games: " + ", ".join(f"<#{v.channel_id}>" for v in mine[:5]) + "."
        raise UserError(f"There's no game in this channel. Start one with `/bg challenge`.{hint}")

    async def strip_buttons(self, channel_id: int, message_id: int) -> None:
        """Remove the controls of an older board (best effort)."""
        try:
            channel = self.bot.get_partial_messageable(channel_id)
            await channel.get_partial_message(message_id).edit(view=None)
        except discord.HTTPException as error:
            log.debug("could not strip buttons of %s/%s: %s", channel_id, message_id, error)

    async def remember_board(
        self, view: GameView, message: discord.Message, old: tuple[int, int] | None, *, skip: int | None = None
    ) -> None:
        """Make ``message`` the game's board; take the controls off the previous one."""
        try:
            await self.service.set_board_message(view.id, message.channel.id, message.id)
        except Exception:  # a finished game may refuse; the board is only a convenience
            log.debug("could not store board message of game %s", view.id, exc_info=True)
        if old is not None and old[1] not in (message.id, skip):
            await self.strip_buttons(*old)

    # -- slash-command actions -------------------------------------------------------------

    async def slash_action(
        self, interaction: discord.Interaction, call: Callable[[GameView], Awaitable[Outcome]]
    ) -> Outcome:
        """Run an action on this channel's game and post the new board."""
        require_permissions(interaction, BOARD_PERMISSIONS)
        view = await self.quick(interaction, self.game_here(interaction))
        outcome = await self.quick(interaction, call(view))
        await self.post_outcome(interaction, outcome, old=view.board_message)
        return outcome

    async def post_outcome(
        self, interaction: discord.Interaction, outcome: Outcome, *, old: tuple[int, int] | None
    ) -> discord.Message:
        await self.defer(interaction)  # rendering takes a moment
        payload = await self.board_payload(
            outcome.view, outcome.events, outcome.rating_changes, asked_at=asked_at(interaction)
        )
        message = await self.send_public(interaction, **payload)
        await self.remember_board(outcome.view, message, old)
        self.after_post(outcome, message, payload["embeds"])
        return message

    async def post_board(self, interaction: discord.Interaction, view: GameView) -> discord.Message:
        """``/bg board``: the current board again, at the bottom of the channel."""
        await self.defer(interaction)
        payload = await self.board_payload(view, asked_at=asked_at(interaction))
        message = await self.send_public(interaction, **payload)
        await self.remember_board(view, message, view.board_message)
        self.computer.kick(view)  # a stuck computer's turn gets another try
        return message

    async def edit_board(self, board: tuple[int, int], payload: dict[str, Any]) -> discord.Message | None:
        """Edit a board message in place (None if it is gone)."""
        try:
            channel = self.bot.get_partial_messageable(board[0])
            return await channel.get_partial_message(board[1]).edit(
                content=payload.get("content"),
                attachments=[payload["file"]] if payload.get("file") else [],
                embeds=payload.get("embeds") or [],
                view=payload.get("view"),
            )
        except discord.HTTPException as error:
            log.debug("could not edit board %s/%s: %s", board[0], board[1], error)
            return None

    async def send_board(self, channel_id: int, guild_id: int | None, payload: dict[str, Any]) -> discord.Message | None:
        """Post in a channel outside any interaction (the computer's moves)."""
        kwargs = {k: v for k, v in payload.items() if v is not None}
        try:
            channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
            return await channel.send(**kwargs)
        except discord.HTTPException:
            log.warning("could not post in channel %s", channel_id, exc_info=True)
            return None

    async def post_new_game(self, interaction: discord.Interaction, outcome: Outcome) -> discord.Message:
        """The first board of a game started by a command (against the computer, a practice game)."""
        await self.defer(interaction)
        payload = await self.board_payload(
            outcome.view, outcome.events, outcome.rating_changes, asked_at=asked_at(interaction)
        )
        message = await self.send_public(interaction, **payload)
        await self.remember_board(outcome.view, message, None)
        self.after_post(outcome, message, payload["embeds"])
        return message

    @staticmethod
    async def send_followup(interaction: discord.Interaction, payload: dict[str, Any]) -> discord.Message:
        kwargs = {k: v for k, v in payload.items() if v is not None}
        message = await interaction.followup.send(wait=True, **kwargs)
        interaction.extras["answered"] = True
        return message

    # -- clicks ------------------------------------------------------------------------------

    async def click_game_button(self, interaction: discord.Interaction, action: str, game_id: int, version: int) -> None:
        service = self.service
        user = interaction.user.id
        calls: dict[str, Callable[[], Awaitable[Outcome]]] = {
            "roll": lambda: service.roll(game_id, user, version=version),
            "double": lambda: service.double(game_id, user, version=version),
            "take": lambda: service.take(game_id, user, version=version),
            "pass": lambda: service.pass_double(game_id, user, version=version),
            "beaver": lambda: service.beaver(game_id, user, version=version),
            "raccept": lambda: service.accept_resignation(game_id, user, version=version),
            "rreject": lambda: service.reject_resignation(game_id, user, version=version),
        }
        await self.run_click(interaction, calls[action])

    async def click_play(self, interaction: discord.Interaction, game_id: int, version: int, play: str) -> None:
        await self.run_click(
            interaction, lambda: self.service.play(game_id, interaction.user.id, play, version=version)
        )

    @staticmethod
    async def edit_clicked(interaction: discord.Interaction, **fields: Any) -> None:
        """Edit the clicked message; this is the first answer to the click if there was none yet."""
        if interaction.response.is_done():
            await interaction.edit_original_response(**fields)
        else:
            await interaction.response.edit_message(**fields)

    async def take_buttons_off(self, interaction: discord.Interaction) -> None:
        """Remove the clicked message's controls (best effort)."""
        try:
            await self.edit_clicked(interaction, view=None)
        except discord.HTTPException as error:
            log.debug("could not take the buttons off %s: %s", interaction.message, error)

    async def run_click(self, interaction: discord.Interaction, call: Callable[[], Awaitable[Outcome]]) -> None:
        try:
            try:
                outcome = await self.quick(interaction, call())
            except StaleGameError as error:
                await self.answer_stale(interaction, error)
                return
            await self.show_after_click(interaction, outcome)
        except Exception as error:  # buttons have no tree.on_error: same single error path
            await report(interaction, error)

    async def show_after_click(self, interaction: discord.Interaction, outcome: Outcome) -> None:
        view = outcome.view
        asked = asked_at(interaction)
        actor = view.to_act()
        clicked = interaction.message
        same_player = actor is not None and actor.user_id == interaction.user.id
        on_board = clicked is not None and (view.board_message is None or view.board_message[1] == clicked.id)
        if same_player and on_board and clicked is not None:
            if not interaction.response.is_done():
                await interaction.response.defer()  # drawing takes a moment
            payload = await self.board_payload(view, outcome.events, outcome.rating_changes, asked_at=asked)
            await interaction.edit_original_response(
                content=payload["content"],
                attachments=[payload["file"]],
                embeds=payload["embeds"],
                view=payload["view"],
            )
            if view.board_message is None:
                await self.remember_board(view, clicked, None)
            self.after_post(outcome, clicked, payload["embeds"])
            return
        # the turn passes: a new board below, drawn while the old one loses its buttons
        if clicked is not None:
            payload, _ = await asyncio.gather(
                self.board_payload(view, outcome.events, outcome.rating_changes, asked_at=asked),
                self.take_buttons_off(interaction),
            )
        else:
            if not interaction.response.is_done():
                await interaction.response.defer()
            payload = await self.board_payload(view, outcome.events, outcome.rating_changes, asked_at=asked)
        message = await self.send_followup(interaction, payload)
        await self.remember_board(view, message, view.board_message, skip=clicked.id if clicked else None)
        self.after_post(outcome, message, payload["embeds"])

    async def answer_stale(self, interaction: discord.Interaction, error: StaleGameError) -> None:
        """"The game has moved on": disable the old message's controls, say where things stand."""
        clicked = interaction.message
        current = error.view.board_message if error.view is not None else None
        if clicked is not None and (current is None or current[1] != clicked.id):
            try:
                await self.edit_clicked(interaction, view=disabled_copy(clicked))
            except discord.HTTPException:
                log.debug("could not disable a stale board", exc_info=True)
        await answer_privately(interaction, player_message(error) or "The game has moved on.")

    # -- the checker-by-checker builder -------------------------------------------------------

    async def show_builder(
        self, interaction: discord.Interaction, game_id: int, version: int, steps: list[builder.Step], *, opened: bool
    ) -> None:
        """Open (from the board) or update (from the private panel) the builder."""
        try:
            view = await self.service.get_game(game_id)
            seat = view.seat(interaction.user.id)
            if seat is None:
                raise NotInGameError("you're not in this game")
            if view.version != version or not view.is_active or view.game.phase is not Phase.PLAY:
                await self._builder_stale(interaction, view, opened)
                return
            actor = view.to_act()
            if actor is None or actor.user_id != interaction.user.id:
                raise NotYourTurnError(f"it's not your turn: {actor.name if actor else 'nobody'} is to act")
            dice = view.game.dice
            dice_text = f"{dice.high}-{dice.low}" if dice else "your roll"
            content, panel = builder.panel(game_id, version, view.game.legal_plays(), steps, dice_text)
            if opened:
                await interaction.response.send_message(content, view=panel, ephemeral=True)
            else:
                await interaction.response.edit_message(content=content, view=panel)
        except Exception as error:
            await report(interaction, error)

    async def _builder_stale(self, interaction: discord.Interaction, view: GameView, opened: bool) -> None:
        error = StaleGameError(view=view)
        if opened:
            await interaction.response.defer()
            await self.answer_stale(interaction, error)
        else:
            await interaction.response.edit_message(content=player_message(error), view=None)

    async def confirm_built_play(
        self, interaction: discord.Interaction, game_id: int, version: int, steps: list[builder.Step]
    ) -> None:
        try:
            view = await self.service.get_game(game_id)
            if view.version != version or not view.is_active or view.game.phase is not Phase.PLAY:
                await self._builder_stale(interaction, view, False)
                return
            play = builder.complete_play(view.game.legal_plays(), steps)
            if play is None:
                raise StaleGameError("those steps are not a whole legal play: start over", view=view)
            text = format_play(play)
            await interaction.response.edit_message(content=f"You play **{text}**.", view=None)
            outcome = await self.service.play(game_id, interaction.user.id, text, version=version)
            payload = await self.board_payload(
                outcome.view, outcome.events, outcome.rating_changes, asked_at=asked_at(interaction)
            )
            message = await self.send_followup(interaction, payload)
            await self.remember_board(outcome.view, message, outcome.view.board_message)
            self.after_post(outcome, message, payload["embeds"])
        except Exception as error:
            await report(interaction, error)

    # -- challenges -----------------------------------------------------------------------------

    async def post_challenge(self, interaction: discord.Interaction, challenge: Any, thread: bool) -> None:
        message = await self.send_public(
            interaction,
            content=presenter.challenge_content(challenge, thread=thread),
            view=challenge_controls(challenge.id, thread),
        )
        try:
            await self.service.set_challenge_message(challenge.id, message.id)
        except Exception:
            log.debug("could not remember challenge message", exc_info=True)

    async def click_challenge(self, interaction: discord.Interaction, action: str, challenge_id: int, thread: bool) -> None:
        try:
            if action == "accept":
                await self.accept_challenge(interaction, challenge_id, thread)
                return
            await interaction.response.defer()
            if action == "decline":
                challenge = await self.service.decline(challenge_id, interaction.user.id)
            else:
                challenge = await self.service.cancel(challenge_id, interaction.user.id)
            await interaction.edit_original_response(
                content=presenter.challenge_closed_content(challenge, challenge.status), view=None
            )
        except ChallengeError as error:
            await self.close_dead_challenge(interaction, challenge_id)
            await report(interaction, error)
        except Exception as error:
            await report(interaction, error)

    async def close_dead_challenge(self, interaction: discord.Interaction, challenge_id: int) -> None:
        """A click on an answered or expired challenge: take its buttons away."""
        try:
            challenge = await self.service.get_challenge(challenge_id)
        except Exception:
            return
        expired = challenge.status == "pending" and challenge.expires_at is not None and challenge.expires_at <= self.service.clock()
        if challenge.status == "pending" and not expired:
            return
        status = "expired" if expired else challenge.status
        try:
            await self.edit_clicked(interaction, content=presenter.challenge_closed_content(challenge, status), view=None)
        except discord.HTTPException:
            log.debug("could not close challenge message", exc_info=True)

    async def accept_challenge(self, interaction: discord.Interaction, challenge_id: int, thread: bool) -> None:
        into_thread = thread and interaction.message is not None

        async def accept() -> tuple[Any, Outcome | None]:
            challenge = await self.service.pending_challenge(challenge_id)
            if interaction.user.id != challenge.challenged.user_id:
                raise ChallengeError(f"only {challenge.challenged.name} can accept this challenge")
            require_permissions(interaction, BOARD_PERMISSIONS + (THREAD_PERMISSIONS if thread else ()))
            if into_thread:
                return challenge, None  # the thread comes first, then the game
            await self.service.remember_player(player_ref(interaction.user))
            return challenge, await self.service.accept(challenge_id, interaction.user.id)

        # the checks may read the database (a challenge made before a restart): a busy bot acknowledges first
        challenge, outcome = await self.quick(interaction, accept())
        if outcome is None:
            assert interaction.message is not None
            await self._accept_into_thread(interaction, challenge, interaction.message)
            return
        closed = presenter.challenge_closed_content(challenge, "accepted", f"Game #{outcome.view.id} starts below.")
        # the first board is drawn while the challenge loses its buttons (which answers the click)
        payload, _ = await asyncio.gather(
            self.board_payload(outcome.view, outcome.events, outcome.rating_changes, asked_at=asked_at(interaction)),
            self.edit_clicked(interaction, content=closed, view=None),
        )
        message = await self.send_followup(interaction, payload)
        await self.remember_board(outcome.view, message, None)
        self.after_post(outcome, message, payload["embeds"])

    async def _accept_into_thread(
        self, interaction: discord.Interaction, challenge: Any, challenge_message: discord.Message
    ) -> None:
        """Accept a thread challenge: the game and its boards go into a new thread under the challenge."""
        if not interaction.response.is_done():
            await interaction.response.defer()
        await self.service.remember_player(player_ref(interaction.user))
        name = f"{challenge.challenger.name} vs {challenge.challenged.name}"[:100]
        game_thread = await challenge_message.create_thread(name=name, auto_archive_duration=10080)
        try:
            outcome = await self.service.accept(challenge.id, interaction.user.id, channel_id=game_thread.id)
        except BaseException:
            try:
                await game_thread.delete()
            except discord.HTTPException:
                log.debug("could not delete an unused game thread", exc_info=True)
            raise
        await interaction.edit_original_response(
            content=presenter.challenge_closed_content(challenge, "accepted", f"Game #{outcome.view.id} is in {game_thread.mention}."),
            view=None,
        )
        payload = await self.board_payload(
            outcome.view, outcome.events, outcome.rating_changes, asked_at=asked_at(interaction)
        )
        message = await game_thread.send(**{k: v for k, v in payload.items() if v is not None})
        await self.remember_board(outcome.view, message, None)
        self.after_post(outcome, message, payload["embeds"])

    # -- leaderboard ----------------------------------------------------------------------------

    async def leaderboard_message(self, guild: discord.Guild | None, kind: str, offset: int) -> dict[str, Any]:
        page = await self.service.leaderboard(guild.id if guild else None, kind, offset=offset, limit=LEADERBOARD_PAGE)
        record = await self.computer_record(guild.id if guild else None)
        return {
            "embed": presenter.leaderboard_embed(page, kind, guild.name if guild else None, record),
            "view": leaderboard_controls(kind, page.offset, page.limit, page.total),
        }

    async def computer_record(self, guild_id: int | None) -> tuple[int, int] | None:
        """The computer's wins and losses against this server's members (its games are unrated)."""
        user_id = self.computer.user_id
        if user_id is None or guild_id is None:
            return None
        wins, losses = await self.service.computer_record(guild_id, user_id)
        return (wins, losses) if wins or losses else None

    async def click_leaderboard(self, interaction: discord.Interaction, kind: str, offset: int) -> None:
        try:
            message = await self.leaderboard_message(interaction.guild, kind, offset)
            await interaction.response.edit_message(**message)
        except Exception as error:
            await report(interaction, error)
