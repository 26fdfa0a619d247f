"""Autocomplete: the legal plays ranked by what a player has typed so far."""

from __future__ import annotations

import re
from collections.abc import Sequence

AUTOCOMPLETE_LIMIT = 25
"""Choices Discord shows at most."""

_SPACES = re.compile(r"\s+")


def _compact(text: str) -> str:
    return _SPACES.sub("", text.lower()).replace("*", "")


def rank_plays(plays: Sequence[str], typed: str, limit: int = AUTOCOMPLETE_LIMIT) -> list[str]:
    """Legal plays closest to what is typed: prefix matches, then substrings, then the rest."""
    want = _SPACES.sub(" ", typed.strip().lower())
    compact = _compact(typed)
    if not want:
        return list(plays[:limit])
    prefix, inside, rest = [], [], []
    for play in plays:
        low = play.lower()
        if low.startswith(want) or _compact(play).startswith(compact):
            prefix.append(play)
        elif want in low or (compact and compact in _compact(play)):
            inside.append(play)
        else:
            rest.append(play)
    return (prefix + inside + rest)[:limit]
