"""Games: one match in one channel, and its append-only action log.

A game row's ``version`` always equals the number of its logged actions.
Every write that appends actions is a compare-and-set on that version
(:meth:`GameStore.append`): the caller says which version its decision rests
on, and if someone else moved first it gets :class:`StaleVersionError` and
nothing is written. The store never imports the engine: settings and actions
are JSON it stores and gives back; the engine rebuilds a match from the log.

A long game also keeps a *snapshot* of its state (table ``game_snapshots``,
one per active game, written by :meth:`GameStore.append` with the actions
when the caller passes one, deleted when the game ends):
:meth:`GameStore.snapshot_and_tail` gives it with only the actions after it,
so a rebuild replays the tail. The state is the engine's text, opaque here;
its ``format`` lets a reader skip snapshots of another engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from bot.store import challenges, outbox, players, ratings, stats, summaries, tournaments
from bot.store.database import Database, Tx
from bot.store.errors import ChannelBusyError, ConstraintError, GameOverError, NotFoundError, StaleVersionError
from bot.store.outbox import Owed
from bot.store.rows import (
    ActionRow,
    AppendResult,
    GameRow,
    MatchOutcome,
    RatingChange,
    Row,
    SnapshotRow,
    dice_of,
    dump_json,
    req_ts,
    to_ts,
)

INFER: Final = object()
"""The default ``actor`` of :meth:`GameStore.append`: the user in the action's ``player`` seat."""

# Columns callers may change through ``updates``.
_GAME_UPDATABLE: Final = frozenset(
    {
        "status",
        "score0",
        "score1",
        "turn_deadline",
        "reminder_at",
        "reminder_sent",
        "result",
        "winner",
        "settings",
        "board_channel_id",
        "board_message_id",
        "finished_at",
        "turn",
    }
)
_TIME_COLUMNS: Final = frozenset({"turn_deadline", "reminder_at", "finished_at"})
_JSON_COLUMNS: Final = frozenset({"result", "settings"})
_GAME_STATUSES: Final = frozenset({"active", "finished", "abandoned"})


class GameStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        player0: int,
        player1: int,
        settings: Mapping[str, Any] | None = None,
        match_length: int = 0,
        turn_deadline: datetime | None = None,
        reminder_at: datetime | None = None,
        challenge_id: int | None = None,
        pairing_id: int | None = None,
    ) -> GameRow:
        """Create an active game at version 0 (no actions yet).

        Raises :class:`ChannelBusyError` if the channel already has an active
        game.  With ``challenge_id`` the (pending) challenge is marked
        accepted and linked to the game in the same transaction; if it is no
        longer pending :class:`ChallengeClosedError` is raised and nothing is
        written.  With ``pairing_id`` the game is linked to that tournament
        table in the same transaction; if the table has a game already (or was
        decided) :class:`~bot.store.tournaments.PairingTakenError` is raised and
        nothing is written.  Unknown players get a row with an empty display name.
        """
        if match_length < 0:
            raise ValueError("match_length must be >= 0")
        now = self.db.now()
        payload = dump_json(dict(settings or {}))

        async def transaction(tx: Tx) -> Row | None:
            if challenge_id is not None:
                await challenges.require_pending(tx, challenge_id)
            busy = await tx.fetchone(
                "SELECT id FROM games WHERE channel_id = ? AND status = 'active'",
                (channel_id,),
            )
            if busy is not None:
                raise ChannelBusyError(channel_id=channel_id)
            await players.touch(tx, player0, now)
            await players.touch(tx, player1, now)
            try:
                game_id = await tx.insert_id(
                    """
                    INSERT INTO games (guild_id, channel_id, player0, player1, settings,
                                       match_length, turn_deadline, reminder_at,
                                       created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    (
                        guild_id,
                        channel_id,
                        player0,
                        player1,
                        payload,
                        match_length,
                        to_ts(turn_deadline),
                        to_ts(reminder_at),
                        now,
                        now,
                    ),
                )
            except ConstraintError as exc:
                # Another process created a game in this channel meanwhile.
                if exc.is_unique("games", "channel_id"):
                    raise ChannelBusyError(channel_id=channel_id) from exc
                raise
            if challenge_id is not None:
                await challenges.mark_accepted(tx, challenge_id, game_id, now)
            if pairing_id is not None:
                await tournaments.claim_pairing(tx, pairing_id, game_id)
            return await tx.fetchone("SELECT * FROM games WHERE id = ?", (game_id,))

        row = await self.db.transact(transaction, quick=True)  # a few rows, by their keys
        assert row is not None
        return GameRow.from_row(row)

    async def get(self, game_id: int) -> GameRow:
        """Return a game by id; :class:`NotFoundError` if there is none."""
        row = await self.db.fetchone("SELECT * FROM games WHERE id = ?", (game_id,))
        if row is None:
            raise NotFoundError(f"Game #{game_id} does not exist.")
        return GameRow.from_row(row)

    async def active_in(self, channel_id: int) -> GameRow | None:
        """Return the active game in a channel (or thread), if any."""
        row = await self.db.fetchone("SELECT * FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,))
        return GameRow.from_row(row) if row else None

    async def active_for(self, user_id: int, guild_id: int | None = None) -> list[GameRow]:
        """Return a player's active games (in one guild, or everywhere), oldest first."""
        rows = await self.db.fetchall(
            """
            SELECT * FROM games
            WHERE status = 'active' AND (player0 = ? OR player1 = ?)
              AND (CAST(? AS BIGINT) IS NULL OR guild_id = ?)
            ORDER BY created_at, id
            """,
            (user_id, user_id, guild_id, guild_id),
        )
        return [GameRow.from_row(r) for r in rows]

    async def waiting_page(
        self, user_id: int, *, after: tuple[float, int] | None = None, limit: int = 200, their_turn: bool = False
    ) -> list[tuple[int, int, tuple[float, int]]]:
        """A page of a player's active games, the longest untouched first:
        ``(game id, guild id, key)``; the last key, given as ``after``, reads the
        next page (keyset: one short read each, however many games there are).
        ``their_turn``: only the games where it is the player's turn (or not known)."""
        where = ""
        params: tuple[Any, ...] = (user_id, user_id)
        if their_turn:
            where += (
                " AND ((player0 = ? AND (turn IS NULL OR turn = 0)) OR (player1 = ? AND (turn IS NULL OR turn = 1)))"
            )
            params += (user_id, user_id)
        if after is not None:
            where += " AND (updated_at > ? OR (updated_at = ? AND id > ?))"
            params += (after[0], after[0], after[1])
        rows = await self.db.fetchall(
            """
            SELECT id, guild_id, updated_at FROM games
            WHERE status = 'active' AND (player0 = ? OR player1 = ?)
            """
            + where
            + """
            ORDER BY updated_at, id LIMIT ?
            """,
            (*params, limit),
        )
        return [(r["id"], r["guild_id"], (r["updated_at"], r["id"])) for r in rows]

    async def finished_for(
        self,
        user_id: int,
        guild_id: int | None = None,
        *,
        offset: int = 0,
        limit: int = 20,
        opponent: int | None = None,
    ) -> list[GameRow]:
        """Return a player's finished/abandoned games, newest first (paged).

        Each seat's games are read from its own index in page order (migration
        13), the server and the opponent filtered inside the index: a page costs
        the first ``offset + limit`` entries of two index ranges, however many
        games the player has."""
        if offset < 0 or limit < 1:
            raise ValueError("offset must be >= 0 and limit >= 1")
        branches, params = [], []
        for seat, other in (("player0", "player1"), ("player1", "player0")):
            where = [f"{seat} = ?", "status <> 'active'"]
            params.append(user_id)
            if guild_id is not None:
                where.append("guild_id = ?")
                params.append(guild_id)
            if opponent is not None:
                where.append(f"{other} = ?")
                params.append(opponent)
            branches.append(
                f"SELECT * FROM (SELECT id, finished_at FROM games WHERE {' AND '.join(where)}"
                f" ORDER BY finished_at DESC, id DESC LIMIT ?) AS {seat}_games"
            )
            params.append(offset + limit)
        rows = await self.db.fetchall(
            f"""
            SELECT g.* FROM (
                SELECT id, finished_at FROM ({branches[0]} UNION ALL {branches[1]}) AS both_seats
                ORDER BY finished_at DESC, id DESC LIMIT ? OFFSET ?
            ) AS page JOIN games g ON g.id = page.id
            ORDER BY g.finished_at DESC, g.id DESC
            """,
            (*params, limit, offset),
        )
        return [GameRow.from_row(r) for r in rows]

    async def note_turn(self, game_id: int, version: int, turn: int) -> bool:
        """Keep whose turn it is in a game last moved before turns were kept (found by
        rebuilding it at ``version``); False if the game moved on meanwhile."""
        if turn not in (0, 1):
            raise ValueError("a turn is seat 0 or 1")
        changed = await self.db.transact(
            lambda tx: tx.execute(
                "UPDATE games SET turn = ? WHERE id = ? AND version = ? AND status = 'active' AND turn IS NULL",
                (turn, game_id, version),
            )
        )
        return changed == 1

    async def reseat(self, game_id: int, seat: int, user_id: int) -> bool:
        """Seat ``user_id`` at ``seat`` of an active game (a chouette's checkers passing to the
        next team member when the captain is out); False if the game is over."""
        if seat not in (0, 1):
            raise ValueError("a seat is 0 or 1")
        column = ("player0", "player1")[seat]

        async def transaction(tx: Tx) -> int:
            now = self.db.now()
            await players.touch(tx, user_id, now)
            return await tx.execute(
                f"UPDATE games SET {column} = ?, updated_at = ? WHERE id = ? AND status = 'active'",
                (user_id, now, game_id),
            )

        return await self.db.transact(transaction, quick=True) == 1

    async def with_actions(self, game_id: int) -> tuple[GameRow, list[ActionRow]]:
        """Return a game and its whole log from one consistent snapshot.

        Use this to rebuild a match: ``len(actions) == game.version`` always.
        """
        async with self.db.snapshot() as snap:
            row = await snap.fetchone("SELECT * FROM games WHERE id = ?", (game_id,))
            rows = await snap.fetchall("SELECT * FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
        if row is None:
            raise NotFoundError(f"Game #{game_id} does not exist.")
        return GameRow.from_row(row), [ActionRow.from_row(r) for r in rows]

    async def snapshot_and_tail(
        self, game_id: int, *, format: int, upto: int | None = None
    ) -> tuple[SnapshotRow | None, list[ActionRow]]:
        """The game's snapshot in ``format`` (None if it has none, or one of another
        format, or past ``upto``) and the actions after it up to ``upto`` (all the
        rest without), from one consistent read: with no snapshot, the whole log."""
        below, bound = ("", ()) if upto is None else (" AND version <= ?", (upto,))
        upper = "" if upto is None else " AND seq <= ?"
        async with self.db.snapshot() as snap:
            found = await snap.fetchone(
                "SELECT * FROM game_snapshots WHERE game_id = ? AND format = ?" + below, (game_id, format, *bound)
            )
            after = found["version"] if found is not None else 0
            rows = await snap.fetchall(
                "SELECT * FROM actions WHERE game_id = ? AND seq > ?" + upper + " ORDER BY seq",
                (game_id, after, *bound),
            )
        return (SnapshotRow.from_row(found) if found is not None else None), [ActionRow.from_row(r) for r in rows]

    async def snapshot(self, game_id: int) -> SnapshotRow | None:
        """The game's stored snapshot, whatever its format (None without one)."""
        row = await self.db.fetchone("SELECT * FROM game_snapshots WHERE game_id = ?", (game_id,))
        return SnapshotRow.from_row(row) if row is not None else None

    async def actions(self, game_id: int, *, after_seq: int = 0) -> list[ActionRow]:
        """Return a game's actions with ``seq > after_seq``, in order."""
        rows = await self.db.fetchall(
            "SELECT * FROM actions WHERE game_id = ? AND seq > ? ORDER BY seq",
            (game_id, after_seq),
        )
        return [ActionRow.from_row(r) for r in rows]

    async def append(
        self,
        game_id: int,
        expected_version: int,
        actions: Sequence[Mapping[str, Any]],
        *,
        actor: Any = INFER,
        updates: Mapping[str, Any] | None = None,
        outcome: MatchOutcome | None = None,
        owed: Sequence[Owed] = (),
        summary: Mapping[str, Any] | None = None,
        snapshot: tuple[int, str] | None = None,
    ) -> AppendResult:
        """Compare-and-set: append actions and update the game in ONE transaction.

        The actions get ``seq = expected_version + 1, + 2, ...`` and the
        game's version becomes ``expected_version + len(actions)``, but only
        if the stored version still equals ``expected_version``; otherwise
        :class:`StaleVersionError` is raised and nothing is written.
        Appending to a game that is not active raises :class:`GameOverError`.

        ``actor`` (user id or None for the system) applies to every action;
        if omitted it is inferred from the action's ``"player"`` seat (0/1 ->
        that player's user id, else None).  ``dice`` ([d1, d2]) and
        ``play`` (str) keys are also copied to their own columns for stats.

        ``updates`` may set: status, score0, score1, turn_deadline,
        reminder_at, reminder_sent, result (dict), winner, settings (dict),
        board_channel_id, board_message_id, finished_at.  Setting
        ``turn_deadline`` resets ``reminder_sent`` unless given too.  Setting
        status to finished/abandoned fills ``finished_at`` and clears the
        deadline and reminder.

        ``outcome`` finishes the match: status becomes 'finished' (unless
        ``updates`` says 'abandoned'), ``winner`` is set, ``result`` defaults
        to ``{"winner", "loser", "winner_points", "loser_points"}`` unless
        given in ``updates``, and — when rated —
        both players' rows in the guild scope and the global scope (0) are
        updated with the FIBS formula, all in the same transaction.  The
        changes are returned in ``AppendResult.rating_changes``.

        ``owed``: messages the change owes the players (:mod:`bot.store.outbox`),
        written in the same transaction; their ids are in ``AppendResult.owed``.

        ``summary`` (the parts :mod:`bot.store.summaries` keeps) is written in
        the same transaction; it is only for an append that ends the game.

        A game that ends decides its tournament table, if it has one, in the
        same transaction (:func:`bot.store.tournaments.game_ended`).

        ``snapshot``: ``(format, state)``, the game's state at the version this
        append reaches, replaces the game's snapshot in the same transaction.
        A game that ends loses its snapshot (one given is not written).
        """
        if not actions:
            raise ValueError("append_actions needs at least one action")
        if expected_version < 0:
            raise ValueError("expected_version must be >= 0")
        encoded: list[tuple[Mapping[str, Any], Any, str, str]] = []
        for action in actions:
            who = actor
            kind = action.get("kind")
            if not isinstance(kind, str) or not kind:
                raise ValueError(f"action needs a non-empty 'kind': {action!r}")
            encoded.append((action, who, kind, dump_json(dict(action))))
        columns = _encode_updates(updates or {})

        now = self.db.now()

        async def transaction(tx: Tx) -> tuple[Row | None, list[RatingChange], list[tuple[Any, ...]], list[int]]:
            # FOR UPDATE (PostgreSQL): a racing append waits here and then sees our version.
            row = await tx.fetchone("SELECT * FROM games WHERE id = ?" + tx.for_update, (game_id,))
            if row is None:
                raise NotFoundError(f"Game #{game_id} does not exist.")
            game = GameRow.from_row(row)
            if game.version != expected_version:
                raise StaleVersionError(game_id=game_id, expected=expected_version, actual=game.version)
            if not game.is_active:
                raise GameOverError()

            if outcome is not None:
                if {outcome.winner, outcome.loser} != {game.player0, game.player1}:
                    raise ValueError("outcome winner/loser must be the game's two players")
                columns.setdefault("status", "finished")
                columns["winner"] = outcome.winner
                columns.setdefault(
                    "result",
                    dump_json(
                        {
                            "winner": outcome.winner,
                            "loser": outcome.loser,
                            "winner_points": outcome.winner_points,
                            "loser_points": outcome.loser_points,
                        }
                    ),
                )
            _finish_columns(columns, now)
            if summary is not None and columns.get("status") not in ("finished", "abandoned"):
                raise ValueError("a summary is written by the append that ends the game")

            seq = expected_version
            action_params: list[tuple[Any, ...]] = []
            for action, who, kind, payload in encoded:
                seq += 1
                if who is INFER:
                    seat = action.get("player")
                    who = game.players[seat] if seat in (0, 1) and not isinstance(seat, bool) else None
                d1, d2 = dice_of(action)
                play = action.get("play")
                action_params.append(
                    (game_id, seq, who, kind, payload, d1, d2, play if isinstance(play, str) else None, now)
                )
            await tx.executemany(
                """
                INSERT INTO actions (game_id, seq, actor, kind, action, die1, die2, play, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                action_params,
            )

            columns["version"] = seq
            columns["updated_at"] = now
            assignments = ", ".join(f"{name} = ?" for name in columns)
            # RETURNING gives the new row in the same round trip (fewer trips
            # inside the write transaction = more actions per second).
            new_row = await tx.fetchone(
                f"UPDATE games SET {assignments} WHERE id = ? AND version = ? RETURNING *",
                (*columns.values(), game_id, expected_version),
            )
            if new_row is None:  # cannot happen with the row locked; belt and braces
                raise StaleVersionError(game_id=game_id, expected=expected_version)

            changes: list[RatingChange] = []
            if outcome is not None and outcome.rated:
                changes = await ratings.apply_outcome(tx, game, outcome, now)
            if summary is not None:
                await summaries.write(tx, game_id, summary, now)
            if columns.get("status") in ("finished", "abandoned"):
                await stats.count_dice(tx, game_id, game.guild_id)
                await tournaments.game_ended(tx, game_id, columns.get("winner"), now)
            owed_ids = [await outbox.add(tx, entry, now) for entry in owed]
            if columns.get("status") in ("finished", "abandoned"):
                await tx.execute("DELETE FROM game_snapshots WHERE game_id = ?", (game_id,))
            elif snapshot is not None:
                await tx.execute(
                    """
                    INSERT INTO game_snapshots (game_id, version, format, state, updated_at)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (game_id) DO UPDATE SET version = excluded.version,
                        format = excluded.format, state = excluded.state, updated_at = excluded.updated_at
                    """,
                    (game_id, seq, snapshot[0], snapshot[1], now),
                )
            return new_row, changes, action_params, owed_ids

        new_row, changes, action_params, owed_ids = await self.db.transact(transaction, quick=True)
        stamp = req_ts(now)
        return AppendResult(
            game=GameRow.from_row(new_row),
            actions=[
                ActionRow(
                    game_id=game_id,
                    seq=params[1],
                    actor=params[2],
                    kind=params[3],
                    action=dict(action),
                    dice=(params[5], params[6]) if params[5] is not None and params[6] is not None else None,
                    play=params[7],
                    created_at=stamp,
                )
                for (action, _, _, _), params in zip(encoded, action_params)
            ],
            rating_changes=changes,
            owed=owed_ids,
        )


def _encode_updates(updates: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``updates`` and convert values to column values."""
    unknown = set(updates) - _GAME_UPDATABLE
    if unknown:
        raise ValueError(f"cannot update game columns: {sorted(unknown)}")
    columns: dict[str, Any] = {}
    for name, value in updates.items():
        if name in _TIME_COLUMNS:
            columns[name] = to_ts(value)
        elif name in _JSON_COLUMNS:
            columns[name] = None if value is None else dump_json(value)
        elif name == "reminder_sent":
            columns[name] = int(bool(value))
        elif name == "status":
            if value not in _GAME_STATUSES:
                raise ValueError(f"bad game status {value!r}")
            columns[name] = value
        else:
            columns[name] = value
    if "turn_deadline" in columns and "reminder_sent" not in columns:
        columns["reminder_sent"] = 0
    return columns


def _finish_columns(columns: dict[str, Any], now: float) -> None:
    """Fill the bookkeeping columns of a game that is ending."""
    if columns.get("status") in ("finished", "abandoned"):
        columns.setdefault("finished_at", now)
        columns["turn_deadline"] = None
        columns["reminder_at"] = None
        columns["turn"] = None
