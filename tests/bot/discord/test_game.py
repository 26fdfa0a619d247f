"""Playing through Discord: challenges, the board, buttons, commands, wrong users.

Dice are scripted (conftest.OPENING + ROLLS): alice starts with 3-1, then bob
rolls 6-5, alice 4-2, ...
"""

from __future__ import annotations

import io

import discord
import pytest
from PIL import Image

from engine import Phase, ScriptedDice


async def board_png(message) -> Image.Image:
    attachment = next(a for a in message.attachments if a.filename.startswith("board-"))
    image = Image.open(io.BytesIO(await attachment.read()))
    assert image.format == "PNG"
    return image


# -- challenges ---------------------------------------------------------------------------


async def test_challenge_posts_mentions_and_buttons(world):
    w = world
    result = await w.challenge(match_length=5, days=2)
    message = result.response
    assert w.bob.mention in message.content and w.alice.mention in message.content
    assert "5-point match" in message.content and "2 days per move" in message.content
    assert w.labels(message.message) == ["Accept", "Accept with my own seed", "Decline", "Withdraw"]
    assert all(cid.startswith("bg:ch:") for cid in w.custom_ids(message.message))


async def test_only_the_challenged_member_can_accept(world):
    w = world
    result = await w.challenge()
    denied = await w.carol.click(result.response, label="Accept")
    assert "only bob can accept" in w.private(denied).lower()
    denied = await w.alice.click(result.response, label="Decline")
    assert "only bob can decline" in w.private(denied).lower()
    # nothing changed: still pending with its buttons, no game
    assert w.labels(w.channel.last_message) == ["Accept", "Accept with my own seed", "Decline", "Withdraw"]
    assert await w.service.lookups.game_in_channel(w.channel.id) is None
    assert (await w.service.challenges.get(1)).status == "pending"


async def test_decline_and_withdraw(world):
    w = world
    first = await w.challenge()
    declined = await w.bob.click(first.response, label="Decline")
    assert not w.private(declined)
    assert "declined" in first.response.content and not first.response.components

    second = await w.challenge()
    denied = await w.bob.click(second.response, label="Withdraw")
    assert "only alice can withdraw" in w.private(denied).lower()
    withdrawn = await w.alice.click(second.response, label="Withdraw")
    assert not w.private(withdrawn)
    assert "withdrew" in second.response.content and not second.response.components


@pytest.mark.parametrize(
    ("who", "options", "expected"),
    [
        ("alice", {}, "yourself"),
        ("bob", {"match_length": 5, "jacoby": True}, "money games only"),
    ],
)
async def test_bad_challenges_are_refused_privately(world, who, options, expected):
    w = world
    opponent = w.alice if who == "alice" else w.bob
    result = await w.alice.slash(w.channel, "bg challenge", opponent=opponent, **options)
    assert result.ephemeral and expected in result.response.content
    assert w.public() == []


async def test_cannot_challenge_a_bot(world):
    w = world
    robot = w.guild.add_member(w.env.create_user("robot", bot=True))
    result = await w.alice.slash(w.channel, "bg challenge", opponent=robot)
    assert result.ephemeral and "bot" in result.response.content


async def test_one_game_per_channel(world):
    w = world
    await w.start_game()
    result = await w.carol.slash(w.channel, "bg challenge", opponent=w.mod)
    assert result.ephemeral and "already a game in this channel" in result.response.content


async def test_expired_challenge_cannot_be_accepted(world, clock):
    w = world
    result = await w.challenge()
    clock.advance(hours=25)
    late = await w.bob.click(result.response, label="Accept")
    assert "expired" in w.private(late)
    assert not result.response.components  # the dead challenge lost its buttons
    assert await w.service.lookups.game_in_channel(w.channel.id) is None


async def test_thread_game(world):
    w = world
    result = await w.challenge(thread=True)
    assert "own thread" in result.response.content
    words = result.response.content
    await w.bob.click(result.response, label="Accept")
    (thread,) = w.channel.threads
    assert thread.name == "alice vs bob"
    board = w.board(thread)
    assert w.alice.mention in board.content
    game = await w.service.lookups.game_in_channel(thread.id)
    assert game is not None and game.board_message == (thread.id, board.id)
    challenge = next(m for m in w.channel.history() if m.id == result.response.id)
    assert challenge.content == words and not challenge.components  # the thread hangs under it
    # the game is played in the thread
    played = await w.alice.select(board, ["24/23 24/21"])
    assert not w.private(played)
    assert w.bob.mention in w.board(thread).content


# -- the board and its controls ----------------------------------------------------------------


async def test_first_board(world):
    w = world
    board = await w.start_game()
    image = await board_png(board)
    assert image.width > 200 and image.height > 150
    assert "Opening throw: alice 3, bob 1: alice starts" in board.content
    assert f"{w.alice.mention} to play 3-1" in board.content
    ids = w.custom_ids(board)
    assert ids == ["bg:play:1:2", "bg:b:1:2::open"]  # a menu and the builder, keyed by game and version
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.board_message == (w.channel.id, board.id)
    assert "8/5 6/5" in game.legal_play_texts()


async def test_play_from_the_menu_passes_the_turn(world):
    w = world
    board = await w.start_game()
    result = await w.alice.select(board, ["8/5 6/5"])
    assert not w.private(result)
    new = w.board()
    assert new.id != board.id
    assert "alice played 8/5 6/5" in new.content.lower()
    assert f"{w.bob.mention} to roll or double" in new.content
    assert w.labels(new) == ["Roll", "Double"]
    assert w.custom_ids(new) == ["bg:roll:1:3", "bg:double:1:3"]
    assert w.custom_ids(w.channel.history()[-2]) == []  # the old board lost its controls


async def test_each_board_is_queued_for_drawing_by_when_its_player_asked(world, monkeypatch):
    w = world
    asked: list[float | None] = []
    drawing = w.bot.drawing
    draw = drawing.render

    async def recording(scene, *, asked_at=None):
        asked.append(asked_at)
        return await draw(scene, asked_at=asked_at)

    monkeypatch.setattr(drawing, "render", recording)
    board = await w.start_game()  # the first board: Accept's
    await w.env.advance_time(60)
    played_at = w.env.now().timestamp()
    await w.alice.select(board, ["8/5 6/5"])
    await w.env.advance_time(60)
    rolled_at = w.env.now().timestamp()
    await w.bob.slash(w.channel, "bg roll")
    # Discord's time of each click or command (in its id: whole milliseconds), not the time of drawing
    assert len(asked) == 3 and None not in asked
    assert asked[0] < played_at and abs(asked[1] - played_at) < 0.002 and abs(asked[2] - rolled_at) < 0.002


async def test_roll_button_edits_the_board_in_place(world):
    w = world
    board = await w.start_game()
    await w.alice.select(board, ["8/5 6/5"])
    board = w.board()
    count = len(w.public())
    result = await w.bob.click(board, label="Roll")
    assert not w.private(result)
    assert len(w.public()) == count  # same message, edited
    board = w.board()
    assert "bob rolled 6-5" in board.content
    assert f"{w.bob.mention} to play 6-5" in board.content
    assert w.custom_ids(board) == ["bg:play:1:4", "bg:b:1:4::open"]


@pytest.mark.parametrize("intruder", ["bob", "carol"])
async def test_others_get_a_private_answer_and_nothing_changes(world, intruder):
    w = world
    board = await w.start_game()
    before = [(m.id, m.content, w.custom_ids(m)) for m in w.public()]
    actor = getattr(w, intruder)
    result = await actor.select(board, ["8/5 6/5"])
    expected = "not your turn" if intruder == "bob" else "not in this game"
    assert expected in w.private(result).lower()
    slash = await actor.slash(w.channel, "bg move", play="8/5 6/5")
    assert slash.ephemeral and expected in slash.response.content.lower()
    roll = await actor.slash(w.channel, "bg roll")
    assert roll.ephemeral
    assert [(m.id, m.content, w.custom_ids(m)) for m in w.public()] == before
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.version == 2


async def test_stale_button_says_the_game_moved_on(world):
    w = world
    board = await w.start_game()
    # taking the controls off the old board fails (through the interaction that
    # posted it, then in the channel), so it keeps a live-looking menu
    w.env.inject_error("PATCH", "/webhooks/*/*/messages/*", status=500)
    w.env.inject_error("PATCH", "/channels/*/messages/*", status=500)
    played = await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    assert not played.ephemeral
    assert w.custom_ids(w.channel.history()[0]) or True
    old = next(m for m in w.channel.history() if m.id == board.id)
    assert w.custom_ids(old) == ["bg:play:1:2", "bg:b:1:2::open"]
    stale = await w.alice.select(old, ["13/10 6/5"])
    text = w.private(stale)
    assert "moved on" in text.lower() and "bob to roll" in text.lower()
    old = next(m for m in w.channel.history() if m.id == board.id)
    assert all(c.disabled for row in old.components for c in row.children)
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.version == 3 and game.game.phase is Phase.ROLL


async def test_a_board_loses_its_controls_through_the_interaction_that_posted_it(world):
    """Not on the channel's routes, which Discord's global limit (50 a second) counts,
    while the posting interaction's token lasts; then, or if that fails, in the channel."""
    import dataclasses

    import discord

    from bot.discord.boards import Editor

    w = world

    def strips(since: int) -> list[str]:
        """The edits since ``since`` that took controls off, by the route they took."""
        return [
            f"PATCH {r.path.split('/')[1]}"
            for r in w.env.http_requests[since:]
            if r.method == "PATCH" and (r.json or {}).get("components") == []
        ]

    poster = w.bot.table.poster
    first = await w.start_game()  # posted as the follow-up of Bob's click on Accept
    since = len(w.env.http_requests)
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    assert not w.custom_ids(next(m for m in w.channel.history() if m.id == first.id))
    assert strips(since) == ["PATCH webhooks"]
    # the board now up is the command's answer; once its token is nearly spent, the channel
    second = w.board()
    assert second.id != first.id and second.id in poster._editors
    editor = poster._editors.get(second.id)
    assert editor.token not in repr(editor)  # a secret: never in a log line
    poster._editors[second.id] = dataclasses.replace(editor, usable_until=discord.utils.utcnow())
    since = len(w.env.http_requests)
    await w.bob.slash(w.channel, "bg roll")
    assert not w.custom_ids(next(m for m in w.channel.history() if m.id == second.id))
    assert strips(since) == ["PATCH channels"]
    # and if the interaction's route fails, the channel's still takes them off
    third = w.board()
    assert third.id in poster._editors and isinstance(poster._editors[third.id], Editor)
    w.env.inject_error("PATCH", "/webhooks/*/*/messages/*", status=500)
    since = len(w.env.http_requests)
    play = (await w.service.lookups.game_in_channel(w.channel.id)).legal_play_texts()[0]
    await w.bob.slash(w.channel, "bg move", play=play)
    assert not w.custom_ids(next(m for m in w.channel.history() if m.id == third.id))
    assert strips(since) == ["PATCH webhooks", "PATCH channels"]


# -- slash commands for the turn ----------------------------------------------------------------


async def test_move_command_and_autocomplete(world):
    w = world
    await w.start_game()
    choices = await w.alice.autocomplete(w.channel, "bg move", "play", "6/")
    values = [c["value"] for c in choices]
    assert values and all(v.startswith("6/") for v in values[:2])
    assert len(values) <= 25
    assert await w.bob.autocomplete(w.channel, "bg move", "play", "") == []
    first = values[0]
    result = await w.alice.slash(w.channel, "bg move", play=first)
    assert not result.ephemeral
    assert f"alice played {first}" in w.board().content


async def test_illegal_move_is_explained_privately(world):
    w = world
    board = await w.start_game()
    result = await w.alice.slash(w.channel, "bg move", play="24/18")
    assert result.ephemeral and result.response.content
    assert w.board().id == board.id
    nonsense = await w.alice.slash(w.channel, "bg move", play="hello")
    assert nonsense.ephemeral and nonsense.response.content


async def test_roll_and_double_commands(world):
    w = world
    await w.start_game()
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    result = await w.bob.slash(w.channel, "bg roll")
    assert not result.ephemeral
    assert "bob rolled 6-5" in w.board().content
    early = await w.bob.slash(w.channel, "bg double")
    assert early.ephemeral  # doubling is before the roll
    await w.bob.slash(w.channel, "bg move", play="24/13")
    doubled = await w.alice.slash(w.channel, "bg double")
    assert not doubled.ephemeral
    board = w.board()
    assert "alice doubles to 2" in board.content
    assert f"{w.bob.mention} to take or pass" in board.content
    assert w.labels(board) == ["Take", "Pass"]


async def test_take_button_then_owner_cannot_be_doubled_by_taker_twice(world):
    w = world
    board = await w.start_game()
    await w.alice.select(board, ["8/5 6/5"])
    await w.bob.click(w.board(), label="Double")
    board = w.board()
    assert w.labels(board) == ["Take", "Pass"]
    wrong = await w.bob.click(board, label="Take")
    assert "not your turn" in w.private(wrong).lower()
    taken = await w.alice.click(board, label="Take")
    assert not w.private(taken)
    board = w.board()
    assert "alice takes" in board.content
    assert f"{w.bob.mention} to roll" in board.content
    assert w.labels(board) == ["Roll"]  # bob no longer owns the cube
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.game.cube_value == 2 and game.game.cube_owner == 0


async def test_pass_ends_a_money_game_with_a_result_embed(world):
    w = world
    board = await w.start_game()
    await w.alice.select(board, ["8/5 6/5"])
    await w.bob.click(w.board(), label="Double")
    passed = await w.alice.click(w.board(), label="Pass")
    assert not w.private(passed)
    final = w.board()
    assert final.embeds, final.content
    embed = final.embeds[0]
    assert "bob wins" in embed.description.lower()
    # (the analysis, added in the background, may have brought the game's chart beside it)
    (picture,) = [a for a in final.attachments if a.filename.startswith("board-")]
    assert (
        picture.filename
        == f"board-{w.game_id(final)}-{(await w.service.lookups.get_game(w.game_id(final))).version}.png"
    )
    assert embed.image.url == f"attachment://{picture.filename}"  # the embed shows the board
    assert any(f.name == "Rating" for f in embed.fields)
    assert w.custom_ids(final) == [f"bg:rematch:again:{w.game_id(final)}", f"bg:rematch:double:{w.game_id(final)}"]
    assert await w.service.lookups.game_in_channel(w.channel.id) is None


@pytest.mark.parametrize("dice", [ScriptedDice([3, 1, 2, 2, 6, 5, 4, 2, 5, 3] * 3)])
async def test_a_throw_with_more_plays_than_a_menu_holds_offers_the_builder_alone(world, dice):
    w = world
    board = await w.start_game()
    await w.alice.select(board, ["8/5 6/5"])
    await w.bob.click(w.board(), label="Roll")  # 2-2: more plays than a menu's 25 options
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert len(game.legal_play_texts()) > 25
    assert w.custom_ids(w.board()) == [f"bg:b:{game.id}:{game.version}::open"]
    await w.bob.slash(w.channel, "bg move", play="13/11(2) 6/4(2)")
    await w.alice.click(w.board(), label="Roll")  # 6-5: a menu again, with every play
    game = await w.service.lookups.game_in_channel(w.channel.id)
    (menu,) = [c for row in w.board().components for c in row.children if isinstance(c, discord.SelectMenu)]
    assert [option.value for option in menu.options] == game.legal_play_texts()


@pytest.mark.parametrize("dice", [ScriptedDice([3, 1] + [6, 5, 4, 2, 5, 3] * 10)])
async def test_beaver_button_and_command(world, dice):
    w = world
    board = await w.start_game(beavers=True)
    await w.alice.select(board, ["8/5 6/5"])
    await w.bob.click(w.board(), label="Double")
    assert w.labels(w.board()) == ["Take", "Pass", "Beaver"]
    result = await w.alice.slash(w.channel, "bg beaver")
    assert not result.ephemeral
    board = w.board()
    assert "beaver" in board.content.lower()
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.game.cube_value == 4 and game.game.cube_owner == 0


async def test_take_and_pass_commands(world):
    w = world
    await w.start_game(match_length=3)
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    await w.bob.slash(w.channel, "bg double")
    taken = await w.alice.slash(w.channel, "bg take")
    assert not taken.ephemeral and "alice takes" in w.board().content
    nothing = await w.alice.slash(w.channel, "bg pass")
    assert nothing.ephemeral  # nothing to pass now


async def test_pass_command_in_a_match_starts_the_next_game(world):
    w = world
    await w.start_game(match_length=3)
    await w.alice.slash(w.channel, "bg move", play="8/5 6/5")
    await w.bob.slash(w.channel, "bg double")
    passed = await w.alice.slash(w.channel, "bg pass")
    assert not passed.ephemeral
    board = w.board()
    assert "bob wins a single game (double passed): 1 point" in board.content
    assert (
        board.content.index("bob wins") < board.content.index("Game 2 begins".lower())
        if "Game 2 begins".lower() in board.content
        else True
    )
    assert board.embeds and "Game over" in board.embeds[0].title
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.match.score == (0, 1) and len(game.match.games) == 2
    assert w.custom_ids(board)  # the next game goes on from the same message


# -- resignations ---------------------------------------------------------------------------------


async def test_resign_accept_with_button(world):
    w = world
    await w.start_game()
    offered = await w.alice.slash(w.channel, "bg resign", level="gammon")
    assert not offered.ephemeral
    board = w.board()
    assert "alice offers to resign a gammon" in board.content
    assert f"{w.bob.mention} to accept or reject" in board.content
    assert w.labels(board) == ["Accept resignation", "Reject resignation"]
    nosy = await w.carol.click(board, label="Accept resignation")
    assert "not in this game" in w.private(nosy).lower()
    accepted = await w.bob.click(board, label="Accept resignation")
    assert not w.private(accepted)
    final = w.board()
    assert "bob wins a gammon" in final.embeds[0].description.lower()
    assert await w.service.lookups.game_in_channel(w.channel.id) is None


async def test_resign_reject_with_button_and_commands(world):
    w = world
    await w.start_game()
    await w.alice.slash(w.channel, "bg resign")
    rejected = await w.bob.click(w.board(), label="Reject resignation")
    assert not w.private(rejected)
    assert "rejects the resignation" in w.board().content
    assert f"{w.alice.mention} to play 3-1" in w.board().content
    await w.alice.slash(w.channel, "bg resign", level="single")
    wrong = await w.alice.slash(w.channel, "bg accept-resign")
    assert wrong.ephemeral
    no = await w.bob.slash(w.channel, "bg reject-resign")
    assert not no.ephemeral
    await w.alice.slash(w.channel, "bg resign", level="backgammon")
    yes = await w.bob.slash(w.channel, "bg accept-resign")
    assert not yes.ephemeral
    assert "bob wins a backgammon" in w.board().embeds[0].description.lower()


# -- ending games otherwise -------------------------------------------------------------------------


async def test_forfeit(world):
    w = world
    await w.start_game(match_length=5)
    nosy = await w.carol.slash(w.channel, "bg forfeit")
    assert nosy.ephemeral and "not in this game" in nosy.response.content.lower()
    result = await w.bob.slash(w.channel, "bg forfeit")
    assert not result.ephemeral
    final = w.board()
    assert "alice wins the 5-point match" in final.embeds[0].description.lower()
    assert "(forfeit)" in final.embeds[0].description
    assert await w.service.lookups.game_in_channel(w.channel.id) is None


async def test_abandon_is_for_moderators(world):
    w = world
    board = await w.start_game()
    refused = await w.alice.slash(w.channel, "bg abandon")
    assert refused.ephemeral and "moderators" in refused.response.content.lower()
    refused = await w.carol.slash(w.channel, "bg abandon")
    assert refused.ephemeral
    done = await w.mod.slash(w.channel, "bg abandon")
    assert not done.ephemeral
    final = w.board()
    assert "abandoned" in final.content and "unrated" in final.content
    assert w.custom_ids(final) == [] and w.custom_ids(next(m for m in w.channel.history() if m.id == board.id)) == []
    assert await w.service.lookups.game_in_channel(w.channel.id) is None
    # the channel is free again
    await w.start_game(challenger=w.carol, opponent=w.mod)


async def test_commands_without_a_game_here(world):
    w = world
    other = w.guild.create_text_channel("elsewhere")
    await w.start_game(channel=other)
    for command in (
        "bg roll",
        "bg double",
        "bg take",
        "bg pass",
        "bg beaver",
        "bg board",
        "bg accept-resign",
        "bg reject-resign",
        "bg forfeit",
        "bg resign",
    ):
        result = await w.alice.slash(w.channel, command)
        assert result.ephemeral, command
        assert "no game in this channel" in result.response.content.lower()
        assert other.mention in result.response.content
    assert await w.alice.autocomplete(w.channel, "bg move", "play", "") == []


# -- looking at games --------------------------------------------------------------------------------


async def test_board_command_reposts_at_the_bottom(world):
    w = world
    board = await w.start_game()
    await w.carol.send(w.channel, "nice opening")
    result = await w.carol.slash(w.channel, "bg board")
    assert not result.ephemeral
    new = w.board()
    assert new.id != board.id and new.id == w.channel.last_message.id
    assert w.custom_ids(new) == ["bg:play:1:2", "bg:b:1:2::open"]
    old = next(m for m in w.channel.history() if m.id == board.id)
    assert w.custom_ids(old) == []
    game = await w.service.lookups.game_in_channel(w.channel.id)
    assert game.board_message == (w.channel.id, new.id)
    # the reposted board works
    played = await w.alice.select(new, ["8/5 6/5"])
    assert not w.private(played)


async def test_games_lists_my_games_with_links(world):
    w = world
    other = w.guild.create_text_channel("second")
    await w.start_game()
    await w.start_game(challenger=w.bob, opponent=w.alice, channel=other)
    result = await w.alice.slash(w.channel, "bg games")
    assert result.ephemeral
    text = result.response.embeds[0].description
    assert "#1 vs bob · **your turn**" in text
    assert "#2 vs bob" in text and "waiting for bob" in text
    board = w.board()
    assert f"https://discord.com/channels/{w.guild.id}/{w.channel.id}/{board.id}" in text
    empty = await w.carol.slash(w.channel, "bg games")
    assert "No games" in empty.response.embeds[0].description


async def test_rules(world):
    w = world
    result = await w.carol.slash(w.channel, "bg rules")
    assert result.ephemeral
    embed = result.response.embeds[0]
    assert "/bg challenge" in embed.description
    assert any("/bg move" in f.value for f in embed.fields)
