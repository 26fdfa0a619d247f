"""Command descriptions and choice names through the catalogues, within Discord's limits."""

from __future__ import annotations

from typing import Any

import discord
import pytest

import i18n
from bot.discord.translator import COMMAND_LIMIT, CONTEXT, LIMIT, command_texts, left_out, translated_payloads
from tests.bot.discord.test_tree import tree_bot  # noqa: F401 (the fixture)
from tests.i18n.catalogues import catalogues, pseudo_catalogue, small_catalogue

LANGUAGES = [language for language in i18n.LANGUAGES if language != i18n.ENGLISH]


def localised(payload: dict[str, Any], found: list[tuple[str, str, str]]) -> None:
    """(what, locale, text) of every localisation in a command's payload, its options' and choices'."""
    for key in ("name_localizations", "description_localizations"):
        for locale, text in (payload.get(key) or {}).items():
            found.append((f"{payload.get('name')} {key}", locale, text))
    for option in payload.get("options", []):
        localised(option, found)
    for choice in payload.get("choices", []):
        for locale, text in (choice.get("name_localizations") or {}).items():
            found.append((f"choice {choice['name']}", locale, text))


async def all_localised(tree_bot: Any) -> list[tuple[str, str, str]]:  # noqa: F811
    found: list[tuple[str, str, str]] = []
    for payload in await translated_payloads(tree_bot.tree):
        localised(payload, found)
    return found


async def test_every_synced_description_of_every_language_is_within_discords_limits(tree_bot) -> None:  # noqa: F811
    """The committed catalogues, every language: descriptions and choice names 1-100 characters, names English."""
    found = await all_localised(tree_bot)
    assert [(what, locale) for what, locale, text in found if not 1 <= len(text) <= LIMIT] == []
    assert [what for what, _, _ in found if "name_localizations" in what and not what.startswith("choice")] == []


async def test_the_pseudo_language_reaches_every_description_and_choice_but_no_name(tree_bot, monkeypatch) -> None:  # noqa: F811
    """Every language's slot holds the pseudo-language: every description and choice of every
    command is localised for each Discord locale the bot speaks, within the limits."""
    with catalogues(monkeypatch, **{language: pseudo_catalogue(language) for language in LANGUAGES}):
        found = await all_localised(tree_bot)
    texts = await command_texts(tree_bot.tree)
    wordy = [text for text in texts if any(c.isalpha() for c in text)]
    locales = {"el", "tr", "ru", "de", "fr", "es-ES", "es-419", "it", "pt-BR"}
    assert {locale for _, locale, _ in found} == locales
    assert all(text.startswith("⟦") and 1 <= len(text) <= LIMIT for _, _, text in found)
    german = {text for _, locale, text in found if locale == "de"}
    assert len(german) >= len(set(wordy)) // 2  # /bg (3970 characters in English) keeps what fits; the rest all
    assert not [what for what, _, _ in found if "name_localizations" in what and not what.startswith("choice")]


async def test_a_translation_past_the_limit_is_left_out(tree_bot, monkeypatch) -> None:  # noqa: F811
    too_long = "W" * (LIMIT + 1)
    german = small_catalogue("de", {(CONTEXT, "Roll the dice"): "Würfeln", (CONTEXT, "Offer a double"): too_long})
    with catalogues(monkeypatch, de=german):
        payloads = {p["name"]: p for p in await translated_payloads(tree_bot.tree)}
    options = {o["name"]: o for o in payloads["bg"]["options"]}
    assert options["roll"]["description_localizations"] == {"de": "Würfeln"}
    assert "de" not in options["double"].get("description_localizations", {})
    assert options["roll"].get("name_localizations", {}) == {}


def test_an_untranslated_description_stays_english(monkeypatch) -> None:
    from bot.discord.translator import translation

    with catalogues(monkeypatch, de=small_catalogue("de", {(CONTEXT, "Offer a double"): "Doppeln"})):
        assert translation("Roll the dice", discord.Locale.german) is None  # untranslated: English


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_is_reachable_from_a_discord_locale_or_by_setting(language: str) -> None:
    reachable = {i18n.language_of(locale.value) for locale in discord.Locale}
    assert language in reachable or language == "ar"  # Discord's clients have no Arabic: by setting


def locale_total(payload: dict[str, Any], locale: str) -> int:
    """The characters a command counts toward Discord's 4000 in ``locale`` (names, descriptions,
    choices' names and values; a localisation in place of the English where there is one)."""
    description = (payload.get("description_localizations") or {}).get(locale, payload.get("description", ""))
    total = len(payload["name"]) + len(description)
    for choice in payload.get("choices", []):
        total += len((choice.get("name_localizations") or {}).get(locale, choice["name"])) + len(str(choice["value"]))
    return total + sum(locale_total(option, locale) for option in payload.get("options", []))


async def test_every_command_fits_discords_4000_characters_in_every_language(tree_bot) -> None:  # noqa: F811
    """Discord counts a command's texts per locale: a longer language may not push it past 4000."""
    locales = [locale.value for locale in discord.Locale]
    over = [
        (payload["name"], locale, locale_total(payload, locale))
        for payload in await translated_payloads(tree_bot.tree)
        for locale in locales
        if locale_total(payload, locale) > 4000
    ]
    assert over == []


def over_the_limit(payloads: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return [
        (payload["name"], locale.value, locale_total(payload, locale.value))
        for payload in payloads
        for locale in discord.Locale
        if locale_total(payload, locale.value) > COMMAND_LIMIT
    ]


async def test_every_command_fits_in_every_locale_in_the_pseudo_language(tree_bot, monkeypatch) -> None:  # noqa: F811
    """The pseudo-language lengthens every text ("⟦…⟧"): the largest commands leave their longest
    translations out until they fit, the others keep every one."""
    with catalogues(monkeypatch, **{language: pseudo_catalogue(language) for language in LANGUAGES}):
        payloads = await translated_payloads(tree_bot.tree)
    assert over_the_limit(payloads) == []
    german = {p["name"]: locale_total(p, "de") for p in payloads}
    english = {p["name"]: locale_total(p, "en-US") for p in payloads}
    assert all(german[name] > english[name] for name in english if english[name] > 100)  # translated


async def test_the_longest_translations_of_a_command_past_the_limit_are_left_out(tree_bot, monkeypatch) -> None:  # noqa: F811
    """Every German text 100 characters long: /bg is far past 4000, so its longest ones go back to
    English, while a small command keeps all of its translations."""
    texts = await command_texts(tree_bot.tree)
    long = small_catalogue("de", {(CONTEXT, text): (text + " " + "W" * LIMIT)[:LIMIT] for text in texts})
    with catalogues(monkeypatch, de=long):
        payloads = {p["name"]: p for p in await translated_payloads(tree_bot.tree)}
    assert over_the_limit(list(payloads.values())) == []
    assert locale_total(payloads["bg"], "de") > COMMAND_LIMIT - 2 * LIMIT  # not many more left out than needed
    found: list[tuple[str, str, str]] = []
    localised(payloads["bg"], found)
    assert 0 < len(found) < len(await command_texts_of(tree_bot, "bg"))  # some kept, some left out
    small: list[tuple[str, str, str]] = []
    localised(payloads["patience"], small)
    own = [t for t in await command_texts_of(tree_bot, "patience") if t not in await command_texts_of(tree_bot, "bg")]
    assert len(small) >= len(own)  # every one kept, but for a text /bg shares and left out
    assert all(locale == "de" and text.endswith("W") for _, locale, text in small)


async def command_texts_of(tree_bot: Any, name: str) -> list[str]:  # noqa: F811
    """Each description and choice name of one command, as often as it is there."""
    payload = next(c for c in tree_bot.tree.get_commands() if c.name == name).to_dict(tree_bot.tree)
    texts: list[str] = []

    def walk(part: dict[str, Any]) -> None:
        if part.get("description"):
            texts.append(part["description"])
        texts.extend(choice["name"] for choice in part.get("choices") or [] if any(c.isalpha() for c in choice["name"]))
        for option in part.get("options") or []:
            walk(option)

    walk(payload)
    return texts


def test_left_out_drops_the_longest_translations_first_and_only_as_many_as_needed(monkeypatch) -> None:
    """60 options, German descriptions of 41 to 100 characters: 4402 in all, 402 too many.
    Leaving out the 100, 99, 98, 97 and 96 (each then 3 characters of English) brings it to 3927."""
    command = {
        "name": "x",
        "description": "c",
        "options": [{"name": f"o{n}", "description": f"d{n}"} for n in range(60)],
    }
    german = small_catalogue("de", {(CONTEXT, f"d{n}"): "x" * (41 + n) for n in range(60)})
    with catalogues(monkeypatch, de=german):
        assert left_out([command], "de") == {"d59", "d58", "d57", "d56", "d55"}
        assert left_out([{**command, "options": command["options"][:50]}], "de") == frozenset()  # it fits
