"""Members: how each may be reached (:mod:`bot.core.notifications`), their
daily digest, and their vacations.

- Preferences are read often (every board asks whether to ping its player),
  so each is kept for :data:`PREFS_TTL` seconds; a change made here is seen at
  once, one made by another process within that time.
- A vacation belongs to a server: up to a number of days each calendar year
  (the server's ``vacation_days``, else :data:`DEFAULT_VACATION_DAYS`). While
  it lasts, the member's move clocks wait: a turn that falls due is moved on
  by the time it had left when the vacation began (or when the turn began,
  if later), counted from the vacation's end. Coming back early gives the
  unused days back to the allowance and takes them off those turns again.
- The digest: at the member's hour, one direct message listing every game
  waiting for them, with its time left, the opponent's last play and a link.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.core import narration
from bot.core.lru import Lru
from bot.core.model import REMINDER_FRACTION, GameState, ServiceError, storage_errors_as_service_errors
from bot.core.notifications import Prefs
from bot.store import GameRow, Owed, Shard, Store, VacationRow
from engine import format_play
from i18n import _

PREFS_TTL = 60.0
KEPT_PREFS = 50_000
"""Members whose preferences are kept (the least recently used forgotten first)."""
DEFAULT_VACATION_DAYS = 14
MAX_VACATION_DAYS = 60
DIGEST_GAMES = 15
"""Games listed in one digest (the most urgent first)."""
DIGEST_GAP = timedelta(hours=20)
"""The least time between two digests, whatever the time zone or hour become meanwhile."""


class VacationError(ServiceError):
    """A vacation that cannot be taken or ended."""


@dataclass(frozen=True, slots=True)
class Away:
    """A vacation as a member sees it."""

    until: datetime
    days_left: float
    """Days of the year's allowance still unused, this vacation counted."""


def jump_url(guild_id: int, channel_id: int, message_id: int) -> str:
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


@storage_errors_as_service_errors
class Members:
    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime],
        state_of: Callable[[GameRow], Awaitable[GameState]],
        *,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.state_of = state_of
        self.wake = wake
        """Told when a digest is owed (the dispatcher)."""
        self._prefs: Lru[int, Prefs] = Lru(KEPT_PREFS, ttl=PREFS_TTL)
        self._away: dict[tuple[int, int], datetime] = {}
        """(guild, member) -> end of their vacation under way, as last read (see :meth:`refresh`)."""

    # -- preferences -------------------------------------------------------------------------

    async def prefs(self, user_id: int) -> Prefs:
        kept = self._prefs.get(user_id)
        if kept is not None:
            return kept
        prefs = Prefs.from_dict(await self.store.members.prefs(user_id))
        self._remember(user_id, prefs)
        return prefs

    def _remember(self, user_id: int, prefs: Prefs) -> None:
        self._prefs[user_id] = prefs

    async def set_prefs(self, user_id: int, **changes: Any) -> Prefs:
        """Change some preferences (:raises PreferenceError: for one that cannot be kept)."""
        prefs = (await self.prefs(user_id)).changed(**changes)
        await self.store.members.set_prefs(
            user_id, prefs.to_dict(), prefs.next_digest(self.clock()), digest_gap=DIGEST_GAP.total_seconds()
        )
        self._remember(user_id, prefs)
        return prefs

    async def pings(self, user_ids: list[int], *, turn: bool = False) -> list[int]:
        """Those of ``user_ids`` a message may mention now (``turn``: a board on their turn)."""
        now = self.clock()
        kept = []
        for user_id in user_ids:
            prefs = await self.prefs(user_id)
            if prefs.pings_on_turn(now) if turn else prefs.pinged(now):
                kept.append(user_id)
        return kept

    # -- vacations -----------------------------------------------------------------------------

    async def allowance(self, guild_id: int) -> int:
        days = (await self.store.servers.get(guild_id)).get("vacation_days")
        return int(days) if isinstance(days, int) and 0 <= days <= 366 else DEFAULT_VACATION_DAYS

    async def set_allowance(self, guild_id: int, days: int) -> None:
        if not 0 <= days <= 366:
            raise VacationError(_("a server's vacation allowance is 0 to 366 days a year"))
        await self.store.servers.update(guild_id, {"vacation_days": days})

    async def days_taken(self, guild_id: int, user_id: int, now: datetime | None = None) -> float:
        """Days of vacation the member took (or booked) in this server this calendar year."""
        now = now or self.clock()
        start = datetime(now.year, 1, 1, tzinfo=UTC)
        end = datetime(now.year + 1, 1, 1, tzinfo=UTC)
        taken = 0.0
        for vacation in await self.store.members.taken(guild_id, user_id, start, end):
            span = min(vacation.ends_at, end) - max(vacation.starts_at, start)
            taken += max(span.total_seconds(), 0.0) / 86400
        return taken

    async def back_at(self, guild_id: int, user_id: int) -> datetime | None:
        """When the member's vacation here ends, if they are on one (one read: for a challenge)."""
        vacation = await self.store.members.away(guild_id, user_id, self.clock())
        return vacation.ends_at if vacation is not None else None

    async def away(self, guild_id: int, user_id: int) -> Away | None:
        vacation = await self.store.members.away(guild_id, user_id, self.clock())
        if vacation is None:
            return None
        left = await self.allowance(guild_id) - await self.days_taken(guild_id, user_id)
        return Away(vacation.ends_at, max(left, 0.0))

    async def go_away(self, guild_id: int, user_id: int, days: int) -> Away:
        """Start a vacation of ``days`` days now, within the year's allowance."""
        if not 1 <= days <= MAX_VACATION_DAYS:
            raise VacationError(
                _("a vacation is 1 to {max_vacation_days} days").format(max_vacation_days=MAX_VACATION_DAYS)
            )
        now = self.clock()
        if await self.store.members.away(guild_id, user_id, now) is not None:
            raise VacationError(_("you're already on vacation here: `vacation_days: 0` ends it"))
        allowance = await self.allowance(guild_id)
        left = allowance - await self.days_taken(guild_id, user_id, now)
        if days > left + 1e-9:
            raise VacationError(
                _("this server allows {allowance} days of vacation a year and you have {max} left").format(
                    allowance=allowance, max=max(int(left), 0)
                )
            )
        vacation = await self.store.members.start_vacation(guild_id, user_id, now, now + timedelta(days=days))
        self._away[(guild_id, user_id)] = vacation.ends_at
        return Away(vacation.ends_at, left - days)

    async def come_back(self, guild_id: int, user_id: int) -> list[int]:
        """End the vacation under way: the unused days go back to the allowance and
        come off the turns it held up. Returns those games."""
        now = self.clock()
        vacation = await self.store.members.away(guild_id, user_id, now)
        if vacation is None:
            raise VacationError(_("you're not on vacation here"))
        self._away.pop((guild_id, user_id), None)
        return await self.store.members.end_vacation(vacation.id, now, (vacation.ends_at - now).total_seconds())

    def away_until(self, guild_id: int, user_id: int) -> datetime | None:
        """The end of the member's vacation here as last read (no database trip: boards ask)."""
        until = self._away.get((guild_id, user_id))
        if until is not None and until <= self.clock():
            self._away.pop((guild_id, user_id), None)
            return None
        return until

    async def refresh(self) -> None:
        """Read the vacations under way (each pass of the scheduler: other processes' too)."""
        now = self.clock()
        self._away = {(v.guild_id, v.user_id): v.ends_at for v in await self.store.members.current(now)}

    async def hold_turn(self, row: GameRow, state: GameState) -> bool:
        """A turn fell due (its reminder or deadline): if its player is on vacation
        in the game's server, move it on past the vacation and say True."""
        actor = state.to_act()
        if actor is None or actor.is_bot or row.turn_deadline is None:
            return False
        now = self.clock()
        vacation = await self.store.members.away(row.guild_id, actor.user_id, now)
        if vacation is None:
            return False
        deadline, added = paused_deadline(row.turn_deadline, timedelta(days=state.options.move_days), vacation)
        move_time = timedelta(days=state.options.move_days)
        reminder = deadline - move_time * (1 - REMINDER_FRACTION)
        await self.store.members.pause_turn(vacation.id, row.id, row.version, deadline, reminder, added.total_seconds())
        self._away[(row.guild_id, actor.user_id)] = vacation.ends_at
        return True

    # -- the digest --------------------------------------------------------------------------

    async def next_digest(self, shard: Shard | None = None) -> datetime | None:
        due = await self.store.members.due_digests(datetime.max.replace(tzinfo=UTC), limit=1)
        return due[0][1] if due else None

    async def send_digests(self, now: datetime, shard: Shard | None = None) -> int:
        """Write every digest due to the outbox (once each, whichever process claims it)."""
        await self.refresh()
        written = 0
        for user_id, due, data in await self.store.members.due_digests(now):
            prefs = Prefs.from_dict(data)
            owed = await self.digest(user_id, now)
            following = prefs.next_digest(now)
            if owed is not None and following is not None:
                following = max(following, now + DIGEST_GAP)
            if await self.store.members.claim_digest(user_id, due, following, owed):
                written += owed is not None
        if written:
            self.wake()
        return written

    async def digest(self, user_id: int, now: datetime) -> Owed | None:
        """The digest a member is owed now: every game waiting for them (None: nothing waits)."""
        waiting: list[tuple[datetime, GameState]] = []
        for row in await self.store.games.active_for(user_id):
            state = await self.state_of(row)
            actor = state.to_act()
            if actor is not None and actor.user_id == user_id:
                waiting.append((row.turn_deadline or now + timedelta(days=365), state))
        if not waiting:
            return None
        waiting.sort(key=lambda item: item[0])
        games = [digest_item(state, user_id, deadline, now) for deadline, state in waiting[:DIGEST_GAMES]]
        first = waiting[0][1]
        channel = first.board_message[0] if first.board_message else first.channel_id
        return Owed(
            "digest",
            first.guild_id,
            channel,
            payload={
                "user_id": user_id,
                "games": games,
                "more": max(len(waiting) - DIGEST_GAMES, 0),
            },
        )


def paused_deadline(deadline: datetime, move_time: timedelta, vacation: VacationRow) -> tuple[datetime, timedelta]:
    """A turn's deadline with its clock stopped for ``vacation``: the time it had
    left when the vacation (or the turn, if later) began, counted from the
    vacation's end. Returns the new deadline and the time added."""
    paused_from = max(vacation.starts_at, deadline - move_time)
    left = max(deadline - paused_from, timedelta(0))
    new = max(vacation.ends_at + left, deadline)
    return new, new - deadline


def digest_item(state: GameState, user_id: int, deadline: datetime, now: datetime) -> dict[str, Any]:
    """One game of a digest: its number, the opponent, the time left, their last play, a link."""
    seat = state.seat(user_id)
    last = state.game.last_play
    return {
        "game": state.id,
        "opponent": state.players[1 - seat].name if seat is not None else "?",
        "left": narration.span(deadline - now),
        "last": format_play(last[1]) if last is not None and last[0] != seat else None,
        "link": jump_url(state.guild_id, *state.board_message) if state.board_message else None,
    }
