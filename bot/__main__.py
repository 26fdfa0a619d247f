"""``python -m bot``: run the backgammon bot; ``python -m bot sync``: sync its slash commands.

This is the composition root: it reads the settings, opens the game service
(the database) and the drawing workers, and hands them to the bot, which
closes them when it closes. Settings come from the environment and ``.env``
(see ``.env.example``). A missing or rejected token ends the process with
one line on stderr that says how to fix it, and a non-zero exit code.

Each subcommand is one function taking the parsed arguments and the settings'
environment, registered in :func:`parser`; ``--help`` lists them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import sys
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.config import TOKEN_HELP, ConfigError, Settings
from bot.store.shards import ShardConflictError

if TYPE_CHECKING:
    from bot.discord.client import BackgammonBot

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


async def open_bot(settings: Settings, *, serving: bool = True) -> BackgammonBot:
    """The bot on its game service (``DATABASE_URL`` or ``DATABASE_PATH``, migrated) and its
    drawing workers; the bot closes both when it closes. ``serving=False``: a bot that only
    builds its command tree (for ``sync``), with no scheduler, dispatcher or workers started."""
    from bot.core.games import GameService
    from bot.discord.boards import open_drawing
    from bot.discord.client import create_bot

    service = await GameService.open(settings.database_url, pool=settings.store_options, limits=settings.limits)
    try:
        return create_bot(settings, service=service, drawing=open_drawing(), scheduler=serving, serving=serving)
    except BaseException:
        await service.close()
        raise


async def run(settings: Settings) -> None:
    from bot.ops.shutdown import Stopping
    from renderer.pipe import PRIORITY

    main = asyncio.current_task()
    assert main is not None
    # The drawing and analysis workers read their priority from the environment they inherit
    # (the setting may come from the .env file).
    if settings.worker_priority != "low":
        os.environ[PRIORITY] = settings.worker_priority
    async with await open_bot(settings) as bot:

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
            await bot.login(settings.token)  # and setup_hook: the parts, the cogs, the drawing workers
            settle_memory()
            await bot.connect()
        except asyncio.CancelledError:
            if not stopping.asked:
                raise
    stopping.uninstall()
    if stopping.asked:
        logging.getLogger("bot").info("stopped")


async def sync(settings: Settings) -> int:
    """Log in, sync the command tree (globally, or to ``DEV_GUILD_ID``), say how many, log out."""
    async with await open_bot(settings, serving=False) as bot:
        await bot.login(settings.token)
        synced = await bot.sync_commands()
    where = f"to server {settings.dev_guild_id}" if settings.dev_guild_id else "globally"
    print(f"synced {len(synced)} commands {where}")
    return 0


def _run_loop(main: Coroutine[Any, Any, None]) -> None:
    """Run the bot's event loop: uvloop where installed (the same asyncio, with its
    network plumbing in C: less CPU per interaction), else the standard loop."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)


Command = Callable[[argparse.Namespace, Mapping[str, str] | None], int]


def parser() -> argparse.ArgumentParser:
    """The command line: no subcommand runs the bot; each subcommand is one function."""
    top = argparse.ArgumentParser(
        prog="python -m bot",
        description="A backgammon bot for Discord. Without a command: run the bot.",
        epilog="Settings come from the environment and .env; .env.example lists every one.",
    )
    top.set_defaults(command=run_command)
    commands = top.add_subparsers(title="commands", metavar="COMMAND")
    commands.add_parser(
        "sync",
        help="sync the slash commands with Discord (globally, or to DEV_GUILD_ID when set) and exit",
        description="Log in, sync the slash commands (globally, or to DEV_GUILD_ID when set), print how many, exit.",
    ).set_defaults(command=sync_command)
    # Listed here for --help; main() hands their arguments to bot.ops.check and bot.store.backup.
    commands.add_parser(
        "check",
        help="the store's health (schema, heartbeats, outbox, clock credit, disk): exit 0 ok, 1 warning, 2 critical",
        add_help=False,
    )
    commands.add_parser(
        "backup",
        help="an online backup of the SQLite store while the bot plays: backup DEST [--keep N]",
        add_help=False,
    )
    return top


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words[:1] == ["check"]:
        from bot.ops.check import main as check

        return check(environ)
    if words[:1] == ["backup"]:
        from bot.store.backup import main as backup

        return backup(words[1:], lambda: Settings.from_env(environ, require_token=False).database_url)
    try:
        args = parser().parse_args(argv)
    except SystemExit as done:  # --help (0) or a bad command line (2, usage on stderr)
        return done.code if isinstance(done.code, int) else EXIT_CONFIG
    command: Command = args.command
    return command(args, environ)


def _settings(environ: Mapping[str, str] | None) -> Settings | None:
    """The settings, with the logging they ask for; None (said on stderr) if they are wrong."""
    try:
        settings = Settings.from_env(environ)
    except ConfigError as error:
        print(f"bot: {error}", file=sys.stderr)
        return None
    setup_logging(settings)
    return settings


def run_command(args: argparse.Namespace, environ: Mapping[str, str] | None) -> int:
    settings = _settings(environ)
    if settings is None:
        return EXIT_CONFIG

    from bot.ops.files import warn_exposed

    warn_exposed(settings.private_files)

    async def serve() -> int:
        await run(settings)
        return 0

    return _talking_to_discord(serve)


def sync_command(args: argparse.Namespace, environ: Mapping[str, str] | None) -> int:
    settings = _settings(environ)
    if settings is None:
        return EXIT_CONFIG
    return _talking_to_discord(lambda: sync(settings))


def _talking_to_discord(work: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """Run ``work`` on the bot's loop; Discord refusing the token or out of reach is one line on stderr."""
    code = 0

    async def body() -> None:
        nonlocal code
        code = await work()

    try:
        _run_loop(body())
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
    except ShardConflictError as error:  # another process runs this one's shards, or another SHARD_COUNT
        print(f"bot: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
