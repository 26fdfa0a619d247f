"""Command descriptions and choice names in each member's language, at sync.

Discord shows a command's description, its options' descriptions and its
choices' names in the member's client language when the synced command carries
them (``description_localizations``...). discord.py asks a
:class:`app_commands.Translator` for each of them, for every locale, at
:meth:`app_commands.CommandTree.sync`; this one reads the catalogues
(:mod:`i18n`, the message context ``"command"``). Names stay English, so help,
docs and muscle memory agree everywhere. A translation outside Discord's
limits (1-100 characters) is left out: the member reads the English one
(tests/i18n/test_commands.py holds every catalogue to the limits).

Discord also counts each command's texts (names, descriptions, choices' names
and values) in each locale, and refuses a sync past 4000 characters. A
language longer than English may push a large command (``/bg``) past it: then
the translations that lengthen that command most are left out (read in
English), one by one, until it fits (:func:`left_out`); every other
translation is kept.
"""

from __future__ import annotations

import functools
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

import i18n

CONTEXT = "command"
"""The message context of the command texts in the catalogues."""
LIMIT = 100
"""Discord's limit on a description or a choice's name, in characters."""
COMMAND_LIMIT = 4000
"""Discord's limit on a command's texts together, in each locale."""
NAMES = (Where.command_name, Where.group_name, Where.parameter_name)
"""Names are never translated."""


def translation(text: str, locale: discord.Locale) -> str | None:
    """``text`` in ``locale``'s language, or None (English, untranslated, or past the limits)."""
    language = i18n.language_of(locale.value)
    if language == i18n.ENGLISH:
        return None
    return _in(language, text)


def _in(language: str, text: str) -> str | None:
    # A sync asks for every text in all 32 locales: remembered per catalogue read.
    return _translated(text, language, id(i18n.catalogue(language)))


@functools.lru_cache(maxsize=16_384)  # ~250 texts x 9 languages, with room for catalogues read again
def _translated(text: str, language: str, catalogue: int) -> str | None:
    with i18n.speaking(language):
        found = i18n.pgettext(CONTEXT, text)
    if found == text or not 1 <= len(found) <= LIMIT:
        return None
    return found


def _parts(payload: dict[str, Any], fixed: list[int], texts: list[str]) -> None:
    """A command's payload (English) as the characters that never change (names, choices'
    values) and the texts a language may translate (descriptions, choices' names)."""
    fixed.append(len(payload.get("name", "")))
    if payload.get("description"):
        texts.append(payload["description"])
    for choice in payload.get("choices") or []:
        texts.append(choice["name"])
        fixed.append(len(str(choice["value"])))
    for option in payload.get("options") or []:
        _parts(option, fixed, texts)


def left_out(payloads: list[dict[str, Any]], language: str) -> frozenset[str]:
    """The translations left out in ``language`` so that every command fits
    :data:`COMMAND_LIMIT`: none while a command fits; else the translations
    that lengthen it most (in a real language, its longest), one by one, until it does. A text left out is left out of
    every command (a translation is one per text), so the commands are counted
    again until none is over."""
    commands = []
    for payload in payloads:
        fixed: list[int] = []
        texts: list[str] = []
        _parts(payload, fixed, texts)
        commands.append((sum(fixed), texts))
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for fixed_total, texts in commands:
            shown = {text: _in(language, text) for text in set(texts)}
            kept = {text: found for text, found in shown.items() if found is not None and text not in out}
            total = fixed_total + sum(len(kept.get(text, text)) for text in texts)
            # what lengthens the command most first (in a real language, the longest translations)
            for text in sorted(kept, key=lambda text: (len(text) - len(kept[text]), -len(kept[text]), text)):
                if total <= COMMAND_LIMIT:
                    break
                count = texts.count(text)
                total += count * (len(text) - len(kept[text]))
                out.add(text)
                changed = True
    return frozenset(out)


class CatalogueTranslator(app_commands.Translator):
    """The catalogues' translations, each command within :data:`COMMAND_LIMIT` in every
    locale (``tree``: the commands counted; None counts nothing, for one text alone)."""

    def __init__(self, tree: app_commands.CommandTree[Any] | None = None) -> None:
        super().__init__()
        self.tree = tree
        self._left_out: dict[tuple[str, int, tuple[int, ...]], frozenset[str]] = {}

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        if context.location in NAMES:
            return None
        found = translation(string.message, locale)
        if found is None or self.tree is None:
            return found
        return None if string.message in self.left_out(i18n.language_of(locale.value)) else found

    def left_out(self, language: str) -> frozenset[str]:
        """The texts left in English in ``language`` (counted once per catalogue and set of commands)."""
        assert self.tree is not None
        commands = self.tree.get_commands()
        key = (language, id(i18n.catalogue(language)), tuple(id(command) for command in commands))
        if key not in self._left_out:
            self._left_out[key] = left_out([command.to_dict(self.tree) for command in commands], language)
        return self._left_out[key]


class Recorder(app_commands.Translator):
    """Records every text the tree would have translated (the catalogue's extraction)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: dict[str, str] = {}
        """text -> where it is (command description, choice name ...)."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        if context.location not in NAMES and string.message:
            self.texts.setdefault(string.message, context.location.name.replace("_", " "))
        return None


async def command_texts(tree: app_commands.CommandTree[Any]) -> dict[str, str]:
    """Every description and choice name of ``tree``'s commands, with where each is."""
    recorder = Recorder()
    for command in tree.get_commands():
        await command.get_translated_payload(tree, recorder)
    return recorder.texts


async def translated_payloads(tree: app_commands.CommandTree[Any]) -> list[dict[str, Any]]:
    """The commands as they are synced (with their localisations)."""
    translator = CatalogueTranslator(tree)
    return [await command.get_translated_payload(tree, translator) for command in tree.get_commands()]
