"""``/bglearn import`` through Discord (SimCord): a .mat from elsewhere analysed privately,
nothing stored; a bad file refused in words with its line."""

from __future__ import annotations

import pytest

from engine.mat import export_games
from tests.engine.gnubg_oracle import random_match


@pytest.fixture
def analysed(world, monkeypatch):
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    import asyncio

    from bot.ai import default_analyst

    async def in_thread(game, ply=0):
        return await asyncio.to_thread(default_analyst().analyse_game, game, ply=ply)

    monkeypatch.setattr(world.bot.parts.advice.analyst, "aanalyse_game", in_thread)
    return world


def private_embeds(result) -> list:
    messages = ([result.response] if result.response is not None else []) + list(result.followups)
    return [e for m in messages if m.ephemeral for e in m.embeds]


async def test_a_match_file_is_analysed_privately_and_nothing_is_stored(analysed):
    w = analysed
    sample = random_match(2)  # a 1-point match of random play, resigned or played out
    text = export_games(sample.games, ("Xavier", "Yolanda"), match_length=sample.length)
    before = len(w.public())
    result = await w.alice.slash(w.channel, "bglearn import", file=("match.mat", text.encode()))
    assert len(w.public()) == before
    (embed,) = private_embeds(result)
    assert "Imported" in embed.title and "Xavier" in embed.title
    assert "PR " in embed.description and "Nothing of the file is kept" in embed.footer.text
    assert await w.service.lookups.game_list(w.guild.id, w.alice.id) == []


async def test_a_bad_file_is_refused_with_its_line(world):
    w = world
    result = await w.alice.slash(w.channel, "bglearn import", file=("bad.mat", b" 3 point match\n Game 1\n oops\n"))
    text = w.private(result)
    assert "line 3" in text and "not a match file I can replay" in text
