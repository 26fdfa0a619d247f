"""A server's settings: one JSON object per server in ``guild_settings``, the only
repository that reads or writes that table.

Each feature keeps its own keys there (``vacation_days``, ``puzzle_channel``,
``puzzle_names``, ``tournament_role``, ...). :meth:`ServerStore.update` merges
the keys it is given into what is stored, under the row's lock (``SELECT ...
FOR UPDATE`` on PostgreSQL, the write lock ``BEGIN IMMEDIATE`` takes on
SQLite), so two changes of different keys made at the same time both stay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.store.database import Database, Tx
from bot.store.rows import dump_json, load_json
from bot.store.shards import Shard, serves


class ServerStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, guild_id: int) -> dict[str, Any]:
        """The server's settings ({} if it set none)."""
        row = await self.db.fetchone("SELECT settings FROM guild_settings WHERE guild_id = ?", (guild_id,))
        settings = load_json(row["settings"]) if row else None
        return dict(settings) if isinstance(settings, dict) else {}

    async def update(self, guild_id: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Set the keys of ``changes`` (a key set to None is removed), keeping every
        other key as stored; returns all the server's settings after the change."""

        async def transaction(tx: Tx) -> dict[str, Any]:
            now = self.db.now()
            # the row must exist for FOR UPDATE to lock it: two first changes would both read nothing
            await tx.execute(
                "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, '{}', ?)"
                " ON CONFLICT (guild_id) DO NOTHING",
                (guild_id, now),
            )
            row = await tx.fetchone(
                "SELECT settings FROM guild_settings WHERE guild_id = ?" + tx.for_update, (guild_id,)
            )
            stored = load_json(row["settings"]) if row else None
            settings = dict(stored) if isinstance(stored, dict) else {}
            for key, value in changes.items():
                if value is None:
                    settings.pop(key, None)
                else:
                    settings[key] = value
            await tx.execute(
                "UPDATE guild_settings SET settings = ?, updated_at = ? WHERE guild_id = ?",
                (dump_json(settings), now, guild_id),
            )
            return settings

        return await self.db.transact(transaction)

    async def having(self, key: str, shard: Shard | None = None) -> list[tuple[int, dict[str, Any]]]:
        """The servers (on ``shard``) that have set ``key``, with their settings, by id."""
        rows = await self.db.fetchall("SELECT guild_id, settings FROM guild_settings ORDER BY guild_id")
        found = []
        for row in rows:
            settings = load_json(row["settings"])
            if isinstance(settings, dict) and settings.get(key) is not None and serves(shard, int(row["guild_id"])):
                found.append((int(row["guild_id"]), settings))
        return found
