"""A refusal's words, kept apart from their values so a layer above can word them in any language.

The engine says why it refuses something (an illegal play, a position it cannot
read, a card that does not fit) in English, and imports nothing that
translates. Each refusal a member may read is a :class:`Reason`: a ``str`` (its
English text, so logs, ``str(error)`` and tests read as before) that also keeps
its :attr:`~Reason.template`, with named placeholders, and the
:attr:`~Reason.values` that fill them. The template is the refusal's stable key:
the catalogue's message id, with which the bot words the refusal for the member
who reads it (``i18n.worded``).

A value is a number, a point, notation, a card, an ID or the member's own text;
a word or a phrase the member reads is itself a :class:`Reason` (one with no
values is a word the catalogue translates: ``who=Reason("bottom")``), so that
no English word is left in a translated sentence. A game's name is
:func:`game_name`'s, the catalogue's message for it (the bot's own name for
the game).

>>> reason = Reason("that is not a legal play of {high}-{low} here", high=6, low=5)
>>> reason, reason.template, reason.values
('that is not a legal play of 6-5 here', 'that is not a legal play of {high}-{low} here', {'high': 6, 'low': 5})
"""

from __future__ import annotations

from typing import Any


class Reason(str):
    """A refusal in English, with its template and values kept (see the module)."""

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, /, **values: Any) -> Reason:
        self = super().__new__(cls, template.format(**values))
        self.template, self.values = template, values
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # kept whole across processes (errors cross the drawing workers)
        return (_reason, (self.template, self.values))


def _reason(template: str, values: dict[str, Any]) -> Reason:
    return Reason(template, **values)


GAME_NAMES: dict[str, Reason] = {
    "backgammon": Reason("backgammon"),
    "portes": Reason("portes"),
    "plakoto": Reason("plakoto"),
    "fevga": Reason("fevga"),
    "nardy": Reason("long nardy"),
    "tavli": Reason("tavli"),
}
"""Each game's name as a refusal says it: the same catalogue messages as the bot's names of the games."""


def game_name(game: str) -> str:
    """The name of ``game`` (an identifier, ``"nardy"``) for a refusal: a word the layer above translates.

    >>> game_name("nardy"), game_name("nardy").template
    ('long nardy', 'long nardy')
    """
    return GAME_NAMES.get(game, game)


__all__ = ["GAME_NAMES", "Reason", "game_name"]
