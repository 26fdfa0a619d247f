"""Kibitzer polls: onlookers' answers to a player's decision, kept until the reveal.

A poll is one decision of one game, keyed by the game's version when it was
asked; its first answer opens it (:meth:`KibitzerStore.vote`). The reveal
(:meth:`KibitzerStore.reveal`) claims the poll once, records what the player
chose and the net's verdict, marks each answer agreed or not, and owes the
reveal's message to the outbox, all in one transaction: a crash loses no reveal
and a retry posts none twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.store import outbox
from bot.store.database import Database, Row, Tx
from bot.store.outbox import Owed
from bot.store.rows import dump_json, load_json
from bot.store.shards import Shard, serves

REVEAL_KIND = "kibitz_reveal"
"""The outbox kind of a poll's reveal."""


@dataclass(frozen=True, slots=True)
class PollRow:
    game_id: int
    version: int
    guild_id: int
    channel_id: int
    player_id: int
    kind: str
    position_id: str
    answers: tuple[str, ...]
    chosen: str | None
    verdict: dict[str, float] | None
    revealed: bool

    @classmethod
    def from_row(cls, row: Row) -> PollRow:
        verdict = load_json(row["verdict"]) if row["verdict"] else None
        return cls(
            int(row["game_id"]),
            int(row["version"]),
            int(row["guild_id"]),
            int(row["channel_id"]),
            int(row["player_id"]),
            str(row["kind"]),
            str(row["position_id"]),
            tuple(load_json(row["answers"]) or ()),
            row["chosen"],
            {str(k): float(v) for k, v in verdict.items()} if isinstance(verdict, dict) else None,
            row["revealed_at"] is not None,
        )


@dataclass(frozen=True, slots=True)
class KibitzerScore:
    """One onlooker's record in a server: answers given, how many the net agreed with."""

    user_id: int
    answered: int
    agreed: int
    display_name: str


class KibitzerStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def vote(
        self,
        *,
        game_id: int,
        version: int,
        guild_id: int,
        channel_id: int,
        player_id: int,
        kind: str,
        position_id: str,
        answers: Sequence[str],
        user_id: int,
        answer: str,
    ) -> bool:
        """Record (or change) an onlooker's answer, opening the poll if it is the first;
        False if the poll was revealed already (the answer comes too late)."""

        async def transaction(tx: Tx) -> bool:
            now = self.db.now()
            await tx.execute(
                """
                INSERT INTO kibitzer_polls (game_id, version, guild_id, channel_id, player_id, kind, position_id,
                                            answers, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, version) DO NOTHING
                """,
                (game_id, version, guild_id, channel_id, player_id, kind, position_id, dump_json(list(answers)), now),
            )
            row = await tx.fetchone(
                "SELECT revealed_at FROM kibitzer_polls WHERE game_id = ? AND version = ?" + tx.for_update,
                (game_id, version),
            )
            if row is None or row["revealed_at"] is not None:
                return False
            await tx.execute(
                """
                INSERT INTO kibitzer_votes (game_id, version, user_id, guild_id, answer, answered_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (game_id, version, user_id) DO UPDATE SET answer = excluded.answer,
                                                                      answered_at = excluded.answered_at
                """,
                (game_id, version, user_id, guild_id, answer, now),
            )
            return True

        return await self.db.transact(transaction, quick=True)

    async def poll(self, game_id: int, version: int) -> PollRow | None:
        row = await self.db.fetchone(
            "SELECT * FROM kibitzer_polls WHERE game_id = ? AND version = ?", (game_id, version)
        )
        return PollRow.from_row(row) if row is not None else None

    async def open_polls(self, game_id: int | None = None, shard: Shard | None = None) -> list[PollRow]:
        """Polls not yet revealed (of one game, else of every game this process serves)."""
        if game_id is not None:
            rows = await self.db.fetchall(
                "SELECT * FROM kibitzer_polls WHERE game_id = ? AND revealed_at IS NULL ORDER BY version", (game_id,)
            )
        else:
            rows = await self.db.fetchall(
                "SELECT * FROM kibitzer_polls WHERE revealed_at IS NULL ORDER BY game_id, version"
            )
        return [p for p in map(PollRow.from_row, rows) if serves(shard, p.guild_id)]

    async def moved_on(self, shard: Shard | None = None, limit: int = 200) -> list[PollRow]:
        """Open polls whose game has moved on (its player acted) or ended: owed a reveal."""
        rows = await self.db.fetchall(
            """
            SELECT p.* FROM kibitzer_polls p JOIN games g ON g.id = p.game_id
            WHERE p.revealed_at IS NULL AND (g.version > p.version OR g.status <> 'active')
            ORDER BY p.game_id, p.version LIMIT ?
            """,
            (limit,),
        )
        return [p for p in map(PollRow.from_row, rows) if serves(shard, p.guild_id)]

    async def answers(self, game_id: int, version: int) -> dict[int, str]:
        """member -> answer, of one poll."""
        rows = await self.db.fetchall(
            "SELECT user_id, answer FROM kibitzer_votes WHERE game_id = ? AND version = ? ORDER BY answered_at",
            (game_id, version),
        )
        return {int(r["user_id"]): str(r["answer"]) for r in rows}

    async def reveal(
        self, poll: PollRow, chosen: str | None, verdict: Mapping[str, float] | None, best: str | None
    ) -> bool:
        """Claim the poll's reveal once: keep the player's choice and the net's verdict,
        mark each answer agreed (with ``best``, when the net spoke) and owe the message.
        False if it was revealed already."""

        async def transaction(tx: Tx) -> bool:
            now = self.db.now()
            claimed = await tx.execute(
                "UPDATE kibitzer_polls SET revealed_at = ?, chosen = ?, verdict = ?"
                " WHERE game_id = ? AND version = ? AND revealed_at IS NULL",
                (now, chosen, dump_json(dict(verdict)) if verdict is not None else None, poll.game_id, poll.version),
            )
            if not claimed:
                return False
            if best is not None:
                await tx.execute(
                    "UPDATE kibitzer_votes SET agreed = CASE WHEN answer = ? THEN 1 ELSE 0 END"
                    " WHERE game_id = ? AND version = ?",
                    (best, poll.game_id, poll.version),
                )
            await outbox.add(
                tx,
                Owed(
                    REVEAL_KIND,
                    poll.guild_id,
                    poll.channel_id,
                    game_id=poll.game_id,
                    payload={"game": poll.game_id, "version": poll.version},
                ),
                now,
            )
            return True

        return await self.db.transact(transaction)

    async def scores(self, guild_id: int, *, limit: int = 10) -> list[KibitzerScore]:
        """A server's kibitzers: most answers the net agreed with, then most answers given
        (only answers of revealed polls count; without the net's verdict an answer counts
        as given, not as agreed)."""
        rows = await self.db.fetchall(
            """
            SELECT v.user_id, COUNT(*) AS answered, SUM(CASE WHEN v.agreed = 1 THEN 1 ELSE 0 END) AS agreed,
                   MAX(p.display_name) AS display_name
            FROM kibitzer_votes v
            JOIN kibitzer_polls k ON k.game_id = v.game_id AND k.version = v.version
            LEFT JOIN players p ON p.user_id = v.user_id
            WHERE v.guild_id = ? AND k.revealed_at IS NOT NULL
            GROUP BY v.user_id
            ORDER BY agreed DESC, answered DESC, v.user_id
            LIMIT ?
            """,
            (guild_id, limit),
        )
        return [
            KibitzerScore(int(r["user_id"]), int(r["answered"]), int(r["agreed"] or 0), r["display_name"] or "")
            for r in rows
        ]
