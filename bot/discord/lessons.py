"""The words and pictures of ``/bglearn``: the old masters' openings, puzzles, drills.

Pure presentation, like :mod:`bot.discord.presenter`: values from the core in,
embeds, lines and board scenes out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.core.imports import ImportedAnalysis
from bot.core.model import GameState, GameSummary
from bot.core.openings import OpeningVerdict, ValuedPlay
from bot.core.progress import GameTimeline, RatingHistory, recent_pr, shown_pr, timeline
from bot.core.puzzles import CUBE_LABELS, Answered, Decision, Drill, Puzzle, Reveal, ScoreRow
from bot.discord.limits import in_code, plain, shown, visible
from bot.discord.presenter import mention, timestamp
from engine import Position
from engine.openings import OpeningAdvice, opening_play
from i18n import N_, _, ngettext
from renderer import BoardScene
from renderer.charts import GameChart, Mark, RatingChart

COLOUR = discord.Colour(0x2E7D5B)
MAX_DESCRIPTION = 4096
EQUITY_NOTE = N_(
    "Equity: cubeless money, for the player who opens; gives up = the best play's equity less this one's. "
    "In the old texts' day the first player threw both dice, so a doublet could open."
)


# -- the old masters' openings -----------------------------------------------------------------


def _loss(valued: ValuedPlay) -> str:
    if valued.loss is None:
        return ""
    if valued.is_best:
        return _("✅ still the neural net's best")
    return _("gives up **{loss:.3f}**").format(loss=valued.loss)


def _who(entry: OpeningAdvice) -> str:
    name = "Hoyle" if entry.source == "hoyle" else _("the Britannica")
    return _("{source}, {aim}").format(source=name, aim=_(entry.aim)) if entry.aim else name


def opening_embed(item: OpeningVerdict) -> discord.Embed:
    """One throw: each text's play with its words and what it gives up, and the net's best."""
    embed = discord.Embed(title=_("📜 The old masters' {roll_text}").format(roll_text=item.roll_text), colour=COLOUR)
    lines = []
    for entry, valued in item.old:
        loss = _loss(valued)
        lines.append(f"**{_who(entry)}**: `{entry.play}`" + (f" · {loss}" if loss else ""))
        lines.append(f"> *“{plain(_(entry.words), 400)}”*")  # the text's own words (the catalogue holds them)
        if entry.note:
            lines.append(f"-# {plain(_(entry.note), 300)}")
    if item.best is not None:
        lines.append(
            _("**Neural net** ({ply}-ply): `{text}` ({equity:+.3f})").format(
                ply=item.ply, text=item.best.text, equity=item.best.equity
            )
        )
    else:
        lines.append(_("*The neural net is not installed here: the texts' plays alone.*"))
    embed.description = "\n".join(lines)[:MAX_DESCRIPTION]
    embed.set_footer(text=_(EQUITY_NOTE))
    return embed


def openings_embed(items: Sequence[OpeningVerdict]) -> discord.Embed:
    """Every throw the texts cover, a line each."""
    embed = discord.Embed(title=_("📜 The old masters' openings"), colour=COLOUR)
    lines = []
    plays = best = 0
    for item in items:
        parts = []
        for entry, valued in item.old:
            plays += 1
            best += valued.is_best
            mark = "" if valued.loss is None else (" ✅" if valued.is_best else f" −{valued.loss:.3f}")
            # Translators: the initials of Hoyle and of the Britannica in the openings' list (its key line explains them).
            who = _("H") if entry.source == "hoyle" else _("B")
            parts.append(f"{who} `{entry.play}`{mark}")
        net = (
            " · " + _("net {play}").format(play=f"`{item.best.text}`")
            if item.best is not None and not all(v.is_best for _, v in item.old)
            else ""
        )
        lines.append(f"**{item.roll_text}** " + " · ".join(parts) + net)
    if items and items[0].best is not None:
        lines.insert(
            0,
            _("{best} of the texts' {plays} plays are still the neural net's best ({ply}-ply).").format(
                best=best, plays=plays, ply=items[0].ply
            ),
        )
    lines.append(
        _("H: Hoyle · B: the Britannica · `/bglearn openings roll:3-3` for one throw, the words and the board.")
    )
    embed.description = "\n".join(lines)[:MAX_DESCRIPTION]
    embed.set_footer(text=_(EQUITY_NOTE))
    return embed


def opening_scene(item: OpeningVerdict, entry: OpeningAdvice | None = None) -> BoardScene:
    """The opening position after a text's play of the throw (the first one's, or
    ``entry``'s), the play drawn on it."""
    entry = entry or item.old[0][0]
    play = opening_play(entry)
    who = "Hoyle" if entry.source == "hoyle" else _("Britannica")
    return BoardScene(
        play.position,
        names=(who, _("Adversary")),
        last_play=play.moves,
        last_play_by=0,
        to_act_label=_("{source}'s {roll}: {play}").format(source=who, roll=item.roll_text, play=entry.play),
    )


def biggest_departure(items: Sequence[OpeningVerdict]) -> tuple[OpeningVerdict, OpeningAdvice]:
    """The throw and the text's play that gives up the most (the first without the neural net)."""
    item = max(items, key=lambda item: item.worst_loss)
    entry, _ = max(item.old, key=lambda pair: pair[1].loss or 0.0)
    return item, entry


def start_scene() -> BoardScene:
    return BoardScene(Position.start())


# -- charts ------------------------------------------------------------------------------------

MAX_CHARTS = 4
"""Game charts attached to one analysis (a long match's last games)."""


def game_chart(state: GameState | GameSummary, line: GameTimeline) -> GameChart:
    """The chart of one analysed game of ``state``'s match."""
    names = (state.players[0].name, state.players[1].name)
    which = _("Game #{id}, game {number}") if state.game_count > 1 else _("Game #{id}")
    title = _("{game} · {name} vs {name2}").format(
        game=which.format(id=state.id, number=line.number), name=_name(names[0]), name2=_name(names[1])
    )
    footer = "   ".join(
        _("{name}: {pr} · error rate {rate} · luck {luck}").format(
            name=_name(names[seat]), pr=shown_pr(p.pr), rate=f"{p.rate:.1f}", luck=f"{p.luck:+.2f}"
        )
        + (
            " · " + ngettext("{count} blunder", "{count} blunders", p.blunders).format(count=p.blunders)
            if p.blunders
            else ""
        )
        for seat, p in enumerate(line.players)
    )
    return GameChart(
        title=title,
        names=names,
        moves=tuple(m.move for m in line.moves),
        movers=tuple(m.player for m in line.moves),
        win=tuple(m.win for m in line.moves),
        gammons=tuple(m.gammons for m in line.moves),
        luck=tuple(m.luck for m in line.moves),
        marks=tuple(Mark(m.move, m.player, m.kind, m.lost) for m in line.marks),
        footer=footer,
    )


def game_charts(state: GameState | GameSummary, details: dict[int, dict[str, Any]]) -> list[tuple[str, GameChart]]:
    """``(file name, chart)`` of the last :data:`MAX_CHARTS` analysed games with moves."""
    lines = [timeline(number, detail) for number, detail in sorted(details.items())]
    lines = [line for line in lines if line.moves][-MAX_CHARTS:]
    return [(f"analysis-{state.id}-{line.number}.png", game_chart(state, line)) for line in lines]


def rating_chart(name: str, place: str, history: RatingHistory, *, opponents: bool = True) -> RatingChart | None:
    """The chart of a member's rated matches in a server, or everywhere (None before
    the first). ``opponents`` False: the best win without its opponent's name (the
    global chart's matches were played in servers the asker may not see)."""
    if not history.matches:
        return None
    matches = history.matches
    best = history.best_win
    best_index = next((i for i, m in enumerate(matches) if m is best), None)
    best_label = ""
    subtitle = _("{wins} won · {losses} lost · {points} points").format(
        wins=history.wins, losses=history.losses, points=f"{history.points:+d}"
    )
    if best is not None:
        who = _name(best.opponent_name or _("someone"), 14) if opponents else _("a player")
        rating = f"{best.opponent_rating:.0f}"
        best_label = _("beat {name} ({rating})").format(name=who, rating=rating)
        subtitle += " · " + _("best win: {name} ({rating})").format(name=who, rating=rating)
    footer = ""
    if history.errors:
        recent = history.errors[-5:]
        footer = _("Last {count} analysed: {pr} on XG's scale · error rate {rate} (millipoints per decision)").format(
            count=len(recent), pr=shown_pr(recent_pr(recent)), rate=f"{sum(e.rate for e in recent) / len(recent):.1f}"
        )
    return RatingChart(
        title=f"{_name(name)} · {_name(place, 24)}",
        times=tuple(m.at for m in matches),
        ratings=tuple(m.rating_after for m in matches),
        points=tuple(m.points or 0 for m in matches),
        won=tuple(m.won for m in matches),
        start_rating=history.start_rating,
        error_times=tuple(e.at for e in history.errors),
        error_rates=tuple(e.rate for e in history.errors),
        best_win=best_index,
        best_win_label=best_label,
        subtitle=subtitle,
        footer=footer,
    )


def _name(name: str, limit: int = 18) -> str:
    """A name for a chart: visible characters only, cut to ``limit``."""
    text = " ".join(visible(name).split()) or "?"
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- puzzles and drills ------------------------------------------------------------------------

HIDDEN = (N_("You"), N_("Opponent"))
"""The players' names in a puzzle of a server that hides them: the one deciding, the other (translated where shown)."""


def _deciding_on_roll(decision: Decision) -> bool:
    """Whether the player deciding is the one on roll (a take is decided by the other)."""
    return decision.kind != "take"


def decision_names(decision: Decision, names_shown: bool) -> tuple[str, str]:
    """(the player deciding, the other) as the puzzle shows them."""
    if not names_shown:
        return (_(HIDDEN[0]), _(HIDDEN[1]))
    return (decision.names[decision.seat], decision.names[1 - decision.seat])


def question(decision: Decision, names_shown: bool) -> str:
    me, other = decision_names(decision, names_shown)
    if decision.kind == "checker" and decision.dice:
        return _("{me} to play {max}-{min}: which play?").format(me=me, max=max(decision.dice), min=min(decision.dice))
    if decision.kind == "double":
        return _("{me} on roll: double or not?").format(me=me)
    if not names_shown:
        return _("{other} doubles: take or pass?").format(other=other)
    return _("{other} doubles: does {me} take or pass?").format(other=other, me=me)


def decision_scene(decision: Decision, names_shown: bool) -> BoardScene:
    """The position as the player deciding sees it, with the question as its status line."""
    position_id, _, match_id = decision.gnubg_id.partition(":")
    me, other = decision_names(decision, names_shown)
    on_roll = _deciding_on_roll(decision)
    return BoardScene.from_ids(
        position_id,
        match_id or None,
        names=(visible(me), visible(other)) if on_roll else (visible(other), visible(me)),
        viewpoint=0 if on_roll else 1,
        to_act_label=visible(question(decision, names_shown)),
    )


def _source(puzzle: Puzzle) -> str:
    """Where the position comes from: with the game's number and players only where the
    server shows names (a number would lead to the names through ``/bg analysis``)."""
    d = puzzle.decision
    if puzzle.names_now:
        where = (_("game #{id} (game {number})") if d.game_number > 1 else _("game #{id}")).format(
            id=d.game_id, number=d.game_number
        )
        return _("from {where} between {names} and {names2}, move {move}").format(
            where=where, names=shown(d.names[0]), names2=shown(d.names[1]), move=d.move
        )
    if not puzzle.answered_at_once:  # the move would lead to the game, and its analysis, before the reveal
        return _("from one of this server's games (which one, at the reveal)")
    return _("from one of this server's games, move {move} (names hidden)").format(move=d.move)


def puzzle_content(puzzle: Puzzle, *, daily_post: bool = False) -> str:
    d = puzzle.decision
    title = _("Puzzle of the day") if puzzle.kind == "daily" else _("Puzzle")
    head = f"🧩 **{title}** #{puzzle.id}"
    lost = _("A member lost equity here.")
    lines = [f"{head} · {_source(puzzle)}", f"**{plain(question(d, puzzle.names_now))}** {lost}"]
    if puzzle.kind == "daily" and not puzzle.revealed:
        when = f" {timestamp(puzzle.reveal_at)}" if puzzle.reveal_at else " " + _("tomorrow")
        lines.append(
            _("Answer privately in the menu, once: the answer and who got it right come{when}.").format(when=when)
        )
        if daily_post:
            lines.append(_("Missed it? `/bglearn puzzle` serves it to you privately."))
    else:
        lines.append(_("Answer in the menu: you see at once how each choice does."))
    return "\n".join(lines)


def choice_label(label: str) -> str:
    """A choice as the member reads it: a play's notation as it is, a cube action in their language."""
    return _(label) if label in CUBE_LABELS.values() else label


def choice_lines(decision: Decision, marked: str | None = None) -> list[str]:
    """Each choice with its equity, best first; ``marked``: the one answered."""
    lines = []
    for choice in sorted(decision.choices, key=lambda c: (c.loss, c.label)):
        tag = " ✅" if choice.best else f" (−{choice.loss:.3f})"
        mine = " ← " + _("you") if choice.label == marked else ""
        played = " · " + _("played in the game") if choice.label == decision.played else ""
        lines.append(f"`{choice_label(choice.label)}` {choice.equity:+.3f}{tag}{played}{mine}")
    return lines


def answer_text(puzzle_or_drill: Puzzle | Drill, answered: Answered) -> str:
    """The private answer to a member's choice."""
    decision = puzzle_or_drill.decision
    choice = answered.choice
    if not answered.counted and answered.before is not None:
        first = _("You answered {label} already: the first answer stands.").format(
            label=f"`{choice_label(answered.before.label)}`"
        )
        if not answered.shown:
            return first
        lines = [first]
    elif not answered.shown:
        assert isinstance(puzzle_or_drill, Puzzle)
        when = timestamp(puzzle_or_drill.reveal_at) if puzzle_or_drill.reveal_at else _("tomorrow")
        return _("Your answer: `{label}`. It's in; the answer comes {when}.").format(
            label=choice_label(choice.label), when=when
        )
    else:
        lines = [
            _("✅ Right: the best choice.")
            if answered.right
            else _("❌ Not the best: {label} gives up {loss}.").format(
                label=f"`{choice_label(choice.label)}`", loss=f"{choice.loss:.3f}"
            )
        ]
    lines += choice_lines(decision, choice.label)
    if isinstance(puzzle_or_drill, Drill):
        if answered.learned:
            lines.append(_("Learned: this one won't come back."))
        elif answered.next_due is not None:
            lines.append(
                _("It comes back {next_due}. `/bglearn drill` for the next one.").format(
                    next_due=timestamp(answered.next_due)
                )
            )
    return "\n".join(lines)


def reveal_embed(reveal: Reveal) -> discord.Embed:
    puzzle = reveal.puzzle
    d = puzzle.decision
    embed = discord.Embed(title=_("🧩 Puzzle #{id}: the answer").format(id=puzzle.id), colour=COLOUR)
    lines = [f"*{plain(question(d, puzzle.names_shown))}* ({_source(puzzle)})"]
    for choice, users in sorted(reveal.chosen, key=lambda pair: (pair[0].loss, pair[0].label)):
        tag = "✅ " + _("best") if choice.best else f"−{choice.loss:.3f}"
        who = " · " + _("chosen by {count}").format(count=len(users)) if users else ""
        played = " · " + _("played in the game") if choice.label == d.played else ""
        lines.append(f"`{choice_label(choice.label)}` {choice.equity:+.3f} ({tag}){played}{who}")
    right = reveal.right
    if right:
        names = ", ".join(mention(user) for user in right[:40])
        more = " " + _("and {count} more").format(count=len(right) - 40) if len(right) > 40 else ""
        lines.append(_("**Right:** {names}").format(names=names + more))
    else:
        lines.append(
            _("Nobody got it right.") if any(users for _choice, users in reveal.chosen) else _("Nobody answered.")
        )
    streaks = [(user, streak) for user, streak in reveal.streaks if streak >= 2][:5]
    if streaks:
        lines.append(
            _("**Streaks:** {streaks}").format(
                streaks=", ".join(
                    _("{name} {count} in a row").format(name=mention(user), count=streak) for user, streak in streaks
                )
            )
        )
    embed.description = "\n".join(lines)[:MAX_DESCRIPTION]
    embed.set_footer(
        text=_(
            "Equities for the player deciding: cubeless for plays, per cube for the cube. "
            "/bglearn leaderboard for the server's puzzle table."
        )
    )
    return embed


def drill_content(drill: Drill) -> str:
    d = drill.decision
    when = _("game #{id}, move {move}").format(id=d.game_id, move=d.move)
    if d.imported:
        when = _("an imported match (game {number}, {names}), move {move}").format(
            number=d.game_number, names=_(" vs ").join(shown(n) for n in d.names), move=d.move
        )
    box = _("new") if drill.box == 0 else _("box {number} of 5").format(number=drill.box + 1)
    return _(
        "🎯 **Drill** · your error in {when} ({box}) · {due} due now, {later} waiting, {learned} learned\n**{question}** Pick the best choice."
    ).format(
        when=when, box=box, due=drill.due, later=drill.later, learned=drill.learned, question=plain(question(d, True))
    )


def no_drill_text(counts: tuple[int, int, int]) -> str:
    due, later, learned = counts
    if not later and not learned:
        return _(
            "No drill yet: drills are your own errors (0.04 or more) in analysed games. Finish a game and come back."
        )
    return _("No drill due now: {later} waiting for later, {learned} learned. Come back later.").format(
        later=later, learned=learned
    )


def leaderboard_embed(place: str, scores: Sequence[ScoreRow], mine: ScoreRow | None, user_id: int) -> discord.Embed:
    embed = discord.Embed(title=_("🧩 Puzzle leaderboard · {place}").format(place=shown(place)), colour=COLOUR)
    if not scores:
        embed.description = _(
            "No daily puzzle answered yet. A moderator turns them on with `/bglearn puzzle daily:on`."
        )
        return embed
    lines = []
    for rank, score in enumerate(scores, start=1):
        name = mention(score.user_id)
        lines.append(
            _("**{rank}.** {name} · {correct} of {answered} right · streak {streak} (best {best_streak})").format(
                rank=rank,
                name=name,
                correct=score.correct,
                answered=score.answered,
                streak=score.streak,
                best_streak=score.best_streak,
            )
        )
    if mine is not None and all(s.user_id != user_id for s in scores):
        lines.append(
            _("You: {correct} of {answered} right · streak {streak} (best {best_streak})").format(
                correct=mine.correct, answered=mine.answered, streak=mine.streak, best_streak=mine.best_streak
            )
        )
    embed.description = "\n".join(lines)
    return embed


# -- games played elsewhere ---------------------------------------------------------------------


def imported_embed(imported: ImportedAnalysis) -> discord.Embed:
    """An imported match's analysis, game by game (private: the file is the asker's)."""
    kind = _("{length}-point match").format(length=imported.length) if imported.length else _("money session")
    names = _(" vs ").join(_name(n) for n in imported.names)
    embed = discord.Embed(title=_("📊 Imported {kind} · {names}").format(kind=kind, names=names), colour=0x2E7D32)
    game = _("Game {number}")
    parts = [f"**{game.format(number=g.number)}**\n```\n{in_code(g.summary)}\n```" for g in imported.games]
    text = "\n".join(parts)
    if len(text) > 3900:
        text = text[:3880].rsplit("\n", 1)[0] + "\n…```"
    embed.description = text or _("No game to analyse.")
    skipped = imported.games_read - len(imported.games)
    if imported.seat is None:
        kept = _("Nothing of the file is kept: say which player you are with `me:` to keep your errors as drills.")
    else:
        kept = ngettext(
            "{count} new error of yours ({name}) went to your drills (/bglearn drill, yours alone).",
            "{count} new errors of yours ({name}) went to your drills (/bglearn drill, yours alone).",
            imported.drills,
        ).format(count=imported.drills, name=imported.names[imported.seat])
    embed.set_footer(
        text=(
            ngettext(
                "{count} game read, the last {analysed} analysed.",
                "{count} games read, the last {analysed} analysed.",
                imported.games_read,
            )
            if skipped
            else ngettext("{count} game read.", "{count} games read.", imported.games_read)
        ).format(count=imported.games_read, analysed=len(imported.games))
        + " "
        + kept
        + " "
        + _("No rating or leaderboard is touched.")
    )
    return embed
