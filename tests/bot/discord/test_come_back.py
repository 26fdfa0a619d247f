"""Coming back from an outage while the bot is busy: the games' clocks are
credited in a quiet moment (or after the patience), and the deadlines run only
once every game is credited. A bot built but not logged in: no SimCord, whose
virtual time would not let the quiet moment's polling end."""

from __future__ import annotations

import asyncio
import math
import time
from datetime import timedelta

from bot.core import ChallengeOptions, GameService, PlayerRef
from bot.core.scheduler import Scheduler
from bot.discord.quiet import until_quiet
from tests.bot.bots import build_bot

ALICE, BOB = PlayerRef(1, "alice"), PlayerRef(2, "bob")


async def _away_with_a_game(store, clock):
    """A bot that was away for two hours from a game with a day per move."""
    service = GameService(store, clock=clock)
    await service.deadlines.beat()
    challenge = await service.challenges.create(10, 20, ALICE, BOB, ChallengeOptions(move_days=1))
    state = (await service.challenges.accept(challenge.id, BOB.user_id)).state
    clock.advance(hours=2)
    return service, state


def _bot(settings, service, kept_up_for):
    bot = build_bot(settings, service=service, kept_up_for=kept_up_for)
    bot.scheduler = Scheduler(service.deadlines)  # closed until the bot opens it
    bot.connected = True
    bot.credit_poll = 0.01
    return bot


async def test_a_busy_bot_credits_the_clocks_once_it_keeps_up_and_only_then_runs_deadlines(settings, store, clock):
    kept_up = [0.0]  # boards queue for the drawing workers
    service, state = await _away_with_a_game(store, clock)
    bot = _bot(settings, service, lambda: kept_up[0])
    coming_back = asyncio.create_task(bot.come_back())
    await asyncio.sleep(0.2)
    assert not coming_back.done()
    assert (await service.lookups.get_game(state.id)).deadline == state.deadline  # not yet: the bot is busy
    assert not bot.scheduler.gate.is_set()  # and no deadline runs meanwhile
    kept_up[0] = 0.5
    await asyncio.sleep(0.1)
    assert not coming_back.done()  # half a second of room is not a quiet moment
    kept_up[0] = math.inf
    await asyncio.wait_for(coming_back, 5)
    assert (await service.lookups.get_game(state.id)).deadline == state.deadline + timedelta(hours=2)
    assert bot.scheduler.gate.is_set()


async def test_a_bot_busy_for_longer_than_the_patience_credits_the_clocks_all_the_same(settings, store, clock):
    service, state = await _away_with_a_game(store, clock)
    bot = _bot(settings, service, lambda: 0.0)
    bot.credit_patience = 0.3
    started = time.monotonic()
    await asyncio.wait_for(bot.come_back(), 5)
    assert time.monotonic() - started >= 0.3
    assert (await service.lookups.get_game(state.id)).deadline == state.deadline + timedelta(hours=2)
    assert bot.scheduler.gate.is_set()


async def test_coming_back_again_during_a_come_back_writes_that_outage_down_too(settings, store, clock):
    kept_up = [0.0]
    service, state = await _away_with_a_game(store, clock)
    bot = _bot(settings, service, lambda: kept_up[0])
    bot._come_back()
    await asyncio.sleep(0.1)
    clock.advance(hours=3)  # cut off again while the first come-back waits for room
    bot._come_back()
    kept_up[0] = math.inf
    await asyncio.wait_for(bot._coming_back, 5)
    assert (await service.lookups.get_game(state.id)).deadline == state.deadline + timedelta(hours=5)


async def test_until_quiet_waits_for_room_or_patience():
    now, room = [0.0], [0.0]
    waiting = asyncio.create_task(until_quiet(0.0, 10.0, kept_up_for=lambda: room[0], clock=lambda: now[0], poll=0.01))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    room[0] = 1.0
    await asyncio.wait_for(waiting, 1)
    room[0] = 0.0
    waiting = asyncio.create_task(until_quiet(0.0, 10.0, kept_up_for=lambda: room[0], clock=lambda: now[0], poll=0.01))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    now[0] = 10.0
    await asyncio.wait_for(waiting, 1)


async def test_a_busy_bot_back_in_time_owes_no_credit_and_runs_deadlines_at_once(settings, store, clock):
    service = GameService(store, clock=clock)
    await service.deadlines.beat()
    clock.advance(seconds=30)  # a restart within the heartbeat's grace: no outage
    bot = _bot(settings, service, lambda: 0.0)  # and the bot saturated
    await asyncio.wait_for(bot.come_back(), 1)
    assert bot.scheduler.gate.is_set()
