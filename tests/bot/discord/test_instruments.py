"""The Discord side of the metrics: families of raw interactions, and the first answer's timer."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.discord.instruments import AnswerTimer, FamilyOf
from bot.ops.metrics import Metrics


class Tree:
    def walk_commands(self) -> list[Any]:
        from discord import app_commands

        async def move(interaction: Any) -> None: ...

        group = app_commands.Group(name="bg", description="bg")
        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name="move", description="move", callback=move, parent=group
        )
        command.extras["cooldown"] = "turn"
        return [group, command]


def test_families_of_raw_interactions() -> None:
    family_of = FamilyOf(Tree())  # type: ignore[arg-type]
    slash = {"type": 2, "data": {"name": "bg", "options": [{"type": 1, "name": "move", "options": []}]}}
    assert family_of(slash) == "turn"
    assert family_of({"type": 2, "data": {"name": "unknown"}}) == "other"
    assert family_of({"type": 3, "data": {"custom_id": "bg:roll:12:3"}}) == "turn"
    assert family_of({"type": 3, "data": {"custom_id": "bg:ch:accept:4:0"}}) == "challenge"
    assert family_of({"type": 3, "data": {"custom_id": "bg:lb:rating:0:next"}}) == "lookup"
    assert family_of({"type": 4, "data": {"name": "bg"}}) == "autocomplete"
    assert family_of({"type": 5, "data": {"custom_id": "seed"}}) == "other"


def test_the_answer_timer_times_each_callback_and_comes_off() -> None:
    class Adapter:
        async def create_interaction_response(self, interaction_id: int, token: str, **kwargs: Any) -> str:
            await asyncio.sleep(0.01)
            return f"answered {interaction_id}"

    async def run() -> None:
        adapter = Adapter()
        async_context.set(cast(AsyncWebhookAdapter, adapter))  # what the timer wraps: only its callback is used
        metrics = Metrics()
        timer = AnswerTimer(metrics)
        timer.install()
        metrics.received(7, "turn")
        assert await adapter.create_interaction_response(7, "token", params=None) == "answered 7"
        timer.uninstall()
        assert "create_interaction_response" not in adapter.__dict__
        count = metrics.registry.get_sample_value("bg_first_answer_seconds_count", {"family": "turn"})
        total = metrics.registry.get_sample_value("bg_first_answer_seconds_sum", {"family": "turn"})
        assert count == 1 and total is not None and total >= 0.01

    asyncio.run(run())
