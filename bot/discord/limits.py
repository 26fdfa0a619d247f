"""What the bot sends, made safe for Discord: within its limits, and pinging only on purpose.

Every message the bot sends or edits passes through :func:`fit` (the one choke
point; ``tests/bot/discord/test_limits.py`` checks every send in the package
uses it): content, embeds and components are clipped to Discord's limits, and
``allowed_mentions`` is set, to nobody unless the caller names the members it
means to ping (:func:`pinging`).

Text that came from players (names, what they typed) is shown through
:func:`shown` (a name), :func:`quote` (what they typed, at most
:data:`QUOTE_MAX` characters) or :func:`plain` (a sentence of the core's that
may hold either): control characters made visible, markdown and mentions
neutralised, so nobody can format, ping or impersonate through the bot.
"""

from __future__ import annotations

import ast
import functools
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

import discord

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
FILES_MAX = 10
BUTTON_LABEL_MAX = 80
SELECT_OPTIONS_MAX = 25
SELECT_TEXT_MAX = 100
SELECT_PLACEHOLDER_MAX = 150
CUSTOM_ID_MAX = 100

QUOTE_MAX = 100
"""What a player typed is quoted back at most this long."""
NAME_MAX = 32
"""Discord's longest display name or nickname; longer ones (never from Discord) are clipped."""
PLAIN_MAX = 400
"""A sentence from below (an error, a notice) is clipped to this."""

ELLIPSIS = "…"
_BIDI = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"), None)
"""Direction overrides, which could make a name read backwards over the text after it."""


# -- text from players ----------------------------------------------------------------------


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS


def visible(text: str) -> str:
    """Control characters as their Unicode pictures (NUL as ␀), unencodable ones as �, no direction overrides."""
    out = []
    for char in text.translate(_BIDI):
        code = ord(char)
        if code < 0x20:
            out.append(chr(0x2400 + code))
        elif code == 0x7F:
            out.append("\u2421")
        elif unicodedata.category(char) in ("Cc", "Cs"):
            out.append("\ufffd")
        else:
            out.append(char)
    return "".join(out)


def escape(text: str) -> str:
    """Markdown, mentions (``@everyone``, ``<@id>``, ``<#id>``, ``<t:...>``) and links shown as typed.

    Every markup character gets a backslash (Discord drops it when drawing):
    discord.py's ``escape_markdown`` looks for pairs and whole links, and a
    crafted name holding a link and code fools it into escaping only the first."""
    text = _MARKUP.sub(r"\\\g<0>", text)
    text = _LINE_START.sub(r"\\\g<0>", text)
    return discord.utils.escape_mentions(text)


_MARKUP = re.compile(r"[\\*_~|`\[\]<]")
"""Emphasis, strike, spoilers, code, links, and what starts a mention or a timestamp."""
_LINE_START = re.compile(r"^[#>\-]")
"""Headings, quotes, lists and subtext count only at the start of a line (text here has no newlines)."""


@functools.lru_cache(maxsize=4096)  # every board shows the same names and many of the same sentences
def neutral(text: str, limit: int) -> str:
    """Player-sourced ``text``, clipped to ``limit`` visible characters, safe to show anywhere."""
    return escape(visible(clip(text, limit)))


def shown(name: str) -> str:
    """A player's name as shown in text."""
    return neutral(name, NAME_MAX) or "?"


def quote(text: str, limit: int = QUOTE_MAX, *, around: int | None = None) -> str:
    """What a player typed, quoted: “24/18 13/1…” (``around``: keep that character in view)."""
    if around is not None and len(text) > limit and around > limit - 10:
        text = ELLIPSIS + text[around - limit // 2 :]
    return f"“{neutral(text, limit)}”"


def plain(text: str, limit: int = PLAIN_MAX) -> str:
    """A sentence from the core or the engine (plain text that may hold names or typed text),
    worded in the language in force if the core made it an :class:`i18n.Said`."""
    return neutral(str(text), limit)


_LITERAL = re.compile(r"""(?<!\w)(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")(?!\w)""")
"""A Python string literal (``repr``) standing alone: not the apostrophes of "can't ... it's"."""


def reason(text: str, limit: int = PLAIN_MAX) -> str:
    """An engine's reason, whose Python literals (``unexpected '\\x00'``) become quotes (“␀”)."""
    parts, at = [], 0
    for match in _LITERAL.finditer(text[:limit]):
        parts.append(plain(text[at : match.start()], limit))
        try:
            value = ast.literal_eval(match.group())
        except (ValueError, SyntaxError):
            value = match.group()[1:-1]
        parts.append(quote(str(value), 20))
        at = match.end()
    parts.append(plain(text[at:limit] + (ELLIPSIS if len(text) > limit else ""), limit))
    return "".join(parts)


def in_code(text: str) -> str:
    """Text for inside a code block: a backtick could close it, so it becomes a look-alike."""
    return visible(text).replace("`", "ˋ")


# -- mentions ---------------------------------------------------------------------------------


def pinging(*user_ids: int | None) -> discord.AllowedMentions:
    """Exactly these members are pinged (nobody if none): never roles, ``@everyone`` or a replied-to author."""
    users = [discord.Object(id=u) for u in dict.fromkeys(user_ids) if u]
    if not users:
        return discord.AllowedMentions.none()
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=users)


# -- the choke point ----------------------------------------------------------------------------


def fit(**fields: Any) -> dict[str, Any]:
    """The keyword arguments of a send or edit, within Discord's limits and with ``allowed_mentions``.

    ``content`` is clipped, embeds are trimmed (:func:`fit_embeds`), a view's
    items are checked (:func:`fit_view`). Every field is kept as given (on an
    edit ``view=None`` removes the buttons). ``allowed_mentions`` (from
    :func:`pinging`) defaults to nobody.
    """
    out = dict(fields)
    content = out.get("content")
    if isinstance(content, str):
        out["content"] = clip(content, CONTENT_MAX)
    if out.get("embed") is not None:
        out["embed"] = fit_embeds([out["embed"]])[0]
    if out.get("embeds") is not None:
        out["embeds"] = fit_embeds(out["embeds"])
    if out.get("view") is not None:
        fit_view(out["view"])
    if out.get("files") is not None and len(out["files"]) > FILES_MAX:
        raise ValueError(f"{len(out['files'])} files, Discord takes {FILES_MAX}")
    if out.get("allowed_mentions") is None:
        out["allowed_mentions"] = discord.AllowedMentions.none()
    return out


def fit_embeds(embeds: Sequence[discord.Embed]) -> list[discord.Embed]:
    """Copies of ``embeds`` within every limit: each part clipped, at most 25 fields and 10
    embeds, and 6000 characters in all (the first embeds whole, the later ones cut)."""
    fitted = [_fit_embed(e.copy()) for e in list(embeds)[:EMBEDS_MAX]]
    budget = EMBED_TOTAL_MAX
    for embed in fitted:
        budget -= _shrink(embed, budget)
    return fitted


def _shrink(embed: discord.Embed, budget: int) -> int:
    """Cut ``embed`` to ``budget`` characters (title, description, fields, footer, author,
    in that order of keeping); returns the characters it keeps."""
    if len(embed) <= budget:
        return len(embed)
    left = budget
    if embed.title:
        embed.title = clip(embed.title, left) if left > 1 else None
        left -= len(embed.title or "")
    if embed.description:
        embed.description = clip(embed.description, left) if left > 1 else None
        left -= len(embed.description or "")
    fields = embed.fields
    embed.clear_fields()
    for f in fields:
        size = len(f.name or "") + len(f.value or "")
        if size <= left:
            embed.add_field(name=f.name, value=f.value, inline=bool(f.inline))
            left -= size
    footer, author = embed.footer, embed.author
    if footer.text:
        text = clip(footer.text, left) if left > 1 else None
        embed.set_footer(text=text, icon_url=footer.icon_url)
        left -= len(text or "")
    if author.name:
        if left > 1:
            embed.set_author(name=clip(author.name, left), url=author.url, icon_url=author.icon_url)
        else:
            embed.remove_author()
    return len(embed)


def _fit_embed(embed: discord.Embed) -> discord.Embed:
    if embed.title:
        embed.title = clip(embed.title, EMBED_TITLE_MAX)
    if embed.description:
        embed.description = clip(embed.description, EMBED_DESCRIPTION_MAX)
    fields = embed.fields
    if len(fields) > EMBED_FIELDS_MAX or any(
        len(f.name or "") > EMBED_FIELD_NAME_MAX
        or len(f.value or "") > EMBED_FIELD_VALUE_MAX
        or not f.name
        or not f.value
        for f in fields
    ):
        embed.clear_fields()
        for f in fields[:EMBED_FIELDS_MAX]:
            embed.add_field(
                name=clip(f.name or "\u200b", EMBED_FIELD_NAME_MAX),
                value=clip(f.value or "\u200b", EMBED_FIELD_VALUE_MAX),
                inline=bool(f.inline),
            )
    if embed.footer.text and len(embed.footer.text) > EMBED_FOOTER_MAX:
        embed.set_footer(text=clip(embed.footer.text, EMBED_FOOTER_MAX), icon_url=embed.footer.icon_url)
    if embed.author.name and len(embed.author.name) > EMBED_AUTHOR_MAX:
        embed.set_author(
            name=clip(embed.author.name, EMBED_AUTHOR_MAX), url=embed.author.url, icon_url=embed.author.icon_url
        )
    return embed


def fit_view(view: discord.ui.View) -> discord.ui.View:
    """Clip the labels of ``view``'s items in place; a custom id or option value over
    Discord's limit carries state that can't be cut, so it is a bug: ValueError."""
    for child in view.children:
        item = getattr(child, "item", child)  # a DynamicItem wraps its button or select
        custom_id = getattr(item, "custom_id", None)
        if custom_id is not None and len(custom_id) > CUSTOM_ID_MAX:
            raise ValueError(f"custom id over {CUSTOM_ID_MAX} characters: {custom_id[:40]}…")
        if isinstance(item, discord.ui.Button):
            if item.label:
                item.label = clip(item.label, BUTTON_LABEL_MAX)
        elif isinstance(item, discord.ui.Select):
            if item.placeholder:
                item.placeholder = clip(item.placeholder, SELECT_PLACEHOLDER_MAX)
            options = item.options[:SELECT_OPTIONS_MAX]
            for option in options:
                if len(option.value) > SELECT_TEXT_MAX:
                    raise ValueError(f"select value over {SELECT_TEXT_MAX} characters: {option.value[:40]}…")
                option.label = clip(option.label, SELECT_TEXT_MAX)
                if option.description:
                    option.description = clip(option.description, SELECT_TEXT_MAX)
            if len(options) < len(item.options):
                item.options = options
                item.max_values = min(item.max_values, len(options))
    return view
