"""What falls due by itself: challenges expiring, reminders, turns running out.

Each writes the message it owes to the outbox in its own transaction (the
dispatcher posts it, :mod:`bot.core.deliveries`). Safe to run in several
processes and after a restart: a reminder is claimed atomically, a timeout is
a compare-and-set forfeit and a challenge expires in one transaction, so each
happens once. Time the bot was down or cut off from Discord is not counted:
:meth:`Deadlines.beat` writes the gap down and moves the challenges' clocks on
by it, :meth:`Deadlines.settle_outages` the games'. With a shard
(shard count, shard ids) only games and challenges of guilds on those Discord
shards are handled, so the process that serves a guild claims its notices;
another shard's work is taken over once it is a few minutes overdue, but
its turn deadlines only while that shard is run (players whose shard is
down cannot move: their clocks wait, and are credited its outage).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot.core import narration
from bot.core.challenges import Challenges
from bot.core.deliveries import Deliveries
from bot.core.members import Members
from bot.core.model import (
    DUE_PER_SWEEP,
    EXPIRIES_PER_SWEEP,
    GameState,
    Notice,
    ServiceError,
    storage_errors_as_service_errors,
)
from bot.store import GameRow, Owed, Shard, StorageError, StorageFullError, Store
from bot.store.schedule import CREDIT_BATCH
from i18n import Said

log = logging.getLogger(__name__)

STALE_AFTER = timedelta(seconds=90)
"""A heartbeat older than this means the bot was away (beats come every :data:`HEARTBEAT`)."""
HEARTBEAT = timedelta(seconds=30)


@storage_errors_as_service_errors
class Deadlines:
    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime],
        challenges: Challenges,
        deliveries: Deliveries,
        state_of: Callable[[GameRow], Awaitable[GameState]],
        time_out: Callable[[GameRow], Awaitable[Notice | None]],
        expiries_per_sweep: int = EXPIRIES_PER_SWEEP,
        *,
        members: Members | None = None,
        due_per_sweep: int = DUE_PER_SWEEP,
    ) -> None:
        self.store = store
        self.clock = clock
        self.challenges = challenges
        self.deliveries = deliveries
        self.state_of = state_of
        self.time_out = time_out
        self.expiries_per_sweep = expiries_per_sweep
        self.due_per_sweep = due_per_sweep
        """Reminders and timeouts per pass (:data:`~bot.core.model.DUE_PER_SWEEP`)."""
        self.more_due = False
        """Whether the last pass stopped at a batch's end with more due (the next one comes at once)."""
        self.members = members
        """Members' preferences and vacations (None: reminders as they fall, nobody away)."""
        """Expired challenges tidied per pass: each costs a message edit, and a flood of
        challenges must not become a flood of edits (the rest go in later passes)."""

    async def beat(
        self, *, shard: Shard | None = None, now: datetime | None = None, coming_back: bool = False
    ) -> timedelta:
        """The bot is connected to Discord now (every :data:`HEARTBEAT`). When
        ``coming_back`` (at start-up, after a lost connection) and the last beat
        is older than :data:`STALE_AFTER`, the bot was away for the gap; returns
        it (0 if none). The challenges' and tournaments' clocks move on by it at
        once, with the beat; the games' are owed it, and move when the caller runs
        :meth:`settle_outages` (a batch at a time, when it suits the caller)."""
        gap = await self.store.schedule.beat(
            shard, now or self.clock(), stale_after=STALE_AFTER.total_seconds(), credit=coming_back
        )
        if gap:
            log.info("the bot was away for %s: deadlines moved on by that much", narration.span(timedelta(seconds=gap)))
        return timedelta(seconds=gap)

    async def settle_outages(
        self,
        *,
        shard: Shard | None = None,
        room: Callable[[], Awaitable[None]] | None = None,
        batch: int = CREDIT_BATCH,
    ) -> int:
        """Move the games' clocks on by the outages owed to the shard (written down
        by :meth:`beat`), ``batch`` games at a time, each batch in its own short
        transaction so clicks go on between them; an outage a crash left half
        credited is finished too. Before each batch, ``room()`` is awaited (not
        when nothing is owed): the Discord layer waits there for a quiet moment,
        so a saturated bot's players do not pay for it. The deadline sweep must
        wait until this returns (a game not yet credited would time out early).
        Returns the games looked at."""
        looked_at = 0
        while await self.store.schedule.credit_owed(shard):  # nothing owed: no wait for room
            if room is not None:
                await room()
            done = await self.store.schedule.credit_games(shard, batch=batch)
            if done is None:
                break  # another process finished it meanwhile
            looked_at += done
        return looked_at

    async def next_wakeup(self, *, shard: Shard | None = None) -> datetime | None:
        """When the next thing falls due (None: nothing is waiting)."""
        return await self.store.schedule.next_wakeup(shard=shard)

    async def process_due(self, now: datetime | None = None, *, shard: Shard | None = None) -> list[Notice]:
        """Do what is due, and say what to post: expired challenges, reminders, timeouts."""
        now = now or self.clock()
        notices: list[Notice] = []
        try:
            return await self._process_due(now, shard, notices)
        finally:
            if notices:
                self.deliveries.wake()

    async def _process_due(self, now: datetime, shard: Shard | None, notices: list[Notice]) -> list[Notice]:
        self.more_due = False
        expired = await self.store.schedule.expire_challenges(now, shard=shard, limit=self.expiries_per_sweep)
        reminders = await self.store.schedule.due_reminders(now, shard=shard, limit=self.due_per_sweep)
        deadlines = await self.store.schedule.due_deadlines(now, shard=shard, limit=self.due_per_sweep)
        full = (
            len(expired) >= self.expiries_per_sweep
            or len(reminders) >= self.due_per_sweep
            or len(deadlines) >= self.due_per_sweep
        )
        before = len(notices)
        for challenge in expired:
            view = self.challenges.keep(await self.challenges.view_of(challenge))
            notices.append(
                Notice(
                    "challenge_expired",
                    None,
                    view,
                    view.challenger.user_id,
                    Said(
                        "{name}'s challenge to {name2} expired unanswered",
                        name=view.challenger.name,
                        name2=view.challenged.name,
                    ),
                )
            )
        for row in reminders:
            if row.turn_deadline is not None and row.turn_deadline <= now:
                continue  # the timeout below covers it
            state = await self.state_of(row)
            player = state.to_act()
            if player is None:
                continue
            if state.options.team_at(state.game.turn) is not None:
                # a team in consultation: its open vote is reminded in its own thread
                await self.store.schedule.claim_reminder(row.id, row.version, None)
                continue
            members = self.members
            if members is not None and await members.hold_turn(row, state):
                continue  # on vacation: the clock waits
            prefs = await members.prefs(player.user_id) if members is not None else None
            if prefs is not None and not prefs.reminders:
                await self.store.schedule.claim_reminder(row.id, row.version, None)
                continue
            if prefs is not None and prefs.is_quiet(now):
                ends = prefs.quiet_ends(now)
                if row.turn_deadline is None or ends < row.turn_deadline:
                    await self.store.schedule.postpone_reminder(row.id, row.version, ends)
                    continue  # it comes when the quiet hours end
                # the turn runs out first: a reminder now, without a ping, beats none
            left = (row.turn_deadline - now) if row.turn_deadline else timedelta(0)
            text = (
                f"{player.name}, it's your move in game #{row.id}: {narration.span(left)} left before it is forfeited"
            )
            channel_id = row.board_channel_id or row.channel_id
            payload: dict[str, object] = {"user_id": player.user_id, "text": text, "name": player.name}
            payload["game"], payload["left"] = row.id, left.total_seconds()  # worded in the reader's language
            if prefs is not None and prefs.turn == "dm":
                payload["dm"] = True
            if prefs is not None and not prefs.pinged(now):
                payload["quiet"] = True
            owed = Owed("reminder", row.guild_id, channel_id, game_id=row.id, version=row.version, payload=payload)
            if await self.store.schedule.claim_reminder(row.id, row.version, owed) is None:
                continue
            notices.append(Notice("reminder", state, None, player.user_id, text))
        for row in deadlines:
            try:
                if self.members is not None and await self.members.hold_turn(row, await self.state_of(row)):
                    continue  # on vacation: the clock waits
                notice = await self.time_out(row)
            except (ServiceError, StorageFullError):  # a full disk: the store logged it once
                continue
            except StorageError:
                # Try again on the next pass; what was claimed above still goes out.
                log.warning("timeout of game %s failed; will retry", row.id, exc_info=True)
                continue
            if notice is not None:
                notices.append(notice)
        # A full batch that got somewhere may have left more behind: the scheduler
        # comes back at once (one that got nowhere waits, or it would spin).
        self.more_due = full and len(notices) > before
        return notices
