"""The Discord side of the metrics (:mod:`bot.ops.metrics`): which command family an
interaction belongs to, when it arrived and when its first answer went out.

Arrival is noted where the gateway's interaction is parsed (the bot wraps that
parser, :meth:`bot.discord.client.BackgammonBot._turn_away_when_stopping`); the
first answer when the interaction's callback request returns (:class:`AnswerTimer`).
So no command, button or view knows about metrics, and with metrics off nothing is timed.
"""

from __future__ import annotations

from typing import Any

from discord import app_commands
from discord.webhook.async_ import async_context

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


class AnswerTimer:
    """Times each interaction's first answer: wraps the ``create_interaction_response`` of
    discord.py's webhook adapter, through which every interaction's callback goes (one
    await more per interaction). An aiohttp trace on the HTTP session would see it too,
    but costs tens of microseconds on every request and every chunk of an upload."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self._adapter: Any = None
        self._before: Any = None

    def install(self) -> None:
        adapter = async_context.get()
        self._adapter, self._before = adapter, adapter.__dict__.get("create_interaction_response")
        respond = adapter.create_interaction_response
        answered = self.metrics.answered

        async def create_interaction_response(interaction_id: int, token: str, **kwargs: Any) -> Any:
            try:
                return await respond(interaction_id, token, **kwargs)
            finally:
                answered(int(interaction_id))

        adapter.__dict__["create_interaction_response"] = create_interaction_response  # shadows the method

    def uninstall(self) -> None:
        adapter, self._adapter = self._adapter, None
        if adapter is None:
            return
        if self._before is None:
            adapter.__dict__.pop("create_interaction_response", None)
        else:
            adapter.create_interaction_response = self._before
