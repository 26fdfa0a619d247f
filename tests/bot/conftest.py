"""Fixtures for the Discord-layer tests (SimCord: an in-memory Discord).

``simcord_env`` comes from SimCord's pytest plugin; it builds the bot from our
``simcord_bot`` fixture: a real :class:`bot.discord.client.BackgammonBot` on a temporary
SQLite file, with reproducible dice and a clock the test moves by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest

from bot.config import Settings
from bot.core import GameService
from bot.discord.errors import player_message, unwrap
from engine import ScriptedDice
from tests.bot.bots import build_bot


class FakeClock:
    """A UTC clock that only moves when told to."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))


OPENING = [3, 1]
"""alice (the challenger, player 0) throws 3, bob 1: alice starts with 3-1."""
ROLLS = [6, 5, 4, 2, 5, 3, 6, 4, 3, 2, 5, 1, 6, 2, 4, 1, 5, 2, 6, 3] * 8


@pytest.fixture
def dice() -> Any:
    return ScriptedDice(OPENING + ROLLS)


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(token="fake-token", database_path=str(tmp_path / "data" / "bg.sqlite3"))


@pytest.fixture
async def store(settings, clock):
    from bot.store import open_store

    store = await open_store(settings.database_path, clock=clock)
    yield store
    await store.close()


@pytest.fixture
def make_bot(settings, dice, clock, store):
    """Build a fresh bot on the same database (for restarts)."""

    def make(**kwargs: Any):
        service = GameService(store, dice=kwargs.pop("dice", dice), clock=clock)
        # a bot that keeps up with its boards: the drawing workers are shared by every test in
        # the process, and boards queued in one would slow the next one's work that waits for room
        kwargs.setdefault("kept_up_for", lambda: math.inf)
        return build_bot(settings, service=service, **kwargs)

    return make


@pytest.fixture
def simcord_bot(make_bot):
    return make_bot()


@pytest.fixture
async def env(simcord_env):
    """``simcord_env`` that tolerates player mistakes answered by our error path.

    SimCord re-raises every error that reached the tree's ``on_error`` at
    teardown; the ones we answer privately on purpose (refusals) are fine,
    anything else still fails the test.
    """
    simcord_env.expected_errors = 0  # a test that provokes a bug on purpose raises this
    yield simcord_env
    errors = simcord_env.errors[simcord_env.expected_errors :]
    unexpected = [e for e in errors if player_message(unwrap(e)) is None]
    if unexpected:
        raise unexpected[0]


@dataclass
class World:
    """A server with a backgammon channel, two players, a bystander and a moderator."""

    env: Any
    guild: Any
    channel: Any
    alice: Any
    bob: Any
    carol: Any
    mod: Any

    @property
    def bot(self) -> Any:
        return self.env.bot

    @property
    def service(self) -> Any:
        return self.env.bot.service

    async def challenge(self, challenger: Any = None, opponent: Any = None, channel: Any = None, **options: Any) -> Any:
        challenger = challenger or self.alice
        result = await challenger.slash(
            channel or self.channel, "bg challenge", opponent=opponent or self.bob, **options
        )
        assert result.response is not None and not result.ephemeral, private(result)
        return result

    async def start_game(
        self, challenger: Any = None, opponent: Any = None, channel: Any = None, **options: Any
    ) -> discord.Message:
        """Challenge and accept; returns the first board message."""
        opponent = opponent or self.bob
        result = await self.challenge(challenger, opponent, channel, **options)
        accepted = await opponent.click(result.response, label="Accept")
        assert accepted.followups, private(accepted)
        return self.board(channel)

    def board(self, channel: Any = None) -> discord.Message:
        """The newest message with an attached board."""
        for message in reversed((channel or self.channel).history()):
            if any(a.filename.startswith("board-") and a.filename.endswith(".png") for a in message.attachments):
                return message
        raise AssertionError("no board posted")

    @staticmethod
    def game_id(board: discord.Message) -> int:
        """The game a board message shows (its picture is ``board-<game>-<version>.png``)."""
        (picture,) = [a for a in board.attachments if a.filename.startswith("board-")]
        return int(picture.filename.split("-")[1])

    def public(self, channel: Any = None) -> list[discord.Message]:
        return [m for m in (channel or self.channel).history() if not m.flags.ephemeral]

    @staticmethod
    def private(result: Any) -> str:
        return private(result)

    @staticmethod
    def custom_ids(message: discord.Message) -> list[str]:
        return custom_ids(message)

    @staticmethod
    def labels(message: discord.Message) -> list[str]:
        return labels(message)


def private(result: Any) -> str:
    """The text of the ephemeral answer of an interaction ("" if none)."""
    messages = ([result.response] if result.response is not None else []) + list(result.followups)
    texts = [m.content for m in messages if m.ephemeral]
    return "\n".join(texts)


def all_components(message: discord.Message) -> list[Any]:
    return [child for row in message.components for child in getattr(row, "children", [row])]


ONLOOKERS = "bgkz:"
"""The custom ids of the onlookers' poll button (tests/bot/discord/test_kibitzers.py looks at it):
the helpers below list a board's controls for its players without it."""


def components(message: discord.Message) -> list[Any]:
    return [c for c in all_components(message) if not str(getattr(c, "custom_id", "") or "").startswith(ONLOOKERS)]


def custom_ids(message: discord.Message) -> list[str]:
    return [c.custom_id for c in components(message) if getattr(c, "custom_id", None)]


def labels(message: discord.Message) -> list[str]:
    return [c.label for c in components(message) if getattr(c, "label", None)]


@pytest.fixture
def world(env) -> World:
    """Guild "Backgammon Club", channel #backgammon, members alice, bob, carol and mod (Manage Messages)."""
    guild = env.create_guild("Backgammon Club")
    channel = guild.create_text_channel("backgammon")
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_messages=True))
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    carol = guild.add_member(env.create_user("carol"))
    mod = guild.add_member(env.create_user("mod"), roles=[mods])
    return World(env, guild, channel, alice, bob, carol, mod)
