"""Run a bot's real entry point against the local stand-in for Discord.

    FAKE_DISCORD_API=http://127.0.0.1:PORT/api/v10 FAKE_DISCORD_GATEWAY=ws://127.0.0.1:PORT/gateway \\
        python tests/e2e/launcher.py [module:function]

Points discord.py's REST base (``Route.BASE``, also used for webhooks and
interaction callbacks) and its default gateway at the stand-in, then calls
``module:function`` (default ``bot.__main__:main``, the bot's own entry point)
and exits with its return value. The bot's code needs no test hook. Run it by
file path: the launcher swaps its own directory on ``sys.path`` for ``tests/``
(at the end), so ``e2e.toy_bot:main`` is importable and nothing here shadows
the bot's imports.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0]).resolve() == HERE:
    sys.path.pop(0)
sys.path.append(str(HERE.parent))


def redirect(api_base: str, gateway_url: str) -> None:
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def main(argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else "bot.__main__:main"
    redirect(os.environ["FAKE_DISCORD_API"], os.environ["FAKE_DISCORD_GATEWAY"])
    module_name, _, function_name = target.partition(":")
    entry = getattr(importlib.import_module(module_name), function_name or "main")
    sys.argv = [module_name]
    result = entry()
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
