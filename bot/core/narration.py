"""What happened, in words: the lines the players read after every action.

The engine logs actions; this module turns them into :class:`Event` lines
("Ann rolled 6-5", "Ann has only one play: 24/13", "Bob wins a gammon: 2
points", "Ann wins the 5-point match 5-3"), with one spelling of each win
kind (:attr:`engine.WinKind.phrase`).
"""

from __future__ import annotations

from datetime import timedelta

from bot.core.model import Event, GameState, variant_name
from engine import Action, Match, Phase, Position, WinKind
from engine.variants import TablesGame
from i18n import N_, _, ngettext


def describe(state: GameState, match: Match, before: int, forced: set[int]) -> list[Event]:
    """What happened from ``match.log[before]`` on, in lines for people: each
    action, a forced play as such, each game's result right after its last
    move, the match's end, and who is left on the bar."""
    names = [p.name for p in state.players]
    events: list[Event] = []
    # Walk the games so each game's result comes right after its last move.
    offset = 0  # index in match.log of this game's "game" marker
    for number, game in enumerate(match.games, start=1):
        marker, offset = offset, offset + 1 + len(game.log)
        if offset <= before:
            continue
        if marker >= before and number > 1:
            events.append(Event("new_game", None, f"game {number} begins"))
        for action in game.log[max(0, before - marker - 1) :]:
            text = describe_action(action, names)
            if not text:
                continue
            kind = action.kind
            if kind == "play" and action.auto:
                kind = "dance"
            elif id(action) in forced:
                kind = "forced"
                text = f"{names[action.player or 0]} has only one play: {action.text}"
            events.append(Event(kind, action.player, text))
        if game.result is not None:
            r = game.result
            how = {"bearoff": "", "pass": " (double passed)", "resign": " (resignation)"}.get(
                r.reason, f" ({r.reason})"
            )
            text = f"{names[r.winner]} wins {r.kind.phrase}{how}: {r.points} point{'s' if r.points != 1 else ''}"
            if isinstance(game, TablesGame):
                text = tables_result(game, names[r.winner], r.points, r.reason)
            events.append(Event("game_over", r.winner, text))
    if match.is_over or state.status == "finished":
        winner = match.winner
        if winner is None and state.result:
            winner = state.result.get("winner_seat")
        if winner is not None:
            if match.is_money:
                text = f"{names[winner]} wins the money game"
            elif not match.length:  # one game of plakoto, fevga or nardy
                text = _("{name} wins the game of {game}").format(
                    name=names[winner], game=variant_name(state.options.variant)
                )
            else:
                s = match.score
                text = f"{names[winner]} wins the {match.length}-point match {max(s)}-{min(s)}"
            if state.result and state.result.get("forfeited"):
                text += " (forfeit)"
            events.append(Event("match_over", winner, text))
    elif state.is_active:
        game = state.game
        if isinstance(game.position, Position) and game.position.bar[0] and game.phase in (Phase.ROLL, Phase.PLAY):
            events.append(Event("bar", game.player_on_roll, f"{names[game.player_on_roll]} is on the bar"))
    return events


WIN_WORDS = {
    1: N_("a single game"),
    2: N_("a double game"),
    3: N_("a triple game"),
}
NARDY_WIN_WORDS = {1: N_("oin (a single game)"), 2: N_("mars (a double game)"), 3: N_("koks (a triple game)")}
"""How plakoto, fevga and nardy name a win by its points (docs/rules.md sections 20-22)."""


def tables_result(game: TablesGame, name: str, points: int, reason: str) -> str:
    """One line for the end of a game of plakoto, fevga or nardy, in the game's own words."""
    words = _((NARDY_WIN_WORDS if game.game == "nardy" else WIN_WORDS).get(points, WIN_WORDS[1]))
    how = {
        "mother": _(" (the mother is pinned)"),
        "forfeit": _(" (forfeit)"),
        "timeout": _(" (time ran out)"),
    }.get(reason, "")
    return ngettext(
        "{name} wins {kind}{how}: {points} point", "{name} wins {kind}{how}: {points} points", points
    ).format(name=name, kind=words, how=how, points=points)


def span(delta: timedelta) -> str:
    hours = max(int(delta.total_seconds() // 3600), 0)
    if hours >= 48:
        return f"{hours // 24} days"
    if hours >= 1:
        return f"{hours} hour{'s' if hours != 1 else ''}"
    minutes = max(int(delta.total_seconds() // 60), 1)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def describe_action(action: Action, names: list[str]) -> str:
    who = names[action.player] if action.player is not None else ""
    kind = action.kind
    if kind == "setup":
        return f"the game starts from the position {action.text}"
    if kind == "opening":
        assert action.dice is not None
        d0, d1 = action.dice
        if d0 == d1:
            return f"opening throw: both threw {d0}, throwing again"
        starter = 0 if d0 > d1 else 1
        return f"opening throw: {names[0]} {d0}, {names[1]} {d1}: {names[starter]} starts"
    if kind == "roll":
        assert action.dice is not None
        high, low = max(action.dice), min(action.dice)
        return f"{who} rolled {high}-{low}"
    if kind == "play":
        if action.auto:
            return f"{who} can't move and loses the turn"
        return f"{who} played {action.text}"
    if kind == "closed_out":
        return f"{who} is closed out and can't roll"
    if kind == "throws_first":
        return f"{who} won the last game with a hit and throws first"
    if kind == "use_opening":
        return f"{who} plays the opening throw"
    if kind == "double":
        return f"{who} doubles to {action.value}"
    if kind == "take":
        return f"{who} takes"
    if kind == "pass":
        return f"{who} passes"
    if kind == "beaver":
        return f"{who} beavers: the cube is at {action.value}"
    if kind == "resign":
        return f"{who} offers to resign {WinKind(action.value or 1).phrase}"
    if kind == "accept":
        return f"{who} accepts the resignation"
    if kind == "reject":
        return f"{who} rejects the resignation; play goes on"
    if kind == "forfeit":
        return f"{who} {'ran out of time' if action.text == 'timeout' else 'forfeits'}"
    return ""
