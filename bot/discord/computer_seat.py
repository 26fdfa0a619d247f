"""The computer's seat at the table: it plays its turns, the table posts them.

After every posted board :meth:`ComputerSeat.after_post` looks; when the
computer (the bot's own user) is to act, a background task runs
:meth:`bot.core.computer.ComputerPlayer.take_turn` and posts each of its actions the
way a person's are posted: while the computer keeps acting its board message is
edited in place, and when the turn comes back to a person a new board is posted
with a mention of them. A short pause between the posts lets people follow.

An error in the computer's turn is logged and said in the channel: a game is
never left waiting on the computer silently.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import discord

from bot.core.advice import DEFAULT_LEVEL, Advice, parse_level
from bot.core.computer import ComputerPlayer
from bot.core.games import GameService
from bot.core.model import AnalysisUnavailableError, Event, GameState, Outcome, PlayerRef
from bot.discord.analysis_notes import AnalysisNotes
from bot.discord.boards import BoardPoster, EditBoard, InChannel
from bot.discord.limits import pinging, plain

log = logging.getLogger(__name__)

COMPUTER_PAUSE_SECONDS = 1.5
"""Pause before each of the computer's posts (0 in tests)."""
MAX_RUNS = 200
"""A safety stop for one background run (turns, with re-checks)."""


class ComputerSeat:
    """Plays the computer's turns in every game where the bot's user sits."""

    def __init__(
        self,
        client: discord.Client,
        service: GameService,
        advice: Advice,
        poster: BoardPoster,
        notes: AnalysisNotes,
    ) -> None:
        self.client = client
        self.service = service
        self.advice = advice
        self.poster = poster
        self.notes = notes
        self.pause = COMPUTER_PAUSE_SECONDS
        self.default_level: str = DEFAULT_LEVEL
        """The level of ``/bg challenge @bot`` and of games that don't say."""
        self._running: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()

    # -- who the computer is -----------------------------------------------------------

    @property
    def user_id(self) -> int | None:
        user = self.client.user
        return user.id if user is not None else None

    def ref(self) -> PlayerRef:
        user = self.client.user
        assert user is not None, "the bot is not logged in"
        return PlayerRef(user.id, getattr(user, "display_name", None) or user.name, True)

    def plays_in(self, view: GameState) -> bool:
        return self.user_id is not None and view.seat(self.user_id) is not None

    def is_to_act(self, view: GameState) -> bool:
        actor = view.to_act()
        return actor is not None and self.user_id is not None and actor.user_id == self.user_id

    def player(self, level: str | None) -> ComputerPlayer:
        assert self.user_id is not None
        return self.advice.computer(self.user_id, level)

    def level_of(self, view: GameState) -> str:
        try:
            return parse_level(view.options.computer_level or self.default_level)
        except ValueError:
            return parse_level(self.default_level)

    # -- running turns -----------------------------------------------------------------

    def after_post(self, outcome: Outcome, message: discord.Message | None, embeds: Sequence[discord.Embed]) -> None:
        """A board was posted: the computer's turn, if it is."""
        self.kick(outcome.view, outcome.events)

    def kick(self, view: GameState, events: Sequence[Event] = ()) -> None:
        """If the computer is to act in this game, play its turn in the background."""
        if not self.is_to_act(view):
            return
        if view.id in self._running:
            self._again.add(view.id)  # the running task looks again before it stops
            return
        task = asyncio.create_task(self._run(view.id, list(events)), name=f"bg-computer-{view.id}")
        self._running[view.id] = task

    async def resume(self) -> int:
        """After a (re)start: play the computer's turns that were left waiting. Returns how many."""
        if self.user_id is None:
            return 0
        kicked = 0
        try:
            for game_id, guild_id in await self.service.waiting_for(self.user_id):
                if self.client.get_guild(guild_id) is None:
                    continue  # another shard's (process's) server
                view = await self.service.get_game(game_id)
                if self.is_to_act(view) and view.id not in self._running:
                    self.kick(view)
                    kicked += 1
        except Exception:
            log.exception("could not resume the computer's games")
        return kicked

    @property
    def busy(self) -> bool:
        return any(not t.done() for t in self._running.values())

    async def wait(self) -> None:
        """Until every running turn is posted (tests, shutdown)."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    async def close(self) -> None:
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._running.clear()

    async def _run(self, game_id: int, events: list[Event]) -> None:
        try:
            for _ in range(MAX_RUNS):
                self._again.discard(game_id)
                view = await self.service.get_game(game_id)
                outcomes: list[Outcome] = []
                if self.is_to_act(view):
                    outcomes = await self.player(self.level_of(view)).take_turn(game_id)
                if outcomes:
                    await self.post(view, outcomes, events)
                    events = []
                    continue
                if game_id in self._again:
                    continue
                return
            raise RuntimeError(f"the computer kept acting in game {game_id}")
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("the computer's turn failed in game %s", game_id)
            await self.report_failure(game_id, error)
        finally:
            self._running.pop(game_id, None)
            self._again.discard(game_id)

    async def post(self, before: GameState, outcomes: Sequence[Outcome], events: Sequence[Event] = ()) -> None:
        """Post the computer's outcomes: edits while it keeps acting, a new board when a person must act."""
        board = before.board_message
        shown: list[Event] = list(events)
        for outcome in outcomes:
            if self.pause > 0:
                await asyncio.sleep(self.pause)
            shown.extend(outcome.events)
            view = outcome.view
            channel = InChannel(self.client, board[0] if board is not None else view.channel_id, view.guild_id)
            edit = EditBoard(self.client, board) if self.is_to_act(view) and board is not None else None
            message = await self.poster.publish(
                outcome, edit or channel, fallback=channel if edit else None, old=board, events=list(shown),
                listeners=[self.notes.after_game],  # not itself: this loop plays on by itself
            )
            if message is None:
                raise RuntimeError(f"could not post the computer's move in game {view.id}")
            board = (message.channel.id, message.id)

    async def report_failure(self, game_id: int, error: BaseException) -> None:
        """Say in the game's channel that the computer could not act (never a silent stall)."""
        try:
            view = await self.service.get_game(game_id)
        except Exception:
            log.exception("could not load game %s to report the computer's failure", game_id)
            return
        if isinstance(error, AnalysisUnavailableError):
            why = f"{plain(error.message)}, so the computer can't play"
        else:
            why = "something went wrong on my side"
        people = [p.user_id for p in view.players if not p.is_bot]
        humans = " ".join(f"<@{user_id}>" for user_id in people)
        text = (
            f"⚠️ {humans} The computer could not make its move in game #{game_id}: {why}. "
            "`/bg board` asks it to try again; you can also `/bg forfeit`, or a moderator can `/bg abandon` the game."
        ).replace("⚠️  ", "⚠️ ")
        channel_id = view.board_message[0] if view.board_message else view.channel_id
        await InChannel(self.client, channel_id, view.guild_id).send({"content": text, "allowed_mentions": pinging(*people)})

