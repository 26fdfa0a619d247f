"""Chouette sessions in a channel or thread: the box against a captain and crew, each
with their own cube (the rules: :mod:`engine.chouette`, ``docs/rules.md``).

A session is stored as its players and every action since
(:mod:`bot.store.chouettes`), and rebuilt by replaying them through the
engine: a restart loses nothing, and each action is one compare-and-set, so
two clicks racing have one winner.

Each game of the session is a real checker game on the board
(:meth:`Chouettes.ensure_board`): an ordinary stored game in the session's
thread, the box at seat 0 against the captain at seat 1, without a cube of its
own, posted by the same board poster, outbox, deadlines and reminders as any
game. Its start is logged in the session (``{"kind": "board", "game": id}``);
its end, told by the recorder's finish listeners, scores the session's game
(``end_game``), which owes the running ledger's message in the same
transaction; then the rotation gives the next game's board. Every step is
idempotent, so the scheduler's pass (:meth:`Chouettes.catch_up`) finishes
what a crash cut short, and never twice.

Who may do what:

- **double**: the box doubles every member whose cube it may turn, before its
  own roll; a member doubles the box with their own cube, before the
  captain's roll. Nobody rolls while a double waits for its answer.
- **take** / **drop**: a member answers the box's double on their cube; the
  box answers a member's double (naming the member). When the captain is out,
  the checkers pass to the next member still in; when nobody is left, the
  side that passed last concedes the checker game.
- **result**: the side that lost concedes the checkers' game (the box when
  the team won, the captain when the box won): with a board, its game ends so.
- **suggest**: with consultation allowed, a team member still in advises the
  captain (the captain decides).
- **end**: any player ends the session; the ledger is settled as it stands.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.core.model import ChallengeError, ChallengeOptions, Delivery, Outcome, ServiceError, StaleGameError
from bot.store import ChannelBusyError, GameRow, NotFoundError, StaleVersionError, Store
from bot.store.chouettes import LEDGER_KIND, ChouetteRow, ChouetteStore
from bot.store.outbox import OutboxEntry
from engine import Phase, WinKind
from engine.chouette import MAX_PLAYERS, MIN_PLAYERS, Chouette, ChouetteError, ChouetteOptions, CrewDoubles, Rotation
from i18n import _, worded

if TYPE_CHECKING:
    from bot.core.games import GameService

__all__ = ["LEDGER_KIND", "ChouetteDelivery", "ChouetteSession", "Chouettes"]

log = logging.getLogger(__name__)

BOARD = "board"
"""The log's action that starts a game's board: ``{"kind": "board", "game": <game id>}``."""


@dataclass(frozen=True, slots=True)
class ChouetteSession:
    """A session as it stands: its stored row and the rules' state rebuilt from it."""

    row: ChouetteRow
    state: Chouette[int]
    boards: tuple[tuple[int, int], ...] = ()
    """(the session's game number from 0, the checker game's id), in the order started."""

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def ended(self) -> bool:
        return self.row.status == "ended"

    @property
    def board(self) -> int | None:
        """The checker game of the game being played (None: not started yet, or the session is over)."""
        if self.ended or self.state.game is None:
            return None
        number = self.state.games_played
        return next((game for n, game in reversed(self.boards) if n == number), None)

    def number_of(self, game_id: int) -> int | None:
        """Which of the session's games ``game_id`` was the board of (None: not one of them)."""
        return next((n for n, game in self.boards if game == game_id), None)


@dataclass(frozen=True, slots=True)
class ChouetteDelivery(Delivery):
    """The running ledger to post after a game (kind :data:`LEDGER_KIND`): the session as it
    stood right after that game was scored."""

    session: ChouetteSession | None = None


def options_of(data: dict[str, Any]) -> ChouetteOptions:
    return ChouetteOptions(
        crew_doubles=CrewDoubles(data.get("crew_doubles", CrewDoubles.INDEPENDENT.value)),
        rotation=Rotation(data.get("rotation", Rotation.CAPTAIN.value)),
        consultation=bool(data.get("consultation", True)),
    )


def rebuild(row: ChouetteRow) -> ChouetteSession:
    """The session: its players and options, every logged action applied, its boards noted."""
    state = Chouette(list(row.players), options_of(row.options))
    boards: list[tuple[int, int]] = []
    for action in row.log:
        if action.get("kind") == BOARD:
            boards.append((state.games_played, int(action["game"])))
        else:
            _apply(state, action)
    return ChouetteSession(row, state, tuple(boards))


def replay(row: ChouetteRow) -> Chouette[int]:
    """The session's state: its players and options, every logged action applied."""
    return rebuild(row).state


def at_version(row: ChouetteRow, version: int) -> ChouetteRow:
    """The session as it stood at ``version`` (each action adds one)."""
    version = max(0, min(version, len(row.log)))
    ended = row.status == "ended" and version == len(row.log)
    return replace(row, log=row.log[:version], version=version, status="ended" if ended else "active")


def _apply(state: Chouette[int], action: dict[str, Any]) -> None:
    kind = action.get("kind")
    members = [int(m) for m in action.get("members") or []]
    if kind == "box_doubles":
        state.box_doubles(members or None)
    elif kind == "team_doubles":
        state.team_doubles(members)
    elif kind == "take":
        state.take(int(action["member"]))
    elif kind == "drop":
        state.drop(int(action["member"]))
    elif kind == "end_game":
        state.end_game(team_won=bool(action["team_won"]), kind=WinKind(int(action["win"])))
    elif kind == "end":
        state.end()
    elif kind == BOARD:
        pass
    else:
        raise ChouetteError(f"unknown chouette action {kind!r}")


def checker_result(row: GameRow) -> tuple[bool, WinKind] | None:
    """Whether the team (seat 1) won a finished checker game, and by what; None: no result
    (abandoned by a moderator)."""
    result = row.result or {}
    last = result.get("last_game")
    if row.status != "finished" or not result:
        return None
    winner = int(last["winner"]) if last else int(result.get("winner_seat", 0))
    kind = WinKind(int(last["kind"])) if last else WinKind.SINGLE
    return winner == 1, kind


class Chouettes:
    """The chouette sessions of one bot process.

    :param games: the game service whose games are the sessions' boards; without it
        (the rules alone) a game is scored by the loser's report (:meth:`result`).
    """

    def __init__(self, store: Store, clock: Callable[[], datetime], games: GameService | None = None) -> None:
        self.sessions = ChouetteStore(store.db)
        self.store = store
        self.clock = clock
        self.games = games
        self._locks: dict[int, asyncio.Lock] = {}
        self._conceding: set[int] = set()
        """Boards this process is conceding: their end is scored at once, and the next board
        starts only once their last board is on its way (posted in order)."""
        if games is not None:
            games.recorder.finish_listeners.append(self.after_game)
            games.roll_guards.append(self.before_roll)
            games.deliveries.wordings[LEDGER_KIND] = self._word_ledger

    def close(self) -> None:
        """Stop listening to the game service (the extension unloads)."""
        if self.games is None:
            return
        if self.after_game in self.games.recorder.finish_listeners:
            self.games.recorder.finish_listeners.remove(self.after_game)
        if self.before_roll in self.games.roll_guards:
            self.games.roll_guards.remove(self.before_roll)

    async def start(
        self, guild_id: int, channel_id: int, players: Sequence[int], options: ChouetteOptions | None = None
    ) -> ChouetteSession:
        """A session in ``channel_id``: ``players`` in their order (the box first, then the captain).
        Its first board is :meth:`ensure_board`'s.

        :raises ChallengeError: a player twice, too few or too many, a session going on there."""
        options = options or ChouetteOptions()
        try:
            Chouette(list(players), options)
        except ChouetteError:
            raise ChallengeError(
                _("a chouette is {low} to {high} different players: the box first, then the team").format(
                    low=MIN_PLAYERS, high=MAX_PLAYERS
                )
            ) from None
        stored = {
            "crew_doubles": options.crew_doubles.value,
            "rotation": options.rotation.value,
            "consultation": options.consultation,
        }
        try:
            row = await self.sessions.create(guild_id, channel_id, players, stored)
        except ChannelBusyError:
            raise ChallengeError(_("a chouette is going on here already: end it first")) from None
        return rebuild(row)

    async def in_channel(self, channel_id: int) -> ChouetteSession:
        """:raises ServiceError: no session going on there."""
        row = await self.sessions.active_in(channel_id)
        if row is None:
            raise ServiceError(_("no chouette is going on here: start one with `/bgclub chouette`"))
        return rebuild(row)

    async def _act(
        self, session: ChouetteSession, action: dict[str, object], *, ended: bool = False
    ) -> ChouetteSession:
        state = replay(session.row)
        before = state.games_played
        try:
            _apply(state, action)  # the rules' refusal, before anything is written
        except ChouetteError as error:
            raise ServiceError(worded(error)) from None
        scored = state.games_played > before
        try:
            row = await self.sessions.append(session.row, action, ended=ended, ledger=scored)
        except StaleVersionError:
            raise StaleGameError(_("the chouette has moved on: look at its last message")) from None
        if scored and self.games is not None:
            self.games.deliveries.wake()
        return rebuild(row)

    def _seated(self, session: ChouetteSession, user_id: int) -> None:
        if user_id not in session.row.players:
            raise ServiceError(_("you are not in this chouette"))

    async def _checker_phase(self, session: ChouetteSession) -> tuple[Phase, int] | None:
        """The board's phase and the seat to act (None: no board is being played)."""
        board = session.board
        if self.games is None or board is None:
            return None
        try:
            state = await self.games.lookups.get_game(board)
        except ServiceError:
            return None
        if not state.is_active:
            return None
        return state.game.phase, state.game.turn

    async def double(self, channel_id: int, user_id: int) -> ChouetteSession:
        session = await self.in_channel(channel_id)
        self._seated(session, user_id)
        board = session.board
        if self.games is None or board is None:
            return await self._double(session, user_id)
        async with self.games.cache.lock(board):  # no roll between the look at the board and the double
            return await self._double(await self.in_channel(channel_id), user_id)

    async def _double(self, session: ChouetteSession, user_id: int) -> ChouetteSession:
        box = user_id == session.state.box
        checkers = await self._checker_phase(session)
        if checkers is not None:
            phase, turn = checkers
            if box and (phase is not Phase.ROLL or turn != 0):
                raise ServiceError(_("the box doubles on its own turn, before it rolls"))
            if not box and (phase is not Phase.ROLL or turn != 1):
                raise ServiceError(_("the team doubles on its own turn, before the captain rolls"))
        if box:
            return await self._act(session, {"kind": "box_doubles", "members": []})
        return await self._act(session, {"kind": "team_doubles", "members": [user_id]})

    async def answer(self, channel_id: int, user_id: int, take: bool, member: int | None = None) -> ChouetteSession:
        """``user_id`` takes or drops the double that waits on ``member``'s cube (a member:
        their own; the box: the member named, else the only one waiting)."""
        session = await self.in_channel(channel_id)
        self._seated(session, user_id)
        state = session.state
        game = state.game
        assert game is not None
        if user_id == state.box:
            waiting = [m for m, c in game.cubes.items() if c.offered_by == "member"]
            if member is None:
                if len(waiting) != 1:
                    raise ServiceError(_("name the member whose double you answer"))
                member = waiting[0]
            if member not in waiting:
                raise ServiceError(_("no double of that member waits for your answer"))
        else:
            if member not in (None, user_id):
                raise ServiceError(_("you answer only the double on your own cube"))
            member = user_id
            if game.cubes[member].offered_by != "box":
                raise ServiceError(_("no double of the box waits for your answer"))
        team_passed = game.cubes[member].offered_by == "box"
        board = session.board
        after = await self._act(session, {"kind": "take" if take else "drop", "member": member})
        if not take and board is not None:
            await self._after_drop(after, board, team_passed)
        return after

    async def _after_drop(self, session: ChouetteSession, board: int, team_passed: bool) -> None:
        """A drop took a player out of the checker game: the checkers pass to the next member
        still in; with nobody left, the side that passed last concedes the board."""
        assert self.games is not None
        row = await self.store.games.get(board)
        if not row.is_active:
            return
        if session.number_of(board) == session.state.games_played and session.board == board:
            captain = session.state.captain
            if row.players[1] != captain:
                await self.games.reseat(board, 1, captain)
            return
        loser = row.players[1] if team_passed else row.players[0]
        try:
            await self._concede(session, board, loser, WinKind.SINGLE)
        except ServiceError as error:
            log.info("chouette %s: the board %s was not conceded: %s", session.id, board, error)
            await self.ensure_board(session.id)

    async def result(self, channel_id: int, user_id: int, team_won: bool, kind: WinKind) -> ChouetteSession:
        """The checkers' game is over, conceded by the side that lost it."""
        session = await self.in_channel(channel_id)
        self._seated(session, user_id)
        loser = session.state.box if team_won else session.state.captain
        if user_id != loser:
            raise ServiceError(_("the side that lost reports the result: the box when the team won, else the captain"))
        board = session.board
        if self.games is None or board is None:
            return await self._act(session, {"kind": "end_game", "team_won": team_won, "win": int(kind)})
        if session.state.waiting():
            raise ServiceError(_("a double waits for its answer"))
        try:
            await self._concede(session, board, user_id, kind)  # scored by the listener, like any end
        except StaleGameError:
            await self.ensure_board(session.id)  # the board ended meanwhile: scored as it ended
        return await self.in_channel_or_ended(session.id)

    async def _concede(self, session: ChouetteSession, board: int, user_id: int, kind: WinKind) -> None:
        """``user_id`` concedes the board; its last board goes to the dispatcher before the
        next game's first board (the outbox posts them in that order)."""
        assert self.games is not None
        self._conceding.add(board)
        try:
            conceded = await self.games.concede(board, user_id, kind)
        finally:
            self._conceding.discard(board)
        self.games.deliveries.release(conceded.owed)
        await self.ensure_board(session.id)

    async def in_channel_or_ended(self, session_id: int) -> ChouetteSession:
        row = await self.sessions.get(session_id)
        assert row is not None
        return rebuild(row)

    async def suggest(self, channel_id: int, user_id: int) -> ChouetteSession:
        """Whether ``user_id`` may advise the captain now (consultation allowed, a team member
        still in, not the captain)."""
        session = await self.in_channel(channel_id)
        self._seated(session, user_id)
        state = session.state
        game = state.game
        assert game is not None
        if not state.options.consultation:
            raise ServiceError(_("this chouette is played without consultation: the captain decides alone"))
        if user_id == state.box or user_id not in game.still_in:
            raise ServiceError(_("only the team members still in this game advise the captain"))
        if user_id == state.captain:
            raise ServiceError(_("you are the captain: your play is the team's"))
        return session

    async def end(self, channel_id: int, user_id: int) -> ChouetteSession:
        """End the session on a player's request; the ledger is settled as it stands (a board
        being played stays an ordinary unrated game between its two players)."""
        session = await self.in_channel(channel_id)
        self._seated(session, user_id)
        return await self._act(session, {"kind": "end"}, ended=True)

    # -- the boards -------------------------------------------------------------------------------

    def _lock(self, session_id: int) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    async def before_roll(self, game_id: int) -> None:
        """A roll on a chouette's board waits for the doubles to be answered."""
        cached = self.games.cache.rows.get(game_id) if self.games is not None else None
        if cached is None:
            try:
                cached = await self.store.games.get(game_id)
            except NotFoundError:
                return
        chouette = cached.settings.get("chouette")
        if chouette is None:
            return
        row = await self.sessions.get(int(chouette))
        if row is None or row.status != "active":
            return
        session = rebuild(row)
        if session.board == game_id and session.state.waiting():
            raise ServiceError(_("a double waits for its answer in the chouette: no roll before it"))

    async def after_game(self, row: GameRow) -> None:
        """A game ended: if it is a chouette's board, score it and start the next one."""
        chouette = row.settings.get("chouette")
        if chouette is not None:
            await self.ensure_board(int(chouette), start=row.id not in self._conceding)

    async def catch_up(self) -> int:
        """Every session going on has its current game scored and its board started (after a
        crash between a board's end and its scoring, or a game's scoring and the next board).
        Returns how many boards were started."""
        started = 0
        for row in await self.sessions.active():
            try:
                started += await self.ensure_board(row.id) is not None
            except ServiceError as error:
                log.info("chouette %s: no board: %s", row.id, error.message)
        return started

    async def ensure_board(self, session_id: int, *, start: bool = True) -> Outcome | None:
        """Bring the session's board up to date: score its game if it ended, start the next
        game's board if none is being played (``start``). Idempotent, and safe to race: each
        step is a compare-and-set. Returns the new board's outcome (its first board owed to
        the outbox)."""
        if self.games is None:
            return None
        async with self._lock(session_id):
            for _attempt in range(8):
                row = await self.sessions.get(session_id)
                if row is None or row.status != "active":
                    return None
                session = rebuild(row)
                board = session.board
                if board is not None:
                    game = await self.store.games.get(board)
                    if game.is_active:
                        return None
                    result = checker_result(game)
                    if result is not None:  # its end not yet scored: score it, then look again
                        team_won, kind = result
                        action = {"kind": "end_game", "team_won": team_won, "win": int(kind), "game": board}
                        try:
                            await self._act(session, action)
                        except StaleGameError:
                            pass
                        continue
                    # abandoned by a moderator: the same game on a new board (the cubes stand)
                if not start:
                    return None
                active = await self.store.games.active_in(row.channel_id)
                if active is not None:
                    if active.settings.get("chouette") == session.id and session.number_of(active.id) is None:
                        await self._log_board(session, active.id)  # started before a crash, not logged
                        continue
                    return None  # a game of its own is played in the thread
                outcome = await self._new_board(session)
                if outcome is None:
                    continue
                return outcome
        return None

    async def _new_board(self, session: ChouetteSession) -> Outcome | None:
        assert self.games is not None
        state = session.state
        options = ChallengeOptions(chouette=session.id, unrated=True, kibitzers=False)
        try:
            outcome = await self.games.start_game(
                session.row.guild_id, session.row.channel_id, (state.box, state.captain), options
            )
        except ChallengeError:
            return None  # another board went up meanwhile: look again
        self.games.deliveries.release(outcome.owed)  # the dispatcher posts it in the thread
        try:
            await self._log_board(session, outcome.state.id)
        except StaleGameError:
            return None  # the session moved on: the next pass adopts the board
        return outcome

    async def _log_board(self, session: ChouetteSession, game_id: int) -> None:
        try:
            await self.sessions.append(session.row, {"kind": BOARD, "game": game_id})
        except StaleVersionError:
            raise StaleGameError(_("the chouette has moved on: look at its last message")) from None

    # -- the running ledger -----------------------------------------------------------------------

    async def _word_ledger(self, entry: OutboxEntry) -> Delivery | None:
        row = await self.sessions.get(int(entry.payload.get("session", 0)))
        if row is None:
            return None
        session = rebuild(at_version(row, int(entry.payload.get("version", len(row.log)))))
        assert self.games is not None
        return ChouetteDelivery(
            kind=LEDGER_KIND,
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self.games.deliveries.retried([entry]),
            session=session,
        )
