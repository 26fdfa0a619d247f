"""The dispatcher's pace (bot.discord.dispatcher): owed messages go out at most
DELIVERIES_PER_SECOND a second for the whole bot, so a backlog after an outage
keeps the bot under Discord's global limit of 50 requests a second on the
channels' routes. (The load bench's large store: tests/e2e, bench/e2e_load.py.)"""

from __future__ import annotations

import asyncio
import math
from types import SimpleNamespace
from typing import Any

import pytest

from bot.discord.dispatcher import BUSY_SHARE, DELIVERIES_PER_SECOND, Dispatcher


def dispatcher(shard: Any = None, kept_up_for: Any = lambda: math.inf) -> Dispatcher:
    """A dispatcher of a bot that keeps up with its boards, unless told otherwise."""
    service = SimpleNamespace(deliveries=SimpleNamespace(wakers=[]))
    return Dispatcher(SimpleNamespace(), service, SimpleNamespace(), shard=shard, kept_up_for=kept_up_for)  # type: ignore[arg-type]


async def started(d: Dispatcher, count: int) -> list[float]:
    """When (the loop's clock) each of ``count`` deliveries, all owed at once, reached its post."""
    loop = asyncio.get_running_loop()
    times: list[float] = []

    async def deliver(delivery: Any) -> None:
        times.append(loop.time())

    d.deliver = deliver  # type: ignore[method-assign]
    await asyncio.gather(
        *(d._guarded(SimpleNamespace(kind="board", channel_id=n, guild_id=None)) for n in range(count))  # type: ignore[arg-type]
    )
    return sorted(times)


def test_the_pace_is_shared_by_the_processes_of_the_bot() -> None:
    assert dispatcher().per_second == DELIVERIES_PER_SECOND
    assert dispatcher((4, (0, 1))).per_second == DELIVERIES_PER_SECOND / 2  # two of four shards
    assert dispatcher((4, (3,))).per_second == DELIVERIES_PER_SECOND / 4
    # each delivery makes at most three requests on the channels' routes: under 50 a second with room
    assert 3 * (DELIVERIES_PER_SECOND + dispatcher().burst) <= 50


async def test_a_backlog_goes_out_at_the_pace_after_a_short_burst() -> None:
    d = dispatcher()
    d.per_second = 40.0  # a quick test; the rule is the same
    burst = int(d.burst)
    times = await started(d, burst + 8)
    first = times[0]
    assert all(t - first < 0.05 for t in times[:burst])  # the burst: at once
    for k in range(burst, len(times)):  # then one every 1 / per_second seconds, never sooner
        assert times[k] - first >= (k - burst + 1) / d.per_second - 0.002, (k, times[k] - first)
    assert times[-1] - first < 5


async def test_in_any_second_at_most_a_burst_and_a_seconds_worth_start() -> None:
    d = dispatcher()
    d.per_second = 30.0
    times = await started(d, 60)
    for i, start in enumerate(times):
        within = sum(1 for t in times[i:] if t < start + 1.0)
        assert within <= d.per_second + d.burst + 1


async def test_after_a_quiet_moment_a_burst_goes_at_once_again() -> None:
    d = dispatcher()
    d.per_second = 40.0
    await started(d, int(d.burst) + 4)
    await asyncio.sleep((d.burst + 4) / d.per_second + 0.05)  # the bucket fills up again
    times = await started(d, int(d.burst))
    assert times[-1] - times[0] < 0.05


@pytest.mark.parametrize("count", [1, 3])
async def test_a_few_owed_messages_go_out_at_once(count: int) -> None:
    d = dispatcher()
    loop = asyncio.get_running_loop()
    before = loop.time()
    times = await started(d, count)
    assert times[-1] - before < 0.05


async def test_a_backlog_is_worded_a_pass_at_a_time_each_at_its_turn_to_go_out() -> None:
    """Wording an owed board rebuilds its game: a pass takes on what the pace lets
    out in about a second and a half, and words each at its turn (100 worded up
    front were a burst of seconds of the loop, each posted up to ten seconds later)."""
    d = dispatcher()
    d.per_second = 40.0
    loop = asyncio.get_running_loop()
    owed = list(range(d.per_pass + 10))
    worded: dict[int, float] = {}
    limits: list[int] = []
    waits: list[float] = []

    async def entries(*, limit: int, **_: Any) -> list[Any]:
        limits.append(limit)
        batch, owed[:] = owed[:limit], owed[limit:]
        return [[SimpleNamespace(kind="board", channel_id=n, guild_id=None)] for n in batch]

    async def word(group: list[Any]) -> Any:
        worded[group[0].channel_id] = loop.time()
        return SimpleNamespace(kind="board", channel_id=group[0].channel_id, guild_id=None)

    async def no_expired(**_: Any) -> list[Any]:
        return []

    async def deliver(delivery: Any) -> None:
        waits.append(loop.time() - worded[delivery.channel_id])

    deliveries: Any = d.deliveries  # a stand-in (see dispatcher())
    deliveries.owed_entries, deliveries.word, deliveries.owed = entries, word, no_expired
    d.deliver = deliver  # type: ignore[method-assign]
    assert await d.drain() == len(worded) == d.per_pass + 10
    assert limits[:2] == [d.per_pass, d.per_pass] and len(limits) == 3  # the last pass finds nothing
    assert d.per_pass <= 1.5 * d.per_second + d.burst
    assert max(waits) < 0.02  # worded at its turn, not a pass ahead


async def test_while_live_play_saturates_the_bot_a_backlog_goes_out_more_slowly() -> None:
    kept_up = [0.0]  # boards queue for the drawing workers
    d = dispatcher(kept_up_for=lambda: kept_up[0])
    d.per_second = 40.0
    assert d.pace == 40.0 * BUSY_SHARE
    burst = int(d.burst)
    times = await started(d, burst + 4)
    first = times[burst - 1]
    for k in range(burst, len(times)):  # after the burst, at the busy pace
        assert times[k] - first >= (k - burst + 1) / d.pace - 0.002, (k, times[k] - first)
    kept_up[0] = math.inf  # room again: the full pace
    assert d.pace == 40.0
    more = await started(d, 8)
    assert more[-1] - more[0] < 8 / d.per_second + 0.05


async def test_owed_entries_with_nothing_left_to_say_do_not_use_up_the_pace() -> None:
    """Reminders of turns played meanwhile (an outage leaves many) make no request:
    they are settled without waiting for the pace, and leave it to what is posted."""
    d = dispatcher(kept_up_for=lambda: 0.0)  # and the bot saturated: the busy pace
    loop = asyncio.get_running_loop()
    stale: list[list[Any]] = [[SimpleNamespace(kind="reminder", channel_id=n, guild_id=None)] for n in range(20)]

    async def nothing_to_say(group: list[Any]) -> Any:
        return None

    deliveries: Any = d.deliveries  # a stand-in (see dispatcher())
    deliveries.word = nothing_to_say
    before = loop.time()
    assert await asyncio.gather(*(d._word_and_deliver(group) for group in stale)) == [False] * 20
    assert loop.time() - before < 0.1  # at the busy pace (2 a second) 20 would take 7.5 s
    times = await started(d, int(d.burst))
    assert times[-1] - before < 0.2  # and the burst is still there for what is posted
