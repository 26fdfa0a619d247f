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
NAMES = (Where.command_name, Where.group_name, Where.parameter_name)
"""Names are never translated."""


def translation(text: str, locale: discord.Locale) -> str | None:
    """``text`` in ``locale``'s language, or None (English, untranslated, or too long)."""
    language = i18n.language_of(locale.value)
    if language == i18n.ENGLISH:
        return None
    # A sync asks for every text in all 32 locales: remembered per catalogue read.
    return _translated(text, language, id(i18n.catalogue(language)))


@functools.lru_cache(maxsize=16_384)  # ~250 texts x 9 languages, with room for catalogues read again
def _translated(text: str, language: str, catalogue: int) -> str | None:
    with i18n.speaking(language):
        found = i18n.pgettext(CONTEXT, text)
    if found == text or not 1 <= len(found) <= min(LIMIT, len(text)):
        # No longer than the English text: then every command fits Discord's 4000
        # characters in every language whenever it fits in English (tests/bot/discord/test_tree.py).
        return None
    return found


class CatalogueTranslator(app_commands.Translator):
    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        if context.location in NAMES:
            return None
        return translation(string.message, locale)


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
    translator = CatalogueTranslator()
    return [await command.get_translated_payload(tree, translator) for command in tree.get_commands()]
