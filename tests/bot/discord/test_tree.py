"""The command tree against Discord's limits, and the bot's start-up without SimCord."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any
from unittest import mock

import discord
import pytest
from discord import app_commands

from bot import __main__ as entry
from bot.config import Settings
from bot.core.model import Limits
from bot.discord.client import BackgammonBot
from bot.discord.cogs.club import ClubCog
from bot.discord.cogs.game import GameCog
from bot.discord.cogs.learn import LearnCog
from bot.discord.cogs.patience import PatienceCog
from bot.discord.cogs.tools import ToolsCog
from bot.discord.cogs.tourney import TourneyCog
from bot.store import open_store
from tests.bot.bots import build_bot

NAME = re.compile(r"^[-_\w]{1,32}$")
EXPECTED = {
    "challenge",
    "roll",
    "move",
    "double",
    "take",
    "pass",
    "beaver",
    "resign",
    "accept-resign",
    "reject-resign",
    "board",
    "games",
    "leaderboard",
    "stats",
    "history",
    "export",
    "rules",
    "abandon",
    "forfeit",
    "computer",
    "hint",
    "analysis",
    "shots",
    "settings",
}
TOOLS = {"verify", "dice", "position", "setup", "replay", "vacation-allowance", "language"}
PATIENCE = {"daily", "hoyle", "random", "play", "leaderboard"}
TOURNEY = {"create", "start", "standings", "bracket", "cancel", "withdraw", "list", "role"}
LEARN = {"openings", "puzzle", "leaderboard", "drill", "met", "import"}


@pytest.fixture
async def tree_bot():
    bot = build_bot(Settings(token="t"), scheduler=False)
    service = SimpleNamespace(
        limits=Limits(max_stake=250),
        tournaments=None,  # the stake option's range comes from here
        patience=SimpleNamespace(warm_up=mock.AsyncMock()),
        store=SimpleNamespace(db=None),  # the kibitzer polls' store, never asked
        clock=None,
        lookups=SimpleNamespace(get_game=None),
        deliveries=SimpleNamespace(wordings={}),  # the chouette's ledger is worded there, never asked
        recorder=SimpleNamespace(finish_listeners=[]),  # the chouette listens to games' ends
        roll_guards=[],
    )
    parts = tree_parts(bot.settings, service)
    await bot.add_cog(GameCog(parts))  # type: ignore[arg-type]
    await bot.add_cog(ToolsCog(parts, bot))  # type: ignore[arg-type]
    await bot.add_cog(PatienceCog(parts))  # type: ignore[arg-type]
    await bot.add_cog(TourneyCog(parts, None))  # type: ignore[arg-type]
    await bot.add_cog(LearnCog(parts))  # type: ignore[arg-type]
    await bot.add_cog(ClubCog(parts))  # type: ignore[arg-type]
    yield bot
    await bot.close()


def walk(payload: dict, path: str, problems: list[str]) -> int:
    """Check one command or option level; returns the characters it counts toward 4000."""
    name = payload["name"]
    if not NAME.match(name) or name != name.lower():
        problems.append(f"{path}: bad name {name!r}")
    description = payload.get("description", "")
    if not 1 <= len(description) <= 100:
        problems.append(f"{path}: description of {len(description)} characters")
    options = payload.get("options") or []
    if len(options) > 25:
        problems.append(f"{path}: {len(options)} options")
    choices = payload.get("choices") or []
    if len(choices) > 25:
        problems.append(f"{path}: {len(choices)} choices")
    total = len(name) + len(description) + sum(len(c["name"]) + len(str(c["value"])) for c in choices)
    required_seen_optional = False
    for option in options:
        if option.get("required") and required_seen_optional:
            problems.append(f"{path} {option['name']}: required option after an optional one")
        if not option.get("required") and option.get("type") not in (1, 2):
            required_seen_optional = True
        total += walk(option, f"{path} {option['name']}", problems)
    return total


def tree_parts(settings: Settings, service: object) -> SimpleNamespace:
    """Parts enough for the cogs to build their commands (the tree only)."""
    return SimpleNamespace(
        settings=settings,
        service=service,
        advice=None,
        table=None,
        cooldowns=None,
        replays=None,
        drawing=None,
        progress=None,
        puzzles=None,
        dispatcher=SimpleNamespace(handlers={}),
        scheduler=None,
    )


async def test_command_tree_fits_discords_limits(tree_bot):
    commands = tree_bot.tree.get_commands(type=discord.AppCommandType.chat_input)
    assert [c.name for c in commands] == ["bg", "bgtools", "patience", "bgtourney", "bglearn", "bgclub"]
    problems: list[str] = []
    for command in commands:
        payload = command.to_dict(tree_bot.tree)
        total = walk(payload, payload["name"], problems)
        assert total <= 4000, f"{payload['name']} counts {total} characters"
        assert payload.get("contexts") == [0]  # guild only
    assert problems == []


async def test_the_show_board_message_command(tree_bot):
    """Message -> Apps -> Show board: in the tree with the cog, guild only, and out with the cog."""
    (menu,) = tree_bot.tree.get_commands(type=discord.AppCommandType.message)
    payload = menu.to_dict(tree_bot.tree)
    assert payload["name"] == "Show board" and 1 <= len(payload["name"]) <= 32
    assert payload["type"] == 3 and payload["contexts"] == [0] and payload["dm_permission"] is False
    await tree_bot.remove_cog("ToolsCog")
    assert tree_bot.tree.get_commands(type=discord.AppCommandType.message) == []


async def test_every_subcommand_is_there(tree_bot):
    group, tools, patience, tourney, learn, club = tree_bot.tree.get_commands(type=discord.AppCommandType.chat_input)
    assert {c.name for c in group.commands} == EXPECTED
    assert {c.name for c in tools.commands} == TOOLS
    assert {c.name for c in patience.commands} == PATIENCE
    assert {c.name for c in tourney.commands} == TOURNEY
    assert {c.name for c in learn.commands} == LEARN
    assert {c.name for c in club.commands} == {
        "kibitzers",
        "consult",
        "team",
        "chouette",
        "double",
        "take",
        "drop",
        "result",
        "suggest",
        "ledger",
        "stop",
    }
    assert len(group.commands) <= 25 and len(tools.commands) <= 25 and len(learn.commands) <= 25


async def test_challenge_options(tree_bot):
    group, *_ = tree_bot.tree.get_commands(type=discord.AppCommandType.chat_input)
    challenge = group.get_command("challenge")
    payload = challenge.to_dict(tree_bot.tree)
    options = {o["name"]: o for o in payload["options"]}
    assert list(options) == [
        "opponent",
        "match_length",
        "stake",
        "days",
        "jacoby",
        "beavers",
        "automatic_doubles",
        "opening_reroll",
        "thread",
        "hints",
        "seed",
        "rules",
        "backgammon",
        "cube_limit",
        "early_doubles",
        "closed_out",
        "game",
        "kibitzers",
    ]
    assert options["game"]["autocomplete"]  # the games are offered as typed, within Discord's 4000 characters
    assert [c["value"] for c in options["rules"]["choices"]] == ["standard", "hoyle"]
    assert [c["value"] for c in options["automatic_doubles"]["choices"]] == ["off", "twice", "every tie"]
    assert [c["value"] for c in options["cube_limit"]["choices"]] == [2, 4, 8, 16, 32, 64]
    assert [c["value"] for c in options["backgammon"]["choices"]] == [3, 4]
    assert [c["value"] for c in options["closed_out"]["choices"]] == ["roll", "skip"]
    assert ".mat" in options["closed_out"]["description"]  # skip's help says the .mat can't express it
    assert (options["seed"]["min_length"], options["seed"]["max_length"]) == (1, 64)
    assert options["opponent"]["required"] and options["opponent"]["type"] == 6
    assert (options["days"]["min_value"], options["days"]["max_value"]) == (1, 14)
    assert options["match_length"]["min_value"] == 0
    # the stake's range is the core's limit (a setting): Discord refuses more before the bot is asked
    assert (options["stake"]["min_value"], options["stake"]["max_value"]) == (1, 250)
    move = group.get_command("move").to_dict(tree_bot.tree)
    assert move["options"][0]["autocomplete"] is True
    resign = group.get_command("resign").to_dict(tree_bot.tree)
    assert [c["value"] for c in resign["options"][0]["choices"]] == ["single", "gammon", "backgammon"]


async def test_the_stake_limit_of_each_bot_is_its_own(tree_bot):
    """Capping one cog's option leaves the class's command (and other bots) alone."""
    other = build_bot(Settings(token="t"), scheduler=False)
    parts = tree_parts(other.settings, SimpleNamespace(limits=Limits()))
    await other.add_cog(GameCog(parts))  # type: ignore[arg-type]
    try:
        mine = challenge_in(tree_bot.tree.get_commands(type=discord.AppCommandType.chat_input)[0]).to_dict(
            tree_bot.tree
        )
        theirs = challenge_in(other.tree.get_commands()[0]).to_dict(other.tree)
        stake = {o["name"]: o for o in theirs["options"]}["stake"]
        assert stake["max_value"] == Limits().max_stake == 100
        assert {o["name"]: o for o in mine["options"]}["stake"]["max_value"] == 250
    finally:
        await other.close()


async def test_the_composition_root_opens_the_store_and_the_bot_closes_what_it_was_given(tmp_path):
    """``bot.__main__`` opens the database and the drawing workers before login; the bot
    builds its parts at login without syncing the global command list (that is
    ``python -m bot sync``), and closes its own parts, then the workers, then the database."""
    path = tmp_path / "deep" / "bg.sqlite3"
    settings = Settings(token="t", database_path=str(path), limits=Limits(max_stake=40))
    bot = await entry.open_bot(settings)
    assert isinstance(bot, BackgammonBot)
    assert path.exists() and bot.service.store.path == str(path)  # opened by the root, before login
    assert bot.service.limits is settings.limits  # handed whole
    assert bot.intents.guilds  # channels, threads and permissions
    assert not bot.intents.guild_messages and not bot.intents.message_content and not bot.intents.members
    with mock.patch.object(bot.tree, "sync", mock.AsyncMock(return_value=[])) as sync:
        await bot.setup_hook()
    sync.assert_not_awaited()
    assert not bot.syncs_at_start
    assert bot.get_cog("GameCog") is not None
    challenge = challenge_in(bot.tree.get_commands(type=discord.AppCommandType.chat_input)[0])
    assert {o["name"]: o for o in challenge.to_dict(bot.tree)["options"]}["stake"]["max_value"] == 40
    assert bot.scheduler is not None and bot.scheduler.running
    assert bot._connection._view_store._dynamic_items  # persistent buttons registered
    workers = bot.drawing.pids
    assert len(workers) == 2  # started at login
    closed: list[str] = []
    for name, owner in (("dispatcher", bot.dispatcher), ("drawing", bot.drawing), ("service", bot.service)):
        method = "stop" if name == "dispatcher" else "close"
        original = getattr(owner, method)

        def record(*args, _name=name, _original=original, **kwargs):
            closed.append(_name)
            return _original(*args, **kwargs)

        setattr(owner, method, record)
    await bot.close()
    assert closed == ["dispatcher", "drawing", "service"]
    assert not bot.scheduler.running and bot.drawing.pids == []
    with pytest.raises(Exception):  # noqa: B017 - the store is closed: any read fails
        await bot.service.store.games.get(1)


@pytest.mark.parametrize(
    ("shard_ids", "syncs"),
    [(None, True), ((0,), True), ((0, 1), True), ((1,), False), ((1, 2), False)],
)
def test_only_the_process_running_shard_0_syncs_to_the_dev_guild_at_start(shard_ids, syncs):
    shards = {} if shard_ids is None else {"shard_count": 3, "shard_ids": shard_ids}
    assert build_bot(Settings(token="t", dev_guild_id=1234, **shards)).syncs_at_start is syncs
    assert not build_bot(Settings(token="t", **shards)).syncs_at_start  # never the global list


async def test_setup_hook_syncs_to_the_dev_guild(tmp_path):
    store = await open_store(str(tmp_path / "bg.sqlite3"))
    bot = build_bot(Settings(token="t", dev_guild_id=1234), store=store, scheduler=False)
    with mock.patch.object(bot.tree, "sync", mock.AsyncMock(return_value=[])) as sync:
        await bot.setup_hook()
    (call,) = sync.await_args_list
    assert call.kwargs["guild"].id == 1234
    assert [c.name for c in bot.tree.get_commands(guild=discord.Object(1234))] == [
        "bg",
        "bgtools",
        "patience",
        "bgtourney",
        "bglearn",
        "bgclub",
        "Show board",
    ]
    await bot.close()
    await store.close()


def challenge_in(root: object) -> app_commands.Command[Any, ..., Any]:
    """``/bg challenge``, in the ``/bg`` group ``root``."""
    assert isinstance(root, app_commands.Group)
    command = root.get_command("challenge")
    assert isinstance(command, app_commands.Command)
    return command
