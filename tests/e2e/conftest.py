"""Fixtures for the end-to-end tests: the stand-in for Discord and the bot process.

Each test gets a fresh :class:`FakeDiscord` on a free loopback port and a
:class:`BotProcess` factory. Teardown kills every bot process it started and
checks that the stand-in saw no rule violations and no unknown routes (a test
that provokes violations on purpose clears them).
"""

from __future__ import annotations

import pytest

from tests.e2e.botproc import REAL_BOT, TOY_BOT, BotProcess
from tests.e2e.fake_discord import FakeDiscord


@pytest.fixture
async def fake():
    server = await FakeDiscord().start()
    yield server
    await server.stop()


@pytest.fixture
async def launch(fake, tmp_path):
    """``await launch(target=...)``: start a bot process; all are killed at teardown."""
    started: list[BotProcess] = []

    async def start(target: str = REAL_BOT, **kwargs) -> BotProcess:
        proc = BotProcess(fake, tmp_path, target=target, **kwargs)
        started.append(proc)
        await proc.start()
        return proc

    yield start
    for proc in started:
        await proc.kill()
    assert not fake.unhandled, f"routes the stand-in lacks: {fake.unhandled}"
    assert not fake.violations, "Discord rule violations:\n" + fake.describe()


@pytest.fixture
async def toy(launch):
    return await launch(target=TOY_BOT)


@pytest.fixture
async def real(launch):
    return await launch(target=REAL_BOT, log_level="INFO")
