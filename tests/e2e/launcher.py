"""Run a bot's real entry point against the local stand-in for Discord.

    FAKE_DISCORD_API=http://127.0.0.1:PORT/api/v10 FAKE_DISCORD_GATEWAY=ws://127.0.0.1:PORT/gateway \\
        python -m tests.e2e.launcher [module:function [arguments]]

Points discord.py's REST base (``Route.BASE``, also used for webhooks and
interaction callbacks) and its default gateway at the stand-in, then calls
``module:function`` (default ``bot.__main__:main``, the bot's own entry point)
and exits with its return value. The bot's code needs no test hook. Run it as a
module with the repository on the path (``tests.e2e.botproc`` sets ``PYTHONPATH``).
A target may also be a file (``path/to/toy_bot.py:main``).

``E2E_PROFILE=path``: a sampling profile of the bot process's CPU, like
py-spy's: every ``E2E_PROFILE_INTERVAL`` seconds of the process's CPU time
(default 0.003; ``ITIMER_PROF``) the main thread's Python stack is counted
(time in C code counts for the Python line that called it; the database
threads' CPU lands on whatever the main thread was doing, mostly waiting).
The counts are written to ``path`` every 2 s (the bot is often killed) as
collapsed stacks (``frame;frame;frame count``, what flame graph tools read);
``bench/profile_report.py`` sums them by function.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path


def redirect(api_base: str, gateway_url: str) -> None:
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def start_sampler(path: str, interval: float) -> None:
    """Count the main thread's stack on each ``SIGPROF`` (see the module's docstring)."""
    import collections
    import signal
    import threading
    import time

    counts: collections.Counter[str] = collections.Counter()

    def stack_of(frame) -> str:
        names = []
        while frame is not None:
            code = frame.f_code
            names.append(f"{code.co_name} ({code.co_filename.rsplit('/site-packages/', 1)[-1]}:{code.co_firstlineno})")
            frame = frame.f_back
        return ";".join(reversed(names))

    def on_tick(signum, frame) -> None:
        counts[stack_of(frame)] += 1

    def write() -> None:
        while True:
            time.sleep(2.0)
            taken = dict(counts)  # one C call under the GIL: a consistent copy
            with open(path + ".tmp", "w") as out:
                out.write("".join(f"{stack} {n}\n" for stack, n in taken.items()))
            os.replace(path + ".tmp", path)

    signal.signal(signal.SIGPROF, on_tick)
    signal.setitimer(signal.ITIMER_PROF, interval, interval)
    threading.Thread(target=write, name="e2e-profile", daemon=True).start()


def main(argv: list[str]) -> int:
    if os.environ.get("E2E_PROFILE"):
        start_sampler(os.environ["E2E_PROFILE"], float(os.environ.get("E2E_PROFILE_INTERVAL", "0.003")))
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
    sys.argv = [module_name, *argv[2:]]  # the entry point's own command line (``sync``, ...)
    result = entry()
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
