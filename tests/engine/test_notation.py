"""Notation (docs/rules.md 11, formats.md 3.4): every spelling in, canonical GNU Backgammon out, errors say where/why."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    IllegalPlayError,
    Move,
    NotationError,
    Position,
    Roll,
    SeededDice,
    format_play,
    legal_plays,
    parse_moves,
    parse_play,
)

P = Position.from_counts
START = Position.start()
START_SIDE = {24: 2, 13: 5, 8: 3, 6: 5}
# Our checker on the bar instead of one of the 24-point checkers.
ON_BAR = P({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, START_SIDE)
# Bear-off: all home.
HOME = P({6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 2}, {12: 2, 13: 5, 8: 3, 6: 5})
# An opposing blot on our 7 (their 18) and on our 10 (their 15).
BLOT7 = P(START_SIDE, {24: 1, 18: 1, 13: 5, 8: 3, 6: 5})
BLOT10 = P(START_SIDE, {24: 1, 15: 1, 13: 5, 8: 3, 6: 5})


def by_text(position: Position, roll: Roll) -> dict[str, object]:
    return {format_play(p): p for p in legal_plays(position, roll)}


# -- every spelling --------------------------------------------------------------


SPELLINGS = [
    (
        START,
        Roll(6, 3),
        "24/18 13/10",
        [
            "24/18 13/10",
            "13/10 24/18",
            "24-18 13-10",
            "24 18 13 10",
            "13 10 24 18",
            "24/18, 13/10",
            " 24/18   13/10 ",
            "24/ 18 13/10",
            "m 24-18 13-10"[2:],
        ],
    ),
    (
        START,
        Roll(6, 5),
        "24/13",
        ["24/13", "24/18/13", "24/18 18/13", "18/13 24/18", "24-18-13", "24 18 18 13", "24/18*/13", "24/13*"],
    ),
    (
        START,
        Roll(3, 3),
        "8/5(2) 6/3(2)",
        ["8/5(2) 6/3(2)", "6/3(2) 8/5(2)", "8/5 8/5 6/3 6/3", "8/5 6/3 8/5 6/3", "8-5(2) 6-3(2)", "8 5 8 5 6 3 6 3"],
    ),
    (
        START,
        Roll(3, 3),
        "13/7(2)",
        ["13/7(2)", "13/10/7(2)", "13/10(2) 10/7(2)", "13/10 10/7 13/10 10/7", "10/7(2) 13/10(2)"],
    ),
    (
        ON_BAR,
        Roll(3, 1),
        "bar/22 24/23",
        [
            "bar/22 24/23",
            "b/22 24/23",
            "25/22 24/23",
            "BAR/22 24/23",
            "bar 22 24 23",
            "25-22 24-23",
            "24/23 bar/22",
            "B-22 24-23",
        ],
    ),
    (ON_BAR, Roll(3, 1), "bar/21", ["bar/21", "bar/22/21", "bar/24/21", "25/22 22/21", "b 22 22 21"]),
    (
        HOME,
        Roll(6, 5),
        "6/off 5/off",
        ["6/off 5/off", "5/off 6/off", "6/o 5/o", "6/0 5/0", "6 0 5 0", "6-off 5-off", "6/OFF 5/OFF", "6 o 5 o"],
    ),
    (HOME, Roll(6, 6), "6/off(2) 5/off(2)", ["6/off(2) 5/off(2)", "6/0 6/0 5/0 5/0", "5/o(2) 6/o(2)"]),
    (
        BLOT7,
        Roll(6, 5),
        "13/8 13/7*",
        ["13/7* 13/8", "13/7 13/8", "13/8 13/7*", "13-7* 13-8", "13 7* 13 8", "13/7* 13/8*"],
    ),
    (BLOT10, Roll(4, 3), "13/10*/6", ["13/10*/6", "13/10* 10/6", "10/6 13/10*", "13/10/6", "13 10 10 6"]),
    (BLOT10, Roll(4, 3), "13/6", ["13/6", "13/9/6", "13/9 9/6"]),
]


@pytest.mark.parametrize("position,roll,canonical,texts", SPELLINGS, ids=[s[2] for s in SPELLINGS])
def test_every_spelling_is_accepted(position, roll, canonical, texts):
    plays = by_text(position, roll)
    assert canonical in plays, sorted(plays)
    expected = plays[canonical]
    for text in texts:
        assert parse_play(position, roll, text) == expected, text
        # The dice in either order.
        assert parse_play(position, Roll(roll.die2, roll.die1), text).position == expected.position, text


def test_canonical_format_examples():
    assert "24/18 13/10" in by_text(START, Roll(6, 3))
    assert "8/5 6/5" in by_text(START, Roll(3, 1))
    assert "13/10*/6" in by_text(BLOT10, Roll(4, 3))
    assert "13/6" in by_text(BLOT10, Roll(4, 3))
    assert "bar/22 24/23" in by_text(ON_BAR, Roll(3, 1))
    assert "6/off(2) 5/off(2)" in by_text(HOME, Roll(6, 6))
    # A hit on the way of a doubles chain: 24/20*/16.
    blot20 = P(START_SIDE, {5: 1, 13: 5, 8: 3, 6: 5, 24: 1})  # their 5 = our 20
    texts = by_text(blot20, Roll(4, 4))
    assert "24/20*/16 13/9(2)" in texts or "24/20*/16(2)" not in texts
    assert any(t.startswith("24/20*/16") for t in texts)


def test_format_sorts_sources_descending_and_counts():
    for text in by_text(START, Roll(2, 2)):
        sources = []
        for part in text.split():
            head = part.split("/")[0]
            sources.append(25 if head == "bar" else int(head))
        assert sources == sorted(sources, reverse=True), text
        assert "(1)" not in text


def test_format_uses_words_for_bar_and_off():
    assert all("25" not in t for t in by_text(ON_BAR, Roll(6, 2)))
    assert all(t.startswith("bar/") for t in by_text(ON_BAR, Roll(6, 2)))
    texts = by_text(HOME, Roll(6, 1))
    assert all("/0" not in t.replace("/off", "") for t in texts)
    assert "6/off 1/off" in texts


def test_parse_moves_steps():
    assert parse_moves("24/18/13") == [(24, 18, False), (18, 13, False)]
    assert parse_moves("bar/22*") == [(25, 22, True)]
    assert parse_moves("b/22 6/o") == [(25, 22, False), (6, 0, False)]
    assert parse_moves("8/5(2)") == [(8, 5, False)] * 2
    assert parse_moves("24 18 13 10") == [(24, 18, False), (13, 10, False)]
    assert parse_moves("25-22 6-0") == [(25, 22, False), (6, 0, False)]


# -- errors: where -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text,where",
    [
        ("8/x", 2),
        ("13/", 2),
        ("/5", 0),
        ("24/18(9)", 5),
        ("24/18 13/x", 9),
        ("24/18 @", 6),
        ("13 (2)", 3),
        ("24/18(2) (2)", 9),
        ("*24/18", 0),
        ("24//18", 3),
        ("26/20", 0),
    ],
)
def test_notation_error_names_the_character(text, where):
    with pytest.raises(NotationError) as info:
        parse_moves(text)
    assert info.value.position == where
    assert f"character {where + 1}" in str(info.value)
    with pytest.raises(NotationError):
        parse_play(START, Roll(6, 5), text)


@pytest.mark.parametrize("text", ["off/5", "5/bar", "18/24", "6/6", "1/2 3/4 5/6 7/8 9/10"])
def test_impossible_moves_are_notation_errors(text):
    with pytest.raises(NotationError):
        parse_moves(text)


def test_a_count_after_a_space_counts_the_move_before_it():
    # GNU Backgammon reads "8/5 (2)" as 8/5(2).
    assert parse_moves("8/5 (2) 6/3(2)") == [(8, 5, False)] * 2 + [(6, 3, False)] * 2
    assert parse_moves("24/18/13 ( 2 )") == [(24, 18, False), (18, 13, False)] * 2
    assert format_play(parse_play(START, Roll(3, 3), "8/5 (2) 6/3(2)")) == "8/5(2) 6/3(2)"


@pytest.mark.parametrize("text", ["9" * 5000, "1" * 6000, "24/" + "7" * 300, "8/5(" + "9" * 5000 + ")", "x" * 500])
def test_absurd_numbers_and_long_texts_are_notation_errors_quoting_little(text):
    """Python refuses to convert 5,000 digits (a ValueError of its own): the
    parser refuses them first, and its message never echoes a whole paste."""
    with pytest.raises(NotationError) as info:
        parse_play(START, Roll(6, 5), text)
    assert len(str(info.value)) <= 120
    assert str(info.value).count(text[0]) <= 90


def test_illegal_play_messages_quote_little():
    text = "24/" + " " * 300 + "18"
    with pytest.raises(IllegalPlayError) as info:
        parse_play(START, Roll(3, 1), text)
    assert len(str(info.value)) <= 150


def test_lone_point_error_points_at_the_lone_point():
    with pytest.raises(NotationError) as info:
        parse_moves("24/18 13")
    assert info.value.position == 6  # the '1' of 13; the engine says character 9 of an 8-character text


# -- errors: why -------------------------------------------------------------------


@pytest.mark.parametrize(
    "position,roll,text,reason",
    [
        (ON_BAR, Roll(3, 1), "13/10 8/7", "enter from the bar first"),
        (START, Roll(3, 1), "8/5", "both dice can be used"),
        (START, Roll(6, 5), "24/19 13/7", "point 19 is blocked"),
        (START, Roll(6, 5), "13/8 24/19", "point 19 is blocked"),
        (START, Roll(6, 5), "6/off 6/1", "you can't bear off with a checker outside your home board"),
        (START, Roll(3, 1), "7/4 6/5", "no checker on point 7"),
        (START, Roll(3, 1), "bar/22 8/7", "no checker on the bar"),
        (P({24: 1, 1: 14}, {12: 2, 2: 13}), Roll(6, 5), "24/19", "larger one (6)"),
        (START, Roll(3, 1), "8/6 6/5", "no die takes a checker from 8 to 6"),
        (START, Roll(3, 1), "8/4 6/5", "more moves than 3-1 allows"),
    ],
)
def test_illegal_play_reasons(position, roll, text, reason):
    with pytest.raises(IllegalPlayError) as info:
        parse_play(position, roll, text)
    assert reason in info.value.reason
    assert reason in str(info.value)


def test_pass_only_when_no_play():
    closed = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3})
    play = parse_play(closed, Roll(6, 5), "")
    assert play.moves == ()
    assert parse_play(closed, Roll(6, 5), "pass") == play
    with pytest.raises(IllegalPlayError):
        parse_play(closed, Roll(6, 5), "bar/19")
    with pytest.raises(IllegalPlayError, match="legal play"):
        parse_play(START, Roll(6, 5), "pass")


def test_rules_example_play_spellings():
    board = P({4: 1}, {22: 1, 1: 14})
    (only,) = legal_plays(board, Roll(5, 1))
    assert only.moves == (Move(4, 3, True), Move(3, 0))
    for text in ("4/3* 3/off", "4/3*/off", "3/off 4/3*", "4 3 3 0", "4/3/off"):
        assert parse_play(board, Roll(5, 1), text) == only


# -- round trip property -------------------------------------------------------------


def reached_position(seed: int, turns: int) -> Position:
    """The board after ``turns`` random plays from the start, player on roll to move."""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    position = START
    for _ in range(turns):
        plays = legal_plays(position, Roll(dice.die(), dice.die()))
        play = rng.choice(plays)
        if play.position.off[0] == 15:
            break
        position = play.position.swap()
    return position


def hop_spelling(play, rng: random.Random) -> str:
    """The play written one die at a time, in a random order, with random separators and stars."""
    hops = list(play.moves)
    rng.shuffle(hops)
    sep = rng.choice(["/", "-", " "])
    parts = []
    for m in hops:
        src = {25: rng.choice(["bar", "b", "25"])}.get(m.source, str(m.source))
        dst = {0: rng.choice(["off", "o", "0"])}.get(m.destination, str(m.destination))
        star = "*" if m.hit and rng.random() < 0.5 else ""
        parts.append(f"{src}{sep}{dst}{star}")
    return " ".join(parts)


@settings(max_examples=30, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), turns=st.integers(0, 60), d1=st.integers(1, 6), d2=st.integers(1, 6))
def test_format_then_parse_is_identity(seed, turns, d1, d2):
    position = reached_position(seed, turns)
    roll = Roll(d1, d2)
    plays = legal_plays(position, roll)
    texts = [format_play(p) for p in plays]
    assert len(set(texts)) == len(plays)  # canonical texts tell plays apart
    rng = random.Random(seed)
    for play, text in zip(plays, texts):
        assert parse_play(position, roll, text) == play, text
        if play.moves:
            spelled = hop_spelling(play, rng)
            assert parse_play(position, roll, spelled) == play, (text, spelled)
