"""The bot as a subprocess, started through :mod:`tests.e2e.launcher` against a :class:`FakeDiscord`."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.e2e.fake_discord import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ("-m", "tests.e2e.launcher")
"""After the interpreter: the launcher as a module, found through ``PYTHONPATH`` (see :meth:`BotProcess.env`)."""
REAL_BOT = "bot.__main__:main"
TOY_BOT = "tests.e2e.toy_bot:main"


class BotProcess:
    """One run of the bot (``start`` again after ``kill`` for a restart on the same database)."""

    def __init__(
        self,
        fake: FakeDiscord,
        workdir: Path,
        *,
        target: str = REAL_BOT,
        database: Path | None = None,
        log_level: str = "INFO",
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.fake = fake
        self.workdir = workdir
        self.target = target
        self.database = database or workdir / "bot.sqlite3"
        self.log_level = log_level
        self.extra_env = extra_env or {}
        self.proc: asyncio.subprocess.Process | None = None
        self.runs = 0
        self.log_path = workdir / "bot-0.log"
        fake.diagnostics = self.tail

    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD", "LOG_LEVEL", "COOLDOWN_"))
        }
        env.update(
            DISCORD_TOKEN=self.fake.token,
            DATABASE_PATH=str(self.database),
            DEV_GUILD_ID=str(self.fake.guild_id),
            LOG_LEVEL=self.log_level,
            FAKE_DISCORD_API=self.fake.api_base,
            FAKE_DISCORD_GATEWAY=self.fake.gateway_url,
            PYTHONUNBUFFERED="1",
            PYTHONDONTWRITEBYTECODE="1",
            # the repository first: the launcher's package, and the bot these tests are beside
            PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        )
        env.update(self.extra_env)
        return env

    async def start(self, *, wait_ready: bool = True, timeout: float = 60.0) -> BotProcess:
        assert self.proc is None or self.proc.returncode is not None, "already running"
        self.runs += 1
        self.log_path = self.workdir / f"bot-{self.runs}.log"
        log = open(self.log_path, "wb")  # noqa: SIM115 - the child owns it
        identifies = len(self.fake.identifies)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *LAUNCHER,
            self.target,
            cwd=str(self.workdir),  # no stray .env from the repository
            env=self.env(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        log.close()
        if wait_ready:
            await self.fake.wait_for(
                lambda: len(self.fake.identifies) > identifies and self.fake.ws is not None or self.exited(),
                timeout,
                "the bot to log in and IDENTIFY",
            )
            if self.exited():
                raise RuntimeError(f"the bot exited with {self.proc.returncode}\n{self.tail()}")
        return self

    def exited(self) -> bool:
        return self.proc is not None and self.proc.returncode is not None

    def tail(self, lines: int = 60) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def log_text(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.workdir.glob("bot-*.log")))

    async def kill(self) -> int | None:
        """SIGKILL: no cleanup, no close frame (like a crash or an OOM kill)."""
        if self.proc is None or self.proc.returncode is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGKILL)
        return await asyncio.wait_for(self.proc.wait(), 10)

    async def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM (then SIGKILL after ``timeout``)."""
        if self.proc is None or self.proc.returncode is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            return await self.kill()
