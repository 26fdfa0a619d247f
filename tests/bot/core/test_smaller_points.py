"""The smaller points against a troublemaker (issue: the newer features): days out of
range, the time zones listed once, one rematch per finished game, digests at least a
day apart, a member's tournament found however many there are."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from bot.core.patience import PatienceError
from tests.bot.core.helpers import Env, FakeClock, open_env
from tests.bot.core.test_tournaments import GUILD

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
async def env(db_url: str) -> AsyncIterator[Env]:
    e = await open_env(db_url, clock=FakeClock(START))
    yield e
    await e.store.close()


async def test_a_patience_day_out_of_range_is_refused_clearly(env: Env) -> None:
    for day in ("0001-01-01", "0002-09-26", "0003-09-27", "1999-12-31"):  # the first three overflowed
        with pytest.raises(PatienceError, match="no daily deal before"):
            await env.service.patience.leaderboard(GUILD, day)


def test_time_zones_are_listed_once_not_per_keystroke(monkeypatch) -> None:
    import bot.core.notifications as notifications

    notifications.zone_names("Europe/Par")  # listed once, kept
    scans = []

    def available_timezones() -> set[str]:
        scans.append(1)
        return {"Nowhere/Else"}

    monkeypatch.setattr(notifications, "available_timezones", available_timezones)
    for typed in ("a", "am", "ame", "amer", "Europe/Pa"):
        found = notifications.zone_names(typed)
    assert scans == [] and found[0] == "Europe/Paris"
    assert notifications.zone_names("x" * 5000) == []


async def test_a_members_tournament_is_found_however_many_the_server_has(db_url: str) -> None:
    from tests.bot.core.test_tournaments import ORGANISER, open_world, people

    w = await open_world(db_url)
    try:
        first = await w.tournament(2)
        me = people(1)[0]
        for n in range(12):  # newer ones, without them
            made = await w.t.create(GUILD, 4242, ORGANISER, f"Cup {n}", first.options)
            await w.t.join(made.id, people(1, start=500 + n)[0])
        mine = await w.t.entered(GUILD, me.user_id)
        assert [v.id for v in mine] == [first.id]
        await w.t.withdraw(first.id, me)
        assert await w.t.entered(GUILD, me.user_id) == []
    finally:
        await w.service.store.close()


async def test_one_pending_rematch_per_finished_game(env: Env) -> None:
    """A double click on Rematch (from either player) makes one challenge."""
    import asyncio

    from bot.core.model import ChallengeError
    from tests.bot.core.helpers import ALICE, BOB, start_game

    view = await start_game(env.service)
    await env.service.forfeit(view.id, BOB.user_id)
    game = await env.service.lookups.get_game(view.id)
    results = await asyncio.gather(
        env.service.challenges.rematch(game, ALICE),
        env.service.challenges.rematch(game, ALICE),
        env.service.challenges.rematch(game, BOB),
        return_exceptions=True,
    )
    made = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, ChallengeError)]
    assert len(made) == 1 and len(refused) == 2 and "already waiting" in str(refused[0])
    await env.service.challenges.decline(made[0].id, made[0].challenged.user_id)
    again = await env.service.challenges.rematch(game, BOB)  # once answered, another may be asked
    assert again.options.rematch_of == view.id


async def test_digests_at_least_twenty_hours_apart_whatever_the_settings(env: Env) -> None:
    """Changing the time zone after each digest does not make another due within minutes."""
    from datetime import timedelta

    from tests.bot.core.helpers import ALICE, start_game

    members = env.service.members
    await start_game(env.service)  # alice to move
    from zoneinfo import ZoneInfo

    zones = ["Pacific/Kiritimati", "Asia/Tokyo", "Europe/Paris", "America/New_York", "Pacific/Honolulu"]
    sent = 0
    start = env.clock.now
    for step in range(19):  # each hour, the digest hour set to the next local hour of another zone
        zone = zones[step % len(zones)]
        soon = (env.clock.now + timedelta(hours=1)).astimezone(ZoneInfo(zone)).hour
        await members.set_prefs(ALICE.user_id, tz=zone, digest_hour=soon)
        env.clock.advance(hours=1)
        sent += await members.send_digests(env.clock.now)
    assert env.clock.now - start >= timedelta(hours=19)
    assert sent == 1, sent


async def test_the_daily_patience_best_is_shown_only_after_the_day(env: Env) -> None:

    from tests.bot.core.helpers import ALICE
    from tests.bot.core.test_patience import SNAKE, lay_all

    patience = env.service.patience
    attempt = await patience.start(GUILD, ALICE, "daily")
    attempt = await lay_all(env, attempt, SNAKE)
    result = await patience.submit(attempt.id, ALICE.user_id)
    assert result.best_layout is None and result.best is None and result.rank == 1
    again = await patience.result(attempt.id, ALICE.user_id)
    assert again.best_layout is None
    env.clock.advance(days=1)
    after = await patience.result(attempt.id, ALICE.user_id)
    assert after.best_layout is not None and after.best is not None and after.best >= after.score
