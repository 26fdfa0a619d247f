"""Rematch and Double or nothing from a finished game's board (SimCord): a
challenge the other player accepts, the same settings with the colours
swapped, twice the stake for double or nothing; refusals private."""

from __future__ import annotations

import pytest


@pytest.fixture
def world(world):
    world.bot.table.notes.available = lambda: False  # no analysis of the finished games: its own tests
    return world


async def finish(w, **options) -> int:
    board = await w.start_game(**options)
    game_id = w.game_id(board)
    forfeited = await w.bob.slash(w.channel, "bg forfeit")
    assert not forfeited.ephemeral, w.private(forfeited)
    return game_id


async def test_rematch_swaps_colours_and_needs_the_other_players_accept(world):
    w = world
    game_id = await finish(w, stake=3, jacoby=True)
    final = w.board()
    assert w.labels(final) == ["Rematch", "Double or nothing"]
    assert w.custom_ids(final) == [f"bg:rematch:again:{game_id}", f"bg:rematch:double:{game_id}"]

    outsider = await w.carol.click(final, label="Rematch")
    assert "only its players" in w.private(outsider).lower()

    asked = await w.bob.click(final, label="Rematch")
    assert not w.private(asked), w.private(asked)
    challenge = w.channel.last_message
    assert f"a rematch of game #{game_id}" in challenge.content and "Jacoby" in challenge.content
    assert w.alice.mention in challenge.content  # the other player is asked, and pinged
    assert await w.service.lookups.game_in_channel(w.channel.id) is None  # nobody seated yet
    await w.alice.click(challenge, label="Accept")
    state = await w.service.lookups.game_in_channel(w.channel.id)
    # bob sat second in the first game: first now; the same settings
    assert [p.user_id for p in state.players] == [w.bob.id, w.alice.id]
    assert state.options.stake == 3 and state.options.jacoby and state.options.rematch_of == game_id


async def test_double_or_nothing_doubles_the_stake_within_the_limit(world):
    w = world
    game_id = await finish(w, stake=40)
    await w.alice.click(w.board(), label="Double or nothing")
    challenge = w.channel.last_message
    assert "money game at 80 per point" in challenge.content
    await w.bob.click(challenge, label="Accept")
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.options.stake == 80 and state.options.rematch_of == game_id
    assert [p.user_id for p in state.players] == [w.bob.id, w.alice.id]  # alice sat first: second now


async def test_double_or_nothing_past_the_stake_limit_is_refused(world):
    w = world
    await finish(w, stake=60)  # the limit is 100
    refused = await w.alice.click(w.board(), label="Double or nothing")
    assert "120 per point, over this server's limit of 100" in w.private(refused)
    assert await w.service.lookups.game_in_channel(w.channel.id) is None


async def test_a_match_is_played_again_without_double_or_nothing(world):
    w = world
    await finish(w, match_length=3)
    assert w.labels(w.board()) == ["Rematch"]
