"""``/bg rules game:``: a page for each game the bot plays, in a member's words.

Each page says what docs/rules.md sets out in its section for the game
(sections 16-23), briefly: what differs from backgammon, how a game is won
and scored, and how it is played here (the board, typed moves, no cube).
"""

from __future__ import annotations

import discord

from bot.core.model import variant_name
from bot.discord.limits import clip
from bot.discord.presenter import COLOUR
from i18n import N_, _

SECTIONS = {
    "nackgammon": 19,
    "tavla": 16,
    "takhteh": 17,
    "portes": 18,
    "plakoto": 20,
    "fevga": 21,
    "nardy": 22,
    "tavli": 23,
}
"""The section of docs/rules.md each page follows."""

_NO_CUBE = N_(
    "**No doubling cube.** A gammon counts 2; there is no backgammon (it counts as a gammon). "
    "The winner of the opening throw (one die each) throws both dice again, and the winner of a game "
    "starts the next without an opening throw."
)
_SHARED = N_(
    "**No hitting and no bar.** Each die moves one checker forward; both dice must be played when they can be, "
    "the larger when only one can, doubles four times. A roll with no play loses the turn. Bearing off needs all "
    "fifteen in the home board (points 1-6). No cube, no resignations: `/bg forfeit` gives up."
)

PAGES: dict[str, tuple[str, ...]] = {
    "backgammon": (N_("The rules of today's servers: see `/bg rules` (how to play) and `/bg rules topic:options`."),),
    "nackgammon": (
        N_(
            "Nick Ballard's start, everything else backgammon's: for each side 2 checkers on 24, 2 on 23, "
            "4 on 13, 3 on 8 and 4 on 6 (194 pips). The cube and every challenge option work as in backgammon."
        ),
    ),
    "tavla": (
        N_("Turkish backgammon: the board, start and movement of backgammon."),
        _NO_CUBE,
        N_("Matches to 5 points unless the challenge says otherwise. Rated with backgammon."),
    ),
    "takhteh": (
        N_("Iranian backgammon (takhteh nard): tavla's rules."),
        _NO_CUBE,
        N_("Matches to 7 points unless the challenge says otherwise. Rated with backgammon."),
    ),
    "portes": (
        N_("Greek backgammon, the first game of tavli: backgammon's board, start and movement."),
        _NO_CUBE,
        N_("Matches to 3, 5 or 7 points (5 unless the challenge says otherwise). Rated with backgammon."),
    ),
    "plakoto": (
        N_(
            "The second game of tavli. All fifteen start on your point 24 (the opponent's ace point); "
            "the sides run in opposite directions, as in backgammon."
        ),
        _SHARED,
        N_(
            "**Pinning**: landing on a single opposing checker pins it. It cannot move while a checker of "
            "yours stays on it, and the point is yours. A pinned checker of yours anywhere stops you bearing off."
        ),
        N_(
            "**The mother**: the last checker left on a player's starting point. Pin it and you win a double "
            "game (2 points) at once. Otherwise a game is worth 1, or 2 when the loser has borne off none."
        ),
        N_(
            "Type a pin with `*`, e.g. `/bg move 24/18* 13/10`; the board shows the pinned checker ringed under its captor."
        ),
    ),
    "fevga": (
        N_(
            "The third game of tavli. All fifteen start on your point 24, at diagonally opposite corners; "
            "both sides run the same way (counter-clockwise)."
        ),
        _SHARED,
        N_("**A single checker holds a point**: the opponent can neither land nor touch down there."),
        N_(
            "**The first checker**: move one checker only until it has passed the opponent's starting point; "
            "then the others may leave. You may never hold all six points 19-24 at once, and no block of six "
            "may trap every opposing checker."
        ),
        N_("A game is worth 1, or 2 when the loser has borne off none."),
    ),
    "nardy": (
        N_(
            "Long nardy, of Russia, the Caucasus and Central Asia. All fifteen start on the **head** (your point "
            "24), at diagonally opposite corners; both sides run the same way."
        ),
        _SHARED,
        N_(
            "**The head**: one checker may leave it each turn; on your first turn 6-6, 4-4 or 3-3 let two leave. "
            "A point with any opposing checker is closed, and no block of six may stand unless an opposing "
            "checker is already past it."
        ),
        N_(
            "**Scoring**: *oin* 1; *mars* 2 when the loser has borne off none; *koks* 3 when the loser has also "
            "not brought a checker home."
        ),
    ),
    "tavli": (
        N_(
            "The Greek evening: a match to 3, 5 or 7 points that cycles portes, plakoto and fevga (then portes "
            "again), one score across them. The first game opens with one die each; then the winner of a "
            "game starts the next."
        ),
        N_("No cube; each game scores 1 or 2. See `/bg rules game:` portes, plakoto and fevga for each game."),
        N_("Tavli has its own rating and leaderboard (`/bg leaderboard game:tavli`)."),
    ),
}


def game_embed(variant: str) -> discord.Embed:
    """The rules page of ``variant``, in the language in force."""
    embed = discord.Embed(title=_("The rules of {game}").format(game=variant_name(variant)), colour=COLOUR)
    embed.description = clip("\n\n".join(_(part) for part in PAGES[variant]), 4000)
    if variant in ("plakoto", "fevga", "nardy", "tavli"):
        embed.set_footer(text=_("Hints and analysis are not available for this game; the computer plays it."))
    return embed
