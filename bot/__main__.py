"""``python -m bot``: run the backgammon bot.

Settings come from the environment and ``.env`` (see ``.env.example``). A
missing or rejected token ends the process with one line on stderr that
says how to fix it, and a non-zero exit code.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any

import discord

from bot.config import TOKEN_HELP, ConfigError, Settings

EXIT_CONFIG = 2
EXIT_LOGIN = 3
EXIT_NETWORK = 4

_HANDLER_NAME = "bot-console"


class RedactFilter(logging.Filter):
    """Replaces secrets in every log record (belt and braces: nothing should log them).

    The secrets are the bot token and the passwords of ``DATABASE_URL`` (the
    bot itself only ever logs the redacted URL). The message, the traceback
    (``exc_info``, formatted here so the formatter prints the redacted text)
    and the stack (``stack_info``) are all checked.
    """

    def __init__(self, *secrets: str) -> None:
        super().__init__()
        # longest first, so a secret that contains another is replaced whole
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    @property
    def secret(self) -> str:
        return self.secrets[0] if self.secrets else ""

    def hide(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "[redacted]")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        hidden = self.hide(message)
        if hidden != message:
            record.msg = hidden
            record.args = None
        if record.exc_info or record.exc_text:
            trace = record.exc_text or _TRACEBACKS.formatException(record.exc_info)  # type: ignore[arg-type]
            hidden = self.hide(trace)
            if hidden != trace:
                # A formatter re-formats exc_info when it has it; without it, it prints exc_text as is.
                record.exc_info = None
                record.exc_text = hidden
        if record.stack_info:
            record.stack_info = self.hide(record.stack_info)
        return True


_TRACEBACKS = logging.Formatter()


def setup_logging(settings: Settings) -> logging.Handler:
    """discord.py's console logging at LOG_LEVEL, with the token and the database password redacted."""
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
    from bot.ops.logs import formatter_for

    handler = logging.StreamHandler()
    handler.set_name(_HANDLER_NAME)
    handler.addFilter(RedactFilter(*settings.secrets))
    formatter = formatter_for(settings.log_format, handler.stream, list(settings.shard_ids or ()) or None)
    discord.utils.setup_logging(
        handler=handler, formatter=formatter or discord.utils.MISSING, level=settings.log_level_number, root=True
    )
    return handler


GC_THRESHOLDS = (20_000, 4, 20)
"""The collector's thresholds once started (Python's default is 700, 10, 10): every
interaction makes thousands of short-lived objects, and at the default a
collection ran every few interactions, about a tenth of the bot's CPU under
load. The clicks in flight at each young collection outlive it, and the middle
generation collects them once they are garbage: every 4th time rather than
every 20th, so that pass stays short. At 200 saturating games its pauses went
from 426-453 ms (at 50,000, 20, 20) to 70 ms at most; each pause holds up
every click in flight."""


def settle_memory() -> None:
    """After starting: what exists now (modules, caches, the command tree) lives as
    long as the process, so the collector stops scanning it; and it collects less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


async def run(settings: Settings) -> None:
    from bot.discord.client import create_bot
    from bot.ops.shutdown import Stopping

    main = asyncio.current_task()
    assert main is not None
    async with create_bot(settings) as bot:

        async def stop() -> None:
            # No new work; what is in flight finishes (interactions come in before
            # discord.py calls the bot ready, so this whatever the bot's state).
            await bot.wind_down()
            # Then the gateway's reader stops and the context closes the bot: cancelling
            # the reader first makes discord.py's close frame a normal one (1000).
            main.cancel()

        stopping = Stopping(stop)
        stopping.install()
        try:
            await bot.login(settings.token)  # and setup_hook: the database, the commands, the drawing workers
            settle_memory()
            await bot.connect()
        except asyncio.CancelledError:
            if not stopping.asked:
                raise
    stopping.uninstall()
    if stopping.asked:
        logging.getLogger("bot").info("stopped")


def _run_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run the bot's event loop: uvloop where installed (the same asyncio, with its
    network plumbing in C: less CPU per interaction), else the standard loop."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["check"]:
        from bot.ops.check import main as check

        return check(environ)
    try:
        settings = Settings.from_env(environ)
    except ConfigError as error:
        print(f"bot: {error}", file=sys.stderr)
        return EXIT_CONFIG
    setup_logging(settings)
    from bot.ops.files import warn_exposed

    warn_exposed(settings.private_files)
    try:
        _run_loop(run(settings))
    except ConfigError as error:  # found only once running (the health server's port)
        print(f"bot: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except discord.LoginFailure:
        print(f"bot: Discord rejected DISCORD_TOKEN (improper or reset token): {TOKEN_HELP}", file=sys.stderr)
        return EXIT_LOGIN
    except (discord.GatewayNotFound, OSError) as error:
        print(
            f"bot: could not reach Discord ({type(error).__name__}); check the network and try again", file=sys.stderr
        )
        return EXIT_NETWORK
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
