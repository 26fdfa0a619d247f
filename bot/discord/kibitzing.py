"""Kibitzer polls on Discord: the board's button, the private picker, the reveal's words.

The button (:class:`KibitzButton`, ``bgkz:ask:<game>:<version>``) sits on a
board while a member thinks about a decision the onlookers may answer
(:func:`bot.core.kibitzers.poll_of`). It opens a picker only the onlooker sees
(:class:`KibitzSelect`, or a text box when more than 25 plays are legal); the
answer is acknowledged to them alone, with no count. The two players are
turned away. The reveal (:func:`reveal_text`) goes to the game's channel once
the player has acted: everyone there could see the board it speaks of.

The same button, picker and text box serve a consultation game's team vote
(``bgcv:`` instead of ``bgkz:``, :mod:`bot.core.consultations`): under the board
and in the team's private thread while the team is to act, a member's ballot
acknowledged to them alone.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.core.consultations import ACCEPT, REJECT
from bot.core.kibitzers import DOUBLE, NO_DOUBLE, PASS, TAKE, KibitzerScore, Reveal
from bot.discord.limits import clip, in_code, shown
from i18n import N_, _, ngettext

SELECT_LIMIT = 25
MAX_CONTENT = 2000
COLOUR = discord.Colour(0x2E7D5B)

WORDS = {
    DOUBLE: N_("Double"),
    NO_DOUBLE: N_("No double"),
    TAKE: N_("Take"),
    PASS: N_("Pass"),
    ACCEPT: N_("Accept the resignation"),
    REJECT: N_("Reject the resignation"),
}
POLL, TEAM = "bgkz", "bgcv"
"""The custom ids' prefixes: an onlookers' poll, a team's vote."""
"""The cube answers as members read them (a play is shown in its notation)."""


def answer_words(answer: str) -> str:
    """An answer as a member reads it."""
    word = WORDS.get(answer)
    return _(word) if word is not None else f"`{in_code(answer)}`"


def club_of(interaction: discord.Interaction) -> Any:
    """The ``/bgclub`` cog that answers the polls' buttons and pickers (found by name: a
    component rebuilt from its custom id has no constructor of ours)."""
    return interaction.client.get_cog("ClubCog")  # type: ignore[attr-defined]


class KibitzButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"(?P<who>bgkz|bgcv):ask:(?P<game>[0-9]+):(?P<version>[0-9]+)",
):
    """ "What would you play?" under a board: the onlookers' private picker; with
    ``team``, "Vote for the team": a team member's private ballot."""

    def __init__(self, game_id: int, version: int, *, team: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=_("Vote for the team") if team else _("What would you play?"),
                emoji="🗳️",
                style=discord.ButtonStyle.primary if team else discord.ButtonStyle.secondary,
                custom_id=f"{TEAM if team else POLL}:ask:{game_id}:{version}",
            )
        )
        self.game_id = game_id
        self.version = version
        self.team = team

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> KibitzButton:
        return cls(int(match["game"]), int(match["version"]), team=match["who"] == TEAM)

    async def callback(self, interaction: discord.Interaction) -> None:
        if self.team:
            await club_of(interaction).team_ask(interaction, self.game_id, self.version)
        else:
            await club_of(interaction).ask(interaction, self.game_id, self.version)


class KibitzSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"(?P<who>bgkz|bgcv):vote:(?P<game>[0-9]+):(?P<version>[0-9]+)",
):
    """The poll's answers (or the team vote's), in a message only the onlooker (the member) sees."""

    def __init__(self, game_id: int, version: int, answers: list[str], *, team: bool = False) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"{TEAM if team else POLL}:vote:{game_id}:{version}",
            placeholder=_("Your answer (only you see it)"),
            options=[
                discord.SelectOption(label=(_(WORDS[a]) if a in WORDS else a)[:100], value=a[:100])
                for a in answers[:SELECT_LIMIT]
            ],
            min_values=1,
            max_values=1,
        )
        super().__init__(select)
        self.game_id = game_id
        self.version = version
        self.team = team

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> KibitzSelect:
        answers = [o.value for o in getattr(item, "options", [])] or ["-"]
        return cls(int(match["game"]), int(match["version"]), answers, team=match["who"] == TEAM)

    async def callback(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        values = self.item.values or data.get("values", [])
        answer = str(values[0]) if values else ""
        if self.team:
            await club_of(interaction).team_vote(interaction, self.game_id, self.version, answer)
        else:
            await club_of(interaction).vote(interaction, self.game_id, self.version, answer)


class KibitzModal(discord.ui.Modal):
    """More plays than a menu holds: the onlooker types theirs."""

    def __init__(self, game_id: int, version: int, *, team: bool = False) -> None:
        super().__init__(
            title=_("Your play for the team") if team else _("What would you play?"),
            custom_id=f"{TEAM if team else POLL}:type:{game_id}:{version}",
        )
        self.team = team
        self.game_id = game_id
        self.version = version
        self.play: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=_("Your play, like 24/18 13/10"), min_length=1, max_length=60
        )
        self.add_item(self.play)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        club = club_of(interaction)
        vote = club.team_vote if self.team else club.vote
        await vote(interaction, self.game_id, self.version, self.play.value)


def picker(game_id: int, version: int, answers: list[str], *, team: bool = False) -> discord.ui.View:
    controls = discord.ui.View(timeout=None)
    controls.add_item(KibitzSelect(game_id, version, answers, team=team))
    return controls


def equity(value: float) -> str:
    return f"{value:+.3f}"


def reveal_text(reveal: Reveal, player: str) -> str:
    """What the room chose, what the player chose and what the net says, each answer
    with its equity (for the player who acted)."""
    verdict = reveal.verdict or {}
    best = reveal.best
    counts = dict(reveal.counts)
    shown_answers = list(counts)
    for extra in (reveal.chosen, best):
        if extra is not None and extra not in shown_answers:
            shown_answers.append(extra)
    if verdict:
        shown_answers.sort(key=lambda a: (-verdict.get(a, -99.0), -counts.get(a, 0)))
    lines = [
        _("🗳️ **Kibitzers · game #{game}, board {version}**: {count} onlookers answered before {player} acted.").format(
            game=reveal.game_id, version=reveal.version, count=reveal.voters, player=f"**{shown(player)}**"
        )
        if reveal.voters != 1
        else _("🗳️ **Kibitzers · game #{game}, board {version}**: one onlooker answered before {player} acted.").format(
            game=reveal.game_id, version=reveal.version, player=f"**{shown(player)}**"
        )
    ]
    for answer in shown_answers:
        votes = counts.get(answer, 0)
        line = (
            "• " + answer_words(answer) + " · " + ngettext("{count} vote", "{count} votes", votes).format(count=votes)
        )
        if answer in verdict:
            line += " · " + _("equity {equity}").format(equity=equity(verdict[answer]))
        marks = []
        if answer == reveal.chosen:
            marks.append(_("the player's choice"))
        if answer == best:
            marks.append(_("the net's choice"))
        if marks:
            line += " ← " + ", ".join(marks)
        lines.append(line)
    if reveal.chosen is None:
        lines.append(
            _("{player} did not answer the question (the game went another way).").format(player=shown(player))
        )
    if best is None:
        lines.append(_("The net's verdict is not available here."))
    else:
        lines.append(_("The net (GNU Backgammon, 0-ply): {answer}.").format(answer=answer_words(best)))
    return clip("\n".join(lines), MAX_CONTENT)


def table_embed(scores: list[KibitzerScore], guild_name: str | None) -> discord.Embed:
    """``/bgclub kibitzers``: the server's onlookers, by answers the net agreed with."""
    title = _("Kibitzers") + (f" · {shown(guild_name)}" if guild_name else "")
    embed = discord.Embed(title=title, colour=COLOUR)
    if not scores:
        embed.description = _(
            "Nobody has answered a poll yet: click “What would you play?” under a game's board while a player thinks."
        )
        return embed
    rows = []
    for rank, score in enumerate(scores, start=1):
        name = f"**{shown(score.display_name)}**" if score.display_name else f"<@{score.user_id}>"
        share = score.agreed / score.answered if score.answered else 0.0
        rows.append(
            f"`{rank:>2}` {name} · "
            + _("agreed with the net {agreed} of {answered} ({share:.0%})").format(
                agreed=score.agreed, answered=score.answered, share=share
            )
        )
    embed.description = "\n".join(rows)
    embed.set_footer(text=_("Answers count once their poll is revealed, after the player acted."))
    return embed


DYNAMIC_ITEMS = (KibitzButton, KibitzSelect)
