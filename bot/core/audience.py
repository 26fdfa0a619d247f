"""Who will read an answer, as the core needs to know it: a predicate the Discord layer makes.

Whatever shows a game, a position taken from a game or a tournament shows it only
where everyone who can read the answer could see the channel it was played or
announced in. The core cannot ask Discord; the Discord layer
(:mod:`bot.discord.privacy`) hands it a :data:`Sees` for the readers of one answer
(a member's private answer, a channel's post) and the core keeps what it allows.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

Sees = Callable[[int, Collection[int]], bool]
"""``sees(channel_id, players)``: whether every reader of the answer could see a game of
``players`` in that channel or thread (a tournament: its channel, no players)."""


def everyone(channel_id: int, players: Collection[int] = ()) -> bool:
    """Every channel: for tools and tests that have no Discord to ask."""
    return True
