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
    assert rolls == [
        "1-1",
        "2-1",
        "2-2",
        "3-1",
        "3-2",
        "3-3",
        "4-1",
        "4-2",
        "4-4",
        "5-3",
        "5-4",
        "5-5",
        "6-1",
        "6-3",
        "6-4",
        "6-5",
        "6-6",
    ]
    # the board shows the play that gives up the most: Hoyle's 3-3 on the bar point
    assert message.attachments[0].filename == "opening-3-3.png"


async def test_openings_without_the_neural_net(learn, monkeypatch):
    w = learn
    monkeypatch.setattr(type(w.bot.parts.advice), "available", staticmethod(lambda: False))
    await w.alice.slash(w.channel, "bglearn openings", roll="2-1")
    (embed,) = w.channel.last_message.embeds
    assert "`24/23 13/11`" in embed.description and "gives up" not in embed.description
    assert "not installed here" in embed.description


# -- charts ------------------------------------------------------------------------------------


@pytest.fixture
def analysed(learn, monkeypatch):
    """Analyses in a thread (no worker process in tests), at 0-ply."""
    pytest.importorskip("gnubg_nn")
    pytest.importorskip("bgsage")
    import asyncio

    from bot.ai import default_analyst

    advice = learn.bot.parts.advice

    async def in_thread(game, ply=0):
        return await asyncio.to_thread(default_analyst().analyse_game, game, ply=ply)

    monkeypatch.setattr(advice.analyst, "aanalyse_game", in_thread)
    learn.bot.table.notes.available = lambda: True
    return learn


async def short_game(w) -> int:
    """alice opens 3-1 badly, bob doubles at once, alice passes: bob wins a point."""
    board = await w.start_game()
    game_id = w.game_id(board)
    await w.alice.slash(w.channel, "bg move", play="13/10 6/5")
    await w.bob.slash(w.channel, "bg double")
    await w.alice.slash(w.channel, "bg pass")
    await w.bot.table.idle()  # the game-over analysis
    return game_id


async def test_the_analysis_has_its_game_chart(analysed):
    w = analysed
    game_id = await short_game(w)
    result = await w.carol.slash(w.channel, "bg analysis", game=game_id)
    assert not w.private(result), w.private(result)
    message = w.channel.last_message
    (picture,) = message.attachments
    assert picture.filename == f"analysis-{game_id}-1.png"
    assert message.embeds[0].image.url == f"attachment://analysis-{game_id}-1.png"
    image = Image.open(io.BytesIO(await picture.read()))
    assert image.format == "PNG" and image.size == (900, 560)


async def test_the_game_over_message_gets_the_chart_with_its_analysis(analysed):
    w = analysed
    game_id = await short_game(w)
    final = next(m for m in w.public() if m.embeds and "Game over" in (m.embeds[0].title or ""))
    analysis = final.embeds[-1]
    assert analysis.title.startswith("📊 Analysis") and analysis.image.url == f"attachment://analysis-{game_id}-1.png"
    names = [a.filename for a in final.attachments]
    assert names[0].startswith(f"board-{game_id}-") and names[1] == f"analysis-{game_id}-1.png"  # the board stays


async def test_stats_have_the_rating_chart(analysed):
    w = analysed
    game_id = await short_game(w)
    await w.alice.slash(w.channel, "bg stats")
    message = w.channel.last_message
    (picture,) = message.attachments
    assert picture.filename == f"rating-{w.alice.id}.png"
    assert Image.open(io.BytesIO(await picture.read())).size == (900, 640)
    history = await w.bot.parts.progress.rating_history(w.guild.id, w.alice.id)
    (match,) = history.matches
    assert match.game_id == game_id and not match.won and match.points == -1
    assert match.opponent == w.bob.id and match.opponent_rating == 1500.0
    assert history.wins == 0 and history.losses == 1 and history.best_win is None
    (errors,) = history.errors  # alice's error rate in the analysed match
    assert errors.game_id == game_id and errors.rate > 0
    bob = await w.bot.parts.progress.rating_history(w.guild.id, w.bob.id)
    assert bob.best_win.game_id == game_id and bob.matches[0].points == 1


async def test_stats_everywhere_chart_the_global_rating_without_opponents_names(analysed):
    w = analysed
    await short_game(w)
    other = w.env.create_guild("Elsewhere")  # a second server: its rating counts everywhere
    channel = other.create_text_channel("bg")
    alice, bob = other.add_member(w.alice.user), other.add_member(w.bob.user)
    board = await w.start_game(alice, bob, channel=channel)
    await bob.slash(channel, "bg forfeit")
    here = await w.bot.parts.progress.rating_history(w.guild.id, w.bob.id)
    everywhere = await w.bot.parts.progress.rating_history(None, w.bob.id)
    assert len(here.matches) == 1 and len(everywhere.matches) == 2
    await w.bob.slash(w.channel, "bg stats", everywhere=True)
    message = w.channel.last_message
    assert message.attachments and message.attachments[0].filename == f"rating-{w.bob.id}.png"
    from bot.discord import lessons

    chart = lessons.rating_chart("bob", "every server", everywhere, opponents=False)
    assert chart is not None
    assert "alice" not in chart.subtitle and "a player" in chart.subtitle
    assert board is not None


async def test_stats_without_rated_matches_have_no_chart(learn):
    w = learn
    await w.carol.slash(w.channel, "bg stats")
    assert not w.channel.last_message.attachments


# -- puzzles and drills ------------------------------------------------------------------------


def menu_labels(message) -> list[str]:
    parts = [child for row in message.components for child in getattr(row, "children", [row])]
    (select,) = [c for c in parts if getattr(c, "options", None)]
    return [o.label for o in select.options]


def private_messages(result) -> list:
    return [
        m for m in ([result.response] if result.response is not None else []) + list(result.followups) if m.ephemeral
    ]


async def test_the_puzzle_of_the_day_answered_privately_once_and_revealed_next_day(analysed, clock):
    from tests.bot.core.test_puzzles import detail, mistake, position

    w = analysed
    game_id = await short_game(w)
    # the real analysis has only blunders, which it spells out: errors it does not name, for the daily puzzle
    quiet = detail(mistake(2, 0, 0.06, position((3, 1))), mistake(4, 1, 0.05, position((4, 2))))
    await w.service.archive.save_analysis(game_id, 1, 0, "summary", quiet)
    refused = await w.carol.slash(w.channel, "bglearn puzzle", daily="on")
    assert "Only moderators" in w.private(refused)
    configured = await w.mod.slash(w.channel, "bglearn puzzle", daily="on")
    assert f"on, in <#{w.channel.id}>" in w.private(configured) and "names: hidden" in w.private(configured)

    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    post = w.channel.last_message
    assert "🧩 **Puzzle of the day**" in post.content and "from one of this server's games" in post.content
    assert "which one, at the reveal" in post.content and "alice" not in post.content and "bob" not in post.content
    assert f"game #{game_id}" not in post.content and "move" not in post.content  # they lead to the analysis
    (picture,) = post.attachments
    puzzle_id = int(picture.filename.split("-")[1].split(".")[0])
    assert w.custom_ids(post) == [f"bglearn:pz:{puzzle_id}"]
    puzzle = await w.bot.parts.puzzles.get(puzzle_id)
    labels = menu_labels(post)
    assert labels == [c.label for c in puzzle.decision.choices] and 2 <= len(labels) <= 5
    best = str([c.best for c in puzzle.decision.choices].index(True))
    worst = str([c.best for c in puzzle.decision.choices].index(False))

    carol = await w.carol.select(post, [best])
    assert "Your answer:" in w.private(carol) and "It's in" in w.private(carol)
    assert all(m.ephemeral for m in carol.followups + ([carol.response] if carol.response else []))
    again = await w.carol.select(post, [worst])
    assert "already: the first answer stands" in w.private(again)
    bob = await w.bob.select(post, [worst])
    assert "Your answer" in w.private(bob)
    before = len(w.public())
    shown = await w.mod.slash(w.channel, "bglearn puzzle", names="shown")  # from the next puzzle on
    assert "names: shown" in w.private(shown)

    clock.advance(days=1)
    await w.bot.scheduler.run_once()
    await w.bot.dispatcher.idle()
    reveal = next(
        m for m in w.public()[before:] if m.embeds and m.embeds[0].title == f"🧩 Puzzle #{puzzle_id}: the answer"
    )
    text = reveal.embeds[0].description
    assert f"**Right:** {w.carol.mention}" in text and w.bob.mention not in text.split("**Right:**")[1]
    assert "✅ best" in text and "played in the game" in text
    assert reveal.reference is not None and reveal.reference.message_id == post.id
    assert not w.custom_ids(next(m for m in w.channel.history() if m.id == post.id))  # the menu is gone
    today = w.channel.last_message  # the day's new puzzle, after the reveal
    assert "Puzzle of the day" in today.content and "which one, at the reveal" in today.content
    assert f"game #{game_id}" not in today.content and "alice" not in today.content  # names shown: at its reveal
    later = await w.bot.parts.puzzles.get(int(today.attachments[0].filename.split("-")[1].split(".")[0]))
    assert later.names_shown and not later.names_now

    board = await w.alice.slash(w.channel, "bglearn leaderboard")
    assert not w.private(board)
    table = w.channel.last_message.embeds[0].description
    assert table.splitlines()[0].startswith(f"**1.** {w.carol.mention} · 1 of 1 right · streak 1")
    assert f"{w.bob.mention} · 0 of 1 right" in table


async def test_a_puzzle_on_demand_and_drills(analysed):
    w = analysed
    await short_game(w)
    nothing = await w.carol.slash(w.guild.create_text_channel("empty"), "bglearn drill")
    assert "No drill yet" in w.private(nothing)
    asked = await w.carol.slash(w.channel, "bglearn puzzle")
    (message,) = private_messages(asked)
    assert "🧩 **Puzzle** #" in message.content and message.attachments[0].filename.startswith("puzzle-")
    answered = await w.carol.select(message, ["0"])
    assert "played in the game" in w.private(answered) and "+" in w.private(answered)  # shown at once

    drilled = await w.alice.slash(w.channel, "bglearn drill")
    (drill,) = private_messages(drilled)
    assert "🎯 **Drill** · your error in game #" in drill.content
    assert drill.attachments[0].filename.startswith("drill-")
    drill_id = int(drill.components[0]["components"][0]["custom_id"].split(":")[2])  # a private message: raw
    state = await w.bot.parts.puzzles.store.puzzles.drill(drill_id)
    choices = w.bot.parts.puzzles._drill(state, (0, 0, 0)).decision.choices
    wrong = str([c.best for c in choices].index(False))
    result = await w.alice.select(drill, [wrong])
    assert "❌ Not the best" in w.private(result) and "comes back" in w.private(result)
