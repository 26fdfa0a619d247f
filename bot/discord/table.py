"""Where actions meet the channel: call the core, then show the board.

Commands and clicks come here from the cogs and the persistent components;
each flow calls the game service and hands the outcome to the
:class:`~bot.discord.boards.BoardPoster`, which keeps one live board per game
(see :mod:`bot.discord.boards` for the rule).

Every answer is given within Discord's 3 seconds: commands and clicks defer
before rendering, and also before the service call if that call is slow
(:data:`SLOW_CALL_SECONDS`). A click whose action passes the turn is answered
by taking the buttons off the clicked board, which acknowledges it in the same
request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord

from bot.core.games import GameService
from bot.core.model import (
    ChallengeError,
    GameState,
    GameSummary,
    NoGameError,
    NotInGameError,
    NotYourTurnError,
    Outcome,
    StaleGameError,
    variant_name,
)
from bot.core.tutor import Tutor
from bot.discord import builder, presenter, privacy
from bot.discord.analysis_notes import AnalysisNotes
from bot.discord.boards import BoardPoster, EditClicked, Followup, InChannel, Reply
from bot.discord.components import SeedModal, challenge_controls, disabled_copy, leaderboard_controls
from bot.discord.computer_seat import ComputerSeat
from bot.discord.cooldowns import Cooldowns, hold
from bot.discord.errors import answer_privately, player_message, report
from bot.discord.limits import fit, pinging, shown
from bot.discord.refusals import UserError
from bot.discord.replies import (
    BOARD_PERMISSIONS,
    THREAD_PERMISSIONS,
    asked_at,
    defer,
    edit_clicked,
    player_ref,
    require_permissions,
    send_public,
    take_buttons_off,
)
from bot.discord.tutor_panel import thinking_again_text, tutor_controls, warning_text
from engine import Phase, format_play
from i18n import _

log = logging.getLogger(__name__)

T = TypeVar("T")

SLOW_CALL_SECONDS = 0.05
"""A service call still running after this long gets the interaction deferred
first, so the first answer stays well inside Discord's 3 seconds even when busy.
A call that finishes sooner is answered directly, saving Discord requests. (At
0.1 s, the clicks whose call ran the whole grace set the first answer's p99 at
200 saturating games: 85-102 ms; at 0.05 s, 78-83 ms, the calls' p50 being 5-9 ms.)"""
BUSY_CALLS = 8
"""With this many service calls already waiting, a new interaction is deferred
at once: a crowd of calls finishes no faster than it queues."""
LEADERBOARD_PAGE = 10


class Table:
    """The game's presence in Discord; one per bot.

    :param client: the Discord client (its user is the computer's seat).
    :param service: the game service.
    :param poster: posts every board.
    :param computer: the computer's seat.
    :param notes: the analyses added to game-over messages.
    :param cooldowns: the members' buckets, also taken by button clicks.
    """

    def __init__(
        self,
        client: discord.Client,
        service: GameService,
        poster: BoardPoster,
        computer: ComputerSeat,
        notes: AnalysisNotes,
        cooldowns: Cooldowns,
    ) -> None:
        self.client = client
        self.service = service
        self.poster = poster
        self.computer = computer
        self.notes = notes
        self.cooldowns = cooldowns
        self.waiting_calls = 0
        """Service calls of interactions not yet acknowledged (see :meth:`_first`)."""
        self.tutor: Tutor | None = None
        """The warning before a blunder (:mod:`bot.core.tutor`); None: no tutor on this bot."""

    async def close(self) -> None:
        """Stop the computer's turns and the analyses in progress."""
        await self.computer.close()
        await self.notes.close()

    async def idle(self) -> None:
        """Until the computer's turns and the analyses in progress are posted."""
        while self.computer.busy or self.notes.busy:
            await self.computer.wait()
            await self.notes.wait()

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
                await defer(interaction, ephemeral=True)
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

    async def game_here(self, interaction: discord.Interaction) -> GameState:
        """The active game of this channel, or a private answer saying where the user's games are."""
        state = await self.service.lookups.game_in_channel(interaction.channel_id or 0)
        if state is not None:
            self.computer.kick(state)  # a computer's turn a restart left waiting: now, not in its turn
            return state
        hint = ""
        if interaction.guild_id is not None:
            mine = await self.service.lookups.game_list(interaction.guild_id, interaction.user.id)
            if mine:
                hint = " " + _("Your games: {channels}.").format(
                    channels=", ".join(f"<#{v.channel_id}>" for v in mine[:5])
                )
        raise UserError(_("There's no game in this channel. Start one with `/bg challenge`.{hint}").format(hint=hint))

    async def readable_game(self, interaction: discord.Interaction, game_id: int) -> GameState | GameSummary:
        """A game read by its number: played in this server, and readable by whoever asks
        (:mod:`bot.discord.privacy`): one still played as it stands, a finished one as
        summarised when it ended. To anyone else it does not exist: one answer for all three."""
        try:
            state: GameState | GameSummary | None = await self.quick(interaction, self.service.archive.look_up(game_id))
        except NoGameError:
            state = None
        if state is None or state.guild_id != interaction.guild_id or not self.may_read(interaction, state):
            raise UserError(_("There is no game #{game_id} in this server.").format(game_id=game_id))
        return state

    def shown_here(self, interaction: discord.Interaction, state: GameState | GameSummary) -> bool:
        """Whether ``state`` may be answered in public where asked: everyone who reads that
        channel could see the game's (else the answer is private, to the member who may read it)."""
        return privacy.as_visible(interaction.guild, state.channel_id, interaction.channel_id)

    def may_read(self, interaction: discord.Interaction, state: GameState | GameSummary) -> bool:
        """Whether the member who asks may read ``state`` (a player, or one who can see its channel)."""
        where = privacy.sight(interaction.guild, state.channel_id, interaction.user, asked_in=interaction.channel_id)
        return privacy.may_read([p.user_id for p in state.players], interaction.user.id, where)

    # -- slash-command actions -------------------------------------------------------------

    async def slash_action(
        self,
        interaction: discord.Interaction,
        call: Callable[[GameState], Awaitable[Outcome]],
        *,
        tutor: tuple[str, str | None] | None = None,
    ) -> Outcome | None:
        """Run an action on this channel's game and post the new board; ``tutor``: the
        decision (and play) the tutor may warn about first, in which case nothing is done."""
        require_permissions(interaction, BOARD_PERMISSIONS)
        state = await self.quick(interaction, self.game_here(interaction))
        if tutor is not None and await self.tutor_stops(interaction, state, *tutor):
            return None
        outcome = await self.quick(interaction, call(state))
        await self.post_outcome(interaction, outcome, old=state.board_message)
        return outcome

    async def post_outcome(
        self, interaction: discord.Interaction, outcome: Outcome, *, old: tuple[int, int] | None
    ) -> discord.Message | None:
        """A command's result: the new board as the answer, the old one without buttons."""
        await defer(interaction)  # rendering takes a moment
        return await self.poster.publish(outcome, Reply(interaction), old=old, asked=asked_at(interaction))

    async def post_board(self, interaction: discord.Interaction, state: GameState) -> discord.Message | None:
        """``/bg board``: the current board again, at the bottom of the channel."""
        await defer(interaction)
        message = await self.poster.publish(
            Outcome(state, []), Reply(interaction), old=state.board_message, asked=asked_at(interaction), listeners=[]
        )
        self.computer.kick(state)  # a stuck computer's turn gets another try
        return message

    async def post_new_game(self, interaction: discord.Interaction, outcome: Outcome) -> discord.Message | None:
        """The first board of a game started by a command (against the computer, a practice game)."""
        await defer(interaction)
        return await self.poster.publish(outcome, Reply(interaction), old=None, asked=asked_at(interaction))

    # -- clicks ------------------------------------------------------------------------------

    async def click_game_button(
        self, interaction: discord.Interaction, action: str, game_id: int, version: int
    ) -> None:
        service = self.service
        user = interaction.user.id
        calls: dict[str, Callable[[], Awaitable[Outcome]]] = {
            "roll": lambda: service.roll(game_id, user, version=version),
            "opening": lambda: service.use_opening(game_id, user, version=version),
            "double": lambda: service.double(game_id, user, version=version),
            "take": lambda: service.take(game_id, user, version=version),
            "pass": lambda: service.pass_double(game_id, user, version=version),
            "beaver": lambda: service.beaver(game_id, user, version=version),
            "raccept": lambda: service.accept_resignation(game_id, user, version=version),
            "rreject": lambda: service.reject_resignation(game_id, user, version=version),
        }
        if await self.tutor_stops_click(interaction, game_id, version, action):
            return
        await self.run_click(interaction, calls[action], game_id, held=self.tutor_held(interaction))

    async def click_play(self, interaction: discord.Interaction, game_id: int, version: int, play: str) -> None:
        if await self.tutor_stops_click(interaction, game_id, version, "play", play):
            return
        await self.run_click(
            interaction,
            lambda: self.service.play(game_id, interaction.user.id, play, version=version),
            game_id,
            held=self.tutor_held(interaction),
        )

    async def run_click(
        self,
        interaction: discord.Interaction,
        call: Callable[[], Awaitable[Outcome]],
        game_id: int | None = None,
        *,
        held: bool = False,
    ) -> None:
        try:
            if not held:  # (the tutor took the click's turn token before asking the net)
                hold(self.cooldowns, "turn", interaction.user)
            try:
                outcome = await self.quick(interaction, call())
            except StaleGameError as error:
                if error.state is not None:
                    self.computer.kick(error.state)  # the computer's turn a restart left waiting: now
                await self.answer_stale(interaction, error)
                return
            except NotYourTurnError:
                if game_id is not None:
                    self.computer.wake(game_id)  # the same, when the computer is the one to act
                raise
            await self.show_after_click(interaction, outcome)
        except Exception as error:  # buttons have no tree.on_error: same single error path
            await report(interaction, error)

    async def show_after_click(self, interaction: discord.Interaction, outcome: Outcome) -> None:
        state = outcome.state
        asked = asked_at(interaction)
        actor = state.to_act()
        clicked = interaction.message
        same_player = actor is not None and actor.user_id == interaction.user.id
        on_board = clicked is not None and (state.board_message is None or state.board_message[1] == clicked.id)
        if same_player and on_board and clicked is not None:
            if not interaction.response.is_done():
                await interaction.response.defer()  # drawing takes a moment
            await self.poster.publish(outcome, EditClicked(interaction), old=None, asked=asked)
            return
        # the turn passes: a new board below, drawn while the old one loses its buttons
        if clicked is None and not interaction.response.is_done():
            await interaction.response.defer()
        await self.poster.publish(
            outcome,
            Followup(interaction),
            old=state.board_message,
            skip=clicked.id if clicked else None,
            asked=asked,
            alongside=take_buttons_off(interaction) if clicked is not None else None,
        )

    async def answer_stale(self, interaction: discord.Interaction, error: StaleGameError) -> None:
        """ "The game has moved on": disable the old message's controls, say where things stand."""
        clicked = interaction.message
        current = error.state.board_message if error.state is not None else None
        if clicked is not None and (current is None or current[1] != clicked.id):
            try:
                await edit_clicked(interaction, view=disabled_copy(clicked))
            except discord.HTTPException:
                log.debug("could not disable a stale board", exc_info=True)
        await answer_privately(interaction, player_message(error) or _("The game has moved on."))

    # -- the checker-by-checker builder -------------------------------------------------------

    async def show_builder(
        self, interaction: discord.Interaction, game_id: int, version: int, steps: list[builder.Step], *, opened: bool
    ) -> None:
        """Open (from the board) or update (from the private panel) the builder."""
        try:
            hold(self.cooldowns, "turn", interaction.user)
            state = await self.service.lookups.get_game(game_id)
            seat = state.seat(interaction.user.id)
            if seat is None:
                raise NotInGameError(_("you're not in this game"))
            if state.version != version or not state.is_active or state.game.phase is not Phase.PLAY:
                await self._builder_stale(interaction, state, opened)
                return
            actor = state.to_act()
            if actor is None or actor.user_id != interaction.user.id:
                raise NotYourTurnError(
                    _("it's not your turn: {value} is to act").format(value=actor.name if actor else _("nobody"))
                )
            dice = state.game.dice
            dice_text = f"{dice.high}-{dice.low}" if dice else _("your roll")
            content, panel = builder.panel(game_id, version, state.legal_plays(), steps, dice_text)
            if opened:
                await interaction.response.send_message(**fit(content=content, view=panel, ephemeral=True))
            else:
                await interaction.response.edit_message(**fit(content=content, view=panel))
        except Exception as error:
            await report(interaction, error)

    async def _builder_stale(self, interaction: discord.Interaction, state: GameState, opened: bool) -> None:
        error = StaleGameError(state=state)
        if opened:
            await interaction.response.defer()
            await self.answer_stale(interaction, error)
        else:
            await interaction.response.edit_message(**fit(content=player_message(error), view=None))

    async def confirm_built_play(
        self, interaction: discord.Interaction, game_id: int, version: int, steps: list[builder.Step]
    ) -> None:
        try:
            hold(self.cooldowns, "turn", interaction.user)
            state = await self.service.lookups.get_game(game_id)
            if state.version != version or not state.is_active or state.game.phase is not Phase.PLAY:
                await self._builder_stale(interaction, state, False)
                return
            play = builder.complete_play(state.legal_plays(), steps)
            if play is None:
                raise StaleGameError(_("those steps are not a whole legal play: start over"), state=state)
            text = format_play(play)
            if await self.tutor_stops(interaction, state, "play", text, in_place=True):
                return
            await edit_clicked(interaction, content=_("You play **{text}**.").format(text=text), view=None)
            outcome = await self.service.play(game_id, interaction.user.id, text, version=version)
            await self.poster.publish(
                outcome, Followup(interaction), old=outcome.state.board_message, asked=asked_at(interaction)
            )
        except Exception as error:
            await report(interaction, error)

    # -- the tutor ------------------------------------------------------------------------------

    async def tutor_stops(
        self,
        interaction: discord.Interaction,
        state: GameState,
        kind: str,
        text: str | None = None,
        *,
        in_place: bool = False,
    ) -> bool:
        """Whether the tutor warned about this decision instead of letting it through: the
        warning goes privately to the mover (``in_place``: over the clicked private panel).
        The interaction is acknowledged before the net is asked (3-second rule)."""
        tutor = self.tutor
        if tutor is None:
            return False
        threshold = await tutor.threshold(state, interaction.user.id, kind)
        if threshold is None:
            return False
        if not interaction.response.is_done():
            if interaction.type is discord.InteractionType.component:
                await interaction.response.defer()
            else:
                await defer(interaction, ephemeral=True)
        warning = await tutor.warning(state, kind, text, threshold)
        if warning is None:
            return False
        index = 0
        if kind == "play":
            plays = state.legal_play_texts()
            if warning.chosen not in plays:
                return False  # not a play the buttons could name: let the service answer it
            index = plays.index(warning.chosen)
        payload = {
            "content": warning_text(warning),
            "view": tutor_controls(state.id, state.version, interaction.user.id, kind, index),
        }
        if in_place:
            await interaction.edit_original_response(**fit(**payload))
        else:
            await interaction.followup.send(ephemeral=True, **fit(**payload))
            interaction.extras["answered"] = True
        return True

    async def tutor_stops_click(
        self, interaction: discord.Interaction, game_id: int, version: int, kind: str, text: str | None = None
    ) -> bool:
        """:meth:`tutor_stops` for a click on the board (a failure is answered, and stops)."""
        if self.tutor is None:
            return False
        try:
            state = await self.quick(interaction, self.service.lookups.get_game(game_id))
            if state.version != version:
                return False  # the service answers that the game moved on
            if await self.tutor.threshold(state, interaction.user.id, kind) is None:
                return False
            hold(self.cooldowns, "turn", interaction.user)  # before the net is asked, once per click
            interaction.extras["tutor_held"] = True
            return await self.tutor_stops(interaction, state, kind, text)
        except Exception as error:
            await report(interaction, error)
            return True

    @staticmethod
    def tutor_held(interaction: discord.Interaction) -> bool:
        """Whether the tutor already took this click's turn token."""
        return bool(interaction.extras.get("tutor_held"))

    async def tutor_choice(
        self,
        interaction: discord.Interaction,
        choice: str,
        game_id: int,
        version: int,
        user_id: int,
        kind: str,
        index: int,
    ) -> None:
        """The mover's answer to the warning: think again (nothing happens to the game), or
        play it anyway (the decision warned about, at the version warned about)."""
        try:
            if interaction.user.id != user_id:
                raise UserError(_("This warning is for another player."))
            if choice != "go":
                await edit_clicked(interaction, content=thinking_again_text(), view=None)
                return
            hold(self.cooldowns, "turn", interaction.user)
            await interaction.response.defer()
            service = self.service
            state = await service.lookups.get_game(game_id)
            text = None
            if state.version == version and kind == "play":
                plays = state.legal_play_texts()
                text = plays[index] if index < len(plays) else None
            if state.version != version or not state.is_active or (kind == "play" and text is None):
                error = StaleGameError(state=state)
                await edit_clicked(interaction, content=player_message(error), view=None)
                return
            calls: dict[str, Callable[[], Awaitable[Outcome]]] = {
                "play": lambda: service.play(game_id, user_id, text or "", version=version),
                "roll": lambda: service.roll(game_id, user_id, version=version),
                "double": lambda: service.double(game_id, user_id, version=version),
                "take": lambda: service.take(game_id, user_id, version=version),
                "pass": lambda: service.pass_double(game_id, user_id, version=version),
                "beaver": lambda: service.beaver(game_id, user_id, version=version),
            }
            try:
                outcome = await calls[kind]()
            except StaleGameError as error:
                await edit_clicked(interaction, content=player_message(error), view=None)
                return
            done = _("You play **{play}**.").format(play=text) if kind == "play" else _("Done: played anyway.")
            await edit_clicked(interaction, content=done, view=None)
            await self.poster.publish(
                outcome, Followup(interaction), old=state.board_message, asked=asked_at(interaction)
            )
        except Exception as error:
            await report(interaction, error)

    # -- challenges -----------------------------------------------------------------------------

    async def post_challenge(self, interaction: discord.Interaction, challenge: Any, thread: bool) -> None:
        members = self.service.members
        challenged = challenge.challenged.user_id
        content = presenter.challenge_content(challenge, thread=thread)
        back = await members.back_at(challenge.guild_id, challenged)
        if back is not None:
            content += "\n" + _("🏖️ {name} is on vacation until {when}: the challenge may wait for them.").format(
                name=shown(challenge.challenged.name), when=presenter.timestamp(back)
            )
        message = await send_public(
            interaction,
            content=content,
            view=challenge_controls(challenge.id, thread),
            allowed_mentions=pinging(*await members.pings([challenged])),  # not in their quiet hours
        )
        try:
            await self.service.challenges.set_message(challenge.id, message.id)
        except Exception:
            log.debug("could not remember challenge message", exc_info=True)

    async def click_rematch(self, interaction: discord.Interaction, game_id: int, *, double: bool) -> None:
        """A player of a finished game asks the other for a rematch: a challenge they accept."""
        try:
            hold(self.cooldowns, "challenge", interaction.user)
            game = await self.quick(interaction, self.service.archive.look_up(game_id))
            challenge = await self.quick(
                interaction, self.service.challenges.rematch(game, player_ref(interaction.user), double=double)
            )
            await self.post_challenge(interaction, challenge, False)
        except Exception as error:  # buttons have no tree.on_error: same single error path
            await report(interaction, error)

    async def click_challenge(
        self, interaction: discord.Interaction, action: str, challenge_id: int, thread: bool
    ) -> None:
        try:
            hold(self.cooldowns, "challenge", interaction.user)
            if action == "accept":
                await self.accept_challenge(interaction, challenge_id, thread)
                return
            if action == "seed":
                await self.ask_for_seed(interaction, challenge_id, thread)
                return
            await interaction.response.defer()
            if action == "decline":
                challenge = await self.service.challenges.decline(challenge_id, interaction.user.id)
            else:
                challenge = await self.service.challenges.cancel(challenge_id, interaction.user.id)
            await interaction.edit_original_response(
                **fit(content=presenter.challenge_closed_content(challenge, challenge.status), view=None)
            )
        except ChallengeError as error:
            await self.close_dead_challenge(interaction, challenge_id)
            await report(interaction, error)
        except Exception as error:
            await report(interaction, error)

    async def close_dead_challenge(self, interaction: discord.Interaction, challenge_id: int) -> None:
        """A click on an answered or expired challenge: take its buttons away."""
        try:
            challenge = await self.service.challenges.get(challenge_id)
        except Exception:
            return
        expired = (
            challenge.status == "pending"
            and challenge.expires_at is not None
            and challenge.expires_at <= self.service.clock()
        )
        if challenge.status == "pending" and not expired:
            return
        status = "expired" if expired else challenge.status
        # an accepted challenge keeps its words (they hold the game's dice commitment)
        words = {} if status == "accepted" else {"content": presenter.challenge_closed_content(challenge, status)}
        try:
            await edit_clicked(interaction, view=None, **words)
        except discord.HTTPException:
            log.debug("could not close challenge message", exc_info=True)

    async def ask_for_seed(self, interaction: discord.Interaction, challenge_id: int, thread: bool) -> None:
        """ "Accept with my own seed": the challenged member types it in a form."""
        challenge = await self.service.challenges.pending(challenge_id)
        if interaction.user.id != challenge.challenged.user_id:
            raise ChallengeError(_("only {name} can accept this challenge").format(name=challenge.challenged.name))
        await interaction.response.send_modal(SeedModal(challenge_id, thread))

    async def accept_with_seed(
        self, interaction: discord.Interaction, challenge_id: int, thread: bool, seed: str
    ) -> None:
        """The form is sent: accept, the dice salted with this submission's id and the seed."""
        try:
            await self.accept_challenge(interaction, challenge_id, thread, seed=seed)
        except ChallengeError as error:
            await self.close_dead_challenge(interaction, challenge_id)
            await report(interaction, error)
        except Exception as error:
            await report(interaction, error)

    async def accept_challenge(
        self, interaction: discord.Interaction, challenge_id: int, thread: bool, *, seed: str | None = None
    ) -> None:
        """Accept: the game starts, its dice salted with this interaction's Discord id (and
        ``seed``). The challenge keeps its words, which hold the dice commitment: only its
        buttons go."""
        into_thread = thread and interaction.message is not None

        async def accept() -> tuple[Any, Outcome | None]:
            challenge = await self.service.challenges.pending(challenge_id)
            if interaction.user.id != challenge.challenged.user_id:
                raise ChallengeError(_("only {name} can accept this challenge").format(name=challenge.challenged.name))
            require_permissions(interaction, BOARD_PERMISSIONS + (THREAD_PERMISSIONS if thread else ()))
            if into_thread:
                return challenge, None  # the thread comes first, then the game
            await self.service.names.remember(player_ref(interaction.user))
            return challenge, await self.service.challenges.accept(
                challenge_id, interaction.user.id, accepted_by=interaction.id, seed=seed
            )

        # the checks may read the database (a challenge made before a restart): a busy bot acknowledges first
        challenge, outcome = await self.quick(interaction, accept())
        if outcome is None:
            assert interaction.message is not None
            await self._accept_into_thread(interaction, challenge, interaction.message, seed=seed)
            return
        # the first board is drawn while the challenge loses its buttons (which answers the click)
        await self.poster.publish(
            outcome,
            Followup(interaction),
            old=None,
            asked=asked_at(interaction),
            alongside=edit_clicked(interaction, view=None),
        )

    async def _accept_into_thread(
        self,
        interaction: discord.Interaction,
        challenge: Any,
        challenge_message: discord.Message,
        *,
        seed: str | None = None,
    ) -> None:
        """Accept a thread challenge: the game and its boards go into a new thread under the challenge."""
        if not interaction.response.is_done():
            await interaction.response.defer()
        await self.service.names.remember(player_ref(interaction.user))
        name = f"{challenge.challenger.name} vs {challenge.challenged.name}"[:100]
        game_thread = await challenge_message.create_thread(name=name, auto_archive_duration=10080)
        try:
            outcome = await self.service.challenges.accept(
                challenge.id, interaction.user.id, channel_id=game_thread.id, accepted_by=interaction.id, seed=seed
            )
        except BaseException:
            try:
                await game_thread.delete()
            except discord.HTTPException:
                log.debug("could not delete an unused game thread", exc_info=True)
            raise
        await interaction.edit_original_response(**fit(view=None))  # its words (the commitment) stay
        await self.poster.publish(
            outcome, InChannel(self.client, game_thread.id, game_thread.guild.id), old=None, asked=asked_at(interaction)
        )

    # -- leaderboard ----------------------------------------------------------------------------

    async def leaderboard_message(
        self, guild: discord.Guild | None, kind: str, offset: int, family: str = "backgammon"
    ) -> dict[str, Any]:
        page = await self.service.lookups.leaderboard(
            guild.id if guild else None, kind, offset=offset, limit=LEADERBOARD_PAGE, family=family
        )
        # the computer plays backgammon only
        record = await self.computer_record(guild.id if guild else None) if family == "backgammon" else None
        embed = presenter.leaderboard_embed(page, kind, guild.name if guild else None, record)
        if family != "backgammon":
            embed.title = f"{variant_name(family)} · {embed.title}"
        return {"embed": embed, "view": leaderboard_controls(kind, page.offset, page.limit, page.total, family)}

    async def computer_record(self, guild_id: int | None) -> tuple[int, int] | None:
        """The computer's wins and losses against this server's members (its games are unrated)."""
        user_id = self.computer.user_id
        if user_id is None or guild_id is None:
            return None
        wins, losses = await self.service.lookups.computer_record(guild_id, user_id)
        return (wins, losses) if wins or losses else None

    async def click_leaderboard(
        self, interaction: discord.Interaction, kind: str, offset: int, family: str = "backgammon"
    ) -> None:
        try:
            hold(self.cooldowns, "lookup", interaction.user)
            message = await self.leaderboard_message(interaction.guild, kind, offset, family)
            await interaction.response.edit_message(**fit(**message))
        except Exception as error:
            await report(interaction, error)
