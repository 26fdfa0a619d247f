"""The chouette's rules: cubes per member, drops, the ledger (always zero in sum) and the rotation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import WinKind
from engine.chouette import Chouette, ChouetteError, ChouetteOptions, CrewDoubles, Rotation


def test_three_games_by_hand():
    """A box (ann) against bob (captain), cat and dan, three games; every figure worked out by hand.

    Game 1: ann doubles the team; bob and cat take (their cubes at 2), dan drops (pays ann 1).
    cat redoubles to 4, ann takes. The team wins a gammon: ann pays bob 2x2 = 4, cat 4x2 = 8.
    ann lost to the captain: bob takes the box. Order bob | cat, dan, ann.
    Game 2: cat (captain) doubles and dan doubles too (crew doubles on their own); bob takes cat's,
    drops dan's (pays dan 1). The box wins a single game: cat pays 2, ann pays 1. bob keeps the
    box; cat goes to the end. Order bob | dan, ann, cat.
    Game 3: bob doubles the team; dan (captain) drops (pays bob 1), ann and cat take; ann plays
    the checkers on. The team wins a single game: bob pays ann 2 and cat 2. dan, the captain,
    lost (he dropped): bob keeps the box, dan goes to the end. Order bob | ann, cat, dan.

    Totals: ann 1 - 4 - 8 - 1 + 2 = -10; bob 4 - 1 + 2 + 1 + 1 - 2 - 2 = +3; cat 8 - 2 + 2 = +8;
    dan -1 + 1 - 1 = -1. Pairs: bob is owed 3 by ann (4 + 1 - 2), cat 8 by ann, ann 1 by dan;
    bob and cat (2 - 2), bob and dan (-1 + 1) are square.
    """
    s = Chouette(["ann", "bob", "cat", "dan"])
    s.box_doubles()
    for member in ("bob", "cat"):
        s.take(member)
    s.drop("dan")
    s.team_doubles(["cat"])
    s.take("cat")
    assert (s.cube("bob").value, s.cube("cat").value, s.cube("cat").owner) == (2, 4, "box")
    s.end_game(team_won=True, kind=WinKind.GAMMON)
    assert s.order == ("bob", "cat", "dan", "ann")
    assert s.totals() == {"ann": -11, "bob": 4, "cat": 8, "dan": -1}

    s.team_doubles(["cat", "dan"])
    s.take("cat")
    s.drop("dan")
    s.end_game(team_won=False)
    assert s.order == ("bob", "dan", "ann", "cat")
    assert s.totals() == {"ann": -12, "bob": 6, "cat": 6, "dan": 0}

    s.box_doubles()
    s.drop("dan")
    assert s.captain == "ann"  # the checkers pass down the line
    s.take("ann")
    s.take("cat")
    s.end_game(team_won=True)
    assert s.order == ("bob", "ann", "cat", "dan")
    assert s.totals() == {"ann": -10, "bob": 3, "cat": 8, "dan": -1}
    assert s.end() == {("bob", "ann"): 3, ("cat", "ann"): 8, ("ann", "dan"): 1}
    with pytest.raises(ChouetteError):
        s.new_game()


def test_the_rules_refuse():
    s = Chouette([1, 2, 3])
    with pytest.raises(ChouetteError):
        s.take(2)  # nothing offered
    s.team_doubles([2])
    with pytest.raises(ChouetteError):
        s.box_doubles()  # a double waits
    s.take(2)
    with pytest.raises(ChouetteError):
        s.team_doubles([2])  # the box owns that cube now
    with pytest.raises(ChouetteError):
        s.take(9)  # not on the team
    with_captain = Chouette([1, 2, 3], ChouetteOptions(crew_doubles=CrewDoubles.WITH_CAPTAIN))
    with pytest.raises(ChouetteError):
        with_captain.team_doubles([3])
    with_captain.team_doubles([2])
    with_captain.team_doubles([3])  # the crew joins the captain's double before the box answers
    with pytest.raises(ChouetteError):
        with_captain.team_doubles([3])  # once
    for players in ([1], list(range(9)), [1, 1, 2]):
        with pytest.raises(ChouetteError):
            Chouette(players)


def test_every_drop_ends_the_game_and_the_box_loses_to_a_captain_it_passed():
    s = Chouette(["a", "b", "c"])
    s.team_doubles(["b", "c"])
    s.drop("b")
    s.drop("c")  # nobody left: the game is over, the box passed the captain's double
    assert s.order == ("b", "c", "a") and s.totals() == {"a": -2, "b": 1, "c": 1}


def test_majority_rotation():
    s = Chouette(["a", "b", "c", "d"], ChouetteOptions(rotation=Rotation.MAJORITY))
    s.box_doubles()
    s.drop("c")
    s.drop("d")
    s.take("b")
    s.end_game(team_won=True)  # the box lost 2 to b, won 2 from c and d: not more won than lost
    assert s.order == ("b", "c", "d", "a")


ACTIONS = st.lists(
    st.tuples(st.sampled_from(["box", "team", "answer", "end", "stop"]), st.integers(0, 7), st.booleans()),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 8), ACTIONS, st.sampled_from(list(CrewDoubles)), st.sampled_from(list(Rotation)))
def test_the_ledger_sums_to_zero_and_the_rotation_is_a_permutation(count, actions, crew, rotation):
    players = list(range(100, 100 + count))
    s = Chouette(players, ChouetteOptions(crew_doubles=crew, rotation=rotation))
    for what, pick, yes in actions:
        before = s.games_played
        game = s.game
        assert game is not None
        try:
            if what == "box":
                s.box_doubles()
            elif what == "team":
                s.team_doubles([game.still_in[pick % len(game.still_in)]])
            elif what == "answer":
                waiting = [m for m, c in game.cubes.items() if c.offered_by is not None]
                member = waiting[pick % len(waiting)] if waiting else players[pick % count]
                if yes:
                    s.take(member)
                else:
                    s.drop(member)
            elif what == "end":
                s.end_game(team_won=yes, kind=WinKind(1 + pick % 3))
            else:
                s.box_doubles([game.still_in[0]])
        except ChouetteError:
            pass
        assert sum(s.totals().values()) == 0
        assert sorted(s.order) == players  # a permutation of everyone, always
        assert sum(s.ledger().values()) <= sum(abs(v) for v in s.totals().values())
        if s.games_played > before:
            assert s.order[0] in (game.box, game.team[0])  # the box stays, or the captain takes it
    settled = s.end()
    assert all(points > 0 for points in settled.values())
    for player in players:
        owed_to = sum(v for (creditor, _), v in settled.items() if creditor == player)
        owed_by = sum(v for (_, debtor), v in settled.items() if debtor == player)
        assert owed_to - owed_by == s.total(player)
