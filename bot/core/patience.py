"""Serpent Poker Patience, the bot's second game: a puzzle a whole server plays.

Twenty-five cards dealt face up in a known order are laid one by one on a 5
by 5 grid, each a rook's step from the one before; the rows and columns then
score as poker hands (:mod:`engine.patience`). A member lays out a deal as an
*attempt*, card by card, with undo, and submits it once it is complete; the
answer is their score, the best score of the deal and a best layout (the
engine's exact solver, run in a thread so the event loop never waits on it).

Three kinds of deal:

- ``daily``: the server's deal of the UTC day, the same for every member, in
  English scoring. It is drawn, on the day's first ask, from a secret seed
  (:func:`engine.patience.deal_from_seed`, nonce ``patience:<guild>:<day>``)
  whose SHA-256 commitment is shown with the deal; the seed is shown once the
  day is over, so anyone can check the deal was fixed in advance. One
  attempt, so one submission, per member and day; a day's leaderboard ranks
  the submissions, and a member's *streak* counts the consecutive UTC days,
  up to today, on which they submitted the daily deal (a streak still stands
  on a day they have not played yet: it ends only when a whole day passes).
- ``hoyle``: the deal of Hoyle's worked example (best: 81).
- ``random``: a fresh deal from a new secret seed (kept with the attempt).

Every card laid is stored before the answer, with a compare-and-set on the
attempt's version: a stale button or a second panel never lays a card on a
layout its player did not see, and a restart loses nothing. A square the rule
forbids, or any bad input, is refused with the engine's reason and changes
nothing. No Discord types here (``tests/test_layers.py``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from bot.core.lru import Lru
from bot.core.model import PlayerRef, ServiceError, storage_errors_as_service_errors
from bot.core.players import PlayerNames
from bot.store import ConstraintError, GameOverError, NotFoundError, StaleVersionError, Store
from bot.store.patience import AttemptRow, DailyDealRow
from engine.fairdice import new_seed
from engine.patience import (
    ENGLISH,
    HOYLE_DEAL,
    SCORINGS,
    Card,
    Cell,
    CellError,
    Deal,
    Layout,
    PlacementError,
    Scoring,
    deal_from_seed,
    parse_path,
    prepare,
    scoring_named,
    solve,
)
from i18n import N_, _, worded

log = logging.getLogger(__name__)

Kind = Literal["daily", "hoyle", "random"]
KINDS: tuple[Kind, ...] = ("daily", "hoyle", "random")
DAILY_SCORING = ENGLISH
"""The daily deal is scored the English way (Hoyle's), for everyone."""
RANDOM_NONCE = "patience:random"
FIRST_DAY = "2000-01-01"
"""No daily deal before this day: an earlier one is refused (and a streak's look back stays in range)."""
STREAK_DAYS = 1000
"""Streaks are counted up to this many days back."""
KEPT_SOLUTIONS = 256
KEPT_DAILIES = 10_000

TITLES: dict[str, str] = {"daily": N_("Daily deal"), "hoyle": N_("Hoyle's deal"), "random": N_("Random deal")}
SCORING_NAMES: dict[str, str] = {"english": N_("English"), "american": N_("American")}
"""The score tables' names as members read them (translated where used)."""


def scoring_name(name: str) -> str:
    """The name of the score table ``name`` (``"english"``) in the language in force."""
    return _(SCORING_NAMES[name]) if name in SCORING_NAMES else name


class PatienceError(ServiceError):
    """A patience action was refused; nothing changed."""


class StaleLayoutError(PatienceError):
    """The layout changed since the player looked at it (another click, another panel)."""

    def __init__(self, attempt: Attempt, message: str | None = None) -> None:
        super().__init__(message or _("that layout has moved on since: here it is as it stands"))
        self.attempt = attempt


def daily_nonce(guild_id: int, day: str) -> str:
    """What a server's daily deal of ``day`` is drawn with (besides its seed)."""
    return f"patience:{guild_id}:{day}"


def streak_ending(days: set[str], end: date) -> int:
    """Consecutive days in ``days`` (``YYYY-MM-DD``) ending on ``end``."""
    count = 0
    while (end - timedelta(days=count)).isoformat() in days:
        count += 1
    return count


# -- values -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Attempt:
    """A member's layout of a deal as it stands."""

    id: int
    guild_id: int
    user_id: int
    kind: Kind
    day: str | None
    """The daily deal's day (``YYYY-MM-DD``, UTC); None for the other kinds."""
    layout: Layout
    scoring: Scoring
    version: int
    """Goes up with every card laid or taken back (the buttons carry it)."""
    submitted: bool
    score: int | None
    """The submitted score (None until submitted)."""
    best: int | None
    """The deal's best score, known once submitted."""
    started_at: datetime
    finished_at: datetime | None
    commitment: str | None = None
    """The daily deal's seed commitment (SHA-256, hex)."""
    seed: str | None = None
    """A random deal's seed (hex): the deal is ``deal_from_seed(bytes.fromhex(seed), "patience:random")``."""

    @property
    def deal(self) -> Deal:
        return self.layout.deal

    @property
    def placed(self) -> int:
        return self.layout.placed

    @property
    def complete(self) -> bool:
        return self.layout.is_complete

    @property
    def next_card(self) -> Card | None:
        return self.layout.next_card

    @property
    def legal_cells(self) -> tuple[Cell, ...]:
        """The squares the next card may go on (none once complete or submitted)."""
        return () if self.submitted else self.layout.legal_cells()

    @property
    def points(self) -> int:
        """The layout's score as it stands (final once complete)."""
        return self.layout.score(self.scoring)

    @property
    def title(self) -> str:
        """``Daily deal 2026-03-02``, ``Hoyle's deal``, ``Random deal``."""
        return f"{_(TITLES[self.kind])} {self.day}" if self.day else _(TITLES[self.kind])


@dataclass(frozen=True, slots=True)
class PatienceResult:
    """A submitted layout and the deal's best."""

    attempt: Attempt
    best_layout: Layout | None
    """None for a daily deal while its day is on: the best is shown once the day is over
    (else a member who submitted could hand the best layout to those who have not)."""
    streak: int | None = None
    """Daily: the member's streak with this day (None for the other kinds)."""
    rank: int | None = None
    """Daily: the layout's place among the day's submissions so far (ties share a place)."""
    entrants: int | None = None
    """Daily: how many have submitted the day's deal so far."""
    just_submitted: bool = False
    """True for the answer to the submission itself (False when shown again)."""

    @property
    def score(self) -> int:
        assert self.attempt.score is not None
        return self.attempt.score

    @property
    def best(self) -> int | None:
        return None if self.best_layout is None else self.best_layout.score(self.attempt.scoring)


@dataclass(frozen=True, slots=True)
class DailyStanding:
    rank: int
    user_id: int
    name: str
    score: int
    streak: int


@dataclass(frozen=True, slots=True)
class DailyBoard:
    """A server's leaderboard of one day's deal."""

    guild_id: int
    day: str
    over: bool
    """The day has ended: the seed and the best score are shown."""
    standings: tuple[DailyStanding, ...]
    entrants: int
    deal: Deal | None = None
    """None when nobody asked for the day's deal."""
    commitment: str | None = None
    nonce: str | None = None
    seed: str | None = None
    """Shown once the day is over."""
    best: int | None = None
    """The deal's best score, once the day is over."""


# -- the service ------------------------------------------------------------------------------


@storage_errors_as_service_errors
class PatienceService:
    """Patience over a :class:`~bot.store.Store` (``GameService.patience``).

    :param names: the players' names (shared with the game service).
    :param clock: the current UTC time (the day of the daily deal).
    :param seed_source: where the secret seeds of daily and random deals come from.
    """

    def __init__(
        self,
        store: Store,
        names: PlayerNames,
        clock: Callable[[], datetime],
        seed_source: Callable[[], bytes] = new_seed,
    ) -> None:
        self.store = store
        self.names = names
        self.clock = clock
        self.seed_source = seed_source
        self._dailies: Lru[tuple[int, str], DailyDealRow] = Lru(KEPT_DAILIES)
        self._solutions: Lru[tuple[str, str], Layout] = Lru(KEPT_SOLUTIONS)

    def today(self) -> str:
        """The UTC day now, ``YYYY-MM-DD``."""
        return self.clock().astimezone(UTC).date().isoformat()

    async def warm_up(self) -> None:
        """Build the solver's tables in a thread now, not in the first submission."""
        await asyncio.to_thread(prepare, *SCORINGS.values())

    # -- deals ----------------------------------------------------------------------------------

    async def daily_deal(self, guild_id: int) -> DailyDealRow:
        """The server's deal of today, drawn from a new secret seed on the day's first ask."""
        day = self.today()
        known = await self._daily(guild_id, day)
        if known is not None:
            return known
        seed = self.seed_source()
        nonce = daily_nonce(guild_id, day)
        row = await self.store.patience.create_daily(
            guild_id,
            day,
            seed=seed.hex(),
            commitment=hashlib.sha256(seed).hexdigest(),
            nonce=nonce,
            deal=str(deal_from_seed(seed, nonce)),
        )
        self._keep_daily(row)
        return row

    async def _daily(self, guild_id: int, day: str) -> DailyDealRow | None:
        known = self._dailies.get((guild_id, day))
        if known is None:
            known = await self.store.patience.daily(guild_id, day)
            if known is not None:
                self._keep_daily(known)
        return known

    def _keep_daily(self, row: DailyDealRow) -> None:
        self._dailies[(row.guild_id, row.day)] = row

    async def best_layout(self, deal: Deal, scoring: Scoring = ENGLISH) -> Layout:
        """A best layout of ``deal`` (the exact solver, in a thread; kept for the next ask)."""
        key = (str(deal), scoring.name)
        found = self._solutions.get(key)
        if found is None:
            found = await asyncio.to_thread(solve, deal, scoring)
            self._solutions[key] = found
        return found

    # -- attempts -------------------------------------------------------------------------------

    async def start(
        self,
        guild_id: int,
        player: PlayerRef,
        kind: Kind,
        *,
        scoring: str | None = None,
        new: bool = False,
    ) -> Attempt:
        """The member's layout of a deal: the one in progress (or, daily, today's
        whether submitted or not), else a new one.

        ``scoring`` (``english`` or ``american``; hoyle and random only) is the
        table of a new layout; ``new`` drops a Hoyle's or random layout in progress
        and starts again (random: with a fresh deal).
        """
        if kind not in KINDS:
            raise PatienceError(_("there is no {kind!r} deal: choose daily, hoyle or random").format(kind=kind))
        table = _scoring(scoring) if scoring is not None else None
        if kind == "daily":
            if table is not None and table != DAILY_SCORING:
                raise PatienceError(
                    _("the daily deal is scored the {name} way, for everyone").format(
                        name=scoring_name(DAILY_SCORING.name)
                    )
                )
            if new:
                raise PatienceError(_("the daily deal is laid out once a day: take cards back with undo instead"))
            return await self._start_daily(guild_id, player)
        if not new:
            row = await self.store.patience.open_attempt(guild_id, player.user_id, kind)
            if row is not None:
                if table is not None and row.scoring != table.name:
                    raise PatienceError(
                        _(
                            "your {titles} in progress is scored the {scoring} way: finish it, or start a new one to play it the {name} way"
                        ).format(
                            titles=_(TITLES[kind]), scoring=scoring_name(row.scoring), name=scoring_name(table.name)
                        )
                    )
                return await self._attempt(row)
        table = table or ENGLISH
        seed: bytes | None = None
        if kind == "hoyle":
            deal = HOYLE_DEAL
        else:
            seed = self.seed_source()
            deal = deal_from_seed(seed, RANDOM_NONCE)
        await self.names.remember(player)
        try:
            row = await self.store.patience.start(
                guild_id,
                player.user_id,
                kind,
                deal=str(deal),
                scoring=table.name,
                seed=None if seed is None else seed.hex(),
                replace=new,
            )
        except ConstraintError:  # a start racing this one won: theirs is the layout in progress
            row = await self.store.patience.open_attempt(guild_id, player.user_id, kind)
            if row is None:
                raise
        return await self._attempt(row)

    async def _start_daily(self, guild_id: int, player: PlayerRef) -> Attempt:
        daily = await self.daily_deal(guild_id)
        row = await self.store.patience.daily_attempt(guild_id, player.user_id, daily.day)
        if row is None:
            await self.names.remember(player)
            try:
                row = await self.store.patience.start(
                    guild_id, player.user_id, "daily", deal=daily.deal, scoring=DAILY_SCORING.name, day=daily.day
                )
            except ConstraintError:  # a start racing this one won
                row = await self.store.patience.daily_attempt(guild_id, player.user_id, daily.day)
                if row is None:
                    raise
        return await self._attempt(row)

    async def attempt(self, attempt_id: int, user_id: int) -> Attempt:
        """A member's own layout by its id."""
        return await self._mine(attempt_id, user_id)

    async def current(self, guild_id: int, user_id: int, kind: Kind | None = None) -> Attempt:
        """The member's layout in progress in a server: of ``kind``, or the one touched last."""
        if kind == "daily":
            row = await self.store.patience.daily_attempt(guild_id, user_id, self.today())
            row = row if row is not None and not row.submitted else None
        elif kind is not None:
            row = await self.store.patience.open_attempt(guild_id, user_id, kind)
        else:
            row = await self.store.patience.latest_open(guild_id, user_id, self.today())
        if row is None:
            which = f"{_(TITLES[kind]).lower()} " if kind else ""
            raise PatienceError(_("you have no {which}layout in progress here: start one first").format(which=which))
        return await self._attempt(row)

    async def place(self, attempt_id: int, user_id: int, square: str, *, version: int | None = None) -> Attempt:
        """Lay the next card on ``square`` (``C3``).

        :raises PatienceError: the square is not one the rule allows (the engine's reason), the
            layout is complete or submitted, or a daily layout's day is over.
        :raises StaleLayoutError: ``version`` is not the layout's (nothing laid).
        """
        attempt = await self._playable(attempt_id, user_id, version)
        try:
            layout = attempt.layout.place(square)
        except (CellError, PlacementError) as error:
            raise PatienceError(worded(error)) from None
        return await self._save(attempt, layout)

    async def undo(self, attempt_id: int, user_id: int, *, version: int | None = None) -> Attempt:
        """Take the last card back (any number of times until the layout is submitted)."""
        attempt = await self._playable(attempt_id, user_id, version)
        try:
            layout = attempt.layout.undo()
        except PlacementError as error:
            raise PatienceError(worded(error)) from None
        return await self._save(attempt, layout)

    async def lay(self, guild_id: int, user_id: int, squares: str, *, kind: Kind | None = None) -> Attempt:
        """Lay the next cards on the squares written in ``squares`` (``"C3 C4 D4"``), all
        or none, on the member's layout in progress (:meth:`current`). A text that begins
        with the squares already laid goes on from there, so a whole path can be pasted.

        :raises PatienceError: naming the first square refused and why; nothing is laid.
        """
        attempt = await self.current(guild_id, user_id, kind)
        try:
            cells = parse_path(squares)
        except CellError as error:
            raise PatienceError(_("{error}; nothing was laid").format(error=worded(error))) from None
        layout = attempt.layout
        if cells[: layout.placed] == layout.path:
            cells = cells[layout.placed :]
        if not cells:
            raise PatienceError(_("no square to lay a card on: write the squares of the next cards, as C3 C4 D4"))
        for cell in cells:
            try:
                layout = layout.place(cell)
            except PlacementError as error:
                raise PatienceError(_("{error}; nothing was laid").format(error=worded(error))) from None
        return await self._save(attempt, layout)

    async def submit(self, attempt_id: int, user_id: int, *, version: int | None = None) -> PatienceResult:
        """Submit a complete layout, once: its score, the deal's best and a best layout.

        :raises PatienceError: the layout is not complete, is submitted already, or its day is over.
        """
        attempt = await self._playable(attempt_id, user_id, version)
        if not attempt.complete:
            raise PatienceError(
                _("lay all 25 cards before you submit: {placed} laid so far").format(placed=attempt.placed)
            )
        best_layout = await self.best_layout(attempt.deal, attempt.scoring)
        score = attempt.layout.score(attempt.scoring)
        try:
            row = await self.store.patience.submit(
                attempt.id, attempt.version, score=score, best=best_layout.score(attempt.scoring)
            )
        except StaleVersionError:
            raise StaleLayoutError(await self._mine(attempt_id, user_id)) from None
        except GameOverError:
            raise PatienceError(_("that layout is submitted already: each is submitted once")) from None
        return await self._result(await self._attempt(row), best_layout, just_submitted=True)

    async def result(self, attempt_id: int, user_id: int) -> PatienceResult:
        """A submitted layout's result, again."""
        attempt = await self._mine(attempt_id, user_id)
        if not attempt.submitted:
            raise PatienceError(_("that layout is not submitted yet"))
        return await self._result(attempt, await self.best_layout(attempt.deal, attempt.scoring))

    async def _result(self, attempt: Attempt, best_layout: Layout, *, just_submitted: bool = False) -> PatienceResult:
        if attempt.kind != "daily" or attempt.day is None or attempt.score is None:
            return PatienceResult(attempt, best_layout, just_submitted=just_submitted)
        better, entrants = await self.store.patience.daily_rank(attempt.guild_id, attempt.day, attempt.score)
        days = await self._days(attempt.guild_id, [attempt.user_id], attempt.day)
        streak = streak_ending(days[attempt.user_id], date.fromisoformat(attempt.day))
        shown = best_layout if attempt.day < self.today() else None  # the day's best: once the day is over
        return PatienceResult(attempt, shown, streak, better + 1, entrants, just_submitted)

    # -- streaks and leaderboards -----------------------------------------------------------------

    async def streak(self, guild_id: int, user_id: int) -> int:
        """The member's streak: consecutive UTC days of daily submissions up to today
        (or up to yesterday while today's deal is still to play)."""
        today = date.fromisoformat(self.today())
        days = (await self._days(guild_id, [user_id], today.isoformat()))[user_id]
        end = today if today.isoformat() in days else today - timedelta(days=1)
        return streak_ending(days, end)

    async def leaderboard(self, guild_id: int, day: str | None = None, *, limit: int = 10) -> DailyBoard:
        """A server's leaderboard of a day's deal (default today): the best submissions,
        each with its member's streak up to that day; once the day is over, the seed
        and the deal's best score too."""
        today = self.today()
        day = today if day is None else _day(day)
        if day < FIRST_DAY:
            raise PatienceError(
                _("there is no daily deal before {first_day}: pick a day since then").format(first_day=FIRST_DAY)
            )
        if day > today:
            raise PatienceError(_("{day} has not come yet: today is {today} (UTC)").format(day=day, today=today))
        daily = await self._daily(guild_id, day)
        scores, entrants = await self.store.patience.daily_scores(guild_id, day, limit)
        days = await self._days(guild_id, [s.user_id for s in scores], day)
        standings = []
        for score in scores:
            better = sum(1 for other in scores if other.score > score.score)
            standings.append(
                DailyStanding(
                    better + 1,
                    score.user_id,
                    score.display_name or f"player {score.user_id}",
                    score.score,
                    streak_ending(days[score.user_id], date.fromisoformat(day)),
                )
            )
        over = day < today
        if daily is None:
            return DailyBoard(guild_id, day, over, tuple(standings), entrants)
        deal = Deal.parse(daily.deal)
        best = (await self.best_layout(deal, DAILY_SCORING)).score(DAILY_SCORING) if over else None
        return DailyBoard(
            guild_id,
            day,
            over,
            tuple(standings),
            entrants,
            deal,
            daily.commitment,
            daily.nonce,
            daily.seed if over else None,
            best,
        )

    async def _days(self, guild_id: int, user_ids: list[int], until: str) -> dict[int, set[str]]:
        since = (date.fromisoformat(until) - timedelta(days=STREAK_DAYS)).isoformat()
        days = await self.store.patience.daily_days(guild_id, user_ids, since)
        return {user: {d for d in found if d <= until} for user, found in days.items()}

    # -- helpers ----------------------------------------------------------------------------------

    async def _mine(self, attempt_id: int, user_id: int) -> Attempt:
        row = await self.store.patience.get(attempt_id)
        if row is None:
            raise PatienceError(_("that layout no longer exists"))
        if row.user_id != user_id:
            raise PatienceError(_("that layout is someone else's: start your own"))
        return await self._attempt(row)

    async def _playable(self, attempt_id: int, user_id: int, version: int | None) -> Attempt:
        attempt = await self._mine(attempt_id, user_id)
        if attempt.submitted:
            raise PatienceError(_("that layout is submitted already, for {score} points").format(score=attempt.score))
        if version is not None and version != attempt.version:
            raise StaleLayoutError(attempt)
        if attempt.kind == "daily" and attempt.day != self.today():
            raise PatienceError(
                _("the daily deal of {day} is over (UTC): today's is a new deal").format(day=attempt.day)
            )
        return attempt

    async def _save(self, attempt: Attempt, layout: Layout) -> Attempt:
        try:
            row = await self.store.patience.save_path(attempt.id, attempt.version, str(layout))
        except StaleVersionError:
            raise StaleLayoutError(await self._mine(attempt.id, attempt.user_id)) from None
        except GameOverError:
            raise PatienceError(_("that layout is submitted already")) from None
        except NotFoundError:
            raise PatienceError(_("that layout no longer exists")) from None
        return await self._attempt(row, layout)

    async def _attempt(self, row: AttemptRow, layout: Layout | None = None) -> Attempt:
        if layout is None:
            layout = Layout.parse(Deal.parse(row.deal), row.path)
        commitment = None
        if row.kind == "daily" and row.day is not None:
            daily = await self._daily(row.guild_id, row.day)
            commitment = daily.commitment if daily else None
        return Attempt(
            id=row.id,
            guild_id=row.guild_id,
            user_id=row.user_id,
            kind=row.kind,
            day=row.day,
            layout=layout,
            scoring=scoring_named(row.scoring),
            version=row.version,
            submitted=row.submitted,
            score=row.score,
            best=row.best,
            started_at=row.started_at,
            finished_at=row.finished_at,
            commitment=commitment,
            seed=row.seed,
        )


def _scoring(name: str) -> Scoring:
    try:
        return scoring_named(name)
    except ValueError as error:
        raise PatienceError(str(error)) from None


def _day(text: str) -> str:
    try:
        return date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        raise PatienceError(
            _("{strip!r} is not a day: write it as 2026-03-02").format(strip=text.strip()[:40])
        ) from None


__all__ = [
    "DAILY_SCORING",
    "KINDS",
    "RANDOM_NONCE",
    "SCORING_NAMES",
    "TITLES",
    "Attempt",
    "DailyBoard",
    "DailyStanding",
    "Kind",
    "PatienceError",
    "PatienceResult",
    "PatienceService",
    "StaleLayoutError",
    "daily_nonce",
    "scoring_name",
    "streak_ending",
]
