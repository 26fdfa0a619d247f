"""Where the tutor may speak (bot/core/tutor.py): never in a rated game between members
with hints off, whatever the decision; the thresholds a member may choose."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.tutor import THRESHOLDS, allowed_in, parse_threshold


def state(*, computer: bool, practice: bool, hints: bool, bot_seat: bool, active: bool = True):
    options = SimpleNamespace(computer_level="expert" if computer else None, practice=practice, hints=hints)
    players = (SimpleNamespace(is_bot=False), SimpleNamespace(is_bot=bot_seat))
    return SimpleNamespace(is_active=active, options=options, players=players)


@given(st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_the_tutor_speaks_only_where_advice_is_allowed(computer, practice, hints, bot_seat, active) -> None:
    allowed = allowed_in(state(computer=computer, practice=practice, hints=hints, bot_seat=bot_seat, active=active))
    assert allowed == (active and (computer or practice or hints or bot_seat))


def test_never_in_a_rated_game_between_members_with_hints_off() -> None:
    assert not allowed_in(state(computer=False, practice=False, hints=False, bot_seat=False))


@pytest.mark.parametrize("typed", ["blunders", "Errors", " off ", "0.06", "0,1", "1"])
def test_thresholds(typed: str) -> None:
    value = parse_threshold(typed)
    assert value is None or value in THRESHOLDS.values() or 0.001 <= value <= 1


@pytest.mark.parametrize("typed", ["lots", "-0.1", "0", "5", "nan"])
def test_bad_thresholds(typed: str) -> None:
    if typed == "0":
        assert parse_threshold(typed) is None  # "0" turns it off
        return
    with pytest.raises(ValueError):
        parse_threshold(typed)
