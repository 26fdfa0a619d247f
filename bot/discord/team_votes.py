"""A consultation game's words in the team's private thread: the prompt that opens a
vote, and the tally once the team has played (:mod:`bot.core.consultations`).

Both go only to the team's thread, which the other side cannot read; a ballot
itself is acknowledged to its member alone (:mod:`bot.discord.kibitzing`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.discord.kibitzing import answer_words
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
