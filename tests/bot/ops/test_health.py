"""The health server's probes and metrics, on a real aiohttp server."""

from __future__ import annotations

import asyncio
import re

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from bot.ops import health
from bot.ops.health import HealthServer
from bot.ops.metrics import Metrics

LINE = re.compile(r"^bg_[a-z_]+(\{[^}]*\})? \S+$")


async def get(server: HealthServer, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{server.port}{path}") as response:
        return response.status, await response.text()


async def test_readyz_waits_for_the_gateway_and_the_database(monkeypatch) -> None:
    monkeypatch.setattr(health, "READY_DATABASE_SECONDS", 0.1)
    state = {"connected": False, "database": "ok"}

    async def database() -> int:
        if state["database"] == "hangs":
            await asyncio.sleep(5)
        if state["database"] == "fails":
            raise ConnectionError("gone")
        return 14

    server = HealthServer(connected=lambda: bool(state["connected"]), database=database)
    await server.start()
    try:
        assert server.port > 0
        assert await get(server, "/healthz") == (200, "ok\n")
        assert await get(server, "/readyz") == (503, "not connected to Discord\n")
        state["connected"] = True
        assert await get(server, "/readyz") == (200, "ready\n")
        state["database"] = "hangs"
        status, text = await get(server, "/readyz")
        assert status == 503 and "database" in text
        state["database"] = "fails"
        assert (await get(server, "/readyz"))[0] == 503
        assert (await get(server, "/metrics"))[0] == 404  # no metrics asked for
    finally:
        await server.close()


async def test_every_metrics_line_parses() -> None:
    metrics = Metrics()
    metrics.level("bg_gateway_latency_seconds", "Latency.", lambda: [("0", 0.04), ("1", 0.05)], label="shard")
    owed = {"n": 3}

    async def count() -> int:
        return owed["n"]

    metrics.slow_level("bg_outbox_owed", "Owed.", count)
    metrics.level("bg_drawing_queue", "Queue.", lambda: 2)
    metrics.level("bg_broken", "A probe that fails is left out.", lambda: 1 / 0)
    for n in range(5):
        metrics.received(n, "turn")
    metrics.received(99, "challenge")
    for n in range(4):
        metrics.answered(n)
    metrics.answered(12345)  # never received: ignored
    metrics.board_posted(0.0)
    metrics.start()
    await asyncio.sleep(0)
    server = HealthServer(connected=lambda: True, database=count, metrics=metrics)
    await server.start()
    try:
        status, text = await get(server, "/metrics")
    finally:
        await server.close()
        await metrics.close()
    assert status == 200
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    for line in text.splitlines():
        if line and not line.startswith("#"):
            assert LINE.match(line), line
    assert samples[("bg_outbox_owed", ())] == 3
    assert samples[("bg_interactions_total", (("family", "turn"),))] == 5
    assert samples[("bg_first_answer_seconds_count", (("family", "turn"),))] == 4
    assert samples[("bg_gateway_latency_seconds", (("shard", "1"),))] == 0.05
    assert samples[("bg_board_seconds_count", ())] == 1
    assert ("bg_loop_lag_seconds", ()) in samples and ("bg_drawing_queue", ()) in samples
    assert not any(name == "bg_broken" for name, _ in samples)


async def test_a_port_in_use_is_a_config_error() -> None:
    import pytest

    from bot.config import ConfigError

    first = HealthServer(connected=lambda: True, database=lambda: asyncio.sleep(0))
    await first.start()
    try:
        second = HealthServer(connected=lambda: True, database=lambda: asyncio.sleep(0), port=first.port)
        with pytest.raises(ConfigError, match=f"HEALTH_PORT: cannot listen on 127.0.0.1:{first.port}"):
            await second.start()
    finally:
        await first.close()
