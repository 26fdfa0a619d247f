"""Trust and interop through Discord (SimCord): fair dice, dice statistics,
GNU Backgammon IDs and XGIDs, practice set-ups, the "Show board" message
command, replays and exports."""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import GifImagePlugin, Image

from engine import Game, parse_xgid
from tests.narrowing import present

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def quick(world):
    seat = world.bot.table.computer
    seat.pause = 0
    seat.default_level = "beginner"
    world.bot.parts.advice.hint_level = "beginner"
    world.bot.table.notes.available = lambda: False  # analysis has its own tests
    return world


def answered_interaction(w) -> int:
    """The Discord id of the latest interaction the bot answered (from its callback's path)."""
    path = next(r.path for r in reversed(w.env.http_requests) if r.path.endswith("/callback"))
    return int(present(re.search(r"/interactions/(\d+)/", path)).group(1))


async def finish_by_forfeit(w, channel=None) -> int:
    game = await w.service.lookups.game_in_channel((channel or w.channel).id)
    result = await w.bob.slash(channel or w.channel, "bg forfeit")
    assert not result.ephemeral, w.private(result)
    return game.id


# -- provably fair dice ---------------------------------------------------------------------


@pytest.mark.parametrize("dice", [None])  # the service's own provably fair dice
async def test_commitment_then_seed_then_verify(quick, dice, tmp_path):
    w = quick
    challenge = (await w.challenge()).response
    words = challenge.content
    commitment = present(re.search(r"Dice committed now: `([0-9a-f]{64})`", words)).group(1)
    await w.bob.click(challenge, label="Accept")
    click_id = answered_interaction(w)
    first = w.board()
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.fair_dice["commitment"] == commitment  # the one posted before the first die
    assert f"commitment `{commitment}`" in first.content and game.fair_dice["nonce"] in first.content
    assert game.fair_dice["salt"] == f"accept={click_id}"  # Discord's id of the click
    assert "seed" not in game.fair_dice
    early = await w.alice.slash(w.channel, "bgtools verify", game=game.id)
    assert early.ephemeral and "still being played" in early.response.content

    game_id = await finish_by_forfeit(w)
    final = w.board()
    field = next(f for f in final.embeds[0].fields if f.name == "Fair dice")
    seed = present(re.search(r"Seed `([0-9a-f]+)`", field.value)).group(1)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment

    # the message holding the commitment never changed, from before the first die to the end
    assert next(m for m in w.channel.history() if m.id == challenge.id).content == words
    verified = await w.carol.slash(w.channel, "bgtools verify", game=game_id)
    assert not verified.ephemeral
    text = verified.response.content
    assert text.startswith("✅") and "dice match the committed seed" in text
    assert "scripts/verify_dice.py" in text

    # the exported JSON passes the standalone script
    exported = await w.alice.slash(w.channel, "bg export", game=game_id)
    by_name = {a.filename: a for a in exported.response.attachments}
    assert set(by_name) == {f"backgammon-game-{game_id}.mat", f"game-{game_id}.json", f"game-{game_id}-replay.gif"}
    path = tmp_path / f"game-{game_id}.json"
    path.write_bytes(await by_name[path.name].read())
    assert json.loads(path.read_text())["dice"]["seed"] == seed
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "verify_dice.py"), str(path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.parametrize("dice", [None])
async def test_accept_with_my_own_seed(quick, dice):
    w = quick
    challenge = (await w.challenge()).response
    denied = await w.carol.click(challenge, label="Accept with my own seed")
    assert "only bob can accept" in w.private(denied).lower()
    form = await w.bob.click(challenge, label="Accept with my own seed")
    await w.bob.submit_modal(form, {"seed": "bob's lucky 7"})
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game is not None and w.board() is not None
    expected = "accept={};accepter={}".format(
        answered_interaction(w), hashlib.sha256(b"bob's lucky 7").hexdigest()[:16]
    )
    assert game.fair_dice["salt"] == expected
    assert not next(m for m in w.channel.history() if m.id == challenge.id).components


async def test_verify_refuses_games_elsewhere_and_unknown(quick):
    w = quick
    missing = await w.alice.slash(w.channel, "bgtools verify", game=42)
    assert missing.ephemeral and "no game #42" in missing.response.content
    nothing = await w.alice.slash(w.channel, "bgtools verify")
    assert nothing.ephemeral and "no finished game" in nothing.response.content


async def test_rules_mention_the_script(quick):
    w = quick
    rules = await w.carol.slash(w.channel, "bg rules")
    assert any("scripts/verify_dice.py" in f.value for f in rules.response.embeds[0].fields)


# -- dice statistics ---------------------------------------------------------------------------


async def test_dice_statistics(quick):
    w = quick
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    await w.bob.slash(w.channel, "bg roll")  # 6-5
    await w.bob.slash(w.channel, "bg move", play="24/13")
    await w.alice.slash(w.channel, "bg roll")  # 4-2
    result = await w.carol.slash(w.channel, "bgtools dice", member=w.bob)
    assert not result.ephemeral
    embed = result.response.embeds[0]
    assert embed.title == "🎲 Dice · bob"
    assert "**1** rolls" in embed.description and "**11** pips" in embed.description
    assert "expected 16.7%" in embed.description
    fields = {f.name: f.value for f in embed.fields}
    rolls = fields["Roll kinds (high die by low die)"]
    row6 = next(line for line in rolls.splitlines() if line.strip().startswith("6 "))
    assert row6.split()[1:] == ["0", "0", "0", "0", "1", "0"]  # one 6-5
    assert "p = " in rolls
    faces = fields["Faces (each die thrown)"]
    assert "5: 1 (50.0%)" in faces and "6: 1 (50.0%)" in faces and "p = " in faces
    nobody = await w.carol.slash(w.channel, "bgtools dice")
    assert "No rolls yet" in nobody.response.embeds[0].description


# -- positions ---------------------------------------------------------------------------------


async def test_position_id(quick):
    w = quick
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    result = await w.carol.slash(w.channel, "bgtools position")
    assert not result.ephemeral
    gnubg_id = present(re.search(r"`([A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+)`", result.response.content)).group(1)
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert gnubg_id == game.game.gnubg_id()
    copy = Game.from_gnubg_id(gnubg_id)
    assert copy.gnubg_id() == gnubg_id
    elsewhere = await w.carol.slash(w.guild.create_text_channel("empty"), "bgtools position")
    assert elsewhere.ephemeral and "no game in this channel" in elsewhere.response.content.lower()


async def test_position_shows_the_xgid_too(quick):
    w = quick
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    await w.bob.slash(w.channel, "bg roll")  # 6-5 for bob, player 1: the bottom player of the XGID
    result = await w.carol.slash(w.channel, "bgtools position")
    text = result.response.content
    game = (await w.service.lookups.game_in_channel(w.channel.id)).game
    xgid = present(re.search(r"XGID \(bob at the bottom\): `(XGID=[-A-Pa-p]{26}(?::-?\w+){9})`", text)).group(1)
    assert xgid == game.xgid() and xgid.split(":")[3:5] == ["1", "65"]
    assert Game.from_xgid(xgid).gnubg_id() == game.gnubg_id() in text
    # while a resignation waits, an XGID can't show the game: the GNU Backgammon ID still can
    await w.bob.slash(w.channel, "bg resign")
    waiting = (await w.carol.slash(w.channel, "bgtools position")).response.content
    assert "XGID: none while a resignation waits for an answer" in waiting and "GNU Backgammon ID: `" in waiting


async def test_setup_from_an_xgid(quick):
    w = quick
    # carol (player 0, the top player) on roll with 5-2 against the computer
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:52:0:0:0:0:10"
    practice = w.guild.create_text_channel("practice-xgid")
    started = await w.carol.slash(practice, "bgtools setup", position=xgid)
    assert not started.ephemeral, w.private(started)
    game = await w.service.lookups.game_in_channel(practice.id)
    assert game.options.practice and game.players[0].user_id == w.carol.id
    setup = game.game.log[0]
    assert (setup.kind, setup.text) == ("setup", parse_xgid(xgid).gnubg_id())  # the GNU Backgammon ID it means
    assert game.to_act().user_id == w.carol.id and game.game.dice is not None
    # against a member: a practice challenge naming the position
    duo = w.guild.create_text_channel("duo-xgid")
    with_bob = await w.carol.slash(duo, "bgtools setup", position=xgid[5:], opponent=w.bob)
    assert not with_bob.ephemeral and parse_xgid(xgid).gnubg_id() in with_bob.response.content
    # refusals say what is wrong with the XGID
    for bad, words in (
        ("XGID=-b----E-C---eE---c-e----B-:1:1:1:B:0:0:2:0:10", "a beaver waiting for an answer"),
        ("XGID=-b----F-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "the bottom player has 16 checkers"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00", "an XGID has 10 fields"),
    ):
        refused = await w.carol.slash(w.guild.create_text_channel("bad-xgid"), "bgtools setup", position=bad)
        assert refused.ephemeral and "not an XGID I can set up" in w.private(refused), bad
        assert words in w.private(refused), w.private(refused)


async def test_setup_against_the_computer_and_a_member(quick):
    w = quick
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    source = await w.service.lookups.game_in_channel(w.channel.id)
    gnubg_id = source.game.gnubg_id()

    practice = w.guild.create_text_channel("practice")
    started = await w.carol.slash(practice, "bgtools setup", position=gnubg_id)
    assert not started.ephemeral, w.private(started)
    game = await w.service.lookups.game_in_channel(practice.id)
    assert game.options.practice and not game.options.rated
    assert game.players[0].user_id == w.carol.id and game.players[1].user_id == w.bot.user.id
    assert "starts from the position" in "\n".join(m.content for m in w.public(practice))
    assert game.to_act().user_id == w.carol.id  # if the computer was to act, it played

    bad = await w.carol.slash(w.guild.create_text_channel("bad"), "bgtools setup", position="not-an-id")
    assert bad.ephemeral and "GNU Backgammon ID" in bad.response.content

    # a member is seated only by clicking Accept: setup against bob posts a practice challenge
    duo = w.guild.create_text_channel("duo")
    with_bob = await w.carol.slash(duo, "bgtools setup", position=gnubg_id, opponent=w.bob)
    assert not with_bob.ephemeral, w.private(with_bob)
    assert "practice game" in with_bob.response.content and gnubg_id in with_bob.response.content
    assert await w.service.lookups.game_in_channel(duo.id) is None
    refused = await w.carol.click(with_bob.response, label="Accept")
    assert "only bob can accept" in w.private(refused).lower()
    assert await w.service.lookups.game_in_channel(duo.id) is None
    accepted = await w.bob.click(with_bob.response, label="Accept")
    assert accepted.followups, w.private(accepted)
    game = await w.service.lookups.game_in_channel(duo.id)
    assert [p.user_id for p in game.players] == [w.carol.id, w.bob.id] and game.options.practice
    assert not game.options.rated and game.game.gnubg_id().split(":")[0] == gnubg_id.split(":")[0]


# -- "Show board" (Message -> Apps) ----------------------------------------------------------


ANKI = "XGID=----abF-B--BbB-Bacbd----A-:0:0:1:41:1:0:0:11:10"
"""A real eXtreme Gammon export (formats.md 3.3): X, the bottom player, to play 4-1."""


async def show_board(w, member, message):
    """Invoke the message command; returns (private text, the picture)."""
    result = await member.context_menu(w.channel, "Show board", message)
    assert result.ephemeral, "the board is shown only to who asked"
    answers = ([result.response] if result.response is not None else []) + list(result.followups)
    pictures = [a for m in answers for a in m.attachments]
    image = Image.open(io.BytesIO(await pictures[0].read())) if pictures else None
    return w.private(result), image


async def test_show_board_of_an_xgid_a_gnubg_id_and_a_position_id(quick):
    w = quick
    said = await w.alice.send(w.channel, f"What do you play here? {ANKI} (from XG)")
    text, image = await show_board(w, w.carol, said)
    assert image is not None and image.format == "PNG" and image.width > 300
    assert "The XGID in https://discord.com/channels/" in text
    assert f"GNU Backgammon ID: `{parse_xgid(ANKI).gnubg_id()}`" in text and f"XGID: `{ANKI}`" in text
    assert not [m for m in w.public() if m.author.id == w.bot.user.id]  # nothing posted for everyone

    gnubg = await w.bob.send(w.channel, "gnubg says 4HPwATDgc/ABMA:cAkAAAAAAAAA, what now?")
    text, image = await show_board(w, w.alice, gnubg)
    assert image is not None and "The GNU Backgammon ID in" in text
    assert "XGID: `XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:0:10`" in text  # player 1 to roll, Jacoby

    lone = await w.bob.send(w.channel, "start: 4HPwATDgc/ABMA")
    text, image = await show_board(w, w.alice, lone)
    assert image is not None and "The Position ID in" in text

    both = await w.bob.send(w.channel, f"{ANKI}\nor 4HPwATDgc/ABMA:cAkAAAAAAAAA")
    text, _ = await show_board(w, w.alice, both)
    assert "The XGID in" in text and "That message has 2 positions written in it" in text


async def test_show_board_of_the_bots_own_position_message(quick):
    w = quick
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    shown = (await w.carol.slash(w.channel, "bgtools position")).response
    text, image = await show_board(w, w.bob, shown)
    game = (await w.service.lookups.game_in_channel(w.channel.id)).game
    assert image is not None and f"XGID: `{game.xgid()}`" in text and game.gnubg_id() in text


async def test_show_board_says_when_there_is_no_position(quick):
    w = quick
    chat = await w.alice.send(
        w.channel,
        "good game everyone: Representative of Characteristic cube play (14-letter words are no Position IDs)",
    )
    text, image = await show_board(w, w.carol, chat)
    assert image is None and text.startswith("No position found in that message")
    broken = await w.alice.send(w.channel, "XGID=-b----F-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    text, image = await show_board(w, w.carol, broken)
    assert image is None
    assert "I can't read the XGID" in text and "the bottom player has 16 checkers" in text
    hostile = await w.alice.send(w.channel, "XGID=@everyone:<@1>:1:2:3:4:5:6:7:8")
    text, _ = await show_board(w, w.carol, hostile)
    assert "an XGID has 10 fields" in text and "@everyone" not in text  # shown as typed, never a ping


async def test_show_board_has_the_board_cooldown(quick):
    w = quick
    said = await w.alice.send(w.channel, ANKI)
    for _ in range(3):  # COOLDOWN_BOARD: 3 per 30 s
        text, image = await show_board(w, w.carol, said)
        assert image is not None, text
    text, image = await show_board(w, w.carol, said)
    assert image is None and text.startswith("Slow down: try again in")
    text, image = await show_board(w, w.bob, said)  # a bucket per member
    assert image is not None


# -- replays and exports -----------------------------------------------------------------------


async def test_replay_gif(quick):
    w = quick
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    await w.bob.slash(w.channel, "bg roll")
    early = await w.carol.slash(w.channel, "bgtools replay", game=1)
    assert early.ephemeral and "still being played" in early.response.content
    game_id = await finish_by_forfeit(w)
    result = await w.carol.slash(w.channel, "bgtools replay", game=game_id)
    assert not result.ephemeral, w.private(result)
    message = w.public()[-1]
    (attachment,) = message.attachments
    assert attachment.filename == f"game-{game_id}-replay.gif"
    image = Image.open(io.BytesIO(await attachment.read()))
    assert isinstance(image, GifImagePlugin.GifImageFile) and image.n_frames > 1
    assert "Replay of game #1" in message.content
    wrong = await w.carol.slash(w.channel, "bgtools replay", game=game_id, number=5)
    assert wrong.ephemeral and "pick 1 to 1" in wrong.response.content


async def test_export_attaches_mat_json_and_gif(quick):
    w = quick
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    exported = await w.carol.slash(w.channel, "bg export")
    assert exported.ephemeral
    names = [a.filename for a in exported.response.attachments]
    assert names == ["backgammon-game-1.mat", "game-1.json", "game-1-replay.gif"]
    data = json.loads(await exported.response.attachments[1].read())
    assert data["game"] == 1 and data["actions"] and "seed" not in (data["dice"] or {})
    gif = Image.open(io.BytesIO(await exported.response.attachments[2].read()))
    assert isinstance(gif, GifImagePlugin.GifImageFile) and gif.n_frames > 1
    assert "seed is revealed when the game ends" in exported.response.content
