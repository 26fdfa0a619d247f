"""Running at scale: settings, sharded bots, several processes on one database, outages.

* ``DATABASE_URL`` (over ``DATABASE_PATH``), ``DATABASE_POOL_MIN``/``MAX``,
  ``SHARD_COUNT``/``SHARD_IDS``: parsing, clear errors, ``.env.example``.
* The bot is an ``AutoShardedBot`` exactly when ``SHARD_COUNT`` is set; it
  opens ``DATABASE_URL`` with the pool sizes and logs only the redacted URL.
* The scheduler knows its shard and hands it to a service that can filter.
* Two processes sweep one database together: every reminder, timeout and
  expired challenge is reported exactly once (SQLite and PostgreSQL).
* A PostgreSQL outage: service calls fail with a typed "try again" error and
  work again once the server is back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from discord.ext import commands

from bot import __main__ as entry
from bot.config import ConfigError, Settings, read_env_file
from bot.core import BusyError, ChallengeOptions, GameService, PlayerRef
from bot.core.scheduler import Scheduler
from bot.discord.client import BackgammonBot, ShardedBackgammonBot
from bot.store import DatabaseUnavailableError, open_store, serves, shard_of
from engine import Phase, SeededDice
from tests.bot.bots import build_bot
from tests.bot.core.helpers import ALICE, BOB, GUILD, FakeClock, open_env, start_game  # noqa: E402
from tests.narrowing import present

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parent / "core" / "worker.py"
PASSWORD = "s3cr3t-Pa55word"

SETTINGS = {
    "DISCORD_TOKEN",
    "DATABASE_URL",
    "DATABASE_PATH",
    "DATABASE_POOL_MIN",
    "DATABASE_POOL_MAX",
    "SHARD_COUNT",
    "SHARD_IDS",
    "DEV_GUILD_ID",
    "DEFAULT_MOVE_DAYS",
    "LOG_LEVEL",
}


def settings_of(**values: str) -> Settings:
    return Settings.from_env({"DISCORD_TOKEN": "t", **values}, env_file=None)


# --------------------------------------------------------------------------
# Settings
# --------------------------------------------------------------------------


def test_database_url_wins_over_database_path() -> None:
    plain = settings_of(DATABASE_PATH="/srv/bg.sqlite3")
    assert plain.database_url == "/srv/bg.sqlite3" and plain.database_redacted == "/srv/bg.sqlite3"
    assert plain.pool_options == {} and plain.database_secrets == ()
    url = f"postgresql://bg:{PASSWORD}@db:5432/backgammon"
    both = settings_of(DATABASE_PATH="/srv/bg.sqlite3", DATABASE_URL=url)
    assert both.database_url == url
    assert both.database_redacted == "postgresql://bg:***@db:5432/backgammon"
    assert PASSWORD not in repr(both) and both.database_secrets == (PASSWORD,)
    assert settings_of(DATABASE_URL="sqlite:///data/x.sqlite3").database_url == "sqlite:///data/x.sqlite3"
    # a percent-encoded password is hidden as written and as decoded
    assert settings_of(DATABASE_URL="postgresql://bg:p%40ss@db/bg").database_secrets == ("p%40ss", "p@ss")


def test_pool_sizes() -> None:
    assert settings_of(DATABASE_POOL_MIN="2", DATABASE_POOL_MAX="20").pool_options == {"min_size": 2, "max_size": 20}
    assert settings_of(DATABASE_POOL_MAX="4").pool_options == {"min_size": 1, "max_size": 4}
    assert settings_of(DATABASE_POOL_MIN="12").pool_options == {"min_size": 12, "max_size": 12}


def test_shard_settings() -> None:
    unsharded = settings_of()
    assert not unsharded.sharded and unsharded.shard_options == {}
    assert serves(unsharded.shard, 123 << 22)
    all_shards = settings_of(SHARD_COUNT="4")
    assert all_shards.sharded and all_shards.shard_options == {"shard_count": 4}
    assert serves(all_shards.shard, 3 << 22)  # runs every shard
    mine = settings_of(SHARD_COUNT="4", SHARD_IDS=" 1, 0 ")
    assert mine.shard_ids == (0, 1) and mine.shard_options == {"shard_count": 4, "shard_ids": [0, 1]}
    assert [serves(mine.shard, g << 22) for g in range(8)] == [True, True, False, False] * 2
    assert serves(mine.shard, None) and serves(mine.shard, 0)  # direct messages are shard 0's
    assert shard_of(806_000_000_000_000_000, 4) == (806_000_000_000_000_000 >> 22) % 4


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"DATABASE_URL": f"mysql://root:{PASSWORD}@db/bg"}, "DATABASE_URL: unsupported"),
        ({"DATABASE_POOL_MIN": "two"}, "DATABASE_POOL_MIN must be a whole number"),
        ({"DATABASE_POOL_MAX": "0"}, "DATABASE_POOL_MAX must be 1 to"),
        ({"DATABASE_POOL_MIN": "5", "DATABASE_POOL_MAX": "2"}, "DATABASE_POOL_MIN .5. must not be above"),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be 1 to"),
        ({"SHARD_IDS": "0,1"}, "SHARD_IDS needs SHARD_COUNT"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"}, "shard 2 does not exist with SHARD_COUNT=2"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "1,1"}, "lists shard 1 twice"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0;1"}, "comma-separated"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": ","}, "at least one shard"),
    ],
)
def test_bad_scale_settings_say_what_to_fix(environ: dict[str, str], expected: str) -> None:
    with pytest.raises(ConfigError, match=expected) as info:
        settings_of(**environ)
    assert PASSWORD not in str(info.value)


def test_the_example_file_documents_every_setting() -> None:
    """``.env.example`` names every setting: set (``KEY=``) or as a commented-out example (``# KEY=``)."""
    path = ROOT / ".env.example"
    documented = set(read_env_file(path))
    for line in path.read_text(encoding="utf-8").splitlines():
        key = line.lstrip("# ").split("=", 1)[0]
        if "=" in line and key.isupper() and key.replace("_", "").isalnum():
            documented.add(key)
    assert documented >= SETTINGS, SETTINGS - documented
    settings = Settings.from_env(dict(read_env_file(path), DISCORD_TOKEN="t"), env_file=None)
    assert not settings.sharded  # the example runs one plain process


# --------------------------------------------------------------------------
# The bot: sharding, opening DATABASE_URL, logs
# --------------------------------------------------------------------------


def test_unsharded_bot_is_a_plain_bot() -> None:
    bot = build_bot(settings_of(), scheduler=False)
    assert type(bot) is BackgammonBot and not isinstance(bot, commands.AutoShardedBot)
    assert bot.shard_count is None


async def test_shard_count_makes_an_auto_sharded_bot(tmp_path) -> None:
    path = str(tmp_path / "bg.sqlite3")
    store = await open_store(path)
    bot = build_bot(settings_of(SHARD_COUNT="4", SHARD_IDS="0,1", DATABASE_PATH=path), store=store)
    assert isinstance(bot, ShardedBackgammonBot)
    assert isinstance(bot, commands.AutoShardedBot) and isinstance(bot, BackgammonBot)
    assert (bot.shard_count, bot.shard_ids) == (4, [0, 1])
    every = build_bot(settings_of(SHARD_COUNT="3", DATABASE_PATH=path), store=store)
    assert isinstance(every, commands.AutoShardedBot)
    assert (every.shard_count, every.shard_ids) == (3, None)
    for started in (bot, every):
        await started._async_setup_hook()  # what login does first (the sharded client's event queue)
        with mock.patch.object(started.tree, "sync", mock.AsyncMock(return_value=[])):
            await started.setup_hook()
    try:
        assert bot.scheduler is not None and bot.scheduler.shard == (4, (0, 1))
        assert every.scheduler is not None and every.scheduler.shard is None  # runs all shards: sweeps all
    finally:
        await bot.close()
        await every.close()
        await store.close()


@pytest.fixture
def pg_url(pg_server) -> Any:
    name, url = pg_server.create_database()
    try:
        yield url
    finally:
        pg_server.drop_database(name)


def with_password(url: str) -> str:
    # the test server trusts every local connection, so any password gets in
    return url.replace("postgresql://postgres@", f"postgresql://postgres:{PASSWORD}@")


async def test_the_bot_opens_database_url_with_the_pool_and_logs_it_redacted(pg_url: str, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    url = with_password(pg_url)
    settings = settings_of(
        DATABASE_URL=url,
        DATABASE_PATH="/nonexistent/never.sqlite3",
        DATABASE_POOL_MIN="2",
        DATABASE_POOL_MAX="3",
        LOG_LEVEL="DEBUG",
    )
    bot = await entry.open_bot(settings)  # the composition root
    try:
        assert bot.service.store.backend == "postgresql"
        pool = bot.service.store.db.driver.pool  # type: ignore[attr-defined]
        assert (pool.get_min_size(), pool.get_max_size()) == (2, 3)
        state = await start_game(bot.service)
        assert (await bot.service.lookups.get_game(state.id)).is_active
    finally:
        await bot.close()
    assert "postgresql://postgres:***@127.0.0.1" in caplog.text
    assert PASSWORD not in caplog.text
    assert not Path("/nonexistent/never.sqlite3").exists()


def test_the_database_password_is_redacted_if_anything_logs_it(capsys) -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        settings = settings_of(DATABASE_URL=f"postgresql://bg:{PASSWORD}@db/bg", DISCORD_TOKEN="MTIz.fake.token")
        handler = entry.setup_logging(settings)
        logging.getLogger("asyncpg.somewhere").warning("connect to postgresql://bg:%s@db/bg failed", PASSWORD)
        handler.flush()
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    err = capsys.readouterr().err
    assert "postgresql://bg:[redacted]@db/bg failed" in err and PASSWORD not in err


# --------------------------------------------------------------------------
# The scheduler's shard
# --------------------------------------------------------------------------


class RecordingService:
    """Records what the scheduler asks for."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.clock = FakeClock()

    async def process_due(self, now: Any = None, *, shard: Any = None) -> list[Any]:
        self.calls.append(("process_due", shard))
        return []

    async def next_wakeup(self, *, shard: Any = None) -> Any:
        self.calls.append(("next_wakeup", shard))
        return None


async def test_the_scheduler_hands_its_shard_to_the_service() -> None:
    deadlines = RecordingService()
    settings = settings_of(SHARD_COUNT="4", SHARD_IDS="2,3")
    scheduler = Scheduler(deadlines, shard=settings.shard)  # type: ignore[arg-type]
    assert scheduler.shard == (4, (2, 3))
    assert [serves(scheduler.shard, g << 22) for g in range(4)] == [False, False, True, True]
    await scheduler.run_once()
    assert await scheduler.delay() == scheduler.max_sleep
    assert deadlines.calls == [("process_due", (4, (2, 3))), ("next_wakeup", (4, (2, 3)))]
    unsharded = RecordingService()
    scheduler = Scheduler(unsharded, shard=settings_of().shard)  # type: ignore[arg-type]
    await scheduler.run_once()
    assert scheduler.shard is None and unsharded.calls == [("process_due", None)]
    explicit = Scheduler(deadlines, shard=(2, [1]))  # type: ignore[arg-type]
    assert explicit.shard == (2, (1,))


# --------------------------------------------------------------------------
# Several processes on one database
# --------------------------------------------------------------------------


def _spawn(*args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, str(WORKER), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def pair(i: int) -> tuple[PlayerRef, PlayerRef]:
    return PlayerRef(20_000 + 2 * i, f"p{2 * i}"), PlayerRef(20_001 + 2 * i, f"p{2 * i + 1}")


@pytest.mark.slow
async def test_two_processes_report_every_reminder_timeout_and_expiry_once(db_url: str) -> None:
    """Two bot processes run their scheduler pass at the same moment over 50 due items."""
    n = 20
    clock = FakeClock()
    env = await open_env(db_url, clock=clock, dice=SeededDice(3))
    one_day = ChallengeOptions(move_days=1)
    try:
        s = env.service
        challenges = []
        for i in range(n // 2):  # unanswered: they expire after 24 hours
            a, b = pair(1000 + i)
            challenges.append((await s.challenges.create(GUILD + i, 3000 + i, a, b, one_day)).id)
        timeouts = []
        for i in range(n):  # deadline after one day: timed out at the sweep
            a, b = pair(i)
            timeouts.append((await start_game(s, guild=GUILD + i, channel=1000 + i, a=a, b=b, options=one_day)).id)
        clock.advance(hours=6)
        reminders = []
        for i in range(n):  # 18 of their 24 hours gone at the sweep: a reminder
            a, b = pair(100 + i)
            reminders.append((await start_game(s, guild=GUILD + i, channel=2000 + i, a=a, b=b, options=one_day)).id)
        now = clock.advance(hours=18, seconds=1)
    finally:
        await env.store.close()

    start_at = time.time() + 2.0
    procs = [_spawn("sweep", db_url, str(now.timestamp()), str(start_at)) for _ in range(2)]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    fired: dict[str, list[int]] = {"reminder": [], "timeout": [], "challenge_expired": []}
    for report in reports:
        for kind, ident in report["notices"]:
            fired[kind].append(ident)
    assert sorted(fired["challenge_expired"]) == sorted(challenges), reports
    assert sorted(fired["timeout"]) == sorted(timeouts), reports
    assert sorted(fired["reminder"]) == sorted(reminders), reports
    assert all(r["errors"] == [] for r in reports), reports
    print("notices per process:", [len(r["notices"]) for r in reports])

    async with await open_store(db_url) as store:
        for gid in timeouts:
            row, actions = await store.games.with_actions(gid)
            assert row.status == "finished" and row.version == len(actions)
            assert sum(1 for a in actions if a.action["kind"] in ("forfeit", "match_forfeit")) == 1
        for gid in reminders:
            row = await store.games.get(gid)
            assert row.is_active and row.reminder_sent
        for cid in challenges:
            assert (await store.challenges.get(cid)).status == "expired"
        assert await store.schedule.due_reminders(now) == [] and await store.schedule.due_deadlines(now) == []


# --------------------------------------------------------------------------
# A PostgreSQL outage, seen from the service
# --------------------------------------------------------------------------


async def test_service_during_a_postgres_outage_says_try_again_and_recovers(pg_server, pg_url: str) -> None:
    env = await open_env(pg_url, dice=SeededDice(8))
    try:
        s = env.service
        state = await start_game(s)
        clock = env.clock
        await s.challenges.create(GUILD, 4242, ALICE, BOB, ChallengeOptions())
        pg_server.stop("fast")
        try:
            mover = present(state.to_act()).user_id
            calls = {
                "act": lambda: (
                    s.roll(state.id, mover, version=state.version)
                    if state.game.phase is Phase.ROLL
                    else s.play(state.id, mover, state.legal_play_texts()[0], version=state.version)
                ),
                "read": lambda: s.lookups.get_game(state.id),
                "challenge": lambda: s.challenges.create(GUILD, 4343, ALICE, BOB, ChallengeOptions()),
                "leaderboard": lambda: s.lookups.leaderboard(GUILD),
                "process_due": lambda: s.deadlines.process_due(clock.now + timedelta(days=5)),
            }
            for name, call in calls.items():
                # the core says "busy" in its own words; the store's error is its cause
                with pytest.raises(BusyError) as info:
                    await call()
                assert isinstance(info.value.__cause__, DatabaseUnavailableError), (name, info.value)
                assert "try again" in info.value.message, (name, info.value)
            # the scheduler survives it: it waits and tries again
            scheduler = Scheduler(s.deadlines, shard=None)
            assert await scheduler.delay() == scheduler.max_sleep
        finally:
            pg_server.start()
        # back: the same service and store carry on where they were
        fresh = await s.lookups.get_game(state.id)
        assert fresh.version == state.version
        actor = fresh.to_act()
        assert actor is not None
        if fresh.game.phase is Phase.ROLL:
            out = await s.roll(fresh.id, actor.user_id, version=fresh.version)
        else:
            out = await s.play(fresh.id, actor.user_id, fresh.legal_play_texts()[0], version=fresh.version)
        assert out.state.version > state.version
        assert (await s.challenges.create(GUILD, 4343, ALICE, BOB, ChallengeOptions())).status == "pending"
    finally:
        await env.store.close()


async def test_a_features_scheduled_work_runs_behind_the_gate_and_sets_the_wake_up(tmp_path) -> None:
    from bot.store import open_store

    store = await open_store(tmp_path / "bg.sqlite3")
    try:
        service = GameService(store)
        scheduler = Scheduler(service.deadlines, max_sleep=60)
        ran: list[Any] = []

        async def job(now, shard):
            ran.append((now, shard))

        async def broken(now, shard):
            raise RuntimeError("a feature's bug")

        async def soon(shard):
            return service.clock() + timedelta(seconds=7)

        scheduler.add_job("broken", broken)
        scheduler.add_job("daily", job, soon)
        await scheduler.run_once()
        assert len(ran) == 1 and ran[0][1] is None  # ran after the broken one failed
        assert 6 <= await scheduler.delay() <= 7
        assert not scheduler.gate.is_set()  # the loop itself waits for the bot to be connected
    finally:
        await store.close()


async def test_the_sweep_works_in_batches_and_comes_back_at_once_while_more_is_due(tmp_path) -> None:
    """60 turns run out at once: each pass times out at most ``due_per_sweep`` of them,
    oldest first, and the scheduler runs the next pass without waiting for its sleep."""
    from bot.core import Limits

    clock = FakeClock()
    store = await open_store(tmp_path / "bg.sqlite3", clock=clock)
    try:
        service = GameService(store, dice=SeededDice(5), clock=clock, limits=Limits(due_per_sweep=25))
        one_day = ChallengeOptions(move_days=1)
        games = []
        for i in range(60):
            a, b = pair(500 + i)
            games.append((await start_game(service, channel=7000 + i, a=a, b=b, options=one_day)).id)
            clock.advance(seconds=1)  # each deadline a second after the one before
        clock.advance(days=2)

        first = await service.deadlines.process_due()
        assert [present(n.state).id for n in first if n.kind == "timeout"] == games[:25]  # the longest overdue first
        assert service.deadlines.more_due

        # The loop: passes follow one another until nothing is left, then it sleeps as before.
        scheduler = Scheduler(service.deadlines)
        passes: list[int] = []
        slept = asyncio.Event()
        real_run_once = scheduler.run_once

        async def run_once(now=None):
            notices = await real_run_once(now)
            passes.append(len(notices))
            return notices

        async def delay() -> float:
            slept.set()
            return 3600.0

        scheduler.run_once = run_once  # type: ignore[method-assign]
        scheduler.delay = delay  # type: ignore[method-assign]
        scheduler.open()
        scheduler.start()
        await asyncio.wait_for(slept.wait(), 30)
        await scheduler.stop()
        assert passes[:2] == [25, 10]  # no sleep between the batches: delay() came only after the last
        for gid in games:
            row = await store.games.get(gid)
            assert row.status == "finished"
        assert not service.deadlines.more_due
    finally:
        await store.close()
