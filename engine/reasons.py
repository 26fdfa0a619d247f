"""A refusal's words, kept apart from their values so a layer above can word them in any language.

The engine says why it refuses something (an illegal play, a position it cannot
read, a card that does not fit) in English, and imports nothing that
translates. Each refusal a member may read is a :class:`Reason`: a ``str`` (its
English text, so logs, ``str(error)`` and tests read as before) that also keeps
its :attr:`~Reason.template`, with named placeholders, and the
:attr:`~Reason.values` that fill them. The template is the refusal's stable key:
the catalogue's message id, with which the bot words the refusal for the member
who reads it (``i18n.worded``).

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


__all__ = ["Reason"]
