"""Run a bot's real entry point against the local stand-in for Discord.

    FAKE_DISCORD_API=http://127.0.0.1:PORT/api/v10 FAKE_DISCORD_GATEWAY=ws://127.0.0.1:PORT/gateway \\
        python tests/e2e/launcher.py [module:function]

Points discord.py's REST base (``Route.BASE``, also used for webhooks and
interaction callbacks) and its default gateway at the stand-in, then calls
``module:function`` (default ``bot.__main__:main``, the bot's own entry point)
and exits with its return value. The bot's code needs no test hook. Run it by
file path; it takes its own directory off ``sys.path`` so that nothing here
shadows the bot's imports. A target may also be a file (``path/to/toy_bot.py:main``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if sys.path and Path(sys.path[0]).resolve() == HERE:
    sys.path.pop(0)


def redirect(api_base: str, gateway_url: str) -> None:
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def main(argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else "bot.__main__:main"
    redirect(os.environ["FAKE_DISCORD_API"], os.environ["FAKE_DISCORD_GATEWAY"])
    module_name, _, function_name = target.rpartition(":") if target.count(":") else (target, "", "main")
    if module_name.endswith(".py"):
        spec = importlib.util.spec_from_file_location(Path(module_name).stem, module_name)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    entry = getattr(module, function_name or "main")
    sys.argv = [module_name]
    result = entry()
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
