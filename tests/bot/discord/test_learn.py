"""``/bglearn`` through Discord (SimCord): the old masters' openings, puzzles, drills."""

from __future__ import annotations

import io

import pytest
from PIL import Image


@pytest.fixture
def learn(world):
    world.bot.parts.advice.opening_ply = 0  # the bot values the throws at 2-ply; 0-ply is quicker for tests
    world.bot.table.notes.available = lambda: False
    return world


def embeds_of(w):
    return [e for m in w.public() for e in m.embeds]


async def test_one_opening_throw_with_the_words_the_loss_and_the_board(learn):
    w = learn
    result = await w.alice.slash(w.channel, "bglearn openings", roll="3-3")
    assert not w.private(result), w.private(result)
    message = w.channel.last_message
    (embed,) = message.embeds
    assert embed.title == "📜 The old masters' 3-3"
    text = embed.description
    assert "**Hoyle, some players**: `13/7(2)` · gives up **0.1" in text  # the bar point: about 0.13 at 0-ply
    assert "Some players make the bar point." in text
    assert "`8/5(2) 6/3(2)` · ✅ still the neural net's best" in text
    assert "**Neural net** (0-ply): `8/5(2) 6/3(2)`" in text
    assert "the Britannica" in text  # its 3-3 too
    (picture,) = message.attachments
    assert picture.filename == "opening-3-3.png" and embed.image.url == "attachment://opening-3-3.png"
    assert Image.open(io.BytesIO(await picture.read())).size[0] > 400


async def test_every_opening_throw_at_once(learn):
    w = learn
    await w.bob.slash(w.channel, "bglearn openings")
    message = w.channel.last_message
    (embed,) = message.embeds
    lines = embed.description.splitlines()
    assert lines[0].startswith("17 of the texts' 28 plays are still the neural net's best")
    rolls = [line.split("**")[1] for line in lines if line.startswith("**")]
    assert rolls == ["1-1", "2-1", "2-2", "3-1", "3-2", "3-3", "4-1", "4-2", "4-4", "5-3", "5-4", "5-5",
                     "6-1", "6-3", "6-4", "6-5", "6-6"]
    # the board shows the play that gives up the most: Hoyle's 3-3 on the bar point
    assert message.attachments[0].filename == "opening-3-3.png"


async def test_openings_without_the_neural_net(learn, monkeypatch):
    w = learn
    monkeypatch.setattr(type(w.bot.parts.advice), "available", staticmethod(lambda: False))
    await w.alice.slash(w.channel, "bglearn openings", roll="2-1")
    (embed,) = w.channel.last_message.embeds
    assert "`24/23 13/11`" in embed.description and "gives up" not in embed.description
    assert "not installed here" in embed.description
