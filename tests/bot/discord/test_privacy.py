"""Privacy follows Discord's permissions: a game read by its number (export, verify,
replay, analysis, another member's history) only for its players and for members who
can see where it is played; to anyone else it does not exist."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from simcord.actors import MemberActor
from simcord.builders import ChannelHandle
from simcord.enums import ChannelType

from bot.config import Settings
from bot.core import ChallengeOptions, PlayerRef
from bot.discord.privacy import NOTHING, Sight, may_read

PLAYERS = (1, 2)
SEES = Sight(known=True, can_view=True)


@pytest.mark.parametrize(
    ("viewer", "sight", "expected"),
    [
        (1, NOTHING, True),  # a player, whatever the channel
        (2, Sight(known=True, can_view=False, private_thread=True), True),
        (3, NOTHING, False),  # a channel the bot does not know: players only
        (3, SEES, True),
        (3, Sight(known=True, can_view=False), False),
        (3, Sight(known=False, can_view=True), False),
        (3, Sight(known=True, can_view=True, private_thread=True), False),
        (3, Sight(known=True, can_view=True, private_thread=True, in_thread=True), True),
        (3, Sight(known=True, can_view=True, private_thread=True, manages_threads=True), True),
        (3, Sight(known=True, can_view=False, private_thread=True, manages_threads=True, in_thread=True), False),
    ],
)
def test_the_rule(viewer, sight, expected):
    assert may_read(PLAYERS, viewer, sight) is expected


READS: list[tuple[str, dict[str, Any]]] = [
    ("bg export", {}),
    ("bgtools verify", {}),
    ("bgtools replay", {}),
    ("bg analysis", {}),
]


@pytest.fixture
def settings(tmp_path) -> Settings:
    """No cooldowns: one outsider tries every read here (tests/bot/discord/test_cooldowns.py has them)."""
    return Settings(token="fake-token", database_path=str(tmp_path / "data" / "bg.sqlite3"), cooldowns=())


@pytest.fixture
def quick(world):
    world.bot.table.computer.pause = 0
    world.bot.table.notes.available = lambda: False  # no background analyses: the reads below are what is tested
    return world


def private_thread(w, owner: MemberActor, *members: MemberActor) -> ChannelHandle:
    """A private thread under #backgammon that ``owner`` made, with ``members`` and the bot added."""
    backend = w.env.backend
    thread = backend.create_thread(w.channel.id, "secret", owner.id, type=ChannelType.PRIVATE_THREAD)
    for member in members:
        backend.add_thread_member(thread.id, member.id)
    backend.add_thread_member(thread.id, w.bot.user.id)
    return ChannelHandle(w.env, w.guild, thread)


async def finished_game(w, channel) -> int:
    await w.start_game(channel=channel)
    game = await w.service.lookups.game_in_channel(channel.id)
    forfeited = await w.bob.slash(channel, "bg forfeit")
    assert not forfeited.ephemeral, w.private(forfeited)
    return game.id


async def answers(w, member, channel, game_id: int) -> dict[str, str]:
    out = {}
    for command, options in READS:
        result = await member.slash(channel, command, game=game_id, **options)
        out[command] = w.private(result) if result.ephemeral else "(public)"
    return out


async def test_a_private_thread_game_does_not_exist_for_outsiders(quick):
    w = quick
    thread = private_thread(w, w.alice, w.bob)
    await w.env.settle()
    assert w.bot.get_channel(thread.id) is not None, "the bot knows the thread it plays in"
    game_id = await finished_game(w, thread)

    nothing = await answers(w, w.carol, w.channel, 999)
    assert set(nothing.values()) == {"There is no game #999 in this server."}
    outsider = await answers(w, w.carol, w.channel, game_id)
    assert outsider == {c: f"There is no game #{game_id} in this server." for c, _ in READS}
    assert not any(a.filename.endswith((".mat", ".json", ".gif")) for m in w.public() for a in m.attachments)

    # the players may, from anywhere; so may a moderator who manages threads
    for player in (w.alice, w.bob):
        exported = await player.slash(w.channel, "bg export", game=game_id)
        assert exported.response.attachments, w.private(exported)
    keepers = w.guild.create_role("Thread keepers", permissions=discord.Permissions(manage_threads=True))
    keeper = w.guild.add_member(w.env.create_user("keeper"), roles=[keepers])
    verified = await keeper.slash(w.channel, "bgtools verify", game=game_id)
    # privately: #backgammon's readers can't all see the private thread
    assert verified.ephemeral and f"**Game #{game_id}**" in w.private(verified)

    # a member of the thread (not a player) asking from inside it may
    dave = w.guild.add_member(w.env.create_user("dave"))
    w.env.backend.add_thread_member(thread.id, dave.id)
    inside = await dave.slash(thread, "bgtools verify", game=game_id)
    assert not inside.ephemeral and f"**Game #{game_id}**" in inside.response.content


async def test_a_hidden_channel_game_is_read_only_by_who_can_see_it(quick):
    w = quick
    everyone = w.guild.default_role
    hidden = w.guild.create_text_channel(
        "hidden",
        overwrites={
            everyone: discord.PermissionOverwrite(view_channel=False),
            w.alice: discord.PermissionOverwrite(view_channel=True),
            w.bob: discord.PermissionOverwrite(view_channel=True),
            w.mod: discord.PermissionOverwrite(view_channel=True),
        },
    )
    await w.env.settle()
    game_id = await finished_game(w, hidden)
    refused = await w.carol.slash(w.channel, "bgtools verify", game=game_id)
    assert refused.ephemeral and w.private(refused) == f"There is no game #{game_id} in this server."
    seen = await w.mod.slash(w.channel, "bgtools verify", game=game_id)
    assert seen.ephemeral and f"**Game #{game_id}**" in w.private(seen)  # the mod may read it: privately here
    before = len(w.public())
    for command in ("bg analysis", "bgtools replay"):
        result = await w.mod.slash(w.channel, command, game=game_id)
        assert result.ephemeral or not result.response, (command, w.private(result))
    assert len(w.public()) == before  # nothing of the hidden game posted in #backgammon

    # another member's history lists only the games the asker could read
    await finished_game(w, w.channel)
    theirs = await w.carol.slash(w.channel, "bg history", member=w.alice)
    rows = theirs.response.embeds[0].description
    assert f"#{game_id} " not in rows and "#2 vs bob" in rows
    mine = await w.alice.slash(w.channel, "bg history")
    assert f"#{game_id} vs bob" in mine.response.embeds[0].description
    moderator = await w.mod.slash(w.channel, "bg history", member=w.alice)
    assert f"#{game_id} vs bob" in moderator.response.embeds[0].description


async def test_a_channel_the_bot_does_not_know_shows_only_the_players(quick):
    w = quick
    service = w.service
    alice, bob = PlayerRef(w.alice.id, "alice"), PlayerRef(w.bob.id, "bob")
    challenge = await service.challenges.create(w.guild.id, 4242, alice, bob, ChallengeOptions())
    outcome = await service.challenges.accept(challenge.id, bob.user_id)
    await service.forfeit(outcome.state.id, bob.user_id)
    game_id = outcome.state.id
    refused = await w.mod.slash(w.channel, "bgtools verify", game=game_id)
    assert w.private(refused) == f"There is no game #{game_id} in this server."
    player = await w.alice.slash(w.channel, "bgtools verify", game=game_id)
    assert player.ephemeral and f"**Game #{game_id}**" in w.private(player)  # a player's: privately here
