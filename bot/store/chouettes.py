"""Chouette sessions as stored: the players, the options and every action since (JSON).

The store never imports the engine: the core replays the log through
:mod:`engine.chouette`. :meth:`ChouetteStore.append` is a compare-and-set on
the session's version, so of two actions racing one wins and the other is
refused with :class:`~bot.store.errors.StaleVersionError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.store import outbox
from bot.store.database import Database, Row, Tx
from bot.store.errors import ChannelBusyError, ConstraintError, StaleVersionError
from bot.store.outbox import Owed
from bot.store.rows import dump_json, load_json

LEDGER_KIND = "chouette_ledger"
"""The outbox kind of the running ledger a chouette posts after each of its games
(payload: the session and its version then)."""


@dataclass(frozen=True, slots=True)
class ChouetteRow:
    id: int
    guild_id: int
    channel_id: int
    players: tuple[int, ...]
    options: dict[str, Any]
    log: tuple[dict[str, Any], ...]
    version: int
    status: str

    @classmethod
    def from_row(cls, row: Row) -> ChouetteRow:
        return cls(
            int(row["id"]),
            int(row["guild_id"]),
            int(row["channel_id"]),
            tuple(int(p) for p in load_json(row["players"]) or ()),
            dict(load_json(row["options"]) or {}),
            tuple(load_json(row["log"]) or ()),
            int(row["version"]),
            str(row["status"]),
        )


class ChouetteStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self, guild_id: int, channel_id: int, players: Sequence[int], options: Mapping[str, Any]
    ) -> ChouetteRow:
        """A new session in ``channel_id``.

        :raises ChannelBusyError: a session is going on there already."""

        async def transaction(tx: Tx) -> int:
            now = self.db.now()
            return await tx.insert_id(
                "INSERT INTO chouettes (guild_id, channel_id, players, options, log, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, '[]', ?, ?)",
                (guild_id, channel_id, dump_json(list(players)), dump_json(dict(options)), now, now),
            )

        try:
            session_id = await self.db.transact(transaction)
        except ConstraintError:
            raise ChannelBusyError(f"channel {channel_id} has a chouette going on") from None
        found = await self.get(session_id)
        assert found is not None
        return found

    async def get(self, session_id: int) -> ChouetteRow | None:
        row = await self.db.fetchone("SELECT * FROM chouettes WHERE id = ?", (session_id,))
        return ChouetteRow.from_row(row) if row is not None else None

    async def active_in(self, channel_id: int) -> ChouetteRow | None:
        row = await self.db.fetchone(
            "SELECT * FROM chouettes WHERE channel_id = ? AND status = 'active'", (channel_id,)
        )
        return ChouetteRow.from_row(row) if row is not None else None

    async def active(self) -> list[ChouetteRow]:
        """Every session going on (few: one per thread that hosts one)."""
        rows = await self.db.fetchall("SELECT * FROM chouettes WHERE status = 'active' ORDER BY id")
        return [ChouetteRow.from_row(r) for r in rows]

    async def append(
        self, session: ChouetteRow, action: Mapping[str, Any], *, ended: bool = False, ledger: bool = False
    ) -> ChouetteRow:
        """Append ``action`` if the session is still at ``session.version`` (and end it, ``ended``);
        ``ledger``: the action ends a game, and owes the running ledger's message
        (:data:`LEDGER_KIND`) in the same transaction, so a crash loses no ledger.

        :raises StaleVersionError: it moved on meanwhile (nothing written)."""
        log = [*session.log, dict(action)]

        async def transaction(tx: Tx) -> int:
            now = self.db.now()
            changed = await tx.execute(
                "UPDATE chouettes SET log = ?, version = version + 1, status = ?, updated_at = ?"
                " WHERE id = ? AND version = ? AND status = 'active'",
                (dump_json(log), "ended" if ended else "active", now, session.id, session.version),
            )
            if changed and ledger:
                owed = Owed(
                    LEDGER_KIND,
                    session.guild_id,
                    session.channel_id,
                    payload={"session": session.id, "version": session.version + 1},
                )
                await outbox.add(tx, owed, now)
            return changed

        if not await self.db.transact(transaction, quick=True):
            raise StaleVersionError("the chouette has moved on", expected=session.version)
        found = await self.get(session.id)
        assert found is not None
        return found
