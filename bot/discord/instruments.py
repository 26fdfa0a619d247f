"""The Discord side of the metrics (:mod:`bot.ops.metrics`): which command family an
interaction belongs to, when it arrived and when its first answer went out.

Arrival is noted where the gateway's interaction is parsed (the bot wraps that
parser, :meth:`bot.discord.client.BackgammonBot._turn_away_when_stopping`); the
first answer is the interaction callback's HTTP request ending, seen through an
aiohttp trace on discord.py's own session (``http_trace``). So no command,
button or view knows about metrics, and with metrics off nothing is traced.
"""

from __future__ import annotations

from typing import Any

import aiohttp
from discord import app_commands

from bot.ops.metrics import Metrics

COMPONENT_FAMILIES = (
    ("bg:ch:", "challenge"),
    ("bg:rematch:", "challenge"),
    ("bg:tj:", "challenge"),
    ("bg:lb:", "lookup"),
    ("bglearn:", "lookup"),
    ("bg:", "turn"),
)
"""A button's or menu's family by its custom id (the families of :mod:`bot.discord.cooldowns`)."""


class FamilyOf:
    """The command family of a raw interaction payload (``other`` when it has none)."""

    def __init__(self, tree: app_commands.CommandTree[Any]) -> None:
        self.tree = tree
        self._commands: dict[str, str] | None = None

    def _by_name(self) -> dict[str, str]:
        if self._commands is None:
            self._commands = {
                command.qualified_name: command.extras.get("cooldown") or "other"
                for command in self.tree.walk_commands()
                if isinstance(command, app_commands.Command)
            }
        return self._commands

    def __call__(self, data: Any) -> str:
        kind = data.get("type")
        body = data.get("data") or {}
        if kind == 2:
            names = [body.get("name", "")]
            options = body.get("options") or []
            while options and options[0].get("type") in (1, 2):  # a subcommand (group)
                names.append(options[0].get("name", ""))
                options = options[0].get("options") or []
            return self._by_name().get(" ".join(names), "other")
        if kind == 3:
            custom_id = body.get("custom_id", "")
            for prefix, family in COMPONENT_FAMILIES:
                if custom_id.startswith(prefix):
                    return family
            return "other"
        if kind == 4:
            return "autocomplete"
        return "other"


def answer_trace(metrics: Metrics) -> aiohttp.TraceConfig:
    """An aiohttp trace that times each interaction's first answer (its callback request)."""
    trace = aiohttp.TraceConfig()

    async def on_request_end(session: Any, context: Any, params: aiohttp.TraceRequestEndParams) -> None:
        path = params.url.path
        if path.endswith("/callback") and "/interactions/" in path:
            parts = path.split("/")
            try:
                metrics.answered(int(parts[parts.index("interactions") + 1]))
            except (ValueError, IndexError):
                pass

    trace.on_request_end.append(on_request_end)
    return trace
