"""Issue 18 through Discord (SimCord): the real command paths of a hostile member.

Floods are refused privately, a moderator can't abandon their own game, the
stake option stops where the core does, and replays, histories and exports of
finished games read their summaries (no log replayed in the bot's process)
with each replay drawn once by the drawing workers.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import GifImagePlugin, Image
from simcord.backend.errors import OptionError

from engine import Game, Position, encode_match_id
from engine.gnubgid import MatchState


@pytest.fixture
def counted(world, monkeypatch):
    """The world, with its replays' drawings counted and every replay of a
    logged action in this process counted (``Game.apply``)."""
    counts = {"drawn": 0, "applied": 0}
    replays = world.bot.parts.replays
    draw = replays.draw

    async def drawing(job: Any) -> Any:
        counts["drawn"] += 1
        return await draw(job)

    replays.draw = drawing
    apply = Game.apply

    def applied(game: Game, action: Any) -> None:
        counts["applied"] += 1
        apply(game, action)

    monkeypatch.setattr(Game, "apply", applied)
    world.counts = counts
    return world


async def finished_game(w) -> int:
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    game = await w.service.lookups.game_in_channel(w.channel.id)
    result = await w.bob.slash(w.channel, "bg forfeit")
    assert not result.ephemeral, w.private(result)
    return game.id


async def test_a_replay_asked_twice_is_drawn_once_and_export_reuses_it(counted):
    w = counted
    game_id = await finished_game(w)
    w.counts["applied"] = 0
    first = await w.carol.slash(w.channel, "bgtools replay", game=game_id)
    second = await w.mod.slash(w.channel, "bgtools replay", game=game_id)
    exported = await w.alice.slash(w.channel, "bg export", game=game_id)
    history = await w.bob.slash(w.channel, "bg history")
    assert not first.ephemeral and not second.ephemeral, (w.private(first), w.private(second))
    gifs = [m.attachments[0] for m in w.public()[-2:]]
    data = [await a.read() for a in gifs]
    gif = Image.open(io.BytesIO(data[0]))
    assert data[0] == data[1] and isinstance(gif, GifImagePlugin.GifImageFile) and gif.n_frames > 1
    assert [a.filename for a in exported.response.attachments] == [
        f"backgammon-game-{game_id}.mat",
        f"game-{game_id}.json",
        f"game-{game_id}-replay.gif",
    ]
    assert await exported.response.attachments[2].read() == data[0]
    assert f"#{game_id} vs alice · money · **lost** 0-1 · rating -10.0" in history.response.embeds[0].description
    assert w.counts == {"drawn": 1, "applied": 0}  # drawn once, in a worker; nothing replayed here


async def test_a_flood_of_challenges_is_refused_privately(world):
    w = world
    others = [w.guild.add_member(w.env.create_user(f"m{n}")) for n in range(3)]
    for n, member in enumerate(others):
        await w.challenge(opponent=member, channel=w.guild.create_text_channel(f"c{n}"))
    spare = w.guild.create_text_channel("spare")
    refused = await w.alice.slash(spare, "bg challenge", opponent=w.bob)
    assert (
        refused.ephemeral and "you already have 3 challenges waiting for an answer" in refused.response.content.lower()
    )
    assert not w.public(spare)  # nobody was pinged
    # and five waiting for one member's answer at most
    for n, member in enumerate([w.carol, w.mod, *others[:3]]):
        await w.challenge(challenger=member, opponent=w.bob, channel=w.guild.create_text_channel(f"t{n}"))
    extra = w.guild.add_member(w.env.create_user("extra"))
    refused = await extra.slash(spare, "bg challenge", opponent=w.bob)
    assert refused.ephemeral and "bob already has 5 challenges waiting" in refused.response.content.lower()


async def test_the_stake_stops_where_the_core_does(world):
    w = world
    assert w.service.limits.max_stake == 100
    params = {p.name: p for p in w.bot.get_cog("GameCog").challenge.parameters}
    assert params["stake"].max_value == 100
    with pytest.raises(OptionError, match="must be ≤ 100"):  # Discord refuses it before the bot is asked
        await w.alice.slash(w.channel, "bg challenge", opponent=w.bob, stake=1_000_000)
    at_most = await w.alice.slash(w.channel, "bg challenge", opponent=w.bob, stake=100)
    assert not at_most.ephemeral and "a money game at 100 per point" in at_most.response.content


async def test_a_moderator_cannot_abandon_their_own_game(world):
    w = world
    await w.start_game(challenger=w.mod, opponent=w.bob)
    refused = await w.mod.slash(w.channel, "bg abandon")
    assert refused.ephemeral and "you play in this game" in w.private(refused).lower()
    assert await w.service.lookups.game_in_channel(w.channel.id) is not None


async def test_a_position_not_to_be_played_is_refused_privately(world):
    w = world
    over = Position(tuple([0] * 18 + [-15] + [0] * 5), (0, 0), (15, 0)).position_id()  # all fifteen off
    huge_cube = f"4HPwATDgc/ABMA:{encode_match_id(MatchState(cube=1 << 15, game_state=1))}"
    for gnubg_id in (over, huge_cube):
        for opponent in [w.bob, None] if w.bot.parts.advice.available() else [w.bob]:
            options = {"position": gnubg_id} | ({"opponent": opponent} if opponent else {})
            refused = await w.alice.slash(w.channel, "bgtools setup", **options)
            assert refused.ephemeral and "not a GNU Backgammon ID I can set up" in w.private(refused)
    assert not w.public() and await w.service.lookups.game_in_channel(w.channel.id) is None


async def test_expiring_challenges_are_edited_in_place_ten_a_pass(world, clock):
    w = world
    members = [w.guild.add_member(w.env.create_user(f"x{n}")) for n in range(24)]
    made = [await w.challenge(challenger=members[2 * n], opponent=members[2 * n + 1]) for n in range(12)]
    messages = len(w.channel.history())
    clock.advance(hours=25)
    first = await w.bot.scheduler.run_once()
    assert len(first) == w.service.limits.expiries_per_sweep == 10
    assert await w.bot.scheduler.delay() == w.bot.scheduler.min_sleep == 1.0  # the rest a second later
    second = await w.bot.scheduler.run_once()
    assert len(second) == 2 and await w.bot.scheduler.run_once() == []
    await w.bot.dispatcher.idle()  # the dispatcher edits them, a few a second
    await w.bot.dispatcher.run_once()
    assert len(w.channel.history()) == messages  # edits only: no message, no ping per expiry
    for result in made:
        message = next(m for m in w.channel.history() if m.id == result.response.id)
        assert "expired" in message.content and not message.components
