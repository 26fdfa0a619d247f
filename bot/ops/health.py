"""The health server (``HEALTH_PORT``): ``/healthz``, ``/readyz`` and ``/metrics``.

On aiohttp's web server (discord.py brings aiohttp), in the bot's own event
loop, bound to ``HEALTH_HOST`` (127.0.0.1 unless set):

- ``/healthz``: 200 while the process and its event loop answer (a loop stuck
  on something CPU-heavy answers late or not at all: a liveness probe's timeout
  catches it);
- ``/readyz``: 200 once the gateway is connected and the database answers
  within :data:`READY_DATABASE_SECONDS`, else 503 with the reason;
- ``/metrics``: :mod:`bot.ops.metrics` in Prometheus' text format (404 without metrics).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from bot.config import ConfigError
from bot.ops.metrics import Metrics

log = logging.getLogger("bot.ops")

READY_DATABASE_SECONDS = 1.0


class HealthServer:
    """:param connected: whether the gateway is up. :param database: a query that must answer."""

    def __init__(
        self,
        *,
        connected: Callable[[], bool],
        database: Callable[[], Awaitable[object]],
        metrics: Metrics | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.connected = connected
        self.database = database
        self.metrics = metrics
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/readyz", self.readyz)
        app.router.add_get("/metrics", self.metrics_page)
        return app

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        try:
            await site.start()
        except OSError as error:
            await self.close()
            raise ConfigError(
                f"HEALTH_PORT: cannot listen on {self.host}:{self.port} ({error.strerror or error}); "
                "choose a free port or HEALTH_HOST"
            ) from None
        server = site._server
        if self.port == 0 and isinstance(server, asyncio.Server) and server.sockets:
            self.port = server.sockets[0].getsockname()[1]
        log.info("health server on http://%s:%d (/healthz, /readyz, /metrics)", self.host, self.port)

    async def close(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(self, request: web.Request) -> web.Response:
        if not self.connected():
            return web.Response(status=503, text="not connected to Discord\n")
        try:
            async with asyncio.timeout(READY_DATABASE_SECONDS):
                await self.database()
        except Exception as error:
            return web.Response(status=503, text=f"the database does not answer ({type(error).__name__})\n")
        return web.Response(text="ready\n")

    async def metrics_page(self, request: web.Request) -> web.Response:
        if self.metrics is None:
            raise web.HTTPNotFound()
        body = await self.metrics.render()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})
