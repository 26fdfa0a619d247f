"""What the health check reads, on both backends, without migrating."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.store import SCHEMA_VERSION, open_store
from bot.store.health import read_health

NOW = datetime(2026, 1, 1, tzinfo=UTC)
TS = NOW.timestamp()


async def test_heartbeats_outbox_and_credits(db_url: str) -> None:
    store = await open_store(db_url, clock=lambda: NOW)
    try:
        await store.schedule.beat((2, (0, 1)), NOW, stale_after=90.0)
        await store.schedule.beat((2, (0,)), datetime.fromtimestamp(TS + 1000, UTC), stale_after=90.0)  # an outage
        await store.schedule.beat((4, (3,)), NOW, stale_after=90.0)  # another shard count: not this process's

        async def owe(tx) -> None:
            for age in (30.0, 600.0):
                await tx.execute(
                    "INSERT INTO outbox (channel_id, kind, created_at, next_attempt_at) VALUES (1, 'notice', ?, ?)",
                    (TS - age, TS),
                )

        await store.db.transact(owe)
    finally:
        await store.close()
    health = await read_health(db_url, (2, (0, 1)))
    assert health.schema_version == SCHEMA_VERSION
    assert health.heartbeats == {0: TS + 1000, 1: TS}
    assert health.outbox_owed == 2 and health.outbox_oldest == TS - 600.0
    assert health.credits_owed == 1 and health.credits_oldest == TS + 1000
    assert (await read_health(db_url, (2, (1,)))).heartbeats == {1: TS}
