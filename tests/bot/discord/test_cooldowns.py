"""Cooldowns: a token bucket per member and command family (the rule, its settings,
and the glue for slash commands and buttons); over-long text options refused early."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from discord import app_commands

from bot.config import COOLDOWN_FAMILIES, ConfigError, Settings
from bot.discord.cooldowns import PRUNE_AT, Cooldowns, Rate, hold


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def ticks() -> Clock:
    return Clock()


def test_a_burst_then_one_token_per_interval(ticks):
    buckets = Cooldowns({"lookup": Rate(3, 30)}, ticks)
    assert [buckets.take("lookup", 1) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("lookup", 1) == pytest.approx(10.0)  # one token every 30/3 s
    ticks.now += 4
    assert buckets.take("lookup", 1) == pytest.approx(6.0)  # a refused try takes nothing
    ticks.now += 6
    assert buckets.take("lookup", 1) == 0.0
    assert buckets.take("lookup", 1) == pytest.approx(10.0)
    ticks.now += 3600  # refills to the burst, never beyond
    assert [buckets.take("lookup", 1) for _ in range(4)][-2:] == [0.0, pytest.approx(10.0)]


def test_members_and_families_have_their_own_buckets(ticks):
    buckets = Cooldowns([("lookup", 1, 60.0), ("turn", 1, 10.0)], ticks)
    assert buckets.take("lookup", 1) == 0.0
    assert buckets.take("lookup", 1) > 0
    assert buckets.take("lookup", 2) == 0.0  # another member
    assert buckets.take("turn", 1) == 0.0  # another family
    assert buckets.take(None, 1) == 0.0 and buckets.take("unlisted", 1) == 0.0  # no rate: never held


def test_a_crowd_leaves_no_lasting_memory(ticks):
    buckets = Cooldowns({"turn": Rate(5, 5)}, ticks)
    for member in range(PRUNE_AT):
        buckets.take("turn", member)
    ticks.now += 10
    buckets.take("turn", -1)
    assert len(buckets) == 1


def test_hold_raises_discords_cooldown_error_and_spares_bots(ticks):
    buckets = Cooldowns({"review": Rate(1, 60)}, ticks)
    alice, robot = SimpleNamespace(id=1, bot=False), SimpleNamespace(id=2, bot=True)
    hold(buckets, "review", alice)
    with pytest.raises(app_commands.CommandOnCooldown) as held:
        hold(buckets, "review", alice)
    assert held.value.retry_after == pytest.approx(60.0)
    for _ in range(10):
        hold(buckets, "review", robot)


# -- settings -----------------------------------------------------------------------------------------


def settings_of(**values: str) -> Settings:
    return Settings.from_env({"DISCORD_TOKEN": "t", **values}, env_file=None)


def test_cooldown_settings():
    assert dict((f, (u, s)) for f, u, s in settings_of().cooldowns) == COOLDOWN_FAMILIES
    tuned = {f: (u, s) for f, u, s in settings_of(COOLDOWN_TURN="100/10", COOLDOWN_REVIEW="off").cooldowns}
    assert tuned["turn"] == (100, 10.0) and "review" not in tuned
    for bad in ("5", "five/60", "0/60", "5/0", "5/-1", "5/nan", "100000/60"):
        with pytest.raises(ConfigError, match="COOLDOWN_HINT"):
            settings_of(COOLDOWN_HINT=bad)


def test_the_example_settings_name_every_family():
    from pathlib import Path

    from bot.config import read_env_file

    example = Path(__file__).resolve().parents[3] / ".env.example"
    documented = {line.lstrip("# ").split("=")[0] for line in example.read_text().splitlines() if "COOLDOWN_" in line}
    assert {f"COOLDOWN_{f.upper()}" for f in COOLDOWN_FAMILIES} <= documented
    assert read_env_file(example).keys().isdisjoint(documented)  # commented out: the defaults apply


def test_every_command_that_costs_has_a_family():
    from bot.discord.cogs.game import GameCog
    from bot.discord.cogs.tools import ToolsCog

    free = set()
    for cog in (GameCog, ToolsCog):
        for command in cog.__cog_app_commands__:
            family = command.extras.get("cooldown")
            if family is None:
                free.add(command.name)
            else:
                assert family in COOLDOWN_FAMILIES, (command.name, family)
    assert free == set()


# -- through Discord (SimCord) ------------------------------------------------------------------------


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(
        token="fake-token",
        database_path=str(tmp_path / "data" / "bg.sqlite3"),
        cooldowns=(("lookup", 2, 60.0), ("turn", 4, 60.0), ("challenge", 5, 60.0)),
    )


async def test_a_flood_of_one_family_is_answered_slow_down(world):
    w = world
    first, second, third = [await w.carol.slash(w.channel, "bg stats") for _ in range(3)]
    assert not first.ephemeral and not second.ephemeral
    assert third.ephemeral and third.response.content == "Slow down: try again in 30 s."
    other = await w.carol.slash(w.channel, "bg rules")  # the same family: rules, history, leaderboard ...
    assert other.ephemeral and other.response.content.startswith("Slow down")
    assert not (await w.alice.slash(w.channel, "bg stats")).ephemeral  # another member is not held
    board = await w.start_game()  # another family is not held either
    assert board is not None


async def test_buttons_take_the_same_tokens(world):
    w = world
    board = await w.start_game()
    await w.alice.select(board, ["8/5 6/5"])  # 1
    await w.bob.click(w.board(), label="Roll")
    for _ in range(3):  # 2, 3, 4: alice clicks a board that is not hers to act on
        nosy = await w.alice.click(w.board(), label="Move checker by checker")
        assert "Slow down" not in w.private(nosy)
    held = await w.alice.slash(w.channel, "bg roll")
    assert held.ephemeral and w.private(held).startswith("Slow down")
    played = await w.bob.select(w.board(), ["24/13"])  # bob's tokens are his own
    assert not w.private(played)


def test_a_text_option_longer_than_declared_is_refused_before_it_is_read():
    """Discord's apps (and SimCord) refuse such a request; a crafted one need not, and the
    end-to-end troublemaker sends one through the real process (tests/e2e)."""
    from bot.discord.cogs.game import GameCog
    from bot.discord.refusals import UserError
    from bot.discord.replies import require_option_lengths

    move = next(c for c in GameCog.__cog_app_commands__ if c.name == "move")
    asked = SimpleNamespace(command=move, namespace=SimpleNamespace(play="8/5 " * 1500))
    with pytest.raises(UserError) as refused:
        require_option_lengths(asked)  # type: ignore[arg-type]
    text = refused.value.message
    assert text.startswith("`play` takes at most 100 characters, not 6000: “8/5 8/5") and len(text) < 200
    require_option_lengths(SimpleNamespace(command=move, namespace=SimpleNamespace(play="8/5 " * 25)))  # type: ignore[arg-type]
