"""Extract the catalogue's template and bring every language's catalogue up to date.

``python scripts/catalogues.py`` (``make catalogues``): the messages marked in
the code (``_``, ``ngettext``, ``pgettext``, ``N_``, ``Said``, ``said_n``; the
mapping is ``i18n/babel.cfg``) and every command description and choice name
of the command tree (message context ``command``) go to ``i18n/messages.pot``;
each ``i18n/locales/<language>/LC_MESSAGES/messages.po`` is then updated from
it (as ``pybabel update`` does: new messages added untranslated, gone ones
kept as obsolete, changed ones marked fuzzy). ``--check`` changes nothing and
fails when the committed template is out of step with the code.
"""

from __future__ import annotations

import asyncio
import datetime
import io
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import i18n  # noqa: E402

TEMPLATE = ROOT / "i18n" / "messages.pot"
MAPPING = ROOT / "i18n" / "babel.cfg"
KEYWORDS: dict[str, Any] = {**DEFAULT_KEYWORDS, "Said": None, "said_n": (1, 2), "Reason": None}
FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
"""The template's and catalogues' creation date: fixed, so regenerating changes only what changed."""
PROJECT = "backgammon-bot"


def code_messages() -> Catalog:
    """The messages marked in the code."""
    with MAPPING.open() as file:
        method_map, options_map = parse_mapping_cfg(file)
    catalog = Catalog(project=PROJECT, creation_date=FIXED_DATE, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS, comment_tags=("Translators:",), strip_comment_tags=True
    ):
        if not (message[0] if isinstance(message, tuple) else message):
            continue
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


async def _tree_texts() -> dict[str, str]:
    from bot.config import Settings
    from bot.core.model import Limits
    from bot.discord.client import BackgammonBot
    from bot.discord.cogs.club import ClubCog
    from bot.discord.cogs.game import GameCog
    from bot.discord.cogs.learn import LearnCog
    from bot.discord.cogs.patience import PatienceCog
    from bot.discord.cogs.tools import ToolsCog
    from bot.discord.cogs.tourney import TourneyCog
    from bot.discord.translator import command_texts

    settings = Settings(token="t")
    service = SimpleNamespace(
        limits=Limits(),
        tournaments=None,
        patience=SimpleNamespace(warm_up=mock.AsyncMock()),
        languages=None,
        store=SimpleNamespace(db=None),  # the kibitzer polls' store, never asked
        clock=None,
        lookups=SimpleNamespace(get_game=None),
        # what the chouette listens to (bot.core.chouettes), never called here
        recorder=SimpleNamespace(finish_listeners=[]),
        roll_guards=[],
        deliveries=SimpleNamespace(wordings={}),
    )
    bot = BackgammonBot(settings, service=service, drawing=SimpleNamespace(), serving=False, kept_up_for=float)  # type: ignore[arg-type]
    parts = SimpleNamespace(
        settings=settings,
        service=service,
        advice=None,
        table=None,
        cooldowns=None,
        replays=None,
        drawing=None,
        progress=None,
        puzzles=None,
        dispatcher=SimpleNamespace(handlers={}),
        scheduler=None,
    )
    try:
        await bot.add_cog(GameCog(parts))  # type: ignore[arg-type]
        await bot.add_cog(ToolsCog(parts, bot))  # type: ignore[arg-type]
        await bot.add_cog(PatienceCog(parts))  # type: ignore[arg-type]
        await bot.add_cog(TourneyCog(parts, None))  # type: ignore[arg-type]
        await bot.add_cog(LearnCog(parts))  # type: ignore[arg-type]
        await bot.add_cog(ClubCog(parts))  # type: ignore[arg-type]
        return await command_texts(bot.tree)
    finally:
        await bot.http.close()  # the bot never logged in: only its HTTP session to close


def template() -> Catalog:
    """The template: the code's messages, the engine's glossary and the command tree's texts."""
    catalog = code_messages()
    from engine import GLOSSARY  # the engine words nothing through the catalogue: its meanings are added here

    for term in GLOSSARY:
        catalog.add(term.meaning, None, [("engine/glossary.py", 0)], auto_comments=[f"the glossary: {term.word}"])
    from engine.openings import OPENINGS  # the old masters' openings: their aims, words and our notes on them

    for entry in OPENINGS:
        source = f"{entry.source} {entry.roll[0]}-{entry.roll[1]} {entry.play}"
        for text, what in ((entry.aim, "its aim"), (entry.words, "its words, quoted"), (entry.note, "our note")):
            if text:
                catalog.add(
                    text, None, [("engine/openings.py", 0)], auto_comments=[f"the old openings: {source}, {what}"]
                )
    from bot.discord.translator import CONTEXT, LIMIT

    for text, where in sorted(asyncio.run(_tree_texts()).items()):
        if not any(character.isalpha() for character in text):
            continue  # a number or a dice roll: nothing to translate
        catalog.add(text, None, auto_comments=[f"Discord {where}: {LIMIT} characters at most"], context=CONTEXT)
    return catalog


def written(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=120, sort_output=True, include_lineno=False, omit_header=False)
    return buffer.getvalue()


def keys(catalog: Catalog) -> set[tuple[str, str | None]]:
    """The catalogue's messages, as (msgid, context); the header left out."""
    return {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in catalog if m.id}


def update(language: str, pot: Catalog) -> Path:
    """Bring ``language``'s catalogue up to date with the template (made from it if new)."""
    path = i18n.LOCALES / language / "LC_MESSAGES" / "messages.po"
    if path.exists():
        with path.open("rb") as file:
            catalog = read_po(file, locale=language)
    else:
        catalog = Catalog(locale=language, project=PROJECT, creation_date=FIXED_DATE, fuzzy=False)
    catalog.update(pot, update_header_comment=False)
    catalog.revision_date = FIXED_DATE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(written(catalog))
    return path


def main(argv: list[str]) -> int:
    pot = template()
    if "--check" in argv:
        with TEMPLATE.open("rb") as file:
            committed = read_po(file)
        missing, gone = keys(pot) - keys(committed), keys(committed) - keys(pot)
        for msgid, context in sorted(missing, key=str):
            print(f"not in i18n/messages.pot: {msgid!r}" + (f" ({context})" if context else ""))
        for msgid, context in sorted(gone, key=str):
            print(f"in i18n/messages.pot, no longer in the code: {msgid!r}" + (f" ({context})" if context else ""))
        return 1 if missing or gone else 0
    TEMPLATE.write_bytes(written(pot))
    print(f"{len(pot)} messages in {TEMPLATE.relative_to(ROOT)}")
    for language in i18n.LANGUAGES:
        if language != i18n.ENGLISH:
            print(f"updated {update(language, pot).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
