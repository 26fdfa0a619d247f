"""The engine's refusals (and the bot's few that counted in code) leave no English word in a translation.

Under the pseudo-language (tests/i18n/catalogues.py: every catalogue message
bracketed and accented), a refusal worded by ``i18n.worded`` is all brackets:
a value a member reads as a word (a side, a game's name, an XGID field, what
the game waits for) went through the catalogue too. What is left is the
member's own text, quoted (the ID they pasted), which counts as a name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from types import SimpleNamespace

import pytest

import i18n
from bot.core.consultations import Consultations
from bot.core.imports import ImportedAnalysis
from bot.core.model import VARIANT_NAMES, ChallengeError, ChallengeOptions, ServiceError
from bot.discord import replays
from bot.discord.lessons import imported_embed
from bot.discord.refusals import UserError
from engine import Action, Game, GameError, Roll
from engine.position import decode_position_id
from engine.reasons import GAME_NAMES
from engine.tables import TablesPosition
from engine.tavli import Tavli
from engine.variants import TablesGame
from engine.xgid import parse_xgid
from tests.i18n.catalogues import PSEUDO, WORD, catalogues, english_words, pseudo_catalogue


@pytest.fixture(scope="module")
def pseudo_language() -> Iterator[None]:
    """The pseudo-language in force (its catalogue made once for the module)."""
    with pytest.MonkeyPatch.context() as monkeypatch, catalogues(monkeypatch, **{PSEUDO: pseudo_catalogue()}):
        with i18n.speaking(PSEUDO):
            yield


def refused(action: Callable[[], object]) -> BaseException:
    with pytest.raises((ValueError, GameError, UserError)) as caught:
        action()
    return caught.value


def left_in_english(error: BaseException, pasted: str = "") -> list[str]:
    """The English words of ``error`` worded in the pseudo-language, the member's ``pasted`` text aside."""
    text = error.message if isinstance(error, UserError) else i18n.worded(error)
    assert "⟦" in text, text
    return english_words(text, set(WORD.findall(pasted)))


@pytest.mark.parametrize(
    "xgid",
    [
        "-b------------------------:0:0:1:00:0:0:0:0:10",  # the bottom player has borne off all 15
        "-------------------------O:0:0:1:00:0:0:0:0:10",  # the top player has borne off all 15
        "XGID=-b----F-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",  # the bottom player has 16 checkers
        "-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10",  # the cube: a field's name and what it holds
        "-b----E-C---eE---c-e----B-:0:0:1:00:5:0:0:3:10",  # a score past a 3-point match's
        "-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10",  # a beaver waiting for an answer
        "-b----E-C---eE---c-e----B-:0:0",  # too few fields (their names listed)
    ],
)
def test_a_bad_xgid_is_refused_with_no_english_word_left(pseudo_language, xgid: str) -> None:
    assert left_in_english(refused(lambda: parse_xgid(xgid)), xgid) == []


def test_a_position_id_with_too_many_checkers_names_its_side_in_the_language(pseudo_language) -> None:
    pasted = "//8AAAAAAAAAAA"  # sixteen checkers on the first side
    error = refused(lambda: decode_position_id(pasted))
    assert "first side has 16 checkers" in str(error)  # English for the logs
    assert left_in_english(error, pasted) == []


def test_a_game_without_a_cube_names_itself_in_the_language(pseudo_language) -> None:
    game = TablesGame("plakoto")
    error = refused(lambda: game.double(0))
    assert str(error) == "there is no doubling cube in plakoto"
    assert left_in_english(error) == []
    assert "⟦plákótó⟧" in i18n.worded(error)  # the bot's own name for the game, translated once
    assert left_in_english(refused(lambda: game.offer_resignation(0))) == []
    assert left_in_english(refused(lambda: TablesGame("nardy").roll(0))) == []  # what the game waits for


def test_a_pin_outside_plakoto_names_the_game_in_the_language(pseudo_language) -> None:
    pins = [0] * 24
    pins[0] = -1
    points = [2, *[0] * 22, -2]
    error = refused(lambda: TablesPosition("fevga", tuple(points), tuple(pins), (13, 13)))
    assert str(error) == "only plakoto pins checkers (fevga)"
    assert left_in_english(error) == []


def test_a_tavli_log_out_of_order_names_the_game_in_the_language(pseudo_language) -> None:
    error = refused(lambda: Tavli(3).apply(Action("game", value=1, text="fevga")))
    assert str(error) == "game 1 of tavli is portes, not 'fevga'"
    assert left_in_english(error, "fevga") == []


@pytest.mark.parametrize("count", [1, 3])
def test_a_replays_wrong_game_number_counts_in_the_language(pseudo_language, count: int) -> None:
    error = refused(lambda: replays.check_number(SimpleNamespace(game_count=count, id=7), 9))  # type: ignore[arg-type]
    assert left_in_english(error) == []
    assert re.sub(r"⟦[^⟧]*⟧", "", str(error)) == f"7{count}{count}"  # no letter made in code (a plural's "s")
    with i18n.speaking("en"):
        english = refused(lambda: replays.check_number(SimpleNamespace(game_count=count, id=7), 9))  # type: ignore[arg-type]
    assert str(english) == ("Game #7 has 1 game: pick 1 to 1." if count == 1 else "Game #7 has 3 games: pick 1 to 3.")


def test_the_engine_names_each_game_as_the_bot_does() -> None:
    """One catalogue message per game's name: the bot's and the engine's refusals share its translation."""
    assert {game: name.template for game, name in GAME_NAMES.items()} == {
        game: VARIANT_NAMES[game] for game in GAME_NAMES
    }


@pytest.mark.parametrize(
    "options",
    [
        ChallengeOptions(variant="plakoto", jacoby=True),  # "{game} has no cube and its own opening"
        ChallengeOptions(variant="portes"),  # "{game} is played as a match"
        ChallengeOptions(variant="chess"),  # "the game is one of {games}"
    ],
)
def test_a_challenges_game_is_named_in_the_language(pseudo_language, options: ChallengeOptions) -> None:
    with pytest.raises(ChallengeError) as info:
        options.validate()
    assert "⟦" in info.value.message and english_words(info.value.message) == []


async def test_a_team_members_illegal_play_is_refused_in_the_language(pseudo_language) -> None:
    game = Game()
    game.opening_roll((3, 1))
    vote = SimpleNamespace(closed=False, answers=("8/5 6/5",), kind="play")

    async def found(game_id: int, version: int) -> object:
        return vote

    consultations = object.__new__(Consultations)
    consultations.votes = SimpleNamespace(vote=found)  # type: ignore[assignment]
    state = SimpleNamespace(id=1, version=4, game=game)
    assert game.dice == Roll(3, 1)
    with pytest.raises(ServiceError) as info:
        await consultations.ballot(state, 4, 5, "8/5 6/4", member=True)  # type: ignore[arg-type]
    assert "⟦" in info.value.message and english_words(info.value.message) == []  # the engine's reason too


def test_an_imported_matchs_players_are_joined_in_the_language(pseudo_language) -> None:
    embed = imported_embed(ImportedAnalysis(names=("Ann", "Bea"), length=5, games_read=0, games=()))
    assert english_words(embed.title or "", {"Ann", "Bea"}) == []  # " vs " too
