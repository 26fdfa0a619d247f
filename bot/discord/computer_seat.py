"""The computer's seat at the table: it plays its turns, the table posts them.

After every posted board :meth:`ComputerSeat.after_post` looks; when the
computer (the bot's own user) is to act, a background task runs
:meth:`bot.core.computer.ComputerPlayer.take_turn` and posts each of its actions the
way a person's are posted: while the computer keeps acting its board message is
edited in place, and when the turn comes back to a person a new board is posted
with a mention of them. A short pause between the posts lets people follow.

After a (re)start, the turns the computer owes are resumed in the background
(:meth:`ComputerSeat.start_resume`), the game left waiting longest first, a
few at a time: the bot answers commands and clicks meanwhile. A game touched
by a player before its turn comes up is resumed at once (:meth:`ComputerSeat.kick`,
:meth:`ComputerSeat.wake`); one game never has two runs in this process, and a
run re-reads its game first (the service's compare-and-set refuses any stale act).

An error in the computer's turn is logged and said in the channel: a game is
never left waiting on the computer silently.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import discord

import i18n
from bot.core.advice import DEFAULT_LEVEL, Advice, parse_level
from bot.core.computer import ComputerPlayer
from bot.core.games import GameService
from bot.core.model import AnalysisUnavailableError, Event, GameState, Outcome, PlayerRef
from bot.discord import speech
from bot.discord.analysis_notes import AnalysisNotes
from bot.discord.boards import BoardPoster, InChannel, Listener
from bot.discord.limits import pinging, plain

log = logging.getLogger(__name__)

COMPUTER_PAUSE_SECONDS = 1.5
"""Pause before each of the computer's posts (0 in tests)."""
MAX_RUNS = 200
"""A safety stop for one background run (turns, with re-checks)."""
RESUME_PARALLEL = 2
"""Computer turns resumed at once after a (re)start (each reads its game, thinks,
and posts two boards through the drawing workers): few enough that players'
clicks and boards never queue behind thousands of them."""
RESUME_PAGE = 200
"""Games read per page while resuming (keyset: no read of all the games at once)."""


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
        self.resume_parallel = RESUME_PARALLEL
        self._running: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._resuming: asyncio.Task[int] | None = None
        self.followers: list[Listener] = []
        """Told of each board the computer's turn posts (a team that votes next), besides the notes."""

    # -- who the computer is -----------------------------------------------------------

    @property
    def user_id(self) -> int | None:
        user = self.client.user
        return user.id if user is not None else None

    def ref(self) -> PlayerRef:
        user = self.client.user
        assert user is not None, "the bot is not logged in"
        return PlayerRef(user.id, getattr(user, "display_name", None) or user.name, True)

    def plays_in(self, state: GameState) -> bool:
        return self.user_id is not None and state.seat(self.user_id) is not None

    def is_to_act(self, state: GameState) -> bool:
        actor = state.to_act()
        return actor is not None and self.user_id is not None and actor.user_id == self.user_id

    def player(self, level: str | None) -> ComputerPlayer:
        assert self.user_id is not None
        return self.advice.computer(self.user_id, level)

    def level_of(self, state: GameState) -> str:
        try:
            return parse_level(state.options.computer_level or self.default_level)
        except ValueError:
            return parse_level(self.default_level)

    # -- running turns -----------------------------------------------------------------

    def after_post(self, outcome: Outcome, message: discord.Message | None, embeds: Sequence[discord.Embed]) -> None:
        """A board was posted: the computer's turn, if it is."""
        self.kick(outcome.state, outcome.events)

    def kick(self, state: GameState, events: Sequence[Event] = ()) -> None:
        """If the computer is to act in this game, play its turn in the background."""
        if not self.is_to_act(state):
            return
        if state.id in self._running:
            self._again.add(state.id)  # the running task looks again before it stops
            return
        self._start(state.id, list(events))

    def wake(self, game_id: int) -> None:
        """A player touched this game without its state at hand (a refused click): if the
        computer owes a turn there and none is running, play it now (the run looks first)."""
        if game_id not in self._running:
            self._start(game_id, [])

    def _start(self, game_id: int, events: list[Event], *, pause: float | None = None) -> asyncio.Task[None]:
        task = asyncio.create_task(self._run(game_id, events, pause), name=f"bg-computer-{game_id}")
        self._running[game_id] = task
        return task

    def start_resume(self) -> None:
        """After a (re)start: resume the computer's turns in the background (see :meth:`resume`)."""
        if self._resuming is None or self._resuming.done():
            self._resuming = asyncio.create_task(self.resume(), name="bg-computer-resume")

    async def resume(self) -> int:
        """Play the computer's turns left waiting by a restart; returns how many.

        Its games are read a page at a time, the longest untouched first (the
        player waiting longest is served first), and at most
        :attr:`resume_parallel` of their turns run at once; those are posted
        without the pause between posts (they are catching up). A game already
        running (a player touched it: :meth:`kick`) is left to that run."""
        if self.user_id is None:
            return 0
        kicked = 0
        slots = asyncio.Semaphore(max(self.resume_parallel, 1))
        after: tuple[float, int] | None = None
        try:
            while True:
                page = await self.service.lookups.waiting_for(
                    self.user_id, after=after, limit=RESUME_PAGE, their_turn=True
                )
                for game_id, guild_id, after in page:  # noqa: B007 (the last row is the next page's cursor)
                    if self.client.get_guild(guild_id) is None or game_id in self._running:
                        continue  # another shard's (process's) server; or already under way
                    await slots.acquire()
                    try:
                        state = await self.service.lookups.get_game(game_id)
                    except Exception:
                        slots.release()
                        log.exception("could not read game %s to resume the computer's turn", game_id)
                        continue
                    if not self.is_to_act(state) or game_id in self._running:
                        slots.release()
                        continue
                    self._start(game_id, [], pause=0.0).add_done_callback(lambda _: slots.release())
                    kicked += 1
                if len(page) < RESUME_PAGE:
                    break
        except Exception:  # (a cancelled resume is not an Exception: it goes on up)
            log.exception("could not resume the computer's games")
        if kicked:
            log.info("resuming the computer's turn in %d games", kicked)
        return kicked

    @property
    def busy(self) -> bool:
        resuming = self._resuming is not None and not self._resuming.done()
        return resuming or any(not t.done() for t in self._running.values())

    async def wait(self) -> None:
        """Until every running turn is posted, and the resume is done (tests, shutdown)."""
        while self._running or (self._resuming is not None and not self._resuming.done()):
            waiting = list(self._running.values())
            if self._resuming is not None and not self._resuming.done():
                waiting.append(self._resuming)  # type: ignore[arg-type]
            await asyncio.gather(*waiting, return_exceptions=True)

    async def close(self) -> None:
        if self._resuming is not None:
            self._resuming.cancel()
            await asyncio.gather(self._resuming, return_exceptions=True)
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._running.clear()

    async def _run(self, game_id: int, events: list[Event], pause: float | None = None) -> None:
        try:
            for _ in range(MAX_RUNS):
                self._again.discard(game_id)
                state = await self.service.lookups.get_game(game_id)
                outcomes: list[Outcome] = []
                if self.is_to_act(state):
                    outcomes = await self.player(self.level_of(state)).take_turn(game_id)
                if outcomes:
                    await self.post(state, outcomes, events, pause=pause)
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

    async def post(
        self,
        before: GameState,
        outcomes: Sequence[Outcome],
        events: Sequence[Event] = (),
        *,
        pause: float | None = None,
    ) -> None:
        """Post the computer's outcomes: edits while it keeps acting, a new board when a person must act
        (``pause`` seconds before each post; default :attr:`pause`)."""
        board = before.board_message
        shown: list[Event] = list(events)
        pause = self.pause if pause is None else pause
        for outcome in outcomes:
            if pause > 0:
                await asyncio.sleep(pause)
            shown.extend(outcome.events)
            state = outcome.state
            channel = InChannel(self.client, board[0] if board is not None else state.channel_id, state.guild_id)
            # through the interaction of the player's move while its token lasts, not on the
            # channel's routes (Discord's global limit counts those); the channel if that fails
            edit = self.poster.same_board(board) if self.is_to_act(state) and board is not None else None
            target = edit or self.poster.new_board(state.id, channel)
            message = await self.poster.publish(
                outcome,
                target,
                fallback=channel if target is not channel else None,
                old=board,
                events=list(shown),
                listeners=[self.notes.after_game, *self.followers],  # not itself: this loop plays on by itself
            )
            if message is None:
                raise RuntimeError(f"could not post the computer's move in game {state.id}")
            board = (message.channel.id, message.id)

    async def report_failure(self, game_id: int, error: BaseException) -> None:
        """Say in the game's channel that the computer could not act (never a silent stall)."""
        try:
            state = await self.service.lookups.get_game(game_id)
        except Exception:
            log.exception("could not load game %s to report the computer's failure", game_id)
            return
        people = [p.user_id for p in state.players if not p.is_bot]
        humans = " ".join(f"<@{user_id}>" for user_id in people)
        with i18n.speaking(await speech.public(self.client, state.guild_id)):  # said in the game's channel
            if isinstance(error, AnalysisUnavailableError):
                why = i18n._("{reason}, so the computer can't play").format(reason=plain(error.message))
            else:
                why = i18n._("something went wrong on my side")
            text = (
                "⚠️ "
                + (f"{humans} " if humans else "")
                + i18n._(
                    "The computer could not make its move in game #{game}: {reason}. `/bg board` asks it to try"
                    " again; you can also `/bg forfeit`, or a moderator can `/bg abandon` the game."
                ).format(game=game_id, reason=why)
            )
        channel_id = state.board_message[0] if state.board_message else state.channel_id
        await InChannel(self.client, channel_id, state.guild_id).send(
            {"content": text, "allowed_mentions": pinging(*people)}
        )
