"""The language in force, the fallbacks and the plural rules of :mod:`i18n`."""

from __future__ import annotations

import doctest

import pytest
from babel.messages.catalog import Catalog

import i18n


def test_the_docstring_examples_run() -> None:
    failures, tried = doctest.testmod(i18n)
    assert tried > 0 and failures == 0


@pytest.mark.parametrize(
    ("discord", "language"),
    [
        ("el", "el"),
        ("tr", "tr"),
        ("ru", "ru"),
        ("de", "de"),
        ("fr", "fr"),
        ("es-ES", "es"),
        ("es-419", "es"),
        ("it", "it"),
        ("pt-BR", "pt_BR"),
        ("en-US", "en"),
        ("en-GB", "en"),
        ("uk", "en"),
        ("ja", "en"),
        ("", "en"),
    ],
)
def test_each_discord_locale_has_its_language_or_english(discord: str, language: str) -> None:
    assert i18n.language_of(discord) == language


def test_the_language_in_force_is_restored_after_speaking() -> None:
    assert i18n.current() == "en"
    with i18n.speaking("es-419"):
        assert i18n.current() == "es"
        with i18n.speaking("ar"):
            assert i18n.current() == "ar"
        assert i18n.current() == "es"
    assert i18n.current() == "en"


@pytest.mark.parametrize("language", [name for name in i18n.LANGUAGES if name != "en"])
def test_plural_forms_follow_each_languages_rule(language: str) -> None:
    """The index gettext picks equals Babel's own rule for the language, for counts 0..200."""
    catalog = Catalog(locale=language)
    assert all(0 <= i18n._plural_index(language, n) < catalog.num_plurals for n in range(201))


def test_russian_has_three_forms_by_the_last_digits() -> None:
    assert [i18n._plural_index("ru", n) for n in (1, 2, 5, 11, 21, 22, 25, 111)] == [0, 1, 2, 2, 0, 1, 2, 2]
