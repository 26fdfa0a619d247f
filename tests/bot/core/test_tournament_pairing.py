"""Tournament pairings and standings (bot/core/tournaments/pairing.py): the invariants,
by hypothesis, and whole tournaments played to the end."""

from __future__ import annotations

import random
from collections import Counter

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.tournaments.pairing import (
    KNOCKOUT,
    SWISS,
    Pair,
    Played,
    bracket_order,
    bracket_size,
    knockout_next_table,
    knockout_pairs,
    knockout_rounds,
    knockout_table,
    rematches,
    round_robin,
    scores,
    standings,
    swiss_pairs,
)

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def players(n: int) -> list[int]:
    return [1000 + i for i in range(n)]


def once_each(pairs: list[Pair], field: list[int]) -> None:
    seated = [p for pair in pairs for p in pair.players]
    assert sorted(seated) == sorted(field), "everyone is paired exactly once"
    assert [pair.table for pair in pairs] == list(range(len(pairs)))


def decide(pair: Pair, rnd: int, chooser: random.Random) -> Played:
    if pair.b is None:
        return Played(rnd, pair.a, None, pair.a)
    return Played(rnd, pair.a, pair.b, chooser.choice((pair.a, pair.b)))


# -- knockout ----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64, 128])
def test_bracket_order_keeps_the_top_seeds_apart(size: int) -> None:
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    block = size
    while block >= 2:
        # the top size/block seeds each sit in their own block of the bracket
        tops = size // block
        for start in range(0, size, block):
            assert sum(1 for seed in order[start : start + block] if seed <= tops) == 1
        block //= 2
    # each first-round table's seeds sum to size + 1 (1 v 64, 2 v 63, ...)
    assert all(order[2 * k] + order[2 * k + 1] == size + 1 for k in range(size // 2))


@FAST
@given(st.integers(2, 70))
def test_knockout_byes_fall_to_the_top_seeds(n: int) -> None:
    field = players(n)
    pairs = knockout_pairs(knockout_table(field))
    once_each_table = sorted(p for pair in pairs for p in pair.players)
    assert once_each_table == sorted(field)
    byes = [pair.a for pair in pairs if pair.is_bye]
    assert sorted(byes) == field[: bracket_size(n) - n]


@FAST
@given(st.integers(2, 64), st.randoms(use_true_random=False), st.data())
def test_a_knockout_runs_to_one_champion(n: int, chooser: random.Random, data: st.DataObject) -> None:
    field = players(n)
    table = knockout_table(field)
    history: list[Played] = []
    alive = set(field)
    withdrawn: set[int] = set()
    for rnd in range(1, knockout_rounds(n) + 1):
        pairs = knockout_pairs(table)
        assert sorted(p for pair in pairs for p in pair.players) == sorted(alive)
        winners: dict[int, int | None] = {}
        for pair in pairs:
            game = decide(pair, rnd, chooser)
            if pair.b is not None and data.draw(st.integers(0, 19)) == 0:  # both leave: nobody goes on
                game = Played(rnd, pair.a, pair.b, None, forfeit=True)
                withdrawn |= {pair.a, pair.b}
            history.append(game)
            winners[pair.table] = game.winner
            alive -= set(pair.players) - {game.winner}
        if len(table) > 2:
            table = knockout_next_table(table, winners)
    assert len(table) == 2 and len(alive) <= 1
    final = standings(KNOCKOUT, field, history, withdrawn)
    assert len(final) == n and final[0].place == 1
    if alive:
        (champion,) = alive
        assert final[0].player == champion and final[0].out_in is None
        assert [s.place for s in final].count(1) == 1
    # a later exit never stands below an earlier one
    exits = [s.out_in if s.out_in is not None else 99 for s in final]
    assert exits == sorted(exits, reverse=True)


def test_a_64_player_knockout_to_the_end() -> None:
    field = players(64)
    table = knockout_table(field)
    history: list[Played] = []
    for rnd in range(1, 7):
        pairs = knockout_pairs(table)
        assert len(pairs) == 64 >> rnd
        games = [Played(rnd, p.a, p.b, p.a) for p in pairs]  # the better seed always wins
        history += games
        if rnd < 6:
            table = knockout_next_table(table, {p.table: g.winner for p, g in zip(pairs, games)})
    assert [p.players for p in pairs] == [(field[0], field[1])]  # seeds 1 and 2 in the final
    final = standings(KNOCKOUT, field, history)
    assert [s.place for s in final[:8]] == [1, 2, 3, 3, 5, 5, 5, 5]
    assert final[0].player == field[0] and final[1].player == field[1]
    assert {s.player for s in final[2:4]} == {field[2], field[3]}
    assert final[0].wins == 6 and final[-1].losses == 1


# -- round robin --------------------------------------------------------------------------------


@FAST
@given(st.integers(2, 24))
def test_round_robin_is_complete_and_byes_rotate(n: int) -> None:
    field = players(n)
    schedule = round_robin(field)
    assert len(schedule) == (n - 1 if n % 2 == 0 else n)
    met: Counter[frozenset[int]] = Counter()
    byes: Counter[int] = Counter()
    for pairs in schedule:
        once_each(sorted(pairs, key=lambda p: p.table), field)
        for pair in pairs:
            if pair.b is None:
                byes[pair.a] += 1
            else:
                met[frozenset(pair.players)] += 1
    assert len(met) == n * (n - 1) // 2 and set(met.values()) == {1}, "everyone meets everyone once"
    if n % 2:
        assert byes == Counter(field), "each player sits out exactly once"
    else:
        assert not byes


# -- swiss ----------------------------------------------------------------------------------------


def fewest_rematches(field: list[int], history: list[Played]) -> int:
    """The fewest rematches any pairing of the round can have (the bye going to one of
    those with the fewest byes), by an independent maximum matching."""
    met = {frozenset((g.a, g.b)) for g in history if g.b is not None}
    byes = Counter(g.a for g in history if g.b is None)
    graph = nx.Graph()
    for i, a in enumerate(field):
        for b in field[i + 1 :]:
            graph.add_edge(a, b, weight=0 if frozenset((a, b)) in met else 1)
    if len(field) % 2:
        fewest = min(byes[p] for p in field)
        for p in field:
            if byes[p] == fewest:
                graph.add_edge(p, "bye", weight=1)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return len(matching) - sum(graph.edges[u, v]["weight"] for u, v in matching)


@st.composite
def swiss_histories(draw: st.DrawFn) -> tuple[list[int], list[Played]]:
    """A field and a history: some rounds played by our own pairing, then arbitrary
    tables (adversarial: cliques of rematches, odd byes), some players withdrawn."""
    n = draw(st.integers(2, 14))
    field = players(n)
    chooser = random.Random(draw(st.integers(0, 2**32)))
    history: list[Played] = []
    for rnd in range(1, draw(st.integers(0, min(n, 5))) + 1):
        history += [decide(pair, rnd, chooser) for pair in swiss_pairs(field, history)]
    extra = draw(st.lists(st.tuples(st.sampled_from(field), st.sampled_from(field)), max_size=3 * n))
    for a, b in extra:
        history.append(Played(99, a, None if a == b else b, a))
    still = [p for p in field if draw(st.integers(0, 5))] or field[:2]
    if len(still) < 2:
        still = field[:2]
    return still, history


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(swiss_histories())
def test_swiss_pairs_everyone_once_with_no_avoidable_rematch(case: tuple[list[int], list[Played]]) -> None:
    field, history = case
    pairs = swiss_pairs(field, history)
    once_each(pairs, field)
    assert rematches(pairs, history) == fewest_rematches(field, history)
    byes = [pair.a for pair in pairs if pair.is_bye]
    assert len(byes) == len(field) % 2
    if byes:
        had = Counter(g.a for g in history if g.b is None)
        assert had[byes[0]] == min(had[p] for p in field), "the bye goes to one with the fewest byes"


@FAST
@given(st.integers(2, 16), st.randoms(use_true_random=False))
def test_swiss_byes_rotate_and_score_a_win(n: int, chooser: random.Random) -> None:
    field = players(n)
    history: list[Played] = []
    given_byes: list[int] = []
    for rnd in range(1, n + 1):
        pairs = swiss_pairs(field, history)
        given_byes += [pair.a for pair in pairs if pair.is_bye]
        history += [decide(pair, rnd, chooser) for pair in pairs]
    if n % 2:
        assert sorted(given_byes) == sorted(field), "nobody has a second bye before everyone had one"
    else:
        assert given_byes == []
    points = scores(history)
    assert sum(points.values()) == len(history)  # every table scores exactly one point, a bye too


def test_swiss_first_round_pairs_top_half_against_bottom_half() -> None:
    field = players(8)
    pairs = swiss_pairs(field, [])
    assert [pair.players for pair in pairs] == [(field[i], field[i + 4]) for i in range(4)]


def test_swiss_pairs_within_score_groups() -> None:
    field = players(8)
    history = [Played(1, field[i], field[i + 4], field[i]) for i in range(4)]  # the top four won
    pairs = swiss_pairs(field, history)
    winners = set(field[:4])
    for pair in pairs:
        assert (pair.a in winners) == (pair.b in winners)
    assert rematches(pairs, history) == 0


def test_a_33_player_6_round_swiss_to_the_end() -> None:
    field = players(33)
    chooser = random.Random(20)
    history: list[Played] = []
    byes = []
    for rnd in range(1, 7):
        pairs = swiss_pairs(field, history)
        once_each(pairs, field)
        assert rematches(pairs, history) == 0
        byes += [p.a for p in pairs if p.is_bye]
        history += [decide(pair, rnd, chooser) for pair in pairs]
    assert len(byes) == len(set(byes)) == 6
    final = standings(SWISS, field, history)
    assert [s.place for s in final] == list(range(1, 34))
    assert sum(s.score for s in final) == len(history) == 6 * 17
    keys = [(-s.score, -s.buchholz, -s.sonneborn_berger) for s in final]
    assert keys == sorted(keys)
    assert final[0].score >= 5


# -- standings -------------------------------------------------------------------------------------


def test_ties_are_broken_by_buchholz_then_sonneborn_berger() -> None:
    a, b, c, d, e, f = players(6)
    history = [
        # round 1
        Played(1, a, d, a),
        Played(1, b, e, b),
        Played(1, c, f, c),
        # round 2
        Played(2, a, b, b),
        Played(2, c, e, e),
        Played(2, d, f, d),
    ]
    # scores: a1 b2 c1 d1 e1 f0
    table = standings(SWISS, [a, b, c, d, e, f], history)
    assert table[0].player == b and table[0].score == 2
    # a, c, d, e have one point each:
    #   a met d(1), b(2): Buchholz 3, beat d: SB 1
    #   c met f(0), e(1): Buchholz 1
    #   d met a(1), f(0): Buchholz 1
    #   e met b(2), c(1): Buchholz 3, beat c: SB 1
    by = {s.player: s for s in table}
    assert (by[a].buchholz, by[a].sonneborn_berger) == (3, 1)
    assert (by[e].buchholz, by[e].sonneborn_berger) == (3, 1)
    assert (by[c].buchholz, by[c].sonneborn_berger) == (1, 0)
    assert (by[d].buchholz, by[d].sonneborn_berger) == (1, 0)
    assert [s.player for s in table] == [b, a, e, c, d, f]  # equal to the last: seed order


def test_sonneborn_berger_breaks_an_equal_buchholz() -> None:
    a, b, x, y, z, w, f, g = players(8)
    history = [
        Played(1, a, x, a),
        Played(1, b, z, b),
        Played(1, y, w, y),
        Played(2, a, y, y),
        Played(2, b, w, w),
        Played(2, x, z, z),
        Played(3, x, f, x),
        Played(3, z, g, z),
    ]
    # a beat x (1 point) and lost to y (2); b beat z (2) and lost to w (1)
    table = standings(SWISS, [a, b, x, y, z, w, f, g], history)
    by = {s.player: s for s in table}
    assert (by[a].score, by[a].buchholz, by[a].sonneborn_berger) == (1, 3, 1)
    assert (by[b].score, by[b].buchholz, by[b].sonneborn_berger) == (1, 3, 2)
    order = [s.player for s in table]
    assert order.index(b) < order.index(a), "b beat the stronger opponent: ahead, whatever the seeds"


def test_withdrawn_players_keep_their_points_and_are_marked() -> None:
    a, b, c = players(3)
    history = [Played(1, a, b, a), Played(1, c, None, c), Played(2, a, c, a, forfeit=True)]
    table = standings(SWISS, [a, b, c], history, withdrawn=[c])
    by = {s.player: s for s in table}
    assert by[c].withdrawn and by[c].score == 1 and by[c].byes == 1
    assert by[a].score == 2 and not by[a].withdrawn


def test_bad_fields_are_refused() -> None:
    with pytest.raises(ValueError):
        knockout_table([1])
    with pytest.raises(ValueError):
        round_robin([1, 1])
    with pytest.raises(ValueError):
        swiss_pairs([1], [])
    with pytest.raises(ValueError):
        standings("ladder", [1, 2], [])
