"""Catalogues made for the tests: the pseudo-language, and small ones for a language.

The pseudo-language translates every message of the template: each is wrapped
in "⟦…⟧" and its letters accented, its placeholders, code spans, mentions,
timestamps and links' addresses kept. Text a member reads outside "⟦…⟧" (names,
notation and numbers aside) bypassed the catalogue: :func:`english_words` finds it.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

import i18n

ROOT = Path(__file__).resolve().parents[2]
PSEUDO = "fr"
"""The catalogue slot the pseudo-language takes in these tests (a language the bot speaks)."""

KEPT = re.compile(r"(\{[^{}]*\}|`[^`]*`|<[^<>]*>|\]\([^()]*\)|https?://\S+|\*\*|__|\\n)")
ACCENTS = str.maketrans("aeiouyAEIOUYcnsz", "áéíóúýÁÉÍÓÚÝçñšž")


def scripts() -> ModuleType:
    spec = importlib.util.spec_from_file_location("catalogues_script", ROOT / "scripts" / "catalogues.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pseudo(text: str) -> str:
    """``text`` in the pseudo-language: each stretch of words bracketed and accented, what is kept
    (placeholders, code, mentions, links' addresses, markup) outside the brackets, so what the
    bot fills in is checked too."""
    parts = KEPT.split(text)
    return "".join(
        part if index % 2 else f"⟦{part.translate(ACCENTS)}⟧" if part.strip() else part
        for index, part in enumerate(parts)
    )


def template() -> Catalog:
    with (ROOT / "i18n" / "messages.pot").open("rb") as file:
        return read_po(file)


def pseudo_catalogue(locale: str = PSEUDO) -> Catalog:
    catalog = Catalog(locale=locale)
    for message in template():
        if not message.id:
            continue
        if not isinstance(message.id, str):
            forms = [pseudo(message.id[0])] + [pseudo(message.id[1])] * (catalog.num_plurals - 1)
            catalog.add(message.id, tuple(forms), context=message.context)
        else:
            catalog.add(message.id, pseudo(message.id), context=message.context)
    return catalog


def small_catalogue(locale: str, translations: Mapping[Any, str]) -> Catalog:
    """A catalogue of a few messages (keys: msgid, or (context, msgid))."""
    catalog = Catalog(locale=locale)
    for key, text in translations.items():
        context, msgid = key if isinstance(key, tuple) else (None, key)
        catalog.add(msgid, text, context=context)
    return catalog


@contextmanager
def catalogues(monkeypatch: pytest.MonkeyPatch, **by_language: Catalog) -> Iterator[None]:
    """The bot reads these catalogues (and no other) while inside."""
    monkeypatch.setattr(i18n, "catalogue", lambda language: by_language.get(language))
    yield


BRACKETED = re.compile(r"⟦[^⟦⟧]*⟧")
WORD = re.compile(r"[A-Za-z]{2,}")
NOTATION = re.compile(r"\b(?:bar|off)\b|\b\d+[-/]\d+\b", re.IGNORECASE)
"""Backgammon notation (13/7, bar/22, 6/off, 6-5): the same in every language."""


def english_words(text: str, names: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """The words of ``text`` that went round the catalogue: outside "⟦…⟧", not a name,
    notation, a number, a mention, a timestamp, a code span or a link's address."""
    while BRACKETED.search(text):
        text = BRACKETED.sub(" ", text)
    text = KEPT.sub(" ", text)
    text = NOTATION.sub(" ", text)
    return [word for word in WORD.findall(text) if word.lower() not in {n.lower() for n in names}]
