"""Due work filtered by Discord shard, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.store import ORPHAN_AFTER, open_store

NOW = datetime(2025, 1, 1, tzinfo=UTC)


async def test_due_queries_keep_only_guilds_on_the_given_shards(db_url: str) -> None:
    store = await open_store(db_url, clock=lambda: NOW)
    try:
        games = {}
        for shard in range(3):
            guild = (shard << 22) + 12345  # lands on shard `shard` of 3
            games[shard] = await store.games.create(
                guild_id=guild,
                channel_id=100 + shard,
                player0=1,
                player1=2,
                turn_deadline=NOW - timedelta(seconds=60),
                reminder_at=NOW - timedelta(seconds=90),
            )
            await store.challenges.create(
                guild_id=guild,
                channel_id=200 + shard,
                challenger=1,
                challenged=2,
                expires_at=NOW - timedelta(seconds=30),
            )
        # Another shard's work is taken over once it is ORPHAN_AFTER overdue.
        later = NOW + timedelta(seconds=ORPHAN_AFTER)
        assert len(await store.schedule.due_deadlines(later, shard=(3, (0,)))) == 3
        assert await store.schedule.next_wakeup(shard=(3, (1,))) == NOW - timedelta(seconds=90)
        late = await store.schedule.due_deadlines(NOW, shard=(3, (0, 2)))
        assert sorted(r.id for r in late) == sorted([games[0].id, games[2].id])
        remind = await store.schedule.due_reminders(NOW, shard=(3, (1,)))
        assert [r.id for r in remind] == [games[1].id]
        expired = await store.schedule.expire_challenges(NOW, shard=(3, (1,)))
        assert [c.channel_id for c in expired] == [201]
        assert sorted(c.channel_id for c in await store.schedule.expire_challenges(NOW)) == [200, 202]
        with pytest.raises(ValueError):
            await store.schedule.due_deadlines(NOW, shard=(3, ()))
    finally:
        await store.close()
