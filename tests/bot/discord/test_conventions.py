"""The seeds' conventions and the period features through Discord (SimCord):
Hoyle's rubber, automatic doubles on every tie with a cube limit, no double
before the first play, the closed board's old rule, a backgammon worth four,
the glossary and the odds in ``/bg rules``, and ``/bg shots``."""

from __future__ import annotations

import pytest

from engine import GLOSSARY, UNLIMITED, Phase, ScriptedDice, direct_shots


def embed_text(message) -> str:
    embed = message.embeds[0]
    return "\n".join([embed.title or "", embed.description or ""] + [f"{f.name}\n{f.value}" for f in embed.fields])


# -- Hoyle's rubber -----------------------------------------------------------------------------


@pytest.mark.parametrize("dice", [ScriptedDice([3, 1, 6, 5, 4, 2, 5, 3] * 10)])
async def test_hoyle_rubber_the_opening_winner_plays_the_opening_dice(world, dice):
    w = world
    challenge = await w.challenge(rules="hoyle", backgammon=4)
    assert "Hoyle's rubber" in challenge.response.content and "a backgammon counts 4" in challenge.response.content
    await w.bob.click(challenge.response, label="Accept")
    board = w.board()
    state = await w.service.lookups.game_in_channel(w.channel.id)
    settings = state.match.settings
    assert (settings.match_length, settings.cube, settings.backgammon_value) == (2, False, 4)
    assert settings.opening_choice and settings.hit_winner_throws_first
    # alice won the opening 3-1: she plays those dice or throws again; no cube in Hoyle's game
    assert w.labels(board) == ["Play 3-1", "Throw again"]
    assert "to play the opening 3-1 or throw again" in board.content
    wrong = await w.bob.click(board, label="Play 3-1")
    assert "not your turn" in w.private(wrong).lower()
    await w.alice.click(board, label="Play 3-1")
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.game.phase is Phase.PLAY and (state.game.dice.high, state.game.dice.low) == (3, 1)
    assert state.game.log[-1].kind == "use_opening"


@pytest.mark.parametrize("dice", [ScriptedDice([3, 1, 6, 5, 4, 2, 5, 3] * 10)])
async def test_hoyle_rubber_throw_again_and_the_hit_winner_throws_first(world, dice):
    w = world
    board = await w.start_game(rules="hoyle")
    await w.alice.click(board, label="Throw again")
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert (state.game.dice.high, state.game.dice.low) == (6, 5)  # a fresh throw, not the opening one
    assert "Double" not in w.labels(w.board())
    # bob gives up a single game (a "hit"): alice throws first in the next game, no opening throw
    await w.alice.slash(w.channel, "bg move", play="24/13")
    await w.bob.slash(w.channel, "bg resign", level="single")
    await w.alice.click(w.board(), label="Accept resignation")
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert tuple(state.match.score) == (1, 0)
    game = state.game
    assert game.starter == 0 and game.turn == 0 and game.phase is Phase.ROLL
    assert [a.kind for a in game.log][:1] == ["throws_first"]
    assert "won the last game with a hit and throws first" in w.board().content
    assert w.labels(w.board()) == ["Roll"]


async def test_hoyle_rubber_refuses_a_cube_and_a_match_length(world):
    w = world
    for options, words in (
        ({"rules": "hoyle", "match_length": 5}, "best of three"),
        ({"rules": "hoyle", "jacoby": True}, "money games only"),
        ({"rules": "hoyle", "cube_limit": 8}, "no cube"),
        ({"backgammon": 4}, "only in hoyle"),
    ):
        refused = await w.alice.slash(w.channel, "bg challenge", opponent=w.bob, **options)
        assert refused.ephemeral and words in w.private(refused).lower(), (options, w.private(refused))
    assert w.public() == []  # nothing was challenged


# -- the cube: automatic doubles on every tie, a limit, no double before the first play ------------


@pytest.mark.parametrize("dice", [ScriptedDice([2, 2, 4, 4, 5, 5, 3, 1, 6, 5, 4, 2] * 10)])
async def test_every_tie_doubles_up_to_the_cube_limit(world, dice):
    w = world
    challenge = await w.challenge(automatic_doubles="every tie", cube_limit=4)
    assert (
        "automatic doubles on every tie" in challenge.response.content and "cube up to 4" in challenge.response.content
    )
    await w.bob.click(challenge.response, label="Accept")
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.match.settings.automatic_doubles == UNLIMITED and state.match.settings.cube_limit == 4
    assert state.game.cube_value == 4  # three ties, the third stopped by the limit
    # at the limit nobody may double: bob's board after alice's play has no Double
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    assert w.labels(w.board()) == ["Roll"]


@pytest.mark.parametrize("dice", [ScriptedDice([3, 1, 6, 5, 4, 2, 5, 3] * 10)])
async def test_no_double_before_the_first_play(world, dice):
    w = world
    board = await w.start_game(opening_reroll=True, early_doubles=False)
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.match.settings.double_before_first_play is False
    assert w.labels(board) == ["Roll"]  # alice throws again before any play: no Double yet
    await w.alice.click(board, label="Roll")
    await w.alice.slash(w.channel, "bg move", play="24/18 13/8")
    assert w.labels(w.board()) == ["Roll", "Double"]  # after the first play, bob may


@pytest.mark.parametrize("dice", [ScriptedDice([3, 1, 6, 5, 4, 2, 5, 3] * 10)])
async def test_early_doubles_by_default(world, dice):
    w = world
    board = await w.start_game(opening_reroll=True)
    assert w.labels(board) == ["Roll", "Double"]


# -- the closed board's old rule -----------------------------------------------------------------


async def test_closed_out_skip_is_a_challenge_option(world):
    w = world
    challenge = await w.challenge(closed_out="skip")
    assert "closed out: no throw (the old rule)" in challenge.response.content
    await w.bob.click(challenge.response, label="Accept")
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.match.settings.closed_out == "skip" and state.options.closed_out == "skip"
    default = await w.alice.slash(w.guild.create_text_channel("two"), "bg challenge", opponent=w.carol)
    assert "old rule" not in default.response.content


# -- /bg rules: options, glossary, odds ---------------------------------------------------------------


async def test_rules_topics(world):
    w = world
    glossary = await w.carol.slash(w.channel, "bg rules", topic="glossary")
    assert glossary.ephemeral
    text = embed_text(glossary.response).lower()
    for term in GLOSSARY:
        assert f"**{term.word}**" in text
    for word in ("ace", "deuce", "trois", "quatre", "cinque", "six", "hit", "gammon", "blot", "table", "bar"):
        assert f"**{word}**" in text
    assert "six deuce" in text
    options = embed_text((await w.carol.slash(w.channel, "bg rules", topic="options")).response)
    assert "rules: hoyle" in options and "closed_out: skip" in options and ".mat" in options
    odds = embed_text((await w.carol.slash(w.channel, "bg rules", topic="odds")).response)
    assert " 6 pips: 17/36" in odds and "11 pips:  2/36" in odds
    assert f" 4 pips: {direct_shots(4)}/36" in odds
    default = embed_text((await w.carol.slash(w.channel, "bg rules")).response)
    assert "/bg challenge" in default
    for result in (glossary,):
        assert sum(len(f.value) for f in result.response.embeds[0].fields) < 6000


# -- /bg shots ---------------------------------------------------------------------------------------


async def test_shots_count_each_players_blots(world):
    w = world
    await w.start_game()  # alice starts with 3-1
    await w.alice.slash(w.channel, "bg move", play="13/10 6/5")
    # bob's back checkers stand 4 pips from the 5-point blot and 9 from the 10-point one:
    # 15 and 5 throws of 36 (the old table), 18 hitting either
    result = await w.carol.slash(w.channel, "bg shots")
    assert result.ephemeral
    text = w.private(result)
    assert "**alice**: 5-point 15, 10-point 5 · hit at all: 18/36" in text
    assert "**bob**: no blots" in text
    elsewhere = await w.carol.slash(w.guild.create_text_channel("empty"), "bg shots")
    assert elsewhere.ephemeral and "no game" in w.private(elsewhere).lower()
