"""Every word a member reads, in their language.

The bot speaks one language per message: the member's for an answer to them,
the server's for a public post. Which one is in force is a context variable,
set around the work for one interaction or one post (:func:`speaking`), so the
code that words a message needs no locale argument: it calls :func:`_`,
:func:`ngettext` (plural forms) or :func:`npgettext`, and formats numbers and
dates with :func:`number` and :func:`date`.

Catalogues are gettext ``.po`` files managed with Babel, one per language under
``i18n/locales/<language>/LC_MESSAGES/messages.po``, read once on first use
(no compiled ``.mo`` files to keep in step). A message a catalogue lacks is
said in English. Logs and exceptions meant for the operator stay English: they
never go through here.

>>> with speaking("en"):
...     _("Your turn")
'Your turn'
>>> ngettext("{count} point", "{count} points", 3).format(count=3)
'3 points'
"""

from __future__ import annotations

import datetime
import functools
import gettext
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from babel import Locale
from babel.dates import format_date, format_datetime
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

ENGLISH = "en"
LANGUAGES: tuple[str, ...] = (ENGLISH, "el", "tr", "ru", "de", "fr", "es", "it", "pt_BR", "ar")
"""The languages the bot speaks, as catalogue names (Babel's locale identifiers)."""

LOCALES = Path(__file__).resolve().parent / "locales"

_DISCORD: dict[str, str] = {
    "es-ES": "es",
    "es-419": "es",  # Latin American Spanish falls back to Spain's
    "pt-BR": "pt_BR",
}

_current: ContextVar[str] = ContextVar("language", default=ENGLISH)


def language_of(discord_locale: str | None) -> str:
    """The catalogue for a Discord locale (``"el"``, ``"es-419"``, ``"pt-BR"`` ...), English
    when the bot does not speak it.

    >>> language_of("es-419"), language_of("el"), language_of("ja"), language_of(None)
    ('es', 'el', 'en', 'en')
    """
    if not discord_locale:
        return ENGLISH
    name = _DISCORD.get(discord_locale, discord_locale.replace("-", "_"))
    if name in LANGUAGES:
        return name
    base = name.split("_")[0]
    return base if base in LANGUAGES else ENGLISH


def current() -> str:
    """The language in force."""
    return _current.get()


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Word everything inside in ``language`` (a catalogue name or a Discord locale)."""
    chosen = language if language in LANGUAGES else language_of(language)
    token = _current.set(chosen)
    try:
        yield chosen
    finally:
        _current.reset(token)


def speak(language: str | None) -> str:
    """Word the rest of the current task in ``language`` (an interaction's task, once the
    member chose a new language: its answer is in the new one)."""
    chosen = language if language in LANGUAGES else language_of(language)
    _current.set(chosen)
    return chosen


@functools.cache
def catalogue(language: str) -> Catalog | None:
    """The language's catalogue, or None (English needs none)."""
    path = LOCALES / language / "LC_MESSAGES" / "messages.po"
    if language == ENGLISH or not path.exists():
        return None
    with path.open("rb") as file:
        return read_po(file, locale=language)


def _lookup(key: str | tuple[str, str], language: str) -> str | list[str] | tuple[str, ...] | None:
    found = catalogue(language)
    if found is None:
        return None
    message = found.get(key[0] if isinstance(key, tuple) else key, context=key[1] if isinstance(key, tuple) else None)
    if message is None or message.fuzzy or not message.string:
        return None
    return message.string


def _(message: str) -> str:
    """``message`` in the language in force (itself in English, or when untranslated)."""
    found = _lookup(message, current())
    return found if isinstance(found, str) and found else message


def pgettext(context: str, message: str) -> str:
    """``message`` in the sense ``context`` names (e.g. "cube" for "Double" the verb)."""
    found = _lookup((message, context), current())
    return found if isinstance(found, str) and found else message


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form for ``count`` in the language in force (its own plural rule)."""
    language = current()
    found = _lookup(singular, language)
    if isinstance(found, (list, tuple)) and all(found):
        index = _plural_index(language, count)
        if index < len(found):
            return found[index]
    return singular if count == 1 else plural


class Said(str):
    """A message worded where it is shown, not where it is made: the core words what
    happened during a member's click (their language), and the board that shows it
    is public (the server's). Its value is the English text; ``str()`` and f-strings
    give it in the language in force then (its placeholders, themselves :class:`Said`
    or not, formatted after translation).

    >>> said = Said("{who} doubles", who="Ann")
    >>> said, f"{said}!"
    ('Ann doubles', 'Ann doubles!')
    """

    message: str
    plural: str | None
    number: int
    args: dict[str, object]

    def __new__(cls, message: str, /, *, plural: str | None = None, count: int = 1, **args: object) -> Said:
        english = message if plural is None or count == 1 else plural
        values = {key: str.__str__(value) if isinstance(value, str) else value for key, value in args.items()}
        self = super().__new__(cls, english.format(count=count, **values))
        self.message, self.plural, self.number, self.args = message, plural, count, args
        return self

    def __str__(self) -> str:
        worded = _(self.message) if self.plural is None else ngettext(self.message, self.plural, self.number)
        return worded.format(count=self.number, **{key: str(value) for key, value in self.args.items()})

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def dump(self) -> dict[str, object]:
        """The message as JSON (kept in the outbox until it is worded for its readers: :meth:`load`)."""
        args = {key: value.dump() if isinstance(value, Said) else value for key, value in self.args.items()}
        return {"message": self.message, "plural": self.plural, "count": self.number, "args": args}

    @classmethod
    def load(cls, data: object) -> Said | None:
        """A message :meth:`dump` kept (None if ``data`` is none)."""
        if not isinstance(data, dict) or not isinstance(data.get("message"), str):
            return None
        args = {
            key: cls.load(value) or value if isinstance(value, dict) else value
            for key, value in (data.get("args") or {}).items()
        }
        return cls(data["message"], plural=data.get("plural"), count=int(data.get("count") or 1), **args)

    def __reduce__(self) -> tuple[object, ...]:
        return (_said, (self.message, self.plural, self.number, self.args))


def _said(message: str, plural: str | None, count: int, args: dict[str, object]) -> Said:
    return Said(message, plural=plural, count=count, **args)


def said_n(singular: str, plural: str, count: int, /, **args: object) -> Said:
    """A :class:`Said` with plural forms (``{count}`` is the count)."""
    return Said(singular, plural=plural, count=count, **args)


def N_(message: str) -> str:
    """Marks a message for the catalogue where it is defined (a constant); translate it with :func:`_` where used."""
    return message


@functools.cache
def _plural_rule(language: str) -> Callable[[int], int]:
    """gettext's plural rule for ``language`` (Babel's C expression, compiled by the standard library)."""
    return gettext.c2py(Catalog(locale=language).plural_expr)


def _plural_index(language: str, count: int) -> int:
    return _plural_rule(language)(count)


def locale(language: str | None = None) -> Locale:
    """Babel's locale for numbers and dates."""
    return Locale.parse(language or current())


def date(value: datetime.datetime | datetime.date, pattern: str) -> str:
    """``value`` in the language in force, by a CLDR ``pattern`` ("EEE d MMM HH:mm": "Sat 28 Nov 14:00",
    "Σάβ 28 Νοε 14:00"): the month's and the day's names are the language's own.

    >>> with speaking("de"):
    ...     date(datetime.datetime(2026, 3, 2, 18, 5), "EEE d MMM HH:mm")
    'Mo. 2 März 18:05'
    """
    if isinstance(value, datetime.datetime):
        return format_datetime(value, pattern, locale=locale())
    return format_date(value, pattern, locale=locale())


def worded(refusal: object) -> str:
    """An engine's refusal in the language in force: an ``engine.reasons.Reason`` (its English
    template, the catalogue's message, and its values), or an error raised with one; anything
    else as its text. Read by its attributes: this package imports no layer.

    >>> class Refusal(str):  # what engine.reasons.Reason holds
    ...     template, values = "{name} has {count} checkers", {"name": "Ann", "count": 16}
    >>> worded(Refusal("Ann has 16 checkers")), worded(ValueError(Refusal("Ann has 16 checkers")))
    ('Ann has 16 checkers', 'Ann has 16 checkers')
    """
    if isinstance(refusal, BaseException):
        return worded(refusal.args[0]) if len(refusal.args) == 1 else str(refusal)
    template, values = getattr(refusal, "template", None), getattr(refusal, "values", None)
    if not isinstance(template, str) or not isinstance(values, dict):
        return str(refusal)
    shown = {
        key: worded(value) if isinstance(value, BaseException) or hasattr(value, "template") else value
        for key, value in values.items()
    }
    try:
        return _(template).format(**shown)
    except (KeyError, IndexError, ValueError):  # a translation with a placeholder of its own: the English
        return template.format(**shown)
