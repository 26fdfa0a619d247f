"""A chouette session in words: who is the box, the captain and the crew, each member's cube,
the double that waits, and the ledger (:mod:`bot.core.chouettes`)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.core.chouettes import ChouetteSession
from bot.discord.limits import clip, quote, shown
from i18n import _

MAX_CONTENT = 2000


def _name(names: Mapping[int, str], user_id: int) -> str:
    return f"**{shown(names.get(user_id, str(user_id)))}**"


def ledger_lines(session: ChouetteSession, names: Mapping[int, str]) -> list[str]:
    """Each player's total, then who owes whom (every pair once)."""
    state = session.state
    totals = state.totals()
    lines = [
        _("Totals: {totals}").format(
            totals=" · ".join(f"{_name(names, p)} {totals[p]:+d}" for p in session.row.players)
        )
    ]
    owed = state.ledger()
    if owed:
        lines.append(
            _("Owed: {pairs}").format(
                pairs=" · ".join(
                    _("{debtor} owes {creditor} {points}").format(
                        debtor=_name(names, debtor), creditor=_name(names, creditor), points=points
                    )
                    for (creditor, debtor), points in owed.items()
                )
            )
        )
    return lines


def session_text(session: ChouetteSession, names: Mapping[int, str], headline: str = "") -> str:
    state = session.state
    lines = [headline] if headline else []
    if session.ended:
        lines.append(
            _("🏁 **The chouette is over** after {games} games: the ledger is settled.").format(
                games=state.games_played
            )
        )
        lines += ledger_lines(session, names)
        return clip("\n".join(lines), MAX_CONTENT)
    game = state.game
    assert game is not None
    lines.append(
        _("🎲 **Chouette** · game {number} · box {box} against captain {captain}{crew}").format(
            number=state.games_played + 1,
            box=_name(names, state.box),
            captain=_name(names, state.captain),
            crew=(
                _(" and crew {crew}").format(crew=", ".join(_name(names, m) for m in game.still_in[1:]))
                if len(game.still_in) > 1
                else ""
            ),
        )
    )
    cubes = []
    waiting = []
    for member in game.team:
        cube = game.cubes[member]
        if member in game.dropped:
            where = _("out (passed)")
        elif member in game.beaten_by:
            where = _("out (won: the box passed)")
        elif cube.owner is None:
            where = _("cube {value}, centred").format(value=cube.value)
        elif cube.owner == "box":
            where = _("cube {value}, the box's").format(value=cube.value)
        else:
            where = _("cube {value}, theirs").format(value=cube.value)
        cubes.append(f"{_name(names, member)}: {where}")
        if cube.offered_by == "box":
            waiting.append(
                _("{member} to take or pass the box's double to {value}").format(
                    member=_name(names, member), value=cube.value * 2
                )
            )
        elif cube.offered_by == "member":
            waiting.append(
                _("the box to take or pass {member}'s double to {value}").format(
                    member=_name(names, member), value=cube.value * 2
                )
            )
    lines.append(" · ".join(cubes))
    if waiting:
        lines.append("⏳ " + "; ".join(waiting))
    lines += ledger_lines(session, names)
    return clip("\n".join(lines), MAX_CONTENT)


def ledger_headline(session: ChouetteSession) -> str:
    """The first line of the running ledger posted after a game: one per game of the session
    (a retried post looks for it before posting again)."""
    return _("📒 **Chouette** · the ledger after game {number}").format(number=session.state.games_played)


def suggestion_text(name: str, advice: str) -> str:
    """A team member's advice to the captain, as the thread reads it."""
    return clip(
        _("💬 {member} advises the captain: {advice}").format(member=f"**{shown(name)}**", advice=quote(advice, 200)),
        MAX_CONTENT,
    )
