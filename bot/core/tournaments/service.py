"""Running tournaments: sign-up, rounds, results, deadlines, withdrawals, the champion.

:class:`Tournaments` (``GameService.tournaments``) does what a tournament
needs, with no Discord types. How the parts meet:

- **Sign-up.** :meth:`~Tournaments.create` stores it (the Discord layer posts
  the announcement with Join / Leave buttons, :meth:`~Tournaments.join` and
  :meth:`~Tournaments.leave`).
- **Start** (by hand, or when sign-up closes: the scheduler's job
  :meth:`~Tournaments.run_due`): the entrants are seeded (server rating or at
  random), round 1 is paired (:mod:`.pairing`) and written in one transaction
  with what it owes: the round's matches to open (``tourney_round`` in the
  outbox) and a line in the channel.
- **A match** is opened by the Discord layer's handler of ``tourney_round``
  (every match of the round not opened yet, then the announcement redrawn):
  it makes a thread, then :meth:`~Tournaments.open_match` starts the game
  through :meth:`GameService.start_game <bot.core.games.GameService.start_game>`
  (stored, dealt provably fair dice and rated like any game), which claims the
  table in the game's own creating transaction, so each table gets one game.
- **A result** is written by the store in the transaction that ends the game
  (:func:`bot.store.tournaments.game_ended`), with the announcement's update
  (:meth:`Recorder.record <bot.core.recorder.Recorder.record>`). Then
  :meth:`~Tournaments.after_game` advances the tournament if that was the
  round's last table; the store advances a round exactly once, whichever
  process or pass gets there first, and the scheduler's pass advances any
  round a crash left complete.
- **Deadlines.** A match still going at its round's deadline is decided by the
  move deadline rule: the player to move forfeits (a single game at the cube,
  the match lost). Time the bot was away is credited, as for every clock.
- **Withdrawal**: the player's open tables are forfeited (a game going on is
  forfeited like ``/bg forfeit``); later rounds pair them no more (a round
  robin's later tables are forfeits, a knockout's next opponent has a bye).
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta

from bot.core.audience import Sees, everyone
from bot.core.deliveries import Deliveries
from bot.core.deliveries import notice as notice_owed
from bot.core.model import (
    ChallengeOptions,
    Delivery,
    Notice,
    Outcome,
    PlayerRef,
    ServiceError,
    storage_errors_as_service_errors,
)
from bot.core.players import PlayerNames
from bot.core.tournaments import pairing as P
from bot.core.tournaments.model import (
    NAME_MAX,
    Entrant,
    MatchToOpen,
    Pairing,
    StandingLine,
    TournamentError,
    TournamentOptions,
    TournamentRecord,
    TournamentView,
)
from bot.store import (
    EntrantRow,
    EntrantsChangedError,
    Finish,
    GameRow,
    NewPairing,
    NotFoundError,
    OutboxEntry,
    Owed,
    PairingRow,
    PairingTakenError,
    Shard,
    Store,
    TournamentClosedError,
    TournamentFullError,
    TournamentRow,
)
from engine.ratings import DEFAULT_RATING
from i18n import Said, _, said_n

log = logging.getLogger(__name__)

ROUND_KIND = "tourney_round"
"""Outbox: a round's matches to open (a thread each, the game, its first board pinging
both players), then the announcement redrawn."""
UPDATE_KIND = "tourney_update"
"""Outbox: the announcement to redraw (the bracket or standings after a change)."""
ORGANISER_ROLE = "tournament_role"
"""The server setting naming the role that may make tournaments."""
LOOKED_AT = 200
"""A server's newest tournaments looked through for those a member may see (or is in)."""

StartGame = Callable[..., Awaitable[Outcome]]
TimeOut = Callable[[int, str], Awaitable["Notice | None"]]
Forfeit = Callable[[int, int], Awaitable[Outcome]]


def update_owed(guild_id: int, channel_id: int, tournament_id: int) -> Owed:
    """The announcement of ``tournament_id`` is to be redrawn."""
    return Owed(UPDATE_KIND, guild_id, channel_id, payload={"tournament": tournament_id})


def _history(rows: Sequence[PairingRow]) -> list[P.Played]:
    return [
        P.Played(r.round, r.player_a, r.player_b, r.winner, forfeit=r.outcome == "forfeit") for r in rows if r.decided
    ]


@storage_errors_as_service_errors
class Tournaments:
    """Tournaments over a :class:`~bot.store.Store`, opening games through the game service.

    :param start_game: :meth:`GameService.start_game` (a table's game).
    :param time_out: forfeits a game's player to move (a round's deadline).
    :param forfeit: a player gives up a game (a withdrawal).
    """

    def __init__(
        self,
        store: Store,
        names: PlayerNames,
        clock: Callable[[], datetime],
        deliveries: Deliveries,
        *,
        start_game: StartGame,
        time_out: TimeOut,
        forfeit: Forfeit,
    ) -> None:
        self.store = store
        self.names = names
        self.clock = clock
        self.deliveries = deliveries
        self.start_game = start_game
        self.time_out = time_out
        self.forfeit_game = forfeit
        self._locks: dict[int, asyncio.Lock] = {}
        deliveries.wordings[ROUND_KIND] = self._word_round
        deliveries.wordings[UPDATE_KIND] = self._word_update

    def _lock(self, tournament_id: int) -> asyncio.Lock:
        lock = self._locks.get(tournament_id)
        if lock is None:
            lock = self._locks[tournament_id] = asyncio.Lock()
        return lock

    # -- making one, signing up --------------------------------------------------------------

    async def create(
        self, guild_id: int, channel_id: int, organiser: PlayerRef, name: str, options: TournamentOptions
    ) -> TournamentView:
        """A new tournament, open for sign-up (the organiser joins it like anyone)."""
        options.validate()
        name = " ".join(name.split())[:NAME_MAX]
        if not name:
            raise TournamentError(_("give the tournament a name"))
        await self.names.remember(organiser)
        starts_at = None
        if options.signup_hours is not None:
            starts_at = self.clock() + timedelta(hours=options.signup_hours)
        row = await self.store.tournaments.create(
            guild_id=guild_id,
            channel_id=channel_id,
            organiser=organiser.user_id,
            name=name,
            format=options.format,
            settings=options.to_dict(),
            starts_at=starts_at,
        )
        return await self._view(row)

    async def set_message(self, tournament_id: int, message_id: int) -> None:
        """The announcement's message (updated after every change)."""
        await self.store.tournaments.set_message(tournament_id, message_id)

    async def join(self, tournament_id: int, player: PlayerRef) -> TournamentView:
        """Enter a tournament still signing up."""
        row = await self._row(tournament_id)
        if player.is_bot:
            raise TournamentError(_("bots don't play in tournaments"))
        options = TournamentOptions.from_dict(row.settings)
        await self.names.remember(player)
        try:
            joined = await self.store.tournaments.join(tournament_id, player.user_id, max_players=options.capacity)
        except TournamentClosedError:
            raise TournamentError(_("sign-up for {name} is closed").format(name=row.name)) from None
        except TournamentFullError:
            raise TournamentError(
                _("{name} is full: all {capacity} places are taken").format(name=row.name, capacity=options.capacity)
            ) from None
        if not joined:
            raise TournamentError(_("you're in {name} already").format(name=row.name))
        return await self._view(await self._row(tournament_id))

    async def leave(self, tournament_id: int, user_id: int) -> TournamentView:
        """Leave a tournament before it starts."""
        row = await self._row(tournament_id)
        try:
            left = await self.store.tournaments.leave(tournament_id, user_id)
        except TournamentClosedError:
            raise TournamentError(
                _("{name} has started: `/bgtourney withdraw` leaves it (your open matches are forfeited)").format(
                    name=row.name
                )
            ) from None
        if not left:
            raise TournamentError(_("you're not in {name}").format(name=row.name))
        return await self._view(await self._row(tournament_id))

    # -- reading -------------------------------------------------------------------------------

    async def get(self, tournament_id: int, guild_id: int | None = None) -> TournamentView:
        """A tournament as it stands (of this server, when ``guild_id`` is given)."""
        row = await self._row(tournament_id)
        if guild_id is not None and row.guild_id != guild_id:
            raise TournamentError(
                _("there is no tournament #{tournament_id} in this server").format(tournament_id=tournament_id)
            )
        return await self._view(row)

    async def in_guild(
        self, guild_id: int, *, everything: bool = False, limit: int = 10, sees: Sees = everyone
    ) -> list[TournamentView]:
        """A server's tournaments signing up and running (``everything``: ended ones too), newest
        first; only those announced where ``sees`` allows."""
        statuses = ("signup", "running", "finished", "cancelled") if everything else ("signup", "running")
        rows = await self.store.tournaments.in_guild(guild_id, statuses, limit=LOOKED_AT)
        rows = [row for row in rows if sees(row.channel_id, ())][:limit]
        return [await self._view(row, details=False) for row in rows]

    async def entered(self, guild_id: int, user_id: int) -> list[TournamentView]:
        """The server's tournaments signing up or running that the member is in (however many
        the server has), newest first."""
        return [await self._view(row, details=False) for row in await self.store.tournaments.entered(guild_id, user_id)]

    async def current(
        self, guild_id: int, tournament_id: int | None = None, *, sees: Sees = everyone
    ) -> TournamentView:
        """The tournament a command means: ``tournament_id``, else the server's one
        signing up or running (refused when there are several or none); one announced
        where ``sees`` does not allow does not exist."""
        if tournament_id is not None:
            view = await self.get(tournament_id, guild_id)
            if not sees(view.channel_id, ()):
                raise TournamentError(_("there is no tournament #{tournament_id}").format(tournament_id=tournament_id))
            return view
        live = await self.store.tournaments.in_guild(guild_id, ("signup", "running"), limit=LOOKED_AT)
        live = [row for row in live if sees(row.channel_id, ())]
        if not live:
            raise TournamentError(
                _("there is no tournament signing up or running here: `/bgtourney list` shows them all")
            )
        if len(live) > 1:
            raise TournamentError(
                _("more than one tournament is on here: say which with `tournament:` (see `/bgtourney list`)")
            )
        return await self._view(live[0])

    async def record(self, guild_id: int | None, user_id: int, *, sees: Sees = everyone) -> TournamentRecord:
        """A member's finished tournaments here (None: everywhere): titles, the best finish;
        only those announced where ``sees`` allows."""
        found = [f for f in await self.store.tournaments.finishes(user_id, guild_id) if sees(f["channel_id"], ())]
        placed = [f for f in found if f["place"] is not None]
        best = min(placed, key=lambda f: f["place"]) if placed else None  # the latest of equal places
        return TournamentRecord(
            len(found),
            sum(1 for f in found if f["champion"]),
            best["place"] if best else None,
            best["name"] if best else None,
            best["field"] if best else None,
        )

    async def organiser_role(self, guild_id: int) -> int | None:
        """The role a server lets make tournaments (besides Manage Events), if it set one."""
        role = (await self.store.servers.get(guild_id)).get(ORGANISER_ROLE)
        return int(role) if role else None

    async def set_organiser_role(self, guild_id: int, role_id: int | None) -> None:
        """Set (or with None clear) the server's organiser role, keeping its other settings."""
        await self.store.servers.update(guild_id, {ORGANISER_ROLE: role_id})

    async def _row(self, tournament_id: int) -> TournamentRow:
        try:
            return await self.store.tournaments.get(tournament_id)
        except NotFoundError:
            raise TournamentError(
                _("there is no tournament #{tournament_id}").format(tournament_id=tournament_id)
            ) from None

    async def _view(self, row: TournamentRow, *, details: bool = True) -> TournamentView:
        options = TournamentOptions.from_dict(row.settings)
        entrant_rows = await self.store.tournaments.entrants(row.id)
        entrants = tuple([Entrant(await self.names.get(e.user_id), e.seed, e.withdrawn, e.place) for e in entrant_rows])
        tables: tuple[Pairing, ...] = ()
        standings: tuple[StandingLine, ...] = ()
        if details and row.status != "signup":
            rows = await self.store.tournaments.pairings(row.id)
            tables = tuple([await self._table(r) for r in rows])
            seeded = [e.user_id for e in entrant_rows]
            if seeded:
                table = P.standings(
                    row.format, seeded, _history(rows), [e.user_id for e in entrant_rows if e.withdrawn]
                )
                standings = tuple([StandingLine(await self.names.get(s.player), s) for s in table])
        champion = await self.names.get(row.champion) if row.champion is not None else None
        return TournamentView(
            id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            message_id=row.message_id,
            organiser=await self.names.get(row.organiser),
            name=row.name,
            options=options,
            status=row.status,
            round=row.round,
            rounds=row.rounds,
            starts_at=row.starts_at,
            round_deadline=row.round_deadline,
            champion=champion,
            entrants=entrants,
            tables=tables,
            standings=standings,
            field_size=len(entrants),
        )

    async def _table(self, row: PairingRow) -> Pairing:
        b = await self.names.get(row.player_b) if row.player_b is not None else None
        return Pairing(
            row.id,
            row.round,
            row.table_no,
            await self.names.get(row.player_a),
            b,
            row.winner,
            row.outcome,
            row.game_id,
            row.thread_id,
        )

    # -- starting ------------------------------------------------------------------------------

    def _may_manage(self, row: TournamentRow, actor: PlayerRef, moderator: bool) -> None:
        if not moderator and actor.user_id != row.organiser:
            raise TournamentError(_("only its organiser, or a member who may manage events, can do that"))

    async def start(
        self, tournament_id: int, actor: PlayerRef | None = None, *, moderator: bool = False
    ) -> TournamentView:
        """Close sign-up and start round 1 (``actor`` None: the scheduler, at the sign-up's close).
        With fewer than two players, the scheduler cancels it; a member is told to wait."""
        row = await self._row(tournament_id)
        if actor is not None:
            self._may_manage(row, actor, moderator)
        if row.status != "signup":
            raise TournamentError(
                (_("{name} has started already") if row.status == "running" else _("{name} is over")).format(
                    name=row.name
                )
            )
        for _attempt in range(5):
            entrants = await self.store.tournaments.entrants(tournament_id)
            if len(entrants) < 2:
                if actor is not None:
                    raise TournamentError(_("{name} needs at least two players to start").format(name=row.name))
                text = Said("{name} is cancelled: fewer than two players signed up", name=row.name)
                await self.store.tournaments.cancel(
                    tournament_id,
                    owed=[
                        update_owed(row.guild_id, row.channel_id, row.id),
                        notice_owed(row.guild_id, row.channel_id, text),
                    ],
                )
                self.deliveries.wake()
                return await self._view(await self._row(tournament_id))
            try:
                async with self._lock(tournament_id):
                    started = await self._start(row, entrants)
            except EntrantsChangedError:
                continue  # someone joined or left meanwhile: seed again
            if started is None:
                raise TournamentError(_("{name} has started already").format(name=row.name))
            self.deliveries.wake()
            return await self._view(started)
        raise TournamentError(_("the entrants keep changing: try again in a moment"))

    async def _seeded(self, row: TournamentRow, entrants: Sequence[EntrantRow]) -> list[tuple[int, int, float | None]]:
        """``(user_id, seed, rating)``: by server rating (the best first; the first to join
        first among equals), or at random."""
        options = TournamentOptions.from_dict(row.settings)
        ratings = await self.store.tournaments.ratings(row.guild_id, [e.user_id for e in entrants])
        order = list(entrants)  # in the order they joined
        if options.seeding == "random":
            random.Random(secrets.randbits(64)).shuffle(order)
        else:
            order.sort(key=lambda e: -ratings.get(e.user_id, DEFAULT_RATING))
        return [(e.user_id, n + 1, ratings.get(e.user_id)) for n, e in enumerate(order)]

    async def _start(self, row: TournamentRow, entrants: Sequence[EntrantRow]) -> TournamentRow | None:
        options = TournamentOptions.from_dict(row.settings)
        seeds = await self._seeded(row, entrants)
        field = [user for user, _, _ in seeds]
        if options.format == P.KNOCKOUT:
            rounds = P.knockout_rounds(len(field))
            pairs = P.knockout_pairs(P.knockout_table(field))
        elif options.format == P.ROUND_ROBIN:
            schedule = P.round_robin(field)
            rounds = len(schedule)
            pairs = schedule[0]
        else:
            rounds = options.swiss_rounds or max(1, math.ceil(math.log2(len(field))))
            pairs = P.swiss_pairs(field, [])
        tables = [self._new_table(pair, set()) for pair in pairs]
        deadline = self.clock() + timedelta(days=options.round_days)
        owed = self._round_owed(row, 1, rounds, tables, deadline)
        return await self.store.tournaments.start(
            row.id,
            seeds=seeds,
            rounds=rounds,
            pairings=tables,
            round_deadline=deadline,
            owed=owed,
        )

    @staticmethod
    def _new_table(pair: P.Pair, withdrawn: set[int]) -> NewPairing:
        """A table to write: a bye is won at once (by nobody, if its player withdrew);
        a withdrawn player's table is forfeited."""
        if pair.b is None:
            if pair.a in withdrawn:
                return NewPairing(pair.table, pair.a, None, None, "void")
            return NewPairing(pair.table, pair.a, None, pair.a, "bye")
        gone = [p for p in (pair.a, pair.b) if p in withdrawn]
        if len(gone) == 2:
            return NewPairing(pair.table, pair.a, pair.b, None, "void")
        if gone:
            return NewPairing(pair.table, pair.a, pair.b, pair.b if gone[0] == pair.a else pair.a, "forfeit")
        return NewPairing(pair.table, pair.a, pair.b)

    def _round_owed(
        self, row: TournamentRow, number: int, rounds: int, tables: Sequence[NewPairing], deadline: datetime
    ) -> list[Owed]:
        """What a new round owes: its matches opened and the announcement redrawn, a line in the channel."""
        owed = [Owed(ROUND_KIND, row.guild_id, row.channel_id, payload={"tournament": row.id, "round": number})]
        matches = sum(1 for t in tables if t.outcome is None)
        byes = sum(1 for t in tables if t.outcome == "bye")
        what = (
            Said("the final")
            if row.format == P.KNOCKOUT and number == rounds
            else Said("round {number} of {rounds}", number=number, rounds=rounds)
        )
        tables_said = said_n("{count} match", "{count} matches", matches)
        if byes:
            tables_said = Said(
                "{matches} and {byes}", matches=tables_said, byes=said_n("{count} bye", "{count} byes", byes)
            )
        text = Said(
            "{tournament}: {what} has begun, {tables}, each match in its own thread. The round ends",
            tournament=row.name,
            what=what,
            tables=tables_said,
        )
        after = Said(": a match still going then goes on under its move deadlines (whoever runs out of time loses it)")
        owed.append(notice_owed(row.guild_id, row.channel_id, text, when=deadline, after=after))
        return owed

    # -- matches -------------------------------------------------------------------------------

    async def matches_to_open(self, tournament_id: int, round_no: int) -> list[MatchToOpen] | None:
        """The round's tables still without a game (and not decided), in table order;
        None if the tournament is not playing that round any more."""
        row = await self.store.tournaments.get(tournament_id)
        if row.status != "running" or row.round != round_no:
            return None
        found = []
        for table in await self.store.tournaments.pairings(tournament_id, round_no):
            if table.decided or table.game_id is not None or table.player_b is None:
                continue
            players = (await self.names.get(table.player_a), await self.names.get(table.player_b))
            found.append(
                MatchToOpen(
                    pairing_id=table.id,
                    tournament_id=row.id,
                    guild_id=row.guild_id,
                    channel_id=row.channel_id,
                    name=row.name,
                    round=table.round,
                    table=table.table_no,
                    players=players,
                    thread_id=table.thread_id,
                    game_id=table.game_id,
                )
            )
        return found

    async def set_thread(self, pairing_id: int, thread_id: int) -> int:
        """The match's thread (if another was recorded first, that one: use it)."""
        return await self.store.tournaments.set_thread(pairing_id, thread_id)

    async def open_match(self, match: MatchToOpen, thread_id: int) -> Outcome | None:
        """Start the table's game in its thread, through the game service (stored,
        fair dice, rated as the tournament says). None if it was opened already."""
        row = await self.store.tournaments.get(match.tournament_id)
        if row.status != "running":
            return None
        options = TournamentOptions.from_dict(row.settings)
        game_options = ChallengeOptions(
            match_length=options.match_length,
            move_days=options.move_days,
            tournament=row.id,
            unrated=not options.rated,
        )
        players = (match.players[0].user_id, match.players[1].user_id)
        try:
            return await self.start_game(row.guild_id, thread_id, players, game_options, pairing_id=match.pairing_id)
        except PairingTakenError:
            return None
        except ServiceError:
            # the thread has a game: this table's, opened by another process meanwhile?
            if (await self.store.tournaments.pairing(match.pairing_id)).game_id is not None:
                return None
            raise

    def headline(self, match: MatchToOpen) -> str:
        """The words above a match's first board."""
        return Said(
            "🏆 {tournament}, round {round}: {name} vs {name2}",
            tournament=match.name,
            round=match.round,
            name=match.players[0].name,
            name2=match.players[1].name,
        )

    # -- results ---------------------------------------------------------------------------------

    async def after_game(self, row: GameRow) -> None:
        """A game ended (its table, if it has one, was decided with it): advance its tournament."""
        if not row.settings.get("tournament"):
            return
        table = await self.store.tournaments.pairing_of_game(row.id)
        if table is not None:
            await self.advance(table.tournament_id)

    async def advance(self, tournament_id: int) -> bool:
        """Start the next round (or finish) if every table of the current round is
        decided; again while a new round is decided at once (all byes and forfeits).
        True if it moved on. Safe to call any time, from any process: the store
        advances a round once."""
        moved = False
        async with self._lock(tournament_id):
            for _ in range(64):
                row = await self.store.tournaments.get(tournament_id)
                if row.status != "running":
                    break
                tables = await self.store.tournaments.pairings(tournament_id)
                if any(not t.decided for t in tables if t.round == row.round):
                    break
                done = await self._next_round(row, tables)
                if done is None:
                    break
                moved = True
        if moved:
            self.deliveries.wake()
        return moved

    async def _next_round(self, row: TournamentRow, tables: Sequence[PairingRow]) -> TournamentRow | None:
        options = TournamentOptions.from_dict(row.settings)
        entrants = await self.store.tournaments.entrants(row.id)
        field = [e.user_id for e in entrants]  # by seed
        withdrawn = {e.user_id for e in entrants if e.withdrawn}
        history = _history(tables)
        this_round = [t for t in tables if t.round == row.round]
        pairs: list[P.Pair] = []
        if row.round < row.rounds:
            if options.format == P.KNOCKOUT:
                size = P.bracket_size(len(field)) >> (row.round - 1)
                slots: list[int | None] = [None] * size  # only len matters for the next table
                winners = {t.table_no: t.winner for t in this_round}
                following = P.knockout_next_table(slots, winners)
                if sum(p is not None for p in following) >= 2:
                    pairs = P.knockout_pairs(following)
            elif options.format == P.ROUND_ROBIN:
                pairs = P.round_robin(field)[row.round]
            else:
                active = [p for p in field if p not in withdrawn]
                if len(active) >= 2:
                    pairs = await asyncio.to_thread(P.swiss_pairs, active, history)
        if not pairs:
            return await self._finish(row, field, withdrawn, history, tables)
        new = [self._new_table(pair, withdrawn) for pair in pairs]
        if options.format == P.SWISS:  # a withdrawn player loses each remaining round (no points)
            new += [
                NewPairing(len(pairs) + index + 1, player, None, None, "void")
                for index, player in enumerate(p for p in field if p in withdrawn)
            ]
        deadline = self.clock() + timedelta(days=options.round_days)
        owed = self._round_owed(row, row.round + 1, row.rounds, new, deadline)
        return await self.store.tournaments.advance(row.id, row.round, pairings=new, round_deadline=deadline, owed=owed)

    async def _finish(
        self,
        row: TournamentRow,
        field: list[int],
        withdrawn: set[int],
        history: list[P.Played],
        tables: Sequence[PairingRow],
    ) -> TournamentRow | None:
        table = P.standings(row.format, field, history, withdrawn)
        if row.format == P.KNOCKOUT:
            final = [t for t in tables if t.round == row.round]
            winners = [t.winner for t in final if t.winner is not None]
            champion = (
                winners[0]
                if len(final) == 1 and winners
                else (table[0].player if table and table[0].out_in is None else None)
            )
        else:  # never a withdrawn player (the standings rank them after those who finished)
            champion = next((s.player for s in table if not s.withdrawn), None)
        places = {s.player: s.place for s in table}
        if champion is not None:
            name = await self.names.name(champion)
            text = Said("🏆 {name} wins {tournament}! Congratulations", name=name, tournament=row.name)
            ping: tuple[int, ...] = (champion,)
        else:
            text = Said("{name} is over, with no champion: the final was not played", name=row.name)
            ping = ()
        owed = [
            update_owed(row.guild_id, row.channel_id, row.id),
            notice_owed(row.guild_id, row.channel_id, text, ping=ping),
        ]
        return await self.store.tournaments.advance(row.id, row.round, finish=Finish(champion, places), owed=owed)

    # -- leaving, cancelling ------------------------------------------------------------------------

    async def withdraw(self, tournament_id: int, player: PlayerRef) -> TournamentView:
        """Leave a tournament: before it starts, off the list; once running, every open
        table of the player is forfeited (a game going on as ``/bg forfeit`` would)."""
        row = await self._row(tournament_id)
        if row.status == "signup":
            return await self.leave(tournament_id, player.user_id)
        # under the tournament's lock: the round's advance cannot pair the player between
        # the read of their open tables and the withdrawal
        async with self._lock(tournament_id):
            row = await self._row(tournament_id)
            if row.status != "running":
                raise TournamentError(_("{name} is over").format(name=row.name))
            entrant = next(
                (e for e in await self.store.tournaments.entrants(tournament_id) if e.user_id == player.user_id), None
            )
            if entrant is None:
                raise TournamentError(_("you're not in {name}").format(name=row.name))
            if entrant.withdrawn:
                raise TournamentError(_("you withdrew from {name} already").format(name=row.name))
            open_tables = [
                t
                for t in await self.store.tournaments.pairings(tournament_id, row.round)
                if not t.decided and player.user_id in t.players
            ]
            forfeits = []
            for t in open_tables:
                if t.game_id is None:  # not opened yet: decided here
                    other = t.player_b if t.player_a == player.user_id else t.player_a
                    forfeits.append((t.id, other, "forfeit"))
            text = Said("{name} withdrew from {tournament}", name=player.name, tournament=row.name)
            try:
                await self.store.tournaments.withdraw(
                    tournament_id,
                    player.user_id,
                    forfeits=forfeits,
                    owed=[
                        update_owed(row.guild_id, row.channel_id, row.id),
                        notice_owed(row.guild_id, row.channel_id, text),
                    ],
                )
            except TournamentClosedError:
                raise TournamentError(_("{name} is over").format(name=row.name)) from None
        for t in open_tables:
            if t.game_id is not None:
                try:
                    outcome = await self.forfeit_game(t.game_id, player.user_id)
                except ServiceError:
                    continue  # the game ended meanwhile: its result stands
                self.deliveries.release(outcome.owed)  # the dispatcher posts the game's last board
        await self.advance(tournament_id)
        self.deliveries.wake()
        return await self._view(await self._row(tournament_id))

    async def cancel(self, tournament_id: int, actor: PlayerRef, *, moderator: bool = False) -> TournamentView:
        """Cancel a tournament: no more rounds (games going on stay ordinary games)."""
        row = await self._row(tournament_id)
        self._may_manage(row, actor, moderator)
        text = Said("{tournament} was cancelled by {name}", tournament=row.name, name=actor.name)
        done = await self.store.tournaments.cancel(
            tournament_id,
            owed=[
                update_owed(row.guild_id, row.channel_id, row.id),
                notice_owed(row.guild_id, row.channel_id, text),
            ],
        )
        if done is None:
            raise TournamentError(_("{name} is over already").format(name=row.name))
        self.deliveries.wake()
        return await self._view(done)

    # -- due work (the scheduler's job) -------------------------------------------------------------

    async def run_due(self, now: datetime, shard: Shard | None = None) -> None:
        """Start tournaments whose sign-up closed, decide rounds whose deadline passed,
        and advance any round left complete (after a crash between a result and its round)."""
        for row in await self.store.tournaments.due_starts(now, shard=shard):
            try:
                await self.start(row.id)
            except ServiceError as error:
                log.info("tournament %s did not start: %s", row.id, error)
        for row in await self.store.tournaments.due_rounds(now, shard=shard):
            await self._round_deadline(row)
        for row in await self.store.tournaments.complete_rounds(shard=shard):
            await self.advance(row.id)

    async def next_wakeup(self, shard: Shard | None = None) -> datetime | None:
        return await self.store.tournaments.next_wakeup(shard=shard)

    async def _round_deadline(self, row: TournamentRow) -> None:
        """The round's time is up: a match still going is lost by the player to move only
        if they have had a full turn's time (their own move deadline has passed); the
        others go on under their move deadlines, so a move played just before the round's
        end does not snipe the match. A match the bot never managed to open goes to the
        better seed, and the channel is told why."""
        if not await self.store.tournaments.claim_round_deadline(row.id, row.round):
            return
        now = self.clock()
        for table in await self.store.tournaments.pairings(row.id, row.round):
            if table.decided:
                continue
            if table.game_id is None:
                seed = await self.names.name(table.player_a)
                other = await self.names.name(table.player_b) if table.player_b is not None else "?"
                text = Said(
                    "{tournament}, round {round}: the match {name} vs {name2} never opened (its thread could not be"
                    " made) and goes to {name}, the better seed",
                    tournament=row.name,
                    round=table.round,
                    name=seed,
                    name2=other,
                )
                await self.store.tournaments.decide(
                    table.id,
                    table.player_a,
                    "forfeit",
                    owed=[
                        update_owed(row.guild_id, row.channel_id, row.id),
                        notice_owed(row.guild_id, row.channel_id, text),
                    ],
                )
                continue
            try:
                game = await self.store.games.get(table.game_id)
            except NotFoundError:
                continue
            if not game.is_active or game.turn_deadline is None or game.turn_deadline > now:
                continue  # a turn without its full time: its own move deadline decides
            text = Said(
                "the round's time in {tournament} ran out before game #{game} ended",
                tournament=row.name,
                game=table.game_id,
            )
            try:
                await self.time_out(table.game_id, text)
            except ServiceError:
                log.warning("could not decide game %s at its round's deadline", table.game_id, exc_info=True)
        await self.advance(row.id)

    # -- what the outbox owes -----------------------------------------------------------------------

    async def _word_round(self, entry: OutboxEntry) -> Delivery | None:
        tournament_id, round_no = int(entry.payload["tournament"]), int(entry.payload["round"])
        matches = await self.matches_to_open(tournament_id, round_no)
        if matches is None:
            return None  # the round is over, or the tournament: its own updates show it
        return Delivery(
            kind=ROUND_KIND,
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=entry.channel_id,
            attempts=entry.attempts,
            retried=self.deliveries.retried([entry]),
            data={"tournament": tournament_id, "round": round_no, "matches": matches},
        )

    async def _word_update(self, entry: OutboxEntry) -> Delivery | None:
        try:
            view = await self.get(int(entry.payload["tournament"]))
        except TournamentError:
            return None
        return Delivery(
            kind=UPDATE_KIND,
            entries=(entry.id,),
            guild_id=entry.guild_id,
            channel_id=view.channel_id,
            attempts=entry.attempts,
            retried=self.deliveries.retried([entry]),
            data={"tournament": view},
        )


__all__ = ["ROUND_KIND", "UPDATE_KIND", "Tournaments", "update_owed"]
