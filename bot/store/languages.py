"""The language each member reads: the locale of their latest interaction and the
language they chose (``players.locale`` and ``players.language``). A server's
language is a key of its settings (:mod:`bot.store.servers`)."""

from __future__ import annotations

from collections.abc import Iterable

from bot.store.database import Database, Tx
from bot.store.players import touch


class LanguageStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def of(self, user_id: int) -> tuple[str | None, str | None]:
        """(the locale last seen, the language chosen) for a member; (None, None) if unknown."""
        row = await self.db.fetchone("SELECT locale, language FROM players WHERE user_id = ?", (user_id,))
        return (row["locale"], row["language"]) if row else (None, None)

    async def chosen(self) -> dict[int, str]:
        """Every member who chose a language, with it (few: most read their client's)."""
        rows = await self.db.fetchall("SELECT user_id, language FROM players WHERE language IS NOT NULL")
        return {int(row["user_id"]): str(row["language"]) for row in rows}

    async def remember(self, seen: Iterable[tuple[int, str]]) -> None:
        """The locales members were last seen with, in one transaction (players unknown
        to the store are skipped: nothing is owed to them yet)."""
        rows = [(locale, self.db.now(), user_id, locale) for user_id, locale in seen]
        if not rows:
            return

        async def transaction(tx: Tx) -> None:
            await tx.executemany(
                "UPDATE players SET locale = ?, updated_at = ? WHERE user_id = ? AND (locale IS NULL OR locale <> ?)",
                rows,
            )

        await self.db.transact(transaction)

    async def choose(self, user_id: int, language: str | None) -> None:
        """A member's own choice (None: their client's language again)."""
        now = self.db.now()

        async def transaction(tx: Tx) -> None:
            await touch(tx, user_id, now)
            await tx.execute(
                "UPDATE players SET language = ?, updated_at = ? WHERE user_id = ?", (language, now, user_id)
            )

        await self.db.transact(transaction)
