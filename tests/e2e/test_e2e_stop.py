"""SIGTERM stops the bot cleanly: exit 0 within the bound, a normal close frame,
every interaction it acknowledged answered, and nothing lost on the next start.
The health server (``HEALTH_PORT``) of the same runs: /readyz before and after the
gateway connects, /metrics under load."""

from __future__ import annotations

import asyncio
import signal
import socket
import time

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.botproc import REAL_BOT, BotProcess
from tests.e2e.fake_discord import LOADING, FakeDiscord, Interaction
from tests.e2e.load import run_games
from tests.e2e.players import GameDriver

STOP_BOUND = 10.0
DEFERRED_MESSAGE, DEFERRED_UPDATE = 5, 6


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def probe(port: int, path: str) -> tuple[int, str] | None:
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session,
            session.get(f"http://127.0.0.1:{port}{path}") as response,
        ):
            return response.status, await response.text()
    except aiohttp.ClientConnectionError:
        return None


async def until_answered(port: int, path: str, timeout: float = 40.0) -> tuple[int, str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = await probe(port, path)
        if got is not None:
            return got
        await asyncio.sleep(0.1)
    raise TimeoutError(f"nothing answered {path}")


def samples_of(text: str) -> dict[tuple[str, tuple], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


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


@pytest.mark.slow
async def test_sigterm_right_after_ready(fake, tmp_path):
    port = free_port()
    # the alerts are wired too (nothing goes wrong here: nothing is posted)
    alerts = "http://127.0.0.1:9/api/webhooks/1/x"
    bot = BotProcess(fake, tmp_path, extra_env={"HEALTH_PORT": str(port), "ALERT_WEBHOOK_URL": alerts})
    commands = fake.hold("PUT", r"/applications/\d+/(guilds/\d+/)?commands")  # the bot waits before it connects
    try:
        await bot.start(wait_ready=False)
        assert await until_answered(port, "/healthz") == (200, "ok\n")
        assert await probe(port, "/readyz") == (503, "not connected to Discord\n")
        await fake.wait_for(lambda: commands.held, 90, "the command sync")
        commands.release()
        await fake.wait_for(lambda: "ready as" in bot.log_text(), 60, "the bot to be ready")
        assert await probe(port, "/readyz") == (200, "ready\n")

        code, seconds = await sigterm(bot)
        assert code == 0, bot.tail()
        assert seconds < STOP_BOUND
        assert close_codes(fake) == [1000], (fake.gateway_log[-5:], bot.tail())  # a close frame, not a dropped socket
        log = bot.log_text()
        assert log.count("stopping (SIGTERM)") == 1 and "stopped" in log, log[-2000:]
        assert "\x1b[" not in log  # a file, not a terminal: no colour codes
    finally:
        fake.holds.clear()
        await bot.kill()


LOAD_GAMES = 6
"""Games under way at the SIGTERM, each played to its end after the restart (20 took the suite a minute)."""


@pytest.mark.slow
async def test_sigterm_during_load_loses_nothing(fake, launch):
    port = free_port()
    bot = await launch(REAL_BOT, log_level="INFO", extra_env={"HEALTH_PORT": str(port)})
    await fake.wait_for(lambda: "ready as" in bot.log_text(), 60, "the bot to be ready")
    load = asyncio.create_task(run_games(fake, LOAD_GAMES, timeout=8.0))
    await fake.wait_for(lambda: len(fake.interactions) >= 3 * LOAD_GAMES, 30, "the load to be under way")

    status, text = await probe(port, "/metrics")  # type: ignore[misc]
    assert status == 200
    samples = samples_of(text)
    assert samples[("bg_interactions_total", (("family", "challenge"),))] >= LOAD_GAMES  # every game's challenge
    assert samples[("bg_first_answer_seconds_count", (("family", "challenge"),))] >= LOAD_GAMES
    assert samples[("bg_board_seconds_count", ())] >= 1
    assert samples[("bg_cached_games", ())] >= 1
    assert ("bg_outbox_owed", ()) in samples and ("bg_gateway_latency_seconds", (("shard", "0"),)) in samples
    assert ("bg_loop_lag_seconds", ()) in samples and ("bg_drawing_queue", ()) in samples

    acknowledged_before = sum(1 for i in fake.interactions.values() if i.response_type is not None)
    signalled_at = time.monotonic()
    code, seconds = await sigterm(bot)
    assert code == 0, bot.tail()
    assert seconds < STOP_BOUND
    assert close_codes(fake)[-1] == 1000
    result = await load  # the players give up on what the stopped bot never saw
    assert acknowledged_before > 0
    assert not unanswered(fake), [(i.id, i.response_type, i.calls) for i in unanswered(fake)][:5]
    # Every interaction sent before the signal is answered in time, and every one the stopping
    # bot read after it (it turns them away). One sent in the instant between the gateway's
    # reader stopping and the close frame is never read: lost as it is on Discord.
    late = [i for i in fake.missed_deadlines() if i.dispatched_at < signalled_at or i.calls or i.response_type]
    assert not late, late[:3]
    lost = {i.id for i in fake.missed_deadlines()}  # sent as the reader stopped: never read

    # Nothing lost: every game that began goes on from where it was, to its end.
    await bot.start()
    channels = {inter.channel_id for name, inter in result.actions if name == "accept" and inter.board_at is not None}
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
    assert not [i for i in fake.missed_deadlines() if i.id not in lost]
    assert await bot.stop(STOP_BOUND) == 0
