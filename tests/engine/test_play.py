"""Moves, plays and building a play one checker step at a time (engine.play)."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Move, Play, Position, Roll, legal_plays, next_steps
from engine.play import format_point
from tests.engine.test_properties import positions, rolls  # the shared strategies


def steps_of(play: Play) -> Counter[tuple[int, int]]:
    return Counter((m.source, m.destination) for m in play.moves)


def test_the_opening_three_one() -> None:
    plays = legal_plays(Position.start(), Roll(3, 1))
    steps, complete = next_steps(plays, [])
    labels = [f"{format_point(m.source)}/{format_point(m.destination)}" for m in steps]
    assert "8/5" in labels and "6/5" in labels and "24/23" in labels and complete is None
    assert labels == sorted(labels, key=lambda t: [-int(x) for x in t.split("/")])  # highest source first
    steps, complete = next_steps(plays, [(8, 5)])
    assert Move(6, 5) in steps and complete is None
    _, complete = next_steps(plays, [(8, 5), (6, 5)])
    assert complete is not None and str(complete) == "8/5 6/5"
    # Order does not matter: 6/5 then 8/5 builds the same play.
    assert next_steps(plays, [(6, 5), (8, 5)])[1] == complete


def test_a_step_that_hits_says_so() -> None:
    # Our 13 against an opposing blot on our 7: 6-1 offers 13/7*.
    position = Position.from_counts({13: 15}, {18: 1, 1: 14})
    steps, _ = next_steps(legal_plays(position, Roll(6, 1)), [])
    assert Move(13, 7, True) in steps


def test_steps_no_play_contains_lead_nowhere() -> None:
    plays = legal_plays(Position.start(), Roll(3, 1))
    assert next_steps(plays, [(13, 1)]) == ([], None)


@settings(max_examples=120, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(), rolls, st.randoms(use_true_random=False))
def test_every_legal_play_and_nothing_else_can_be_built(position: Position, roll: Roll, rnd) -> None:
    plays = legal_plays(position, roll)
    by_steps = {frozenset(steps_of(p).items()): p for p in plays}
    # Walk random paths of offered steps to the end: each offered step extends
    # to some legal play, and every complete build is a legal play.
    for _ in range(6):
        chosen: list[tuple[int, int]] = []
        while True:
            offered, complete = next_steps(plays, chosen)
            for move in offered:
                candidate = Counter(chosen + [(move.source, move.destination)])
                assert any(all(steps_of(p)[s] >= n for s, n in candidate.items()) for p in plays)
            if complete is not None:
                assert complete in plays and steps_of(complete) == Counter(chosen)
            if not offered:
                assert complete is not None or not plays[0].moves
                break
            step = rnd.choice(offered)
            chosen.append((step.source, step.destination))
    # Every legal play can be built, its steps in its own order.
    for play in plays:
        chosen = []
        for move in play.moves:
            offered, _ = next_steps(plays, chosen)
            assert (move.source, move.destination) in [(m.source, m.destination) for m in offered]
            chosen.append((move.source, move.destination))
        built = next_steps(plays, chosen)[1]
        assert built is not None
        assert frozenset(steps_of(built).items()) in by_steps


def test_a_roll_is_two_dice_of_one_to_six() -> None:
    import pytest

    for bad in ((True, 1), (1, False), (0, 3), (7, 1), (1.0, 2), ("3", 1)):
        with pytest.raises(ValueError):
            Roll(*bad)
    assert Roll(6, 5) == Roll.parse("6-5") and Roll(6, 5).high == 6
