"""The engine's refusals (engine.reasons.Reason) worded in the reader's language by i18n.worded."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import i18n
from engine import Game, GameError, IllegalPlayError, NotationError, Position, Roll
from engine.notation import parse_play
from engine.reasons import Reason
from tests.i18n.catalogues import catalogues, small_catalogue


def refusal(action: Callable[[], object]) -> BaseException:
    with pytest.raises(ValueError) as caught:
        action()
    return caught.value


def test_an_illegal_play_is_worded_in_the_readers_language(monkeypatch) -> None:
    error = refusal(lambda: parse_play(Position.start(), Roll(3, 1), "8/5 6/4"))
    assert isinstance(error, IllegalPlayError)
    assert error.reason == "no die takes a checker from 6 to 4 with 3-1"  # English, as before
    german = small_catalogue(
        "de",
        {
            "no die takes a checker from {source} to {destination} with {high}-{low}": "kein Wurf von {source} nach {destination} mit {high}-{low}"
        },
    )
    with catalogues(monkeypatch, de=german), i18n.speaking("de"):
        assert i18n.worded(error.reason) == "kein Wurf von 6 nach 4 mit 3-1"
    assert i18n.worded(error.reason) == "no die takes a checker from 6 to 4 with 3-1"  # English outside


def test_a_game_error_and_a_notation_error_keep_their_templates(monkeypatch) -> None:
    game = Game()
    error = refusal(lambda: game.double(1 - game.turn))
    assert isinstance(error, GameError) and isinstance(error.args[0], Reason)
    unread = refusal(lambda: parse_play(Position.start(), Roll(3, 1), "8/5 6/"))
    assert isinstance(unread, NotationError) and isinstance(unread.reason, Reason)
    assert unread.reason.template == "the move ends with a separator"
    french = small_catalogue("fr", {"the move ends with a separator": "le coup finit par un séparateur"})
    with catalogues(monkeypatch, fr=french), i18n.speaking("fr"):
        assert i18n.worded(unread.reason) == "le coup finit par un séparateur"
        assert i18n.worded(error) == str(error)  # untranslated: its English


def test_a_translation_that_breaks_its_placeholders_falls_back_to_english(monkeypatch) -> None:
    reason = Reason("point {point} is blocked", point=5)
    broken = small_catalogue("de", {"point {point} is blocked": "Punkt {punkt} ist blockiert"})
    with catalogues(monkeypatch, de=broken), i18n.speaking("de"):
        assert i18n.worded(reason) == "point 5 is blocked"


def test_a_reason_survives_pickling_whole() -> None:
    reason = pickle.loads(pickle.dumps(Reason("{cell} already holds card {value}", cell="C3", value=4)))
    assert (reason, reason.template, reason.values) == (
        "C3 already holds card 4",
        "{cell} already holds card {value}",
        {"cell": "C3", "value": 4},
    )


@given(st.text(alphabet="abc {}", max_size=12), st.integers(), st.text(max_size=8))
def test_a_reason_reads_as_its_english_text_and_is_worded_so_in_english(words: str, number: int, name: str) -> None:
    template = words.replace("{", "").replace("}", "") + " {number} {name!r}"
    reason = Reason(template, number=number, name=name)
    assert reason == template.format(number=number, name=name)
    with i18n.speaking("en"):
        assert i18n.worded(reason) == reason
        assert i18n.worded(GameError(reason)) == reason
