"""A full disk: a clear private answer, one log line, a warning before, and play goes on after."""

from __future__ import annotations

import asyncio
import logging
import random
from collections import namedtuple
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from asyncpg import exceptions as pgx

from bot.core.model import SavingPausedError
from bot.discord.errors import report
from bot.store import StorageFullError
from bot.store.drivers import sqlite as driver_module
from bot.store.drivers.postgres import translate
from tests.bot.core.helpers import assert_replays, open_env, random_step, start_game

FULL_TEXT = "The bot can't save anything right now; please try again later."


def _interaction() -> SimpleNamespace:
    response = SimpleNamespace(is_done=lambda: False, send_message=mock.AsyncMock())
    return SimpleNamespace(id=1, response=response, command=None, user=SimpleNamespace(id=5), data={})


async def test_a_full_disk_answers_clearly_logs_once_and_play_resumes(tmp_path: Path, caplog, monkeypatch) -> None:
    env = await open_env(tmp_path / "bg.sqlite3")
    writer = env.store.db.driver._writer  # type: ignore[attr-defined]
    rng = random.Random(11)
    caplog.set_level(logging.INFO)
    try:
        state = await start_game(env.service)
        pages = writer.execute("PRAGMA page_count").fetchone()[0]
        writer.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full: the file cannot grow
        failure = None
        channel = 200
        for _ in range(2000):
            try:
                if not state.is_active:
                    channel += 1
                    state = await start_game(env.service, channel=channel)
                state = (await random_step(env.service, state, rng)).state
            except SavingPausedError as error:
                failure = error
                break
        assert failure is not None, "the store never filled up"
        assert isinstance(failure.__cause__, StorageFullError)
        stuck = state
        answered = 0
        for _ in range(5):  # every click meanwhile gets the same answer
            try:
                await random_step(env.service, stuck, random.Random(1))
            except SavingPausedError as error:
                answered += 1
                interaction = _interaction()
                await report(interaction, error)  # type: ignore[arg-type]
                sent = interaction.response.send_message.await_args.kwargs
                assert sent["content"] == FULL_TEXT and sent["ephemeral"] is True
        assert answered == 5
        full_lines = [r for r in caplog.records if "database full" in r.getMessage()]
        assert len(full_lines) == 1 and full_lines[0].levelno == logging.ERROR and not full_lines[0].exc_info
        assert not [r for r in caplog.records if r.name == "bot.errors"]  # no traceback, no line per click

        # the scheduler's passes meanwhile: no traceback each time either
        from bot.core.scheduler import Scheduler

        channels = iter(range(90_000, 100_000))

        async def job(now, shard) -> None:
            await env.store.games.create(guild_id=1, channel_id=next(channels), player0=1, player1=2)

        scheduler = Scheduler(env.service.deadlines, gated=False, min_sleep=0.01, max_sleep=0.01)
        scheduler.add_job("fills the disk", job)
        env.clock.advance(days=30)  # every deadline due: timeouts to write
        scheduler.start()
        await asyncio.sleep(0.2)
        await scheduler.stop()
        assert not [r for r in caplog.records if r.exc_info or r.name == "bot.core.scheduler"]
        assert len([r for r in caplog.records if "database full" in r.getMessage()]) == 1

        monkeypatch.setattr(driver_module, "FULL_QUIET_SECONDS", 0.0)  # said at once, not a minute on
        writer.execute("PRAGMA max_page_count = 1073741823")  # room again
        after = (await random_step(env.service, stuck, random.Random(1))).state
        assert after.version == stuck.version + 1
        assert [r for r in caplog.records if "writes work again" in r.getMessage()]
        await assert_replays(env.service, env.store, after.id)
    finally:
        await env.store.close()


async def test_low_disk_space_is_warned_of_once_and_its_return_told(tmp_path: Path, caplog, monkeypatch) -> None:
    env = await open_env(tmp_path / "bg.sqlite3")
    driver = env.store.db.driver
    caplog.set_level(logging.INFO, logger="bot.store.drivers.sqlite")
    usage = namedtuple("usage", "total used free")
    free = [100 << 20]
    monkeypatch.setattr(driver_module.shutil, "disk_usage", lambda path: usage(1 << 40, 0, free[0]))
    try:
        for n in range(3):
            driver._next_disk_check = 0.0  # type: ignore[attr-defined]
            await start_game(env.service, channel=300 + n)
        warnings = [r.getMessage() for r in caplog.records if "low disk space" in r.getMessage()]
        assert warnings == [
            f"low disk space: 100 MiB free beside {driver.path} (warning under 1024 MiB); "  # type: ignore[attr-defined]
            "the bot stops saving games when it is full"
        ]
        free[0] = 5 << 30
        driver._next_disk_check = 0.0  # type: ignore[attr-defined]
        await start_game(env.service, channel=400)
        assert any("disk space is back: 5120 MiB free" in r.getMessage() for r in caplog.records)
    finally:
        await env.store.close()


def test_postgresql_disk_full_is_the_same_error_logged_now_and_then(caplog, monkeypatch) -> None:
    from bot.store.drivers import postgres

    monkeypatch.setattr(postgres, "_full_logged_at", -postgres.FULL_LOG_EVERY)
    caplog.set_level(logging.ERROR, logger="bot.store.drivers.postgres")
    for _ in range(3):
        assert isinstance(translate(pgx.DiskFullError("could not extend file")), StorageFullError)
    assert len([r for r in caplog.records if "database full" in r.getMessage()]) == 1
