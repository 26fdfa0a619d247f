"""Deliveries: what the outbox owes the players, worded and ready to post.

Every change players must see writes what it owes in its own transaction
(:mod:`bot.store.outbox`): a board when a game moves, a reminder, the final
board of a timeout, the notice of an expired challenge. The command or click
that made the change usually delivers its board at once; the Discord layer's
dispatcher delivers the rest, and everything a crash or an outage left owed.

Two deliverers must not post the same thing: the entries a command of this
process is delivering are *held* (:meth:`Deliveries.hold`) until it settles
them, or for at most :data:`HOLD_SECONDS` (a command that died on the way).
A delivery that may already have reached Discord before a crash is marked
:attr:`~bot.core.model.Delivery.retried`: the deliverer looks before it posts.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

from bot.core import narration
from bot.core.challenges import Challenges
from bot.core.model import ChallengeError, Delivery, GameState, Outcome, storage_errors_as_service_errors
from bot.store import GameRow, NotFoundError, OutboxEntry, Owed, Shard, Store
from engine import Match
from i18n import Said, _

log = logging.getLogger(__name__)

HOLD_SECONDS = 60.0
"""How long entries held by a command wait for it before the dispatcher takes them."""
FIRST_RETRY = timedelta(seconds=5)
LAST_RETRY = timedelta(minutes=10)
MAX_ATTEMPTS = 12
"""Attempts (with back-off, about an hour and a half in all) before a message is given up."""


def board_debt(
    *,
    guild_id: int,
    channel_id: int,
    game_id: int,
    version: int,
    since: int,
    match: Match,
    forced: Iterable[int],
    headline: str | None = None,
    ping: Iterable[int] = (),
) -> Owed:
    """The board a change of ``game_id`` owes: the game at ``version``, telling
    what happened from ``match.log[since]`` on (``forced``: ids of the log's
    forced plays), under ``headline`` (a notice) pinging ``ping``."""
    forced = set(forced)
    payload: dict[str, Any] = {"since": since}
    indices = [i for i, action in enumerate(match.log) if id(action) in forced]
    if indices:
        payload["forced"] = indices
    if headline:
        payload["headline"] = headline
        if isinstance(headline, Said):  # worded when delivered, in the channel's language
            payload["said_headline"] = headline.dump()
        payload["ping"] = list(dict.fromkeys(ping))  # whom it is about first
    return Owed("board", guild_id, channel_id, game_id=game_id, version=version, payload=payload)


OwedEntries = list[OutboxEntry]
"""Entries owed together, unworded (a game's boards): :meth:`Deliveries.owed_entries`, :meth:`Deliveries.word`."""

Wording = Callable[[OutboxEntry], Awaitable["Delivery | None"]]
"""Turns an owed entry into a :class:`~bot.core.model.Delivery` (None: nothing left to say)."""


def notice(
    guild_id: int,
    channel_id: int,
    text: str,
    *,
    ping: Iterable[int] = (),
    game_id: int | None = None,
    when: datetime | None = None,
    after: str = "",
) -> Owed:
    """A line of text a change owes a channel, pinging ``ping`` (write it with
    :func:`bot.store.outbox.add` in the change's transaction). ``when``: a moment shown
    after ``text`` in the reader's time zone, then ``after`` (the text is escaped, the
    moment is not)."""
    payload: dict[str, Any] = {"text": text, "ping": list(dict.fromkeys(ping))}
    if isinstance(text, Said):  # worded when delivered, in its readers' language
        payload["said"] = text.dump()
    if when is not None:
        payload.update(when=int(when.timestamp()), after=after)
        if isinstance(after, Said):
            payload["said_after"] = after.dump()
    return Owed("notice", guild_id, channel_id, game_id=game_id, payload=payload)


@storage_errors_as_service_errors
class Deliveries:
    """The outbox, seen from the core: hold, settle, and word what is owed."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime],
        challenges: Challenges,
        state_of: Callable[[GameRow], Awaitable[GameState]],
        on_board: Callable[[int, tuple[int, int], int], None] = lambda game_id, board, version: None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.challenges = challenges
        self.state_of = state_of
        self.on_board = on_board
        """Told of every game's new board message (the game service's cache)."""
        self._held: dict[int, float] = {}
        self._storing: dict[int, int] = {}
        """game id -> actions of it being stored now (see :meth:`storing`)."""
        self._suspect: set[int] = set()
        """Entries a failed delivery of this process may have posted all the same."""
        self.wordings: dict[str, Wording] = {
            "reminder": self._reminder,
            "challenge_expired": self._expired,
            "notice": self._notice,
            "digest": self._digest,
        }
        """How each kind of entry is worded (boards are worded together, per game). A
        feature that owes its own kind of message adds its wording here."""
        self.wakers: list[Callable[[], None]] = []
        """Told when something is owed that no command is delivering (the dispatcher)."""
        self.started_at = clock()

    # -- holding ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def storing(self, game_id: int) -> Iterator[None]:
        """While an action of ``game_id`` is being stored: the board it owes is in the
        outbox from its commit on, but the command holds it only once the store
        answers; meanwhile the dispatcher must not post that board too (under load
        it did: a second board of the same turn, with live buttons)."""
        self._storing[game_id] = self._storing.get(game_id, 0) + 1
        try:
            yield
        finally:
            left = self._storing[game_id] - 1
            if left:
                self._storing[game_id] = left
            else:
                del self._storing[game_id]

    def _waits(self, entry: OutboxEntry) -> bool:
        """Whether a command of this process delivers ``entry`` (held, or its game's action being stored)."""
        return self._is_held(entry.id) or (entry.kind == "board" and entry.game_id in self._storing)

    def hold(self, entry_ids: Iterable[int]) -> None:
        """A command of this process will deliver these itself."""
        now = time.monotonic()
        for entry_id in entry_ids:
            self._held[entry_id] = now

    def release(self, entry_ids: Iterable[int], *, maybe_posted: bool = False) -> None:
        """The command could not deliver them (``maybe_posted``: it may have, as far
        as it knows, before it failed): the dispatcher takes over."""
        released = False
        for entry_id in entry_ids:
            released |= self._held.pop(entry_id, None) is not None
            if maybe_posted:
                self._suspect.add(entry_id)
        if released:
            self.wake()

    def wake(self) -> None:
        for waker in self.wakers:
            waker()

    def _is_held(self, entry_id: int) -> bool:
        since = self._held.get(entry_id)
        if since is None:
            return False
        if time.monotonic() - since > HOLD_SECONDS:
            del self._held[entry_id]
            return False
        return True

    # -- settling --------------------------------------------------------------------------

    async def delivered(
        self,
        entry_ids: Iterable[int],
        *,
        state: GameState | None = None,
        board: tuple[int, int] | None = None,
    ) -> None:
        """The entries are delivered; with ``state`` and ``board``, that message
        now shows the game as of ``state`` (its live board).

        The entries stay held until the store has settled them: a dispatcher
        pass reading the outbox meanwhile would otherwise find them owed and
        held by nobody, and post the board again (under load it did, a turn or
        two late, with live buttons)."""
        ids = list(entry_ids)
        try:
            if not ids and board is None:
                return
            if state is None or board is None:
                await self.store.outbox.delivered(ids)
                return
            await self.store.outbox.delivered(ids, game_id=state.id, board=board, version=state.version)
            self.on_board(state.id, board, state.version)
        finally:
            for entry_id in ids:
                self._held.pop(entry_id, None)
                self._suspect.discard(entry_id)

    async def failed(self, delivery: Delivery, *, permanent: bool = False) -> None:
        """An attempt failed: try again later with back-off, or give up."""
        for entry_id in delivery.entries:
            self._held.pop(entry_id, None)
            self._suspect.discard(entry_id)
        if permanent or delivery.attempts + 1 >= MAX_ATTEMPTS:
            log.warning(
                "giving up a %s message to channel %s after %d attempts",
                delivery.kind,
                delivery.channel_id,
                delivery.attempts + 1,
            )
            await self.store.outbox.delivered(delivery.entries)
            return
        wait = min(FIRST_RETRY * (2**delivery.attempts), LAST_RETRY)
        for entry_id in delivery.entries:
            await self.store.outbox.retry_later(entry_id, self.clock() + wait)

    async def next_attempt(self, *, shard: Shard | None = None) -> datetime | None:
        return await self.store.outbox.next_attempt(shard=shard)

    # -- what is owed ------------------------------------------------------------------------

    async def owed(
        self,
        now: datetime | None = None,
        *,
        shard: Shard | None = None,
        kinds: Sequence[str] | None = None,
        not_kinds: Sequence[str] = (),
        limit: int = 50,
    ) -> list[Delivery]:
        """What is due for delivery now and held by no command, worded; a game's
        owed boards become one (the game as it stands, everything since the
        last board shown). Entries there is nothing left to say for (a
        reminder of a turn already played, a game gone) are settled here."""
        found = await self.owed_entries(now, shard=shard, kinds=kinds, not_kinds=not_kinds, limit=limit)
        deliveries = []
        for entries in found:
            delivery = await self.word(entries)
            if delivery is not None:
                deliveries.append(delivery)
        return deliveries

    async def owed_entries(
        self,
        now: datetime | None = None,
        *,
        shard: Shard | None = None,
        kinds: Sequence[str] | None = None,
        not_kinds: Sequence[str] = (),
        limit: int = 50,
    ) -> list[OwedEntries]:
        """What :meth:`owed` finds, not yet worded (:meth:`word` each, when it is its
        turn to go out: wording a board rebuilds its game): a game's owed boards
        together, in the order they were owed."""
        now = now or self.clock()
        found = await self.store.outbox.owed(
            now, shard=shard, kinds=None if kinds is None else tuple(kinds), not_kinds=tuple(not_kinds), limit=limit
        )
        groups: list[OwedEntries] = []
        boards: dict[int, OwedEntries] = {}
        for entry in found:
            if self._waits(entry):
                continue
            if entry.kind == "board" and entry.game_id is not None:
                if entry.game_id in boards:
                    boards[entry.game_id].append(entry)
                    continue
                boards[entry.game_id] = [entry]
                groups.append(boards[entry.game_id])
            else:
                groups.append([entry])
        return groups

    async def word(self, entries: OwedEntries) -> Delivery | None:
        """The delivery owed ``entries`` (from :meth:`owed_entries`), worded now; None
        when there is nothing left to say (settled here), or a command is posting
        the game's newest board (it settles these too)."""
        entry = entries[0]
        try:
            if entry.kind == "board" and entry.game_id is not None:
                delivery = await self._board(entries)
                if delivery is None:
                    return None
            else:
                wording = self.wordings.get(entry.kind)
                delivery = await wording(entry) if wording is not None else None
        except NotFoundError:
            delivery = None
        if delivery is None:
            await self.store.outbox.delivered([entry.id])  # nothing left to say
        return delivery

    def retried(self, entries: Iterable[OutboxEntry]) -> bool:
        """Whether an earlier attempt (or a process before a crash) may have posted
        these entries: the deliverer looks before it posts (for a feature's wordings)."""
        return any(e.attempts > 0 or e.created_at < self.started_at or e.id in self._suspect for e in entries)

    async def _board(self, entries: list[OutboxEntry]) -> Delivery | None:
        # Every owed board of the game, even ones not yet due: the newest shows it all.
        game_id = entries[0].game_id
        assert game_id is not None
        everything = await self.store.outbox.for_game(game_id)
        boards = [e for e in everything if e.kind == "board"]
        if not boards or any(self._waits(e) for e in boards):
            return None  # settled since the outbox was read (a command posted the board), or being posted
        row = await self.store.games.get(game_id)
        state = await self.state_of(row)
        match = state.match
        since = min(int(e.payload.get("since", 0)) for e in boards)
        log_now = match.log
        forced = {id(log_now[i]) for e in boards for i in e.payload.get("forced", ()) if i < len(log_now)}
        events = narration.describe(state, match, since, forced)
        changes = await self.store.ratings.changes_of(game_id) if state.status == "finished" else []
        last = boards[-1].payload
        return Delivery(
            kind="board",
            entries=tuple(e.id for e in boards),
            guild_id=state.guild_id,
            channel_id=boards[-1].channel_id,
            attempts=max(e.attempts for e in boards),
            retried=self.retried(boards),
            outcome=Outcome(state, events, changes, owed=tuple(e.id for e in boards)),
            headline=Said.load(last.get("said_headline")) or last.get("headline"),
            ping=tuple(last.get("ping", ())),
        )

    async def _reminder(self, entry: OutboxEntry) -> Delivery | None:
        assert entry.game_id is not None
        row = await self.store.games.get(entry.game_id)
        if not row.is_active or row.version != entry.version:
            return None  # the turn was played (or the game ended) meanwhile
        user_id = entry.payload.get("user_id")
        return Delivery(
            kind="reminder",
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self.retried([entry]),
            board_message=row.board_message,
            text=str(entry.payload.get("text", "")),
            ping=(int(user_id),) if user_id and not entry.payload.get("quiet") else (),
            dm_to=int(user_id) if user_id and entry.payload.get("dm") else None,
            data={k: entry.payload[k] for k in ("name", "game", "left") if k in entry.payload},
        )

    async def _digest(self, entry: OutboxEntry) -> Delivery:
        user_id = int(entry.payload.get("user_id", 0))
        return Delivery(
            kind="digest",
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self.retried([entry]),
            ping=(user_id,),
            dm_to=user_id,
            data=dict(entry.payload),
        )

    async def _notice(self, entry: OutboxEntry) -> Delivery:
        return Delivery(
            kind="notice",
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self.retried([entry]),
            text=Said.load(entry.payload.get("said")) or str(entry.payload.get("text", "")),
            ping=tuple(int(u) for u in entry.payload.get("ping", ())),
            data={
                **{k: entry.payload[k] for k in ("when", "after") if k in entry.payload},
                **({"after": said} if (said := Said.load(entry.payload.get("said_after"))) else {}),
            },
        )

    async def _expired(self, entry: OutboxEntry) -> Delivery | None:
        if entry.challenge_id is None:
            return None
        try:
            challenge = await self.challenges.get(entry.challenge_id)
        except ChallengeError:
            return None
        return Delivery(
            kind="challenge_expired",
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self.retried([entry]),
            challenge=challenge,
            text=_("{name}'s challenge to {name2} expired unanswered").format(
                name=challenge.challenger.name, name2=challenge.challenged.name
            ),
        )
