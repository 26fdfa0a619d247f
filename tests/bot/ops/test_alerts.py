"""Alerts to a webhook: one post then a count, no secret, and the loop never waits."""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web

from bot.ops.alerts import AlertHandler, Alerts

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.secret.token-of-the-bot"
PASSWORD = "pg-password-!@#"


def run_queue_seconds() -> float:
    """Seconds this thread has waited for a core (Linux's schedstat; 0 elsewhere): on a
    shared machine, time the loop lost that no code of the loop's caused."""
    try:
        with open("/proc/thread-self/schedstat") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


async def receiver(delay: float) -> tuple[web.AppRunner, str, list[dict]]:
    posts: list[dict] = []

    async def hook(request: web.Request) -> web.Response:
        posts.append(await request.json())
        await asyncio.sleep(delay)  # a slow webhook
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/api/webhooks/{id}/{token}", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}/api/webhooks/1234/hook-secret-token", posts


async def test_hundred_identical_errors_give_one_post_then_a_count() -> None:
    runner, url, posts = await receiver(delay=0.5)
    alerts = Alerts(url, [TOKEN, PASSWORD, "hook-secret-token"], window=1.0)
    alerts.start()
    handler = AlertHandler(alerts)
    logger = logging.getLogger("bot.test-alerts")
    logger.addHandler(handler)
    logger.propagate = False
    lag = 0.0

    async def probe() -> None:
        nonlocal lag
        loop = asyncio.get_running_loop()
        while True:
            asked, waited = loop.time(), run_queue_seconds()
            await asyncio.sleep(0.005)
            # less the time the machine's other work kept this thread off a core
            lag = max(lag, loop.time() - asked - 0.005 - (run_queue_seconds() - waited))

    probing = asyncio.create_task(probe())
    try:
        for n in range(100):
            try:
                raise ConnectionError(f"lost {TOKEN} at {url} with {PASSWORD}")
            except ConnectionError:
                logger.exception("could not deliver board %s (token %s)", n, TOKEN)
            await asyncio.sleep(0)
        await asyncio.sleep(2.5)
    finally:
        probing.cancel()
        logger.removeHandler(handler)
        logger.propagate = True
        await alerts.close()
        await runner.cleanup()
    assert len(posts) == 2, posts
    first, count = (p["content"] for p in posts)
    assert first.startswith("**ERROR** `bot.test-alerts`: could not deliver board 0 (token [redacted])")
    assert "ConnectionError: lost [redacted] at [redacted] with [redacted]" in first
    assert count.endswith("... and 99 more times in 1 s")
    for post in posts:
        text = str(post)
        assert TOKEN not in text and PASSWORD not in text and "hook-secret-token" not in text
        assert post["allowed_mentions"] == {"parse": []}
    assert lag < 0.05, f"the loop lagged {lag * 1000:.0f} ms"


async def test_distinct_errors_are_capped_per_window() -> None:
    runner, url, posts = await receiver(delay=0.0)
    alerts = Alerts(url, window=5.0, max_posts=3)
    alerts.start()
    try:
        for n in range(10):
            alerts.tell(("bot", f"distinct {n}"), f"error {n}")
        await asyncio.sleep(0.5)
    finally:
        await alerts.close()
        await runner.cleanup()
    assert [p["content"] for p in posts] == ["error 0", "error 1", "error 2"]
