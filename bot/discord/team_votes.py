"""A consultation game's words in the team's private thread: the prompt that opens a
vote, its reminder when nobody has voted halfway to its close, and the tally once
the team has played (:mod:`bot.core.consultations`).

All go only to the team's thread, which the other side cannot read; a ballot
itself is acknowledged to its member alone (:mod:`bot.discord.kibitzing`).

A team's challenge to a member or to another team has its own buttons
(:class:`TeamChallengeButton`): the challenged side answers it (a member, or any
member of the other team, who becomes its captain), the team's captain withdraws it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import discord

from bot.discord.components import CHALLENGE_BUTTONS
from bot.discord.kibitzing import answer_words, club_of
from bot.discord.limits import clip, shown
from bot.discord.presenter import timestamp
from i18n import N_, _, ngettext

MAX_CONTENT = 2000

QUESTIONS = {
    "play": N_("which play"),
    "cube": N_("double or not"),
    "take": N_("take or pass"),
    "resignation": N_("accept or reject the resignation"),
}


def head(data: dict[str, Any]) -> str:
    """The first line of both messages of a vote (how a retry finds its earlier post)."""
    return _("🗳️ **Team vote · game #{game}, board {version}**").format(
        game=data.get("game"), version=data.get("version")
    )


def prompt_text(data: dict[str, Any], team: str) -> str:
    """The vote's opening: what the team decides, by when, and how ties go."""
    question = _(QUESTIONS.get(str(data.get("kind_of_vote")), N_("which play")))
    deadline = datetime.fromtimestamp(float(data.get("deadline") or 0), tz=UTC)
    lines = [
        head(data) + ": " + _("{team} decides {question}.").format(team=f"**{shown(team)}**", question=question),
        _(
            "Vote with the button (only you see your ballot; change it until the vote closes {when}). "
            "The answer most given is played; a tie goes to the captain's vote."
        ).format(when=timestamp(deadline)),
    ]
    return clip("\n".join(lines), MAX_CONTENT)


def tally_text(data: dict[str, Any]) -> str:
    """The closed vote: each answer's count, what the team played, a tie the captain broke."""
    counts = [(str(a), int(n)) for a, n in data.get("counts") or []]
    voters = sum(n for _, n in counts)
    chosen = data.get("chosen")
    lines = [
        head(data) + ": " + ngettext("{count} member voted.", "{count} members voted.", voters).format(count=voters)
    ]
    for answer, votes in counts:
        line = (
            "• " + answer_words(answer) + " · " + ngettext("{count} vote", "{count} votes", votes).format(count=votes)
        )
        if answer == chosen:
            line += " ← " + _("played")
        lines.append(line)
    if chosen is None:
        lines.append(_("The game went another way before the vote closed."))
    elif data.get("tie"):
        lines.append(_("A tie: the captain's vote decided."))
    return clip("\n".join(lines), MAX_CONTENT)


def role_pinged(role_id: int) -> discord.AllowedMentions:
    """Exactly this role is pinged (a role team's challenge or reminder): no member, no other role, never everyone."""
    return discord.AllowedMentions(everyone=False, users=False, replied_user=False, roles=[discord.Object(id=role_id)])


def reminder_text(data: dict[str, Any]) -> str:
    """Halfway to its close, a vote nobody has answered: said once, in the team's thread."""
    question = _(QUESTIONS.get(str(data.get("kind_of_vote")), N_("which play")))
    deadline = datetime.fromtimestamp(float(data.get("deadline") or 0), tz=UTC)
    who = f"<@&{int(data['role'])}> " if data.get("role") else ""
    return clip(
        head(data)
        + ": ⏰ "
        + who
        + _("nobody has voted yet on {question}; the vote closes {when}.").format(
            question=question, when=timestamp(deadline)
        ),
        MAX_CONTENT,
    )


class TeamChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bgtc:(?P<action>accept|decline|cancel):(?P<id>[0-9]+)",
):
    """Accept and Decline (the challenged member, or any member of the challenged team),
    Withdraw (the challenging team's captain)."""

    def __init__(self, action: str, challenge_id: int) -> None:
        label, style = CHALLENGE_BUTTONS[action]
        super().__init__(discord.ui.Button(label=_(label), style=style, custom_id=f"bgtc:{action}:{challenge_id}"))
        self.action = action
        self.challenge_id = challenge_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TeamChallengeButton:
        return cls(match["action"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await club_of(interaction).click_team_challenge(interaction, self.action, self.challenge_id)


def team_challenge_controls(challenge_id: int) -> discord.ui.View:
    controls = discord.ui.View(timeout=None)
    for action in ("accept", "decline", "cancel"):
        controls.add_item(TeamChallengeButton(action, challenge_id))
    return controls
