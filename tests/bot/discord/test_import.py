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
    assert "No rating or leaderboard is touched" in embed.footer.text
    assert await w.service.lookups.game_list(w.guild.id, w.alice.id) == []
    assert await w.service.store.puzzles.drill_counts(w.alice.id, 2e9) == (0, 0, 0)  # alice is neither player


async def test_the_importers_errors_go_to_their_drills_and_only_theirs(analysed):
    w = analysed
    sample = random_match(2)  # random play: errors on both sides
    text = export_games(sample.games, ("Xavier", "alice"), match_length=sample.length)
    result = await w.alice.slash(w.channel, "bglearn import", file=("match.mat", text.encode()))
    (embed,) = private_embeds(result)
    assert "went to your drills" in embed.footer.text and "(alice)" in embed.footer.text
    store = w.service.store
    due, later, learned = await store.puzzles.drill_counts(w.alice.id, 2e9)
    assert due > 0 and f"{due} new error" in embed.footer.text
    rows = await store.db.fetchall("SELECT * FROM drills")
    assert {r["user_id"] for r in rows} == {w.alice.id}  # nobody else's, and not Xavier's errors
    assert all(r["source"] == "import" and r["game_id"] is None for r in rows)
    assert await store.puzzles.drill_counts(w.bob.id, 2e9) == (0, 0, 0)
    # served beside the drills of games played here, privately, from alice's side of the board
    served = await w.alice.slash(w.channel, "bglearn drill")
    assert served.ephemeral and "imported match" in w.private(served) and "Xavier vs alice" in w.private(served)
    drill = await w.bot.parts.puzzles.next_drill(w.alice.id)
    assert drill is not None and drill.decision.seat == 1 and drill.decision.imported
    # nothing reached the games, ratings or leaderboards
    for table in ("games", "rating_history", "game_analyses", "puzzles"):
        assert (await store.db.fetchone(f"SELECT COUNT(*) AS n FROM {table}"))["n"] == 0
    # the same file again adds nothing new; bob, named in the option, keeps Xavier's
    again = await w.alice.slash(w.channel, "bglearn import", file=("match.mat", text.encode()))
    assert "0 new errors" in private_embeds(again)[0].footer.text
    bobs = await w.bob.slash(w.channel, "bglearn import", file=("match.mat", text.encode()), me="xavier")
    assert "(Xavier)" in private_embeds(bobs)[0].footer.text
    assert {r["user_id"] for r in await store.db.fetchall("SELECT user_id FROM drills")} == {w.alice.id, w.bob.id}


async def test_a_bad_file_is_refused_with_its_line(world):
    w = world
    result = await w.alice.slash(w.channel, "bglearn import", file=("bad.mat", b" 3 point match\n Game 1\n oops\n"))
    text = w.private(result)
    assert "line 3" in text and "not a match file I can replay" in text
