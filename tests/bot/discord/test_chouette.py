"""A chouette through Discord: a box and three on the team over three games played on the board
in its own thread, with crew doubles, drops, the checkers passing down the line and the rotation;
the running ledger is posted once after each game, and matches a hand computation."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from engine import ScriptedDice

DICE = [3, 1, 6, 5, 4, 2, 5, 3] + [6, 5, 4, 2] * 10
"""Each board's dice (the script starts again with each game): the box (seat 0) opens with
3-1; 6-5, 4-2 and 5-3 follow."""


@pytest.fixture
def dice():
    return ScriptedDice(list(DICE))


async def test_three_games_of_a_chouette_on_the_board(world):
    """alice (box), bob (captain), carol and mod (crew). By hand:

    1. carol doubles alice before bob's roll; alice takes (alice owns carol's cube at 2). alice
       doubles the team before her roll (and redoubles carol to 4): bob and carol take, mod drops
       (pays alice 1). alice concedes a single game: she pays bob 2 and carol 4. The captain won:
       bob takes the box; carol, mod, alice follow.
    2. bob opens; carol (captain) and mod double bob before carol's roll; bob takes carol's and drops mod's
       (pays mod 1). carol resigns a single game on the board, bob accepts: carol pays bob 2,
       alice pays 1. The box beat the captain: bob keeps it; carol goes to the end.
    3. bob doubles the team; mod (captain) drops (pays bob 1): the checkers pass to alice;
       alice and carol take. bob concedes a gammon: he pays alice 4 and carol 4. The captain
       (mod) lost at the cube: bob keeps the box.
    Totals: alice -2, bob -3, carol +6, mod -1. Owed: bob owes alice 1 and carol 2, alice owes
    carol 4, mod owes alice 1.
    """
    w = world
    started = await w.alice.slash(w.channel, "bgclub chouette", box=w.alice, captain=w.bob, crew1=w.carol, crew2=w.mod)
    assert not started.ephemeral and "chouette of 4" in started.response.content
    (thread,) = w.channel.threads

    async def say(who, command, **options):
        result = await who.slash(thread, f"bgclub {command}", **options)
        assert not result.ephemeral, w.private(result)
        return result.response.content

    async def refused(who, command, **options):
        result = await who.slash(thread, command, **options)
        assert result.ephemeral, result.response.content
        return result.response.content.lower()

    async def play(who):
        choices = await who.autocomplete(thread, "bg move", "play", "")
        assert choices
        moved = await who.slash(thread, "bg move", play=choices[0]["value"])
        assert not w.private(moved)

    async def seats():
        state = await w.service.lookups.get_game(w.game_id(w.board(thread)))
        return tuple(p.user_id for p in state.players), state

    # game 1: the box against bob on the board, the box's opening 3-1 to play
    assert await seats() and (await seats())[0] == (w.alice.id, w.bob.id)
    assert "cube" not in "".join(w.labels(w.board(thread))).lower()  # the board has no cube of its own
    await play(w.alice)
    assert "before it rolls" in await refused(w.alice, "bgclub double")  # the team's turn
    await say(w.carol, "double")  # a crew double before the captain's roll
    assert "double waits" in await refused(w.bob, "bg roll")
    assert "member whose double" not in await say(w.alice, "take")
    assert "captain" in await refused(w.alice, "bgclub suggest", advice="run")  # the box advises nobody
    advice = await say(w.carol, "suggest", advice="24/13")
    assert "**carol** advises the captain" in advice
    rolled = await w.bob.slash(thread, "bg roll")
    assert not rolled.ephemeral
    await play(w.bob)
    doubled = await say(w.alice, "double")  # every cube the box may turn: bob's, mod's, and carol's it owns
    assert "**carol** to take or pass the box's double to 4" in doubled
    await say(w.bob, "take")
    await say(w.carol, "take")
    await say(w.mod, "drop")
    shown = await say(w.alice, "result", winner="team")
    assert "box **bob** against captain **carol**" in shown

    # game 2: bob's board against carol; the box's opening 3-1
    ids, _state = await seats()
    assert ids == (w.bob.id, w.carol.id)
    await play(w.bob)
    await say(w.carol, "double")
    await say(w.mod, "double")
    assert "double waits" in await refused(w.carol, "bg roll")
    await say(w.bob, "take", member=w.carol)
    await say(w.bob, "drop", member=w.mod)
    assert not (await w.carol.slash(thread, "bg resign", level="single")).ephemeral
    accepted = await w.bob.slash(thread, "bg accept-resign")
    assert not accepted.ephemeral

    # game 3: bob's board against mod; the box's opening 3-1
    ids, _state = await seats()
    assert ids == (w.bob.id, w.mod.id)
    await play(w.bob)
    await w.mod.slash(thread, "bg roll")
    await play(w.mod)
    await say(w.bob, "double")
    shown = await say(w.mod, "drop")  # the captain is out: the checkers pass to alice
    assert "captain **alice**" in shown
    state = await w.service.lookups.get_game(w.game_id(w.board(thread)))
    assert tuple(p.user_id for p in state.players) == (w.bob.id, w.alice.id)
    await say(w.alice, "take")
    await say(w.carol, "take")
    await w.bob.slash(thread, "bg roll")
    await play(w.bob)
    assert not (await w.alice.slash(thread, "bg roll")).ephemeral  # alice plays the team's checkers now
    await play(w.alice)
    await say(w.bob, "result", winner="team", win="gammon")

    # the running ledger: posted once after each game, in the thread
    heads = Counter(m.content.split("\n")[0] for m in thread.history() if "the ledger after game" in m.content)
    assert heads == {f"📒 **Chouette** · the ledger after game {n}": 1 for n in (1, 2, 3)}
    last = next(m.content for m in reversed(thread.history()) if "the ledger after game 3" in m.content)
    assert "box **bob** against captain **alice** and crew **carol**, **mod**" in last
    pictures = Counter(a.filename for m in thread.history() for a in m.attachments if a.filename.startswith("board-"))
    assert len({name.split("-")[1] for name in pictures}) == 4  # three games played, the fourth set up
    assert max(pictures.values()) == 1  # no board posted twice

    ended = await say(w.mod, "stop")
    assert "The chouette is over" in ended and "3 games" in ended
    totals = dict(re.findall(r"\*\*(\w+)\*\* ([+-]\d+)", ended.split("Totals: ")[1].split("\n")[0]))
    assert totals == {"alice": "-2", "bob": "-3", "carol": "+6", "mod": "-1"}
    assert sum(int(v) for v in totals.values()) == 0
    assert "**bob** owes **alice** 1" in ended and "**bob** owes **carol** 2" in ended
    assert "**alice** owes **carol** 4" in ended and "**mod** owes **alice** 1" in ended
    assert "**mod** owes **bob**" not in ended and "**bob** owes **mod**" not in ended
    gone = await w.alice.slash(thread, "bgclub ledger")
    assert gone.ephemeral and "no chouette is going on here" in gone.response.content.lower()
