"""A server's settings (:mod:`bot.store.servers`), on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

from bot.store import open_store

GUILD = 4 << 22  # on shard 0 of 2


async def test_get_update_and_remove(store_factory) -> None:
    store = await store_factory()
    assert await store.servers.get(GUILD) == {}
    assert await store.servers.update(GUILD, {"puzzle_channel": 9, "other": 1}) == {"puzzle_channel": 9, "other": 1}
    assert await store.servers.update(GUILD, {"puzzle_channel": None, "gone": None}) == {"other": 1}
    await store.servers.update(GUILD + 1, {"puzzle_channel": 10})
    assert await store.servers.get(GUILD) == {"other": 1}
    assert await store.servers.having("puzzle_channel") == [(GUILD + 1, {"puzzle_channel": 10})]
    assert await store.servers.having("other", shard=(2, (0,))) == [(GUILD, {"other": 1})]
    assert await store.servers.having("other", shard=(2, (1,))) == []


async def test_concurrent_updates_of_different_keys_all_stay(db_url: str) -> None:
    """Two processes (two connections or pools) change different keys of the same server at
    once, the first change of the server among them: every change is kept."""
    first, second = await open_store(db_url), await open_store(db_url)
    try:
        keys = [f"key{n}" for n in range(16)]
        await asyncio.gather(
            *((first if n % 2 else second).servers.update(GUILD, {key: n}) for n, key in enumerate(keys))
        )
        assert await first.servers.get(GUILD) == {key: n for n, key in enumerate(keys)}
        await asyncio.gather(
            *((first if n % 2 else second).servers.update(GUILD, {key: None}) for n, key in enumerate(keys[:8]))
        )
        assert await second.servers.get(GUILD) == {key: n for n, key in enumerate(keys) if n >= 8}
    finally:
        await first.close()
        await second.close()
