"""The catalogues: the template in step with the code, each language's file well formed."""

from __future__ import annotations

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

import i18n
from tests.i18n.catalogues import english_words, pseudo, pseudo_catalogue, scripts, template

LANGUAGES = [language for language in i18n.LANGUAGES if language != i18n.ENGLISH]


def test_the_committed_template_is_in_step_with_the_code() -> None:
    """A message added to the code without `make catalogues` fails here (and one removed)."""
    script = scripts()
    extracted, committed = script.keys(script.template()), script.keys(template())
    assert extracted - committed == set(), "run `make catalogues`: new messages are missing from i18n/messages.pot"
    assert committed - extracted == set(), "run `make catalogues`: i18n/messages.pot holds messages gone from the code"


def test_a_message_that_bypasses_extraction_is_caught(tmp_path, monkeypatch) -> None:
    """The check compares message ids: one more in the code is a difference."""
    script = scripts()
    extracted = script.keys(script.template())
    assert ("A message only this test writes", None) not in extracted
    source = tmp_path / "bot" / "extra.py"
    source.parent.mkdir()
    source.write_text('from i18n import _\n\nTEXT = _("A message only this test writes")\n')
    (tmp_path / "i18n").mkdir()
    (tmp_path / "i18n" / "babel.cfg").write_text(script.MAPPING.read_text())
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(script, "MAPPING", tmp_path / "i18n" / "babel.cfg")
    assert ("A message only this test writes", None) in script.keys(script.code_messages())


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_has_its_catalogue_with_babels_plural_forms(language: str) -> None:
    path = i18n.LOCALES / language / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as file:
        catalog = read_po(file, locale=language)
    assert catalog.plural_forms == Catalog(locale=language).plural_forms
    assert {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in catalog if m.id} >= {
        (m.id if isinstance(m.id, str) else m.id[0], m.context) for m in template() if m.id
    }, "run `make catalogues`: the catalogue lacks messages of the template"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_translation_keeps_its_placeholders_and_passes_babels_checks(language: str) -> None:
    path = i18n.LOCALES / language / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as file:
        catalog = read_po(file, locale=language)
    problems = [(message.id, [str(e) for e in errors]) for message, errors in catalog.check()]
    assert problems == []


def test_the_pseudo_language_keeps_placeholders_and_markup() -> None:
    assert pseudo("{name} doubles to {value}") == "{name}⟦ dóúbléš tó ⟧{value}"
    assert pseudo("Change this with `/bg settings`.") == "⟦Cháñgé thíš wíth ⟧`/bg settings`⟦.⟧"
    catalog = pseudo_catalogue()
    assert len(catalog) == len([m for m in template() if m.id])


def test_english_words_finds_what_went_round_the_catalogue() -> None:
    assert english_words("⟦{x} dóúblés⟧ alice 13/7 6/off <@1> `/bg move` 3", {"alice"}) == []
    assert english_words("⟦Çháñgé⟧ Your turn", set()) == ["Your", "turn"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_translates_every_message(language: str) -> None:
    """Every message of the template translated, every plural form filled, none fuzzy (the bot
    ignores a fuzzy entry: its English changed since): a contributor adding a language, or a
    message, reads here what is left to translate."""
    path = i18n.LOCALES / language / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as file:
        catalog = read_po(file, locale=language)
    wanted = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in template() if m.id}
    left = []
    for message in catalog:
        key = (message.id if isinstance(message.id, str) else message.id[0], message.context)
        if not message.id or key not in wanted:
            continue
        forms = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        if message.fuzzy or not all(forms):
            left.append(("fuzzy " if message.fuzzy else "") + key[0][:60])
    assert left == [], f"{len(left)} messages of {language} to translate, e.g. {left[:10]}"
