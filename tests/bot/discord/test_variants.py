"""The board's other games through Discord: a challenge names the game, and the
game is played with the buttons and typed moves to its end, rated in its family.

The engine picks the plays (the first legal one, or the computer's choice);
every other turn is typed with ``/bg move``, the rest chosen in the board's menu
(or, past 25 plays, typed too)."""

from __future__ import annotations

import pytest
from simcord.actors import MemberActor
from simcord.builders import UserHandle

from bot.config import Settings
from bot.core.advice import Advice
from bot.core.computer import decide_tables
from bot.discord.analysis_notes import AnalysisNotes
from engine import Phase, SeededDice
from engine.variants import TablesGame

SEEDS = {"test_a_tavli_match_to_three": 46}
"""Dice whose match is decided in a game's last turns (the rest is played quietly): three games."""


@pytest.fixture
def dice(request):
    return SeededDice(SEEDS.get(request.node.name, 43))


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(token="fake-token", database_path=str(tmp_path / "data" / "bg.sqlite3"), cooldowns=())


async def play_quietly(w, until_pips: int, *, last_games: bool = True) -> None:
    """Play the channel's game through the service (no Discord) until a player
    has at most ``until_pips`` left (in a match, only once a player could win it
    with ``last_games``), the engine picking the plays."""
    service = w.service
    while True:
        state = await service.lookups.game_in_channel(w.channel.id)
        assert state is not None, "the match ended before its last turns"
        game = state.game
        match = state.match
        near = not match.length or max(match.score) >= match.length - 1
        if min(game.pip_counts()) <= until_pips and (near or not last_games) and game.phase is Phase.ROLL:
            break
        user = state.to_act().user_id
        if game.is_over:
            break
        if game.phase is Phase.ROLL:
            await service.roll(state.id, user)
        else:
            texts = state.legal_play_texts()
            await service.play(state.id, user, texts[len(texts) // 2])
    await w.carol.slash(w.channel, "bg board")  # the board as it now stands, to play on


async def play_out(w, *, most_turns: int = 400) -> None:
    """Play the game in the channel to the end of its match: Roll buttons, then
    the menu or ``/bg move`` in turn."""
    typed = False
    for _ in range(most_turns):
        state = await w.service.lookups.game_in_channel(w.channel.id)
        if state is None:
            return
        game = state.game
        actor = w.alice if state.to_act().user_id == w.alice.id else w.bob
        board = w.board()
        if game.phase is Phase.ROLL:
            result = await actor.click(board, label="Roll")
        elif game.phase is Phase.PLAY:
            texts = state.legal_play_texts()
            text = texts[len(texts) // 2]
            typed = not typed
            if typed or len(texts) > 25:
                result = await actor.slash(w.channel, "bg move", play=text)
            else:
                result = await actor.select(board, [text])
        else:
            raise AssertionError(f"a phase no player should meet here: {game.phase}")
        assert not w.private(result), w.private(result)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", ["tavla"])
async def test_a_preset_is_played_to_the_end_and_rated_as_backgammon(world, game, monkeypatch):
    # The game-over analysis of a whole game takes seconds and is not what this test is about.
    monkeypatch.setattr(AnalysisNotes, "available", lambda self: False)
    w = world
    challenge = await w.challenge(game=game, match_length=1)
    assert "tavla" in challenge.response.content
    await w.bob.click(challenge.response, label="Accept")
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.options.variant == game and not state.game.settings.cube
    assert "Double" not in w.labels(w.board())
    await play_quietly(w, 15)
    await play_out(w)
    final = w.board()
    assert "wins the 1-point match" in final.embeds[0].description
    await assert_on_the_leaderboard(w, "backgammon")


async def test_plakoto_from_the_start(world, monkeypatch):
    w = world
    challenge = await w.challenge(game="plakoto")
    await w.bob.click(challenge.response, label="Accept")
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.options.variant == "plakoto"
    hint = await w.alice.slash(w.channel, "bg hint")
    assert "not available for plakoto" in w.private(hint)
    await play_out(w)
    final = w.board()
    assert "wins" in final.embeds[0].description and "wins the game of plakoto" in final.embeds[0].description
    await assert_on_the_leaderboard(w, "plakoto")
    # Where the engines are not installed, the analysis still says why it is not there.
    monkeypatch.setattr(Advice, "available", staticmethod(lambda: False))
    analysis = await w.alice.slash(w.channel, "bg analysis")
    assert "not available for plakoto" in w.private(analysis)


async def assert_on_the_leaderboard(w, family: str) -> None:
    """Both players ranked on ``family``'s leaderboard, and on no other."""
    board = await w.carol.slash(w.channel, "bg leaderboard", game=family)
    text = board.response.embeds[0].description
    assert "alice" in text and "bob" in text, text
    others = ["backgammon", "plakoto", "fevga", "nardy", "tavli"]
    for other in others:
        if other != family:
            empty = await w.carol.slash(w.channel, "bg leaderboard", game=other)
            assert "Nobody is ranked yet" in empty.response.embeds[0].description, other
    stats = await w.carol.slash(w.channel, "bg stats", member=w.alice, game=family)
    fields = {f.name: f.value for f in stats.response.embeds[0].fields}
    assert "1 of 2" in fields["Rank"] or "2 of 2" in fields["Rank"]


@pytest.mark.parametrize("game", ["fevga", "nardy"])
async def test_a_same_way_game_ends_on_its_own_leaderboard(world, make_bot, game):
    w = world
    challenge = await w.challenge(game=game)
    await w.bob.click(challenge.response, label="Accept")
    board = w.board()
    assert "Double" not in w.labels(board)
    await play_quietly(w, 20)
    await w.env.restart_bot(make_bot())  # the game is read back from the store and goes on
    await w.carol.slash(w.channel, "bg board")
    await play_out(w)
    assert f"wins the game of {'long nardy' if game == 'nardy' else game}" in w.board().embeds[0].description
    await assert_on_the_leaderboard(w, game)


async def test_a_tavli_match_to_three(world):
    w = world
    challenge = await w.challenge(game="tavli", match_length=3)
    assert "3-point match of tavli" in challenge.response.content
    await w.bob.click(challenge.response, label="Accept")
    await play_quietly(w, 20)
    await play_out(w)
    state = (await w.service.archive.history(w.guild.id, w.alice.id, limit=1))[0]
    assert max(state.score) == 3 and state.game_count == 3  # portes, plakoto, fevga
    assert "wins the 3-point match" in w.board().embeds[0].description
    await assert_on_the_leaderboard(w, "tavli")


async def test_each_game_has_its_rules_page_and_an_unknown_game_is_refused_in_words(world):
    words = {
        "tavla": "No doubling cube",
        "plakoto": "mother",
        "fevga": "single checker holds",
        "nardy": "head",
        "tavli": "portes, plakoto and fevga",
    }
    for game, word in words.items():
        page = await world.carol.slash(world.channel, "bg rules", game=game)
        assert page.ephemeral
        embed = page.response.embeds[0]
        assert embed.title.startswith("The rules of") and word in embed.description
    result = await world.alice.slash(world.channel, "bg challenge", opponent=world.bob, game="chess")
    assert "There is no game" in world.private(result)
    offered = await world.alice.autocomplete(world.channel, "bg challenge", "game", "na")
    assert [choice["value"] for choice in offered] == ["nackgammon", "nardy"]


async def test_the_computer_rolls_and_plays_a_legal_play_of_each_new_game():
    for name in ("plakoto", "fevga", "nardy"):
        game = TablesGame(name, dice=SeededDice(5))
        game.opening_roll()
        assert await decide_tables(game) == "roll"
        game.roll(game.turn, (6, 5))
        decision = await decide_tables(game)
        assert decision.startswith("play:") and decision[5:] in game.legal_play_texts()


def bot_member(w) -> MemberActor:
    """The bot as a member, to be challenged."""
    return MemberActor(w.env, w.guild, UserHandle(w.env, w.env.backend.get_user(w.bot.user.id)))


async def play_quietly_against_the_computer(w, until_pips: int, most_plays: int) -> None:
    """The channel's game against the computer through the service (no Discord) until a player
    has at most ``until_pips`` left or alice has played ``most_plays`` times: alice plays the
    engine's pick, the computer its own."""
    seat = w.bot.table.computer
    plays = 0
    while True:
        state = await w.service.lookups.game_in_channel(w.channel.id)
        assert state is not None, "the game ended before its last turns"
        if seat.is_to_act(state):
            await seat.player(seat.level_of(state)).take_turn(state.id)
            continue
        game = state.game
        if (min(game.pip_counts()) <= until_pips or plays >= most_plays) and game.phase is Phase.ROLL:
            break
        if game.phase is Phase.ROLL:
            await w.service.roll(state.id, w.alice.id)
        else:
            texts = state.legal_play_texts()
            await w.service.play(state.id, w.alice.id, texts[len(texts) // 2])
            plays += 1
    await w.alice.slash(w.channel, "bg board")  # the board as it now stands, to play on


QUIET_PLAYS = {"plakoto": 0, "fevga": 1000, "nardy": 1000}
"""Alice's plays made through the service before the rest of the game goes through Discord (plakoto
against the computer ends early, often with the mother)."""


@pytest.mark.parametrize("game", ["plakoto", "fevga", "nardy"])
async def test_a_game_against_the_computer_through_discord(world, game):
    w = world
    w.bot.table.computer.pause = 0
    started = await w.alice.slash(w.channel, "bg challenge", opponent=bot_member(w), game=game)
    assert not started.ephemeral, w.private(started)
    state = await w.service.lookups.game_in_channel(w.channel.id)
    assert state.options.variant == game and not state.options.rated
    assert state.players[1].user_id == w.bot.user.id
    name = "long nardy" if game == "nardy" else game
    board = w.board()
    assert f"a game of {name}" in board.content and "cube" not in board.content  # no stake, no cube
    # No engine advises in these games, and /bg shots and /bgtools position say so in words.
    for command, answer in [
        ("bg hint", f"not available for {name}"),
        ("bg shots", f"nobody is hit in {name}"),
        ("bgtools position", "GNU Backgammon and XG do not play"),
    ]:
        result = await w.alice.slash(w.channel, command)
        assert answer in (w.private(result) or result.response.content), command
    await play_quietly_against_the_computer(w, 20, QUIET_PLAYS[game])
    bot_name = w.bot.user.display_name
    for _ in range(200):  # alice with the buttons and /bg move; the computer by itself
        state = await w.service.lookups.game_in_channel(w.channel.id)
        if state is None:
            break
        assert state.to_act().user_id == w.alice.id, "the computer left its turn unplayed"
        board = w.board()
        if state.game.phase is Phase.ROLL:
            result = await w.alice.click(board, label="Roll")
        else:
            texts = state.legal_play_texts()
            if len(texts) > 25 or len(texts) % 2:
                result = await w.alice.slash(w.channel, "bg move", play=texts[0])
            else:
                result = await w.alice.select(board, [texts[-1]])
        assert not w.private(result), w.private(result)
    else:
        raise AssertionError("the game did not end")
    final = w.board().embeds[0]
    assert f"wins the game of {name}" in final.description and "Unrated" in (final.footer.text or "")
    assert any(f"{bot_name} rolled" in m.content for m in w.public()), [m.content for m in w.public()][-6:]
    empty = await w.carol.slash(w.channel, "bg leaderboard", game=game)
    assert "Nobody is ranked yet" in empty.response.embeds[0].description
