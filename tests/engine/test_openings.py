"""The old masters' openings: every play legal from the start, parsed by the
engine, written as the engine writes it, and quoted from its seed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import Position, Roll, format_play, legal_plays, parse_play
from engine.openings import (
    OPENINGS,
    SOURCES,
    advice_for,
    covered_rolls,
    opening_play,
    parse_roll,
)

SEEDS = Path(__file__).resolve().parents[2] / "docs" / "seeds"
"""The period texts the openings are quoted from (public domain; copied from the
project's shared seeds so the check runs on any clone)."""


def _plain(text: str) -> str:
    """A seed's text without its page marks ({279}), italics (_deuce_) and line breaks."""
    text = re.sub(r"\{\d+\}", " ", text).replace("_", "")
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("entry", OPENINGS, ids=lambda e: f"{e.source}-{e.roll_text}-{e.play}")
def test_every_play_is_legal_from_the_start_and_parsed(entry) -> None:
    roll = Roll(*entry.roll)
    play = parse_play(Position.start(), roll, entry.play)
    assert play in legal_plays(Position.start(), roll)
    assert format_play(play) == entry.play  # the table is in the engine's own notation
    assert opening_play(entry) == play
    assert entry.source in SOURCES and entry.words


@pytest.mark.parametrize("entry", OPENINGS, ids=lambda e: f"{e.source}-{e.roll_text}-{e.play}")
def test_the_words_are_the_seeds_own(entry) -> None:
    seed = SEEDS / SOURCES[entry.source].seed
    assert _plain(entry.words) in _plain(seed.read_text(encoding="utf-8"))


def test_the_throws_covered() -> None:
    hoyle = {e.roll for e in OPENINGS if e.source == "hoyle"}
    assert hoyle == {(1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3), (4, 1)}
    rolls = covered_rolls()
    assert rolls[0] == (1, 1) and len(rolls) == len(set(rolls)) == 17
    assert {(5, 1), (5, 2), (6, 2), (4, 3)}.isdisjoint(rolls)  # no text gives these
    # Hoyle's two plays, for a hit and for a gammon
    assert [e.aim for e in advice_for((2, 1))] == ["for a hit", "for a gammon"]
    assert [e.play for e in advice_for(Roll(3, 3)) if e.source == "hoyle"] == [
        "13/7(2)",
        "24/21(2) 8/5(2)",
        "8/5(2) 6/3(2)",
    ]
    assert advice_for((1, 6)) == advice_for((6, 1))


@pytest.mark.parametrize("text, roll", [("6-1", (6, 1)), ("16", (6, 1)), (" 3 3 ", (3, 3)), ("2/1", (2, 1))])
def test_parse_roll(text, roll) -> None:
    assert parse_roll(text) == roll


@pytest.mark.parametrize("text", ["", "7-1", "six ace", "1-2-3"])
def test_parse_roll_refuses(text) -> None:
    with pytest.raises(ValueError):
        parse_roll(text)
