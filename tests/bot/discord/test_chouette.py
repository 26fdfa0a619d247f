"""A chouette through Discord: a box and three on the team over three games in its own thread,
with crew doubles, drops and the rotation; the ledger matches a hand computation and sums to zero."""

from __future__ import annotations

import re


async def test_three_games_of_a_chouette_in_a_thread(world):
    """alice (box), bob (captain), carol and mod (crew). By hand (tests/engine/test_chouette.py):

    1. alice doubles the team; bob and carol take, mod drops (pays alice 1); carol redoubles to 4,
       alice takes; the team wins a gammon: alice pays bob 4 and carol 8. bob takes the box.
    2. carol (captain) and mod double bob; bob takes carol's, drops mod's (pays mod 1); bob wins a
       single game: carol pays 2, alice 1. bob keeps the box; carol goes to the end.
    3. bob doubles the team; mod (captain) drops (pays 1), alice and carol take; the team wins a
       single game: bob pays alice 2 and carol 2. mod, the captain, lost: bob keeps the box.
    Totals: alice -10, bob +3, carol +8, mod -1.
    """
    w = world
    started = await w.alice.slash(w.channel, "bgclub chouette", box=w.alice, captain=w.bob, crew1=w.carol, crew2=w.mod)
    assert not started.ephemeral and "chouette of 4" in started.response.content
    (thread,) = w.channel.threads
    opening = thread.history()[-1].content
    assert "box **alice** against captain **bob** and crew **carol**, **mod**" in opening

    async def say(who, command, **options):
        result = await who.slash(thread, f"bgclub {command}", **options)
        assert not result.ephemeral, w.private(result)
        return result.response.content

    # game 1
    await say(w.alice, "double")
    refused = await w.carol.slash(thread, "bgclub result", winner="team")
    assert refused.ephemeral and "the side that lost reports" in refused.response.content.lower()
    await say(w.bob, "take")
    await say(w.carol, "take")
    await say(w.mod, "drop")
    await say(w.carol, "double")
    shown = await say(w.alice, "take", member=w.carol)
    assert "**carol**: cube 4, theirs" not in shown and "**carol**: cube 4, the box's" in shown
    shown = await say(w.alice, "result", winner="team", win="gammon")
    assert "box **bob** against captain **carol**" in shown

    # game 2: a crew double beside the captain's, one taken and one passed by the box
    await say(w.carol, "double")
    outsider = await w.alice.slash(thread, "bgclub take")  # no double of the box waits on alice
    assert outsider.ephemeral
    await say(w.mod, "double")
    await say(w.bob, "take", member=w.carol)
    await say(w.bob, "drop", member=w.mod)
    shown = await say(w.carol, "result", winner="box")
    assert "box **bob** against captain **mod** and crew **alice**, **carol**" in shown

    # game 3: the captain drops, the checkers pass down the line
    await say(w.bob, "double")
    await say(w.mod, "drop")
    await say(w.alice, "take")
    shown = await say(w.carol, "take")
    assert "captain **alice**" in shown
    shown = await say(w.bob, "result", winner="team")
    assert "box **bob** against captain **alice** and crew **carol**, **mod**" in shown

    ended = await say(w.mod, "stop")
    assert "The chouette is over" in ended and "3 games" in ended
    totals = dict(re.findall(r"\*\*(\w+)\*\* ([+-]\d+)", ended.split("Totals: ")[1].split("\n")[0]))
    assert totals == {"alice": "-10", "bob": "+3", "carol": "+8", "mod": "-1"}
    assert sum(int(v) for v in totals.values()) == 0
    assert "**alice** owes **bob** 3" in ended and "**alice** owes **carol** 8" in ended
    assert "**mod** owes **alice** 1" in ended and "**bob** owes" not in ended
    gone = await w.alice.slash(thread, "bgclub ledger")
    assert gone.ephemeral and "no chouette is going on here" in gone.response.content.lower()
