"""Tournaments: the tournament, its entrants, and each round's tables.

A tournament signs players up (``signup``), runs round after round
(``running``) and ends ``finished`` (with a champion and everyone's place) or
``cancelled``. Each round is a set of *pairings* (tables): two players and the
game they play, or a bye; a table is decided once, by a conditional update
(``outcome IS NULL``). The table of a game is decided in the very transaction
that ends the game (:func:`game_ended`, called by :meth:`GameStore.append
<bot.store.games.GameStore.append>`), so a result is never lost between the two.

A round advances exactly once: :meth:`TournamentStore.advance` moves the
tournament's ``round`` on by a conditional update, only when every table of
the round is decided, and each table of a round is unique, so two processes
racing the last two results (or the sweep after a crash) start the next round
once. The pairings themselves are worked out above the store
(:mod:`bot.core.tournaments`); the store only checks and writes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bot.store import outbox
from bot.store.database import Database, Tx
from bot.store.errors import NotFoundError, StorageError
from bot.store.outbox import Owed
from bot.store.rows import Row, dump_json, from_ts, load_json, req_ts, to_ts
from bot.store.shards import ORPHAN_AFTER, SHARD_SQL, Shard, shard_clause

STATUSES = ("signup", "running", "finished", "cancelled")
OUTCOMES = ("bye", "won", "forfeit", "void")


class TournamentClosedError(StorageError):
    """The tournament is not in the state the change needs (sign-up is over, it ended, ...)."""

    default_message = "This tournament's sign-up is closed."

    def __init__(self, message: str | None = None, *, status: str | None = None) -> None:
        super().__init__(message)
        self.status = status


class TournamentFullError(StorageError):
    """Every place is taken."""

    default_message = "This tournament is full."


class EntrantsChangedError(StorageError):
    """Someone joined or left while the start was being worked out: work it out again."""

    default_message = "Someone joined or left just now: try again."


class PairingTakenError(StorageError):
    """A table's game was opened already (or the table was decided without one)."""

    default_message = "This match has started already."


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    organiser: int
    name: str
    format: str
    settings: dict[str, Any]
    status: str
    round: int
    rounds: int
    starts_at: datetime | None
    round_deadline: datetime | None
    champion: int | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None

    @classmethod
    def from_row(cls, row: Row) -> TournamentRow:
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            message_id=row["message_id"],
            organiser=row["organiser"],
            name=row["name"],
            format=row["format"],
            settings=load_json(row["settings"]) or {},
            status=row["status"],
            round=row["round"],
            rounds=row["rounds"],
            starts_at=from_ts(row["starts_at"]),
            round_deadline=from_ts(row["round_deadline"]),
            champion=row["champion"],
            created_at=req_ts(row["created_at"]),
            updated_at=req_ts(row["updated_at"]),
            finished_at=from_ts(row["finished_at"]),
        )


@dataclass(frozen=True, slots=True)
class EntrantRow:
    tournament_id: int
    user_id: int
    seed: int | None
    rating: float | None
    status: str
    left_round: int | None
    place: int | None
    joined_at: datetime

    @property
    def withdrawn(self) -> bool:
        return self.status == "withdrawn"

    @classmethod
    def from_row(cls, row: Row) -> EntrantRow:
        return cls(
            tournament_id=row["tournament_id"],
            user_id=row["user_id"],
            seed=row["seed"],
            rating=row["rating"],
            status=row["status"],
            left_round=row["left_round"],
            place=row["place"],
            joined_at=req_ts(row["joined_at"]),
        )


@dataclass(frozen=True, slots=True)
class PairingRow:
    id: int
    tournament_id: int
    round: int
    table_no: int
    player_a: int
    player_b: int | None
    thread_id: int | None
    game_id: int | None
    winner: int | None
    outcome: str | None
    decided_at: datetime | None

    @property
    def decided(self) -> bool:
        return self.outcome is not None

    @property
    def is_bye(self) -> bool:
        return self.player_b is None

    @property
    def players(self) -> tuple[int, ...]:
        return (self.player_a,) if self.player_b is None else (self.player_a, self.player_b)

    @classmethod
    def from_row(cls, row: Row) -> PairingRow:
        return cls(
            id=row["id"],
            tournament_id=row["tournament_id"],
            round=row["round"],
            table_no=row["table_no"],
            player_a=row["player_a"],
            player_b=row["player_b"],
            thread_id=row["thread_id"],
            game_id=row["game_id"],
            winner=row["winner"],
            outcome=row["outcome"],
            decided_at=from_ts(row["decided_at"]),
        )


@dataclass(frozen=True, slots=True)
class NewPairing:
    """A table of a round about to be written; ``outcome`` set for one decided at
    once (a ``bye``, a ``forfeit`` of a player who withdrew, ``void``)."""

    table_no: int
    player_a: int
    player_b: int | None
    winner: int | None = None
    outcome: str | None = None


@dataclass(frozen=True, slots=True)
class Finish:
    """How a tournament ends: its champion and everyone's place."""

    champion: int | None
    places: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """A member's tournaments (finished ones): how many, titles, the best place."""

    played: int
    titles: int
    best_place: int | None
    best_name: str | None
    """The tournament of the best place (the latest, if several)."""
    best_field: int | None
    """How many played in it."""


# -- in other repositories' transactions -------------------------------------------------------


async def game_ended(tx: Tx, game_id: int, winner: int | None, now: float) -> int | None:
    """Decide the table ``game_id`` is played at (if any) in the transaction that
    ends the game: won by ``winner``, or ``void`` (an abandoned game: nobody won).
    Returns the tournament's id when a table was decided."""
    row = await tx.fetchone(
        """
        UPDATE tournament_pairings SET winner = ?, outcome = ?, decided_at = ?
        WHERE game_id = ? AND outcome IS NULL
        RETURNING tournament_id
        """,
        (winner, "won" if winner is not None else "void", now, game_id),
    )
    return row["tournament_id"] if row else None


async def claim_pairing(tx: Tx, pairing_id: int, game_id: int) -> None:
    """Link a new game to its table in the transaction that creates the game.

    :raises PairingTakenError: the table has a game already, or was decided.
    """
    changed = await tx.execute(
        "UPDATE tournament_pairings SET game_id = ? WHERE id = ? AND game_id IS NULL AND outcome IS NULL",
        (game_id, pairing_id),
    )
    if changed != 1:
        raise PairingTakenError()


async def _insert_pairings(
    tx: Tx, tournament_id: int, round_no: int, pairings: Sequence[NewPairing], now: float
) -> None:
    for pairing in pairings:
        if pairing.outcome is not None and pairing.outcome not in OUTCOMES:
            raise ValueError(f"bad outcome {pairing.outcome!r}")
        await tx.execute(
            """
            INSERT INTO tournament_pairings (tournament_id, round, table_no, player_a, player_b, winner, outcome, decided_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            (
                tournament_id,
                round_no,
                pairing.table_no,
                pairing.player_a,
                pairing.player_b,
                pairing.winner,
                pairing.outcome,
                now if pairing.outcome is not None else None,
            ),
        )


async def _locked(tx: Tx, tournament_id: int) -> TournamentRow:
    row = await tx.fetchone("SELECT * FROM tournaments WHERE id = ?" + tx.for_update, (tournament_id,))
    if row is None:
        raise NotFoundError(f"Tournament #{tournament_id} does not exist.")
    return TournamentRow.from_row(row)


class TournamentStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- making and reading ------------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        organiser: int,
        name: str,
        format: str,
        settings: Mapping[str, Any],
        starts_at: datetime | None = None,
        owed: Sequence[Owed] = (),
    ) -> TournamentRow:
        """A new tournament, open for sign-up."""
        now = self.db.now()

        async def transaction(tx: Tx) -> Row:
            tournament_id = await tx.insert_id(
                """
                INSERT INTO tournaments (guild_id, channel_id, organiser, name, format, settings, starts_at,
                                         created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (guild_id, channel_id, organiser, name, format, dump_json(dict(settings)), to_ts(starts_at), now, now),
            )
            for entry in owed:
                await outbox.add(tx, entry, now)
            return await tx.fetchone("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))

        return TournamentRow.from_row(await self.db.transact(transaction))

    async def get(self, tournament_id: int) -> TournamentRow:
        row = await self.db.fetchone("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        if row is None:
            raise NotFoundError(f"Tournament #{tournament_id} does not exist.")
        return TournamentRow.from_row(row)

    async def in_guild(
        self, guild_id: int, statuses: Sequence[str] = STATUSES, *, limit: int = 25
    ) -> list[TournamentRow]:
        """A server's tournaments of ``statuses``, the newest first."""
        marks = ", ".join("?" for _ in statuses)
        rows = await self.db.fetchall(
            f"SELECT * FROM tournaments WHERE guild_id = ? AND status IN ({marks}) ORDER BY id DESC LIMIT ?",
            (guild_id, *statuses, limit),
        )
        return [TournamentRow.from_row(r) for r in rows]

    async def entered(
        self, guild_id: int, user_id: int, statuses: Sequence[str] = ("signup", "running")
    ) -> list[TournamentRow]:
        """A server's tournaments of ``statuses`` the member is in (not withdrawn), newest first."""
        marks = ", ".join("?" for _ in statuses)
        rows = await self.db.fetchall(
            f"""
            SELECT t.* FROM tournaments t JOIN tournament_entrants e ON e.tournament_id = t.id
            WHERE t.guild_id = ? AND e.user_id = ? AND e.status = 'in' AND t.status IN ({marks})
            ORDER BY t.id DESC
            """,
            (guild_id, user_id, *statuses),
        )
        return [TournamentRow.from_row(r) for r in rows]

    async def set_message(self, tournament_id: int, message_id: int) -> None:
        """The announcement's message."""

        async def transaction(tx: Tx) -> None:
            await tx.execute("UPDATE tournaments SET message_id = ? WHERE id = ?", (message_id, tournament_id))

        await self.db.transact(transaction)

    async def entrants(self, tournament_id: int) -> list[EntrantRow]:
        """Everyone who entered: by seed once seeded, else in the order they joined."""
        rows = await self.db.fetchall(
            """
            SELECT * FROM tournament_entrants WHERE tournament_id = ?
            ORDER BY CASE WHEN seed IS NULL THEN 1 ELSE 0 END, seed, joined_at, user_id
            """,
            (tournament_id,),
        )
        return [EntrantRow.from_row(r) for r in rows]

    async def pairings(self, tournament_id: int, round_no: int | None = None) -> list[PairingRow]:
        """The tables of one round (or of all), by round and table."""
        rows = await self.db.fetchall(
            """
            SELECT * FROM tournament_pairings
            WHERE tournament_id = ? AND (CAST(? AS INTEGER) IS NULL OR round = ?)
            ORDER BY round, table_no
            """,
            (tournament_id, round_no, round_no),
        )
        return [PairingRow.from_row(r) for r in rows]

    async def pairing(self, pairing_id: int) -> PairingRow:
        row = await self.db.fetchone("SELECT * FROM tournament_pairings WHERE id = ?", (pairing_id,))
        if row is None:
            raise NotFoundError(f"Match #{pairing_id} does not exist.")
        return PairingRow.from_row(row)

    async def pairing_of_game(self, game_id: int) -> PairingRow | None:
        row = await self.db.fetchone("SELECT * FROM tournament_pairings WHERE game_id = ?", (game_id,))
        return PairingRow.from_row(row) if row else None

    async def playing(self, user_id: int, guild_id: int | None = None) -> list[TournamentRow]:
        """The tournaments (signing up or running) a member is still in."""
        rows = await self.db.fetchall(
            """
            SELECT t.* FROM tournaments t JOIN tournament_entrants e ON e.tournament_id = t.id
            WHERE e.user_id = ? AND e.status = 'in' AND t.status IN ('signup', 'running')
              AND (CAST(? AS BIGINT) IS NULL OR t.guild_id = ?)
            ORDER BY t.id
            """,
            (user_id, guild_id, guild_id),
        )
        return [TournamentRow.from_row(r) for r in rows]

    # -- sign-up -------------------------------------------------------------------------------

    async def join(self, tournament_id: int, user_id: int, *, max_players: int) -> bool:
        """Enter ``user_id``; False if they were in already.

        :raises TournamentClosedError: sign-up is over.
        :raises TournamentFullError: ``max_players`` have entered.
        """
        now = self.db.now()

        async def transaction(tx: Tx) -> bool:
            tournament = await _locked(tx, tournament_id)
            if tournament.status != "signup":
                raise TournamentClosedError(status=tournament.status)
            there = await tx.fetchone(
                "SELECT 1 FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?", (tournament_id, user_id)
            )
            if there is not None:
                return False
            count = await tx.fetchone(
                "SELECT COUNT(*) FROM tournament_entrants WHERE tournament_id = ?", (tournament_id,)
            )
            if count is not None and count[0] >= max_players:
                raise TournamentFullError()
            await tx.execute(
                "INSERT INTO tournament_entrants (tournament_id, user_id, joined_at) VALUES (?, ?, ?)",
                (tournament_id, user_id, now),
            )
            await tx.execute("UPDATE tournaments SET updated_at = ? WHERE id = ?", (now, tournament_id))
            return True

        return await self.db.transact(transaction)

    async def leave(self, tournament_id: int, user_id: int) -> bool:
        """Take ``user_id`` off the list; False if they were not on it.

        :raises TournamentClosedError: sign-up is over (withdraw instead).
        """
        now = self.db.now()

        async def transaction(tx: Tx) -> bool:
            tournament = await _locked(tx, tournament_id)
            if tournament.status != "signup":
                raise TournamentClosedError(status=tournament.status)
            gone = await tx.execute(
                "DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?", (tournament_id, user_id)
            )
            if gone:
                await tx.execute("UPDATE tournaments SET updated_at = ? WHERE id = ?", (now, tournament_id))
            return bool(gone)

        return await self.db.transact(transaction)

    # -- running ---------------------------------------------------------------------------------

    async def start(
        self,
        tournament_id: int,
        *,
        seeds: Sequence[tuple[int, int, float | None]],
        rounds: int,
        pairings: Sequence[NewPairing],
        round_deadline: datetime | None,
        owed: Sequence[Owed] = (),
    ) -> TournamentRow | None:
        """Start: seeds ``(user_id, seed, rating)`` for exactly the entrants, round 1's
        tables, the deadline, and what it owes, in one transaction. None if it is not
        signing up any more (another start won, or it was cancelled).

        :raises EntrantsChangedError: the entrants are not those seeded.
        """
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            tournament = await _locked(tx, tournament_id)
            if tournament.status != "signup":
                return None
            entered = {
                r["user_id"]
                for r in await tx.fetchall(
                    "SELECT user_id FROM tournament_entrants WHERE tournament_id = ?", (tournament_id,)
                )
            }
            if entered != {user for user, _, _ in seeds}:
                raise EntrantsChangedError()
            for user, seed, rating in seeds:
                await tx.execute(
                    "UPDATE tournament_entrants SET seed = ?, rating = ? WHERE tournament_id = ? AND user_id = ?",
                    (seed, rating, tournament_id, user),
                )
            changed = await tx.execute(
                """
                UPDATE tournaments SET status = 'running', round = 1, rounds = ?, round_deadline = ?, updated_at = ?
                WHERE id = ? AND status = 'signup'
                """,
                (rounds, to_ts(round_deadline), now, tournament_id),
            )
            if changed != 1:
                return None
            await _insert_pairings(tx, tournament_id, 1, pairings, now)
            for entry in owed:
                await outbox.add(tx, entry, now)
            return await tx.fetchone("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))

        row = await self.db.transact(transaction)
        return TournamentRow.from_row(row) if row else None

    async def decide(
        self, pairing_id: int, winner: int | None, outcome: str, *, owed: Sequence[Owed] = ()
    ) -> PairingRow | None:
        """Decide a table (once): None if it was decided before."""
        if outcome not in OUTCOMES:
            raise ValueError(f"bad outcome {outcome!r}")
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            row = await tx.fetchone(
                """
                UPDATE tournament_pairings SET winner = ?, outcome = ?, decided_at = ?
                WHERE id = ? AND outcome IS NULL RETURNING *
                """,
                (winner, outcome, now, pairing_id),
            )
            if row is not None:
                for entry in owed:
                    await outbox.add(tx, entry, now)
            return row

        row = await self.db.transact(transaction)
        return PairingRow.from_row(row) if row else None

    async def set_thread(self, pairing_id: int, thread_id: int) -> int:
        """Remember the match's thread; returns the thread it has (an earlier one wins)."""

        async def transaction(tx: Tx) -> int:
            await tx.execute(
                "UPDATE tournament_pairings SET thread_id = ? WHERE id = ? AND thread_id IS NULL",
                (thread_id, pairing_id),
            )
            row = await tx.fetchone("SELECT thread_id FROM tournament_pairings WHERE id = ?", (pairing_id,))
            if row is None:
                raise NotFoundError(f"Match #{pairing_id} does not exist.")
            return int(row["thread_id"])

        return await self.db.transact(transaction)

    async def advance(
        self,
        tournament_id: int,
        from_round: int,
        *,
        pairings: Sequence[NewPairing] = (),
        round_deadline: datetime | None = None,
        finish: Finish | None = None,
        owed: Sequence[Owed] = (),
    ) -> TournamentRow | None:
        """The round ``from_round`` is over: start the next with ``pairings``, or
        ``finish`` the tournament; with what it owes, in one transaction.

        Exactly once: None unless the tournament is running at ``from_round`` and
        every table of that round is decided (another process advanced it first,
        or a result is still missing)."""
        if finish is None and not pairings:
            raise ValueError("a new round needs its tables")
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            tournament = await _locked(tx, tournament_id)
            if tournament.status != "running" or tournament.round != from_round:
                return None
            open_tables = await tx.fetchone(
                "SELECT COUNT(*) FROM tournament_pairings WHERE tournament_id = ? AND round = ? AND outcome IS NULL",
                (tournament_id, from_round),
            )
            if open_tables is not None and open_tables[0]:
                return None
            if finish is not None:
                changed = await tx.execute(
                    """
                    UPDATE tournaments SET status = 'finished', champion = ?, round_deadline = NULL,
                                           finished_at = ?, updated_at = ?
                    WHERE id = ? AND status = 'running' AND round = ?
                    """,
                    (finish.champion, now, now, tournament_id, from_round),
                )
                if changed != 1:
                    return None
                for user, place in finish.places.items():
                    await tx.execute(
                        "UPDATE tournament_entrants SET place = ? WHERE tournament_id = ? AND user_id = ?",
                        (place, tournament_id, user),
                    )
            else:
                changed = await tx.execute(
                    """
                    UPDATE tournaments SET round = ?, round_deadline = ?, updated_at = ?
                    WHERE id = ? AND status = 'running' AND round = ?
                    """,
                    (from_round + 1, to_ts(round_deadline), now, tournament_id, from_round),
                )
                if changed != 1:
                    return None
                await _insert_pairings(tx, tournament_id, from_round + 1, pairings, now)
            for entry in owed:
                await outbox.add(tx, entry, now)
            return await tx.fetchone("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))

        row = await self.db.transact(transaction)
        return TournamentRow.from_row(row) if row else None

    async def withdraw(
        self,
        tournament_id: int,
        user_id: int,
        *,
        forfeits: Sequence[tuple[int, int | None, str]] = (),
        owed: Sequence[Owed] = (),
    ) -> bool:
        """A running tournament's player leaves: marked withdrawn in the current
        round, and ``forfeits`` ``(pairing id, winner, outcome)`` decide their
        tables not yet decided. False if they had withdrawn already.

        :raises TournamentClosedError: the tournament is not running.
        """
        now = self.db.now()

        async def transaction(tx: Tx) -> bool:
            tournament = await _locked(tx, tournament_id)
            if tournament.status != "running":
                raise TournamentClosedError(status=tournament.status)
            changed = await tx.execute(
                """
                UPDATE tournament_entrants SET status = 'withdrawn', left_round = ?
                WHERE tournament_id = ? AND user_id = ? AND status = 'in'
                """,
                (tournament.round, tournament_id, user_id),
            )
            if changed != 1:
                return False
            for pairing_id, winner, outcome in forfeits:
                await tx.execute(
                    """
                    UPDATE tournament_pairings SET winner = ?, outcome = ?, decided_at = ?
                    WHERE id = ? AND tournament_id = ? AND outcome IS NULL
                    """,
                    (winner, outcome, now, pairing_id, tournament_id),
                )
            await tx.execute("UPDATE tournaments SET updated_at = ? WHERE id = ?", (now, tournament_id))
            for entry in owed:
                await outbox.add(tx, entry, now)
            return True

        return await self.db.transact(transaction)

    async def cancel(self, tournament_id: int, *, owed: Sequence[Owed] = ()) -> TournamentRow | None:
        """Cancel a tournament signing up or running; None if it had ended."""
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            changed = await tx.execute(
                """
                UPDATE tournaments SET status = 'cancelled', round_deadline = NULL, finished_at = ?, updated_at = ?
                WHERE id = ? AND status IN ('signup', 'running')
                """,
                (now, now, tournament_id),
            )
            if changed != 1:
                return None
            for entry in owed:
                await outbox.add(tx, entry, now)
            return await tx.fetchone("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))

        row = await self.db.transact(transaction)
        return TournamentRow.from_row(row) if row else None

    # -- due work ----------------------------------------------------------------------------------

    async def due_starts(self, now: datetime, *, shard: Shard | None = None, limit: int = 20) -> list[TournamentRow]:
        """Tournaments whose sign-up closed (``starts_at`` passed) still signing up."""
        ts = to_ts(now)
        where, params = shard_clause(shard, "starts_at", ts)
        rows = await self.db.fetchall(
            "SELECT * FROM tournaments WHERE status = 'signup' AND starts_at IS NOT NULL AND starts_at <= ?"
            + where
            + " ORDER BY starts_at, id LIMIT ?",
            (ts, *params, limit),
        )
        return [TournamentRow.from_row(r) for r in rows]

    async def due_rounds(self, now: datetime, *, shard: Shard | None = None, limit: int = 20) -> list[TournamentRow]:
        """Running tournaments whose round deadline passed."""
        ts = to_ts(now)
        where, params = shard_clause(shard, "round_deadline", ts)
        rows = await self.db.fetchall(
            "SELECT * FROM tournaments WHERE status = 'running' AND round_deadline IS NOT NULL AND round_deadline <= ?"
            + where
            + " ORDER BY round_deadline, id LIMIT ?",
            (ts, *params, limit),
        )
        return [TournamentRow.from_row(r) for r in rows]

    async def claim_round_deadline(self, tournament_id: int, round_no: int) -> bool:
        """Take the round's deadline (once, whoever runs it): True for the one caller that did."""

        async def transaction(tx: Tx) -> int:
            return await tx.execute(
                """
                UPDATE tournaments SET round_deadline = NULL
                WHERE id = ? AND status = 'running' AND round = ? AND round_deadline IS NOT NULL
                """,
                (tournament_id, round_no),
            )

        return await self.db.transact(transaction) == 1

    async def complete_rounds(self, *, shard: Shard | None = None, limit: int = 20) -> list[TournamentRow]:
        """Running tournaments whose current round has every table decided (to
        advance: normally done as the last result comes in; this finds any a crash left)."""
        where, params = shard_clause(shard, "updated_at", self.db.now())
        rows = await self.db.fetchall(
            """
            SELECT * FROM tournaments t
            WHERE status = 'running' AND NOT EXISTS (
                SELECT 1 FROM tournament_pairings p
                WHERE p.tournament_id = t.id AND p.round = t.round AND p.outcome IS NULL
            )"""
            + where
            + " ORDER BY id LIMIT ?",
            (*params, limit),
        )
        return [TournamentRow.from_row(r) for r in rows]

    async def next_wakeup(self, *, shard: Shard | None = None) -> datetime | None:
        """The earliest sign-up close or round deadline; with ``shard``, other shards'
        count :data:`~bot.store.shards.ORPHAN_AFTER` later."""
        sql = """
            SELECT MIN(t) FROM (
                SELECT MIN(starts_at) AS t FROM tournaments WHERE status = 'signup' AND starts_at IS NOT NULL{where}
                UNION ALL
                SELECT MIN(round_deadline) FROM tournaments WHERE status = 'running' AND round_deadline IS NOT NULL{where}
            ) AS due
        """
        if shard is None:
            row = await self.db.fetchone(sql.format(where=""), ())
            return from_ts(row[0]) if row else None
        count, ids = shard
        marks = ", ".join("?" for _ in ids)
        own = await self.db.fetchone(sql.format(where=f" AND ({SHARD_SQL}) IN ({marks})"), (count, *ids) * 2)
        anyone = await self.db.fetchone(sql.format(where=""), ())
        times = [from_ts(own[0]) if own else None]
        if anyone and anyone[0] is not None:
            times.append(req_ts(anyone[0]) + timedelta(seconds=ORPHAN_AFTER))
        found = [t for t in times if t is not None]
        return min(found) if found else None

    async def ratings(self, scope: int, user_ids: Sequence[int]) -> dict[int, float]:
        """The ratings of those of ``user_ids`` rated in ``scope`` (seeding)."""
        if not user_ids:
            return {}
        marks = ", ".join("?" for _ in user_ids)
        rows = await self.db.fetchall(
            f"SELECT user_id, rating FROM ratings WHERE scope = ? AND user_id IN ({marks})", (scope, *user_ids)
        )
        return {r["user_id"]: float(r["rating"]) for r in rows}

    # -- records ------------------------------------------------------------------------------------

    async def finishes(self, user_id: int, guild_id: int | None = None) -> list[dict[str, Any]]:
        """A member's finished tournaments, the latest first: ``channel_id`` (where it was
        announced), ``name``, ``place``, ``field`` (how many played), ``champion``."""
        rows = await self.db.fetchall(
            """
            SELECT t.channel_id, t.name, e.place, t.champion,
                   (SELECT COUNT(*) FROM tournament_entrants f WHERE f.tournament_id = t.id) AS field
            FROM tournament_entrants e JOIN tournaments t ON t.id = e.tournament_id
            WHERE e.user_id = ? AND t.status = 'finished' AND (CAST(? AS BIGINT) IS NULL OR t.guild_id = ?)
            ORDER BY t.finished_at DESC, t.id DESC
            """,
            (user_id, guild_id, guild_id),
        )
        return [
            {
                "channel_id": int(r["channel_id"]),
                "name": r["name"],
                "place": None if r["place"] is None else int(r["place"]),
                "field": int(r["field"]),
                "champion": r["champion"] is not None and int(r["champion"]) == user_id,
            }
            for r in rows
        ]

    async def record(self, user_id: int, guild_id: int | None = None) -> TournamentRecord:
        """A member's finished tournaments (in one server, or everywhere)."""
        row = await self.db.fetchone(
            """
            SELECT COUNT(*) AS played,
                   COALESCE(SUM(CASE WHEN t.champion = e.user_id THEN 1 ELSE 0 END), 0) AS titles,
                   MIN(e.place) AS best
            FROM tournament_entrants e JOIN tournaments t ON t.id = e.tournament_id
            WHERE e.user_id = ? AND t.status = 'finished' AND (CAST(? AS BIGINT) IS NULL OR t.guild_id = ?)
            """,
            (user_id, guild_id, guild_id),
        )
        played = int(row["played"]) if row else 0
        titles = int(row["titles"]) if row else 0
        best = row["best"] if row else None
        name = field_size = None
        if best is not None:
            found = await self.db.fetchone(
                """
                SELECT t.name, (SELECT COUNT(*) FROM tournament_entrants f WHERE f.tournament_id = t.id) AS field
                FROM tournament_entrants e JOIN tournaments t ON t.id = e.tournament_id
                WHERE e.user_id = ? AND t.status = 'finished' AND e.place = ?
                  AND (CAST(? AS BIGINT) IS NULL OR t.guild_id = ?)
                ORDER BY t.finished_at DESC, t.id DESC LIMIT 1
                """,
                (user_id, best, guild_id, guild_id),
            )
            if found is not None:
                name, field_size = found["name"], int(found["field"])
        return TournamentRecord(played, titles, best, name, field_size)
