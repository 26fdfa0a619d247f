"""The health server in the real bot process against the stand-in: /readyz before and
after the gateway connects, and /metrics after a game's first moves."""

from __future__ import annotations

import asyncio
import signal
import socket

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from e2e.botproc import BotProcess
from e2e.players import GameDriver


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
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        got = await probe(port, path)
        if got is not None:
            return got
        await asyncio.sleep(0.1)
    raise TimeoutError(f"nothing answered {path}")


async def test_probes_and_metrics(fake, tmp_path):
    port = free_port()
    # the alerts are wired too (nothing goes wrong here: nothing is posted)
    alerts = "http://127.0.0.1:9/api/webhooks/1/x"
    bot = BotProcess(fake, tmp_path, extra_env={"HEALTH_PORT": str(port), "ALERT_WEBHOOK_URL": alerts})
    commands = fake.hold("PUT", r"/applications/\d+/(guilds/\d+/)?commands")  # the bot waits before it connects
    try:
        await bot.start(wait_ready=False)
        assert await until_answered(port, "/healthz") == (200, "ok\n")
        assert await probe(port, "/readyz") == (503, "not connected to Discord\n")
        await fake.wait_for(lambda: commands.held, 30, "the command sync")
        commands.release()
        await fake.wait_for(lambda: "ready as" in bot.log_text(), 30, "the bot to be ready")
        assert await probe(port, "/readyz") == (200, "ready\n")

        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        game = GameDriver(fake, fake.general, alice, bob)
        await game.start()
        await game.step()
        status, text = await probe(port, "/metrics")  # type: ignore[misc]
        assert status == 200
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }
        assert samples[("bg_interactions_total", (("family", "challenge"),))] == 2  # the challenge, Accept
        assert samples[("bg_first_answer_seconds_count", (("family", "challenge"),))] == 2
        assert samples[("bg_interactions_total", (("family", "turn"),))] >= 1
        assert samples[("bg_board_seconds_count", ())] >= 2
        assert samples[("bg_cached_games", ())] == 1
        assert samples[("bg_outbox_owed", ())] >= 0
        assert ("bg_gateway_latency_seconds", (("shard", "0"),)) in samples
        assert "bg_loop_lag_seconds" in text and "bg_drawing_queue" in text

        bot.proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(bot.proc.wait(), 15) == 0
        assert "\x1b[" not in bot.log_text()  # a file, not a terminal: no colour codes
    finally:
        fake.holds.clear()
        await bot.kill()
