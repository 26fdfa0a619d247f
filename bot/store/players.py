"""Players: the Discord users the bot has seen, with their cached names."""

from __future__ import annotations

from bot.store.database import Database, Tx
from bot.store.rows import PlayerRow, Row


async def touch(tx: Tx, user_id: int, now: float) -> None:
    """Make sure a player row exists (an empty name until :meth:`PlayerStore.upsert`)."""
    await tx.execute(
        """
        INSERT INTO players (user_id, created_at, updated_at) VALUES (?, ?, ?)
        ON CONFLICT (user_id) DO NOTHING
        """,
        (user_id, now, now),
    )


class PlayerStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def upsert(self, user_id: int, display_name: str, *, is_bot: bool = False) -> PlayerRow:
        """Create or refresh a player's cached display name and bot flag."""
        now = self.db.now()

        async def transaction(tx: Tx) -> Row | None:
            await tx.execute(
                """
                INSERT INTO players (user_id, display_name, is_bot, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET
                    display_name = excluded.display_name,
                    is_bot = excluded.is_bot,
                    updated_at = excluded.updated_at
                """,
                (user_id, display_name, int(is_bot), now, now),
            )
            return await tx.fetchone("SELECT * FROM players WHERE user_id = ?", (user_id,))

        row = await self.db.transact(transaction)
        assert row is not None
        return PlayerRow.from_row(row)

    async def get(self, user_id: int) -> PlayerRow | None:
        """A player, or None if the bot has never seen them."""
        row = await self.db.fetchone("SELECT * FROM players WHERE user_id = ?", (user_id,))
        return PlayerRow.from_row(row) if row else None
