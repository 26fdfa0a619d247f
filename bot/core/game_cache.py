"""The games a process holds in memory, and how a stored game comes back.

:class:`GameCache` (``GameService.cache``) keeps four bounded caches: each
active game's match as of a version and its newest row (actions start from
them without a read; the compare-and-set append catches a row another process
has moved on since), the newest state of each channel's game (for answers that
cannot wait, like autocomplete) and each game's newest board message. A game
not in memory is rebuilt from its stored snapshot and the log's tail, on the
event loop when that is short, else in a thread (:meth:`GameCache.off_loop`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from bot.core.lru import Lru
from bot.core.model import (
    SERVICE_ACTIONS,
    ChallengeOptions,
    GameState,
    Limits,
    NoGameError,
    PlayerRef,
    storage_errors_as_service_errors,
)
from bot.core.players import PlayerNames
from bot.store import GameRow, NotFoundError, Store
from engine import DiceSource, GameError, IllegalPlayError, Match, NotationError, SecureDice
from engine.fairdice import FairDice, dice_in_log
from engine.snapshot import FORMAT as SNAPSHOT_FORMAT
from engine.snapshot import SnapshotError, format_snapshot, parse_snapshot
from i18n import _

log = logging.getLogger(__name__)

T = TypeVar("T")

KEPT_BOARDS = 10_000
"""Board messages remembered (the least recently used are forgotten first)."""

REBUILD_ON_LOOP = 200
"""A log up to this many actions is replayed on the event loop (a few milliseconds);
a longer one in a thread, so that a long match never holds everyone else up."""

SNAPSHOT_ON_LOOP = 1_000
"""A snapshot of a match up to this many actions (about 45 characters each) is
written and read on the event loop (1 to 3 milliseconds); a longer one in a thread."""
SNAPSHOT_CHARACTERS_ON_LOOP = 50 * SNAPSHOT_ON_LOOP


@storage_errors_as_service_errors
class GameCache:
    """The games in memory over a :class:`~bot.store.Store`, and their rebuild.

    :param dice: a dice source to use instead of each game's fair dice (tests).
    """

    def __init__(self, store: Store, names: PlayerNames, limits: Limits, dice: DiceSource | None = None) -> None:
        self.store = store
        self.names = names
        self.limits = limits
        self.dice = dice
        self.locks: dict[int, asyncio.Lock] = {}
        # Memory stays bounded however many games a busy week touches: the least
        # recently used games drop out (their lock too, when free) and are read
        # again from their row and log when next asked for.
        self.matches: Lru[int, tuple[int, Match]] = Lru(limits.cached_games, self._evicted)
        self.rows: Lru[int, GameRow] = Lru(limits.cached_games, self._evicted)
        """The newest row of each active game this process wrote or read."""
        self.latest: Lru[int, GameState] = Lru(limits.cached_games)
        """Channel id -> the newest state of its active game."""
        self.boards: Lru[int, tuple[tuple[int, int], int]] = Lru(KEPT_BOARDS)
        """Game id -> (its board message, the version it shows)."""
        self._heavy: asyncio.Semaphore | None = None

    # -- locks and rows --------------------------------------------------------------

    def lock(self, game_id: int) -> asyncio.Lock:
        """The lock one process's actions on a game take turns under."""
        lock = self.locks.get(game_id)
        if lock is None:
            lock = self.locks[game_id] = asyncio.Lock()
            if len(self.locks) > 2 * self.limits.cached_games:
                self._release_locks()
        return lock

    def _release_locks(self) -> None:
        """Drop the locks nobody holds or waits for, of games not in memory."""
        for game_id, lock in list(self.locks.items()):
            if not lock.locked() and game_id not in self.rows and game_id not in self.matches:
                del self.locks[game_id]

    def _evicted(self, game_id: int) -> None:
        """A game dropped out of memory: its lock goes too, if free."""
        lock = self.locks.get(game_id)
        if lock is not None and not lock.locked() and game_id not in self.rows and game_id not in self.matches:
            del self.locks[game_id]

    async def row(self, game_id: int) -> GameRow:
        """A game's stored row (kept while the game is active)."""
        try:
            row = await self.store.games.get(game_id)
        except NotFoundError:
            raise NoGameError(_("there is no game #{game_id}").format(game_id=game_id)) from None
        if row.is_active:
            self.rows[game_id] = row
        else:
            self.forget(game_id)
        return row

    async def active_row(self, game_id: int) -> GameRow:
        row = await self.row(game_id)
        if not row.is_active:
            raise NoGameError(_("game #{game_id} is over").format(game_id=game_id))
        return row

    def forget(self, game_id: int) -> None:
        """Drop what is cached of a game (it ended, or another process moved it on)."""
        self.matches.pop(game_id, None)
        self.rows.pop(game_id, None)
        lock = self.locks.get(game_id)
        if lock is not None and not lock.locked():
            del self.locks[game_id]

    def keep(self, game_id: int, version: int, match: Match) -> None:
        """Cache ``match`` as of ``version``, without the legal plays its game found:
        it waits for a player now, and states find them afresh (GameState.legal_plays)."""
        if match.game is not None:
            match.game.forget_legal_plays()
        self.matches[game_id] = (version, match)

    # -- the match of a row ------------------------------------------------------------

    async def match(self, row: GameRow) -> Match:
        """The match as of the row's version: cached, or rebuilt from the store."""
        cached = self.matches.get(row.id)
        if cached is not None and cached[0] == row.version:
            return cached[1]
        # Only the actions the row's version counts: another process may have
        # appended more between the two reads, and this state is "as of" the row.
        # A stored snapshot (engine.snapshot) spares replaying all but the tail.
        snapshot, tail = await self.store.games.snapshot_and_tail(row.id, format=SNAPSHOT_FORMAT, upto=row.version)
        actions = [a.action for a in tail]
        stored = snapshot.state if snapshot is not None else None
        try:
            match = await self._rebuild_soon(row.settings, actions, stored)
            if stored is not None and match.version != row.version:
                raise SnapshotError(f"it rebuilds version {match.version}, not {row.version}")
        except (SnapshotError, GameError, NotationError, IllegalPlayError) as error:
            if stored is None:
                raise
            # A snapshot that does not read back, or its tail does not apply:
            # the log alone decides (and the next snapshot replaces this one).
            log.warning(
                "game %s: snapshot at version %s not used (%s); replaying its log",
                row.id,
                snapshot.version if snapshot else None,
                error,
            )
            actions = [a.action for a in await self.store.games.actions(row.id) if a.seq <= row.version]
            match = await self._rebuild_soon(row.settings, actions, None)
        if row.is_active:
            self.keep(row.id, row.version, match)
        return match

    async def _rebuild_soon(
        self, settings: dict[str, Any], actions: list[dict[str, Any]], snapshot: str | None
    ) -> Match:
        """:meth:`rebuild`, on the loop when it is short (a tail of up to
        :data:`REBUILD_ON_LOOP` actions, a snapshot of up to :data:`SNAPSHOT_ON_LOOP`), else in a thread."""
        if len(actions) <= REBUILD_ON_LOOP and (snapshot is None or len(snapshot) <= SNAPSHOT_CHARACTERS_ON_LOOP):
            return self.rebuild(settings, actions, snapshot)
        return await self.off_loop(self.rebuild, settings, actions, snapshot)

    def rebuild(self, settings: dict[str, Any], actions: list[dict[str, Any]], snapshot: str | None = None) -> Match:
        """Replay a stored action log into a match (service-only actions skipped);
        with ``snapshot`` (:mod:`engine.snapshot`), the match it holds and then
        ``actions``, the log after it.

        :raises SnapshotError: for a snapshot the engine cannot read.
        """
        if snapshot is None:
            options = ChallengeOptions.from_dict(settings)
            source = self.dice_source(settings, len(dice_in_log(actions)))
            match = options.new_match(source)
        else:
            match = parse_snapshot(snapshot)
            thrown = len(dice_in_log(match.log)) + len(dice_in_log(actions))
            match.use_dice(self.dice_source(settings, thrown))
        for action in actions:
            if action.get("kind") in SERVICE_ACTIONS:
                continue
            match.apply(action)
        return match

    def dice_source(self, settings: dict[str, Any], thrown: int) -> DiceSource:
        """The game's dice, going on after ``thrown`` dice already in its log."""
        if self.dice is not None:
            return self.dice
        fair = settings.get("fair_dice")
        if not fair:
            return SecureDice()
        return FairDice(bytes.fromhex(fair["seed"]), fair["nonce"], counter=thrown, salt=fair.get("salt"))

    async def snapshot(self, version: int, added: int, match: Match) -> tuple[int, str] | None:
        """The snapshot to store with ``added`` actions appended at ``version``: one
        each time the log passes a multiple of ``Limits.snapshot_every`` (``match``
        is this step's own copy; a long one is written out in a thread)."""
        every = self.limits.snapshot_every
        if not isinstance(match, Match):
            return None  # plakoto, fevga, nardy, tavli: short logs of their own, replayed whole
        if (version + added) // every == version // every:
            return None
        if version + added <= SNAPSHOT_ON_LOOP:
            return SNAPSHOT_FORMAT, format_snapshot(match)
        return SNAPSHOT_FORMAT, await self.off_loop(format_snapshot, match)

    async def off_loop(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run CPU-heavy ``work`` (a long replay, a summary) in a thread, one at a
        time: the event loop keeps answering everyone meanwhile (a thread takes the
        interpreter from it only in short turns, and one thread at most)."""
        if self._heavy is None:
            self._heavy = asyncio.Semaphore(1)
        async with self._heavy:
            return await asyncio.to_thread(work, *args, **kwargs)

    # -- states ----------------------------------------------------------------------

    async def players(self, row: GameRow) -> tuple[PlayerRef, PlayerRef]:
        return (await self.names.get(row.player0), await self.names.get(row.player1))

    async def state(self, row: GameRow, match: Match) -> GameState:
        """The game ``row`` holds, with ``match`` as of its version (remembered as
        its channel's newest while it is active)."""
        players = await self.players(row)
        state = GameState(
            id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            players=players,
            options=ChallengeOptions.from_dict(row.settings),
            version=row.version,
            status=row.status,
            match=match,
            deadline=row.turn_deadline,
            board_message=row.board_message,
            board_version=row.board_version,
            result=row.result,
            fair_dice=public_fair_dice(row),
        )
        known = self.latest.get(row.channel_id)
        if row.is_active and (known is None or known.id != row.id or known.version <= row.version):
            self.latest[row.channel_id] = state
        elif not row.is_active and known is not None and known.id == row.id:
            del self.latest[row.channel_id]
        return state

    async def state_of(self, row: GameRow) -> GameState:
        """A stored game as it stands at its row's version."""
        return await self.state(row, await self.match(row))

    def peek_in_channel(self, channel_id: int) -> GameState | None:
        """The latest state of this channel's game this process has seen, without
        touching the database (for answers that can't wait, like autocomplete).
        It may be a moment behind another process; actions still check the version."""
        return self.latest.get(channel_id)

    # -- board messages ----------------------------------------------------------------

    def remember_board(self, game_id: int, board: tuple[int, int], version: int) -> None:
        """The game's new board message (the store has it already), for the cached
        row and for :meth:`known_board`."""
        known = self.boards.get(game_id)
        self.boards[game_id] = (board, version) if known is None or known[1] <= version else known
        cached = self.rows.get(game_id)
        if cached is not None and (cached.board_version is None or cached.board_version <= version):
            self.rows[game_id] = replace(
                cached, board_channel_id=board[0], board_message_id=board[1], board_version=version
            )

    def known_board(self, game_id: int) -> tuple[int, int] | None:
        """The newest board message of a game this process has recorded (no read):
        posting a board takes the controls off this one too, even if the caller
        looked at the game before another post replaced it."""
        known = self.boards.get(game_id)
        return known[0] if known is not None else None

    def shown_version(self, game_id: int) -> int | None:
        """The version of a game its newest board recorded by this process shows (no read)."""
        known = self.boards.get(game_id)
        return known[1] if known is not None else None


def public_fair_dice(row: GameRow, *, revealed: bool = False) -> dict[str, str] | None:
    """The dice commitment and nonce; the seed too once the game is over
    (``revealed``: the game is ending now)."""
    fair = row.settings.get("fair_dice")
    if not fair:
        return None
    public = {"commitment": fair["commitment"], "nonce": fair["nonce"]}
    if fair.get("salt"):
        public["salt"] = fair["salt"]
    if revealed or not row.is_active:
        public["seed"] = fair["seed"]  # revealed once the game is over
    return public
