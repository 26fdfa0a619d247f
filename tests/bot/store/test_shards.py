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
        # Another shard's work is taken over once it is ORPHAN_AFTER overdue; its
        # deadlines only while that shard is run (its process is slow, not gone).
        later = NOW + timedelta(seconds=ORPHAN_AFTER)
        assert [r.id for r in await store.schedule.due_deadlines(later, shard=(3, (0,)))] == [games[0].id]
        assert len(await store.schedule.due_reminders(later, shard=(3, (0,)))) == 3
        await store.schedule.beat((3, (0, 1, 2)), later, stale_after=90)
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


async def test_a_dead_shards_turn_deadlines_wait_for_it_and_move_by_its_outage(db_url: str) -> None:
    """One shard's heartbeat 10 minutes old, a deadline 6 minutes past: no survivor forfeits
    that game (its players could not move); when the shard beats again its outage moves the deadline."""
    now = NOW
    store = await open_store(db_url, clock=lambda: now)
    try:
        dead_guild = (1 << 22) + 5  # shard 1 of 2
        live_guild = (0 << 22) + 5  # shard 0 of 2
        deadline = NOW - timedelta(minutes=6)
        dead = await store.games.create(guild_id=dead_guild, channel_id=1, player0=1, player1=2, turn_deadline=deadline)
        mine = await store.games.create(
            guild_id=live_guild, channel_id=2, player0=1, player1=2, turn_deadline=NOW + timedelta(hours=2)
        )
        await store.schedule.beat((2, (1,)), NOW - timedelta(minutes=10), stale_after=90)  # then it died
        await store.schedule.beat((2, (0,)), NOW, stale_after=90)
        survivor = (2, (0,))
        assert [r.id for r in await store.schedule.due_deadlines(NOW, shard=survivor)] == []
        for later in (5, 30, 600):  # however long it stays away
            at = NOW + timedelta(minutes=later)
            assert dead.id not in [r.id for r in await store.schedule.due_deadlines(at, shard=survivor)]
        # the survivor's scheduler does not wake for it either: only for its own game
        assert await store.schedule.next_wakeup(shard=survivor) == mine.turn_deadline

        # the shard comes back: its outage (10 minutes) is owed to its games' clocks;
        # until they are credited, its deadlines still wait for it
        now = NOW + timedelta(seconds=5)
        gap = await store.schedule.beat((2, (1,)), now, stale_after=90, credit=True)
        assert gap == pytest.approx(600 + 5)
        assert dead.id not in [r.id for r in await store.schedule.due_deadlines(now, shard=survivor)]
        while await store.schedule.credit_games((2, (1,))) is not None:
            pass
        moved = await store.games.get(dead.id)
        assert moved.turn_deadline == deadline + timedelta(seconds=605)
        assert moved.turn_deadline > now  # the players get back the time they lost
        assert dead.id not in [r.id for r in await store.schedule.due_deadlines(now, shard=(2, (1,)))]
        after = moved.turn_deadline + timedelta(seconds=ORPHAN_AFTER)
        assert dead.id in [r.id for r in await store.schedule.due_deadlines(after, shard=(2, (1,)))]
    finally:
        await store.close()
