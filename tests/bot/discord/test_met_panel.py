"""Match equity through Discord (SimCord): ``/bglearn met`` and the board's button, both private;
PR in ``/bg analysis``."""

from __future__ import annotations

import io

import pytest
from PIL import Image

pytest.importorskip("gnubg_nn")


def private_embeds(result) -> list:
    messages = ([result.response] if result.response is not None else []) + list(result.followups)
    return [e for m in messages if m.ephemeral for e in m.embeds]


def private_files(result) -> list:
    messages = ([result.response] if result.response is not None else []) + list(result.followups)
    return [a for m in messages if m.ephemeral for a in m.attachments]


async def test_met_at_a_score_privately_with_its_table(world):
    w = world
    before = len(w.public())
    result = await w.carol.slash(w.channel, "bglearn met", length=7, score="2-4")
    assert len(w.public()) == before  # nothing posted for everyone
    (embed,) = private_embeds(result)
    assert "7-point match, 2-4" in embed.description and "You 5-away" in embed.description
    assert "takes Opponent's double to 2 with 31.5%" in embed.description  # 5-away against 3-away
    assert "Snowie" in embed.footer.text
    (picture,) = private_files(result)
    assert Image.open(io.BytesIO(await picture.read())).format == "PNG"


async def test_met_refuses_a_bad_score_in_words(world):
    w = world
    result = await w.carol.slash(w.channel, "bglearn met", length=7, score="9-1")
    assert "each score is 0 to 6" in w.private(result)
    result = await w.carol.slash(w.channel, "bglearn met")
    assert "No match is played in this channel" in w.private(result)


async def test_a_match_board_has_the_button_and_the_channel_command_reads_its_score(world):
    w = world
    board = await w.start_game(match_length=5)
    assert "Match equity" in w.labels(w.board())
    before = len(w.public())
    clicked = await w.carol.click(w.board(), label="Match equity")  # a bystander may look: they see the board
    assert len(w.public()) == before
    (embed,) = private_embeds(clicked)
    assert "5-point match, 0-0" in embed.description and "alice" in embed.description
    result = await w.bob.slash(w.channel, "bglearn met")
    (embed,) = private_embeds(result)
    assert "5-point match, 0-0" in embed.description
    del board


async def test_a_money_board_has_no_button(world):
    w = world
    await w.start_game()
    assert "Match equity" not in w.labels(w.board())
