"""SIGTERM stops the bot cleanly: exit 0 within the bound, a normal close frame,
every interaction it acknowledged answered, and nothing lost on the next start."""

from __future__ import annotations

import asyncio
import signal
import time

from e2e.botproc import REAL_BOT
from e2e.fake_discord import LOADING, FakeDiscord, Interaction
from e2e.load import run_games
from e2e.players import GameDriver

STOP_BOUND = 10.0
DEFERRED_MESSAGE, DEFERRED_UPDATE = 5, 6


async def sigterm(bot) -> tuple[int, float]:
    started = time.monotonic()
    bot.proc.send_signal(signal.SIGTERM)
    code = await asyncio.wait_for(bot.proc.wait(), STOP_BOUND + 5)
    return code, time.monotonic() - started


def unanswered(fake: FakeDiscord) -> list[Interaction]:
    """Interactions the bot acknowledged but never followed up (a "thinking..." left
    loading, a deferred update with no edit after it)."""
    left = []
    for inter in fake.interactions.values():
        if inter.response_type == DEFERRED_MESSAGE:
            original = fake.messages.get(inter.original_id or 0)
            if original is None or original["flags"] & LOADING:
                left.append(inter)
        elif inter.response_type == DEFERRED_UPDATE and len(inter.calls) < 2 and inter.board_at is None:
            left.append(inter)
    return left


def close_codes(fake: FakeDiscord) -> list[int | None]:
    return [entry[2] for entry in fake.gateway_log if entry[1] == "disconnect"]


async def test_sigterm_right_after_ready(fake, launch):
    bot = await launch(REAL_BOT)
    await fake.wait_for(lambda: "ready as" in bot.log_text(), 30, "the bot to be ready")
    code, seconds = await sigterm(bot)
    assert code == 0, bot.tail()
    assert seconds < STOP_BOUND
    assert close_codes(fake) == [1000], (
        fake.gateway_log[-5:],
        bot.tail(),
    )  # a normal close frame, not a dropped socket
    log = bot.log_text()
    assert log.count("stopping (SIGTERM)") == 1 and "stopped" in log, log[-2000:]


async def test_sigterm_during_load_loses_nothing(fake, launch):
    bot = await launch(REAL_BOT, log_level="INFO")
    load = asyncio.create_task(run_games(fake, 20, timeout=8.0))
    await fake.wait_for(lambda: len(fake.interactions) >= 60, 30, "the load to be under way")
    acknowledged_before = sum(1 for i in fake.interactions.values() if i.response_type is not None)
    code, seconds = await sigterm(bot)
    assert code == 0, bot.tail()
    assert seconds < STOP_BOUND
    assert close_codes(fake)[-1] == 1000
    result = await load  # the players give up on what the stopped bot never saw
    assert acknowledged_before > 0
    assert not unanswered(fake), [(i.id, i.response_type, i.calls) for i in unanswered(fake)][:5]
    assert not fake.missed_deadlines()

    # Nothing lost: every game that began goes on from where it was, to its end.
    await bot.start()
    channels = {}
    for name, inter in result.actions:
        if name == "accept" and inter.board_at is not None:
            channels[inter.channel_id] = inter
    assert channels
    drivers = []
    for channel_id in channels:
        channel = fake.channels[channel_id]
        users = [fake.users[i.user_id] for _, i in result.actions if i.channel_id == channel_id][:2]
        driver = GameDriver(fake, channel, users[0], users[1], timeout=15.0)
        show = await fake.slash(users[0], channel, "bg board")
        driver.board = await fake.wait_board(show)
        drivers.append(driver)
    finals = await asyncio.gather(*(d.play_out() for d in drivers))
    assert all(f["embeds"] and f["embeds"][0]["title"].startswith("Game over") for f in finals)
    assert not fake.missed_deadlines()
    assert await bot.stop(STOP_BOUND) == 0
