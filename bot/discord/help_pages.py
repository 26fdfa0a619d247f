"""The static help pages of ``/bg rules``: how to play, the challenge options, the old words, the odds of being hit.

Each returns a :class:`discord.Embed` built from the engine's own tables (the
glossary, the direct shots), so that a page never disagrees with the rules
the bot plays by.
"""

from __future__ import annotations

import discord

from bot.discord.dice_text import VERIFY_SCRIPT
from bot.discord.limits import clip
from bot.discord.presenter import COLOUR
from engine import GLOSSARY, Roll, call, direct_shots
from i18n import _


def glossary_embed() -> discord.Embed:
    """``/bg rules topic:glossary``: the period words of the old rule texts."""
    embed = discord.Embed(title=_("The old words of backgammon"), colour=COLOUR)
    embed.description = _(
        "Hoyle and the Britannica name the games, the dice and the board in words met rarely today. A throw is called as they did: 6-2 is *{call}*, 3-3 *{call2}*."
    ).format(call=call(Roll(6, 2)), call2=call(Roll(3, 3)))
    titles = {"game": _("What a game is worth"), "die": _("The dice and the points"), "board": _("The board")}
    for group, title in titles.items():
        lines = []
        for term in GLOSSARY:
            if term.group == group:
                said = " " + _("(said {word})").format(word=f"*{term.said}*") if term.said else ""
                # the meanings are the engine's: in the catalogue through scripts/catalogues.py
                lines.append(f"**{term.word}**{said}: {_(term.meaning)}")
        embed.add_field(name=title, value=clip("\n".join(lines), 1024), inline=False)
    return embed


def options_embed() -> discord.Embed:
    """``/bg rules topic:options``: what a challenge may choose, the old texts' conventions included."""
    embed = discord.Embed(title=_("Challenge options"), colour=COLOUR)
    embed.description = _("Options of `/bg challenge`; the challenged member sees them before accepting.")
    embed.add_field(
        name=_("Today's game"),
        value=(
            _(
                "`match_length` (0 = money game, `stake` per point) · `days` per move · "
                "money games: `jacoby`, `beavers`, `automatic_doubles` (ties of the opening throw double the cube: "
                "twice, or every tie up to `cube_limit`) · `cube_limit` (2 to 64) · `opening_reroll` · `hints`"
            )
        ),
        inline=False,
    )
    embed.add_field(
        name=_("The old texts' conventions"),
        value=(
            _(
                "`rules: hoyle` — **Hoyle's rubber**: best of three games, no cube, a gammon counts two; "
                "`backgammon: 4` if agreed (else 3); the winner of a hit throws first in the next game "
                "(after a gammon both throw again); the opening winner chooses: play the opening throw or throw again.\n"
                "`early_doubles: False` — nobody doubles before the game's first play (the old texts: "
                "'at any time after the first turn, either player can offer to double').\n"
                "`closed_out: skip` — on the bar against a closed board you don't throw and your opponent throws "
                "again (the old rule; today's `roll` throws and dances). GNU Backgammon's .mat can't show a skipped "
                "turn, so such games export differently."
            )
        ),
        inline=False,
    )
    embed.add_field(
        name=_("Counting shots"),
        value=(
            _(
                "`/bg shots` shows how many of the 36 throws hit each blot in this channel's game, "
                "as the old texts' tables counted (`/bg rules topic:odds`)."
            )
        ),
        inline=False,
    )
    return embed


def odds_embed() -> discord.Embed:
    """``/bg rules topic:odds``: the old texts' table of direct shots, worked out by the engine."""
    embed = discord.Embed(title=_("The odds of being hit"), colour=COLOUR)
    embed.description = _(
        "Throws out of 36 that hit a lone blot so many pips away, with nothing between "
        "(the old texts' table, counted by the bot's rules):"
    )
    rows = [f"{distance:>2} pips: {direct_shots(distance):>2}/36" for distance in range(1, 25)]
    half = len(rows) // 2
    embed.add_field(name=_("1 to 12 pips"), value="```\n" + "\n".join(rows[:half]) + "\n```", inline=True)
    embed.add_field(name=_("13 to 24 pips"), value="```\n" + "\n".join(rows[half:]) + "\n```", inline=True)
    embed.set_footer(text=_("In a game, /bg shots counts every blot with the checkers really in the way."))
    return embed


def rules_embed() -> discord.Embed:
    embed = discord.Embed(title=_("Backgammon on Discord"), colour=COLOUR)
    embed.description = _(
        "Challenge someone with `/bg challenge @member` (match length 0 = money game). "
        "When it's your turn, use the buttons under the board or the commands below. "
        "Each player has a few days per move; a reminder comes before time runs out."
    )
    embed.add_field(
        name=_("Your turn"),
        value=(
            _(
                "`/bg roll` or **Roll** · `/bg double` or **Double**\n"
                "`/bg move 13/7 8/7` (or pick from the menu): from/to points, `bar`, `off`, `*` for a hit, `(2)` to repeat\n"
                "`/bg take` · `/bg pass` · `/bg beaver` when doubled"
            )
        ),
        inline=False,
    )
    embed.add_field(
        name=_("Giving up"),
        value=_(
            "`/bg resign single|gammon|backgammon` (the opponent accepts or rejects) · `/bg forfeit` gives up the match"
        ),
        inline=False,
    )
    embed.add_field(
        name=_("The computer"),
        value=(
            _(
                "`/bg computer` (or challenge me) plays a game against the computer (unrated) · "
                "`/bg hint` privately suggests plays or the cube action (always against the computer; "
                "between people only if the challenge had `hints`) · `/bg analysis` grades a finished game"
            )
        ),
        inline=False,
    )
    embed.add_field(
        name=_("Fair dice"),
        value=(
            _(
                "Every game's dice come from a secret seed whose SHA-256 commitment is posted when it starts; the seed is revealed when it ends. `/bgtools verify` recomputes every roll; `/bg export` gives the game's JSON for `{verify_script}` (Python standard library only). `/bgtools dice` shows a player's roll statistics."
            ).format(verify_script=VERIFY_SCRIPT)
        ),
        inline=False,
    )
    embed.add_field(
        name=_("More"),
        value=(
            _(
                "`/bg board` shows the board again · `/bg games` · `/bg history` · `/bg export` · `/bg stats` · "
                "`/bg leaderboard` · `/bgtools position` (GNU Backgammon ID) · `/bgtools setup` (practice from an ID) · "
                "`/bgtools replay` (animated GIF)"
            )
        ),
        inline=False,
    )
    embed.set_footer(
        text=_(
            "/bg rules topic:options lists the challenge options (Hoyle's rubber too); topic:glossary the old words."
        )
    )
    return embed
