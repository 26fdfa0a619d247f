"""The dice as players check them: a player's roll statistics (``/bgtools dice``)
and a finished game's fair-dice verification (``/bgtools verify``)."""

from __future__ import annotations

import discord

from bot.core.dice_stats import face_counts, roll_kinds_p_value
from bot.core.model import DiceStats, GameState, GameSummary
from bot.discord.limits import plain, shown
from bot.discord.presenter import COLOUR, sentence
from engine.fairdice import chi_square_uniform
from i18n import _

VERIFY_SCRIPT = "python3 scripts/verify_dice.py game-<number>.json"
"""How a player checks a game's dice themselves, from its ``/bg export`` JSON."""


def dice_embed(name: str, stats: DiceStats) -> discord.Embed:
    embed = discord.Embed(title=_("🎲 Dice · {name}").format(name=shown(name)), colour=COLOUR)
    counts = {(max(k), min(k)): n for k, n in stats.counts.items()}
    rolls = stats.rolls
    if rolls == 0:
        embed.description = _("No rolls yet in this server.")
        return embed
    doubles = stats.doubles
    embed.description = _(
        "**{rolls}** rolls · **{doubles}** doubles ({number:.1f}%, expected 16.7%) · **{pips}** pips ({number2:.2f} a roll, expected 8.17)"
    ).format(rolls=rolls, doubles=doubles, number=100 * doubles / rolls, pips=stats.pips, number2=stats.pips / rolls)
    grid = ["     " + "".join(f"{low:>5}" for low in range(1, 7))]
    for high in range(1, 7):
        cells = "".join(f"{counts.get((high, low), 0):>5}" if low <= high else "    ·" for low in range(1, 7))
        grid.append(f"{high:>4} {cells}")
    _statistic, p_rolls = roll_kinds_p_value(counts)
    embed.add_field(
        name=_("Roll kinds (high die by low die)"),
        value="```\n"
        + "\n".join(grid)
        + "\n```"
        + _("Chi-square against fair dice (20 d.f.): p = {p}").format(p=f"{p_rolls:.3f}"),
        inline=False,
    )
    faces = face_counts(counts)
    _statistic, p_faces = chi_square_uniform(faces)
    thrown = sum(faces)
    embed.add_field(
        name=_("Faces (each die thrown)"),
        value=" · ".join(f"{face}: {n} ({100 * n / thrown:.1f}%)" for face, n in enumerate(faces, start=1))
        + "\n"
        + _("Chi-square against fair dice (5 d.f.): p = {p}").format(p=f"{p_faces:.3f}"),
        inline=False,
    )
    embed.set_footer(text=_("A p-value below 0.01 would be suspicious; by chance alone 1 player in 100 gets one."))
    return embed


def verify_text(state: GameState | GameSummary, verification: object) -> str:
    """The answer to ``/bgtools verify``: the result and how to check it yourself."""
    ok = bool(getattr(verification, "ok", False))
    reason = plain(sentence(str(getattr(verification, "reason", ""))))
    fair = state.fair_dice or {}
    mark = "✅" if ok else "❌"
    lines = [f"{mark} **Game #{state.id}**: {reason.rstrip('.')}."]
    if fair:
        salt = f", salt `{fair['salt']}`" if fair.get("salt") else ""
        lines.append(
            _("Commitment `{get}`, nonce `{get2}`{salt}, seed `{get3}`.").format(
                get=fair.get("commitment", "?"), get2=fair.get("nonce", "?"), salt=salt, get3=fair.get("seed", "?")
            )
        )
    lines.append(
        _(
            "Check it yourself: `/bg export game:{id}` gives the game's JSON; run `{verify_script}` (Python standard library only)."
        ).format(id=state.id, verify_script=VERIFY_SCRIPT)
    )
    return "\n".join(lines)
