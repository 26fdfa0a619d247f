"""What happened, in words: the lines the players read after every action.

The engine logs actions; this module turns them into :class:`Event` lines
("Ann rolled 6-5", "Ann has only one play: 24/13", "Bob wins a gammon: 2
points", "Ann wins the 5-point match 5-3"), with one spelling of each win
kind (:attr:`engine.WinKind.phrase`).
"""

from __future__ import annotations

from datetime import timedelta

from bot.core.model import VARIANT_NAMES, Event, GameState
from engine import Action, Match, Phase, Position, WinKind
from engine.variants import TablesGame
from i18n import N_, Said, said_n


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
            events.append(Event("new_game", None, Said("game {number} begins", number=number)))
        for action in game.log[max(0, before - marker - 1) :]:
            text = describe_action(action, names)
            if not text:
                continue
            kind = action.kind
            if kind == "play" and action.auto:
                kind = "dance"
            elif id(action) in forced:
                kind = "forced"
                text = Said("{name} has only one play: {play}", name=names[action.player or 0], play=action.text)
            events.append(Event(kind, action.player, text))
        if game.result is not None:
            r = game.result
            how = {
                "bearoff": "",
                "pass": Said(" (double passed)"),
                "resign": Said(" (resignation)"),
                **{reason: Said(ending) for reason, ending in TABLES_ENDINGS.items() if reason != "mother"},
            }.get(r.reason, f" ({r.reason})")
            if isinstance(game, TablesGame):
                result: Said = tables_result(game, names[r.winner], r.points, r.reason)
            else:
                result = said_n(
                    "{name} wins {kind}{how}: {count} point",
                    "{name} wins {kind}{how}: {count} points",
                    r.points,
                    name=names[r.winner],
                    kind=phrase(r.kind),
                    how=how,
                )
            events.append(Event("game_over", r.winner, result))
    if match.is_over or state.status == "finished":
        winner = match.winner
        if winner is None and state.result:
            winner = state.result.get("winner_seat")
        if winner is not None:
            if match.is_money:
                text = Said("{name} wins the money game", name=names[winner])
            elif not match.length:  # one game of plakoto, fevga or nardy
                text = Said(
                    "{name} wins the game of {game}",
                    name=names[winner],
                    game=Said(VARIANT_NAMES.get(state.options.variant, state.options.variant)),
                )
            else:
                s = match.score
                score = f"{max(s)}-{min(s)}"
                text = Said(
                    "{name} wins the {length}-point match {score}", name=names[winner], length=match.length, score=score
                )
            if state.result and state.result.get("forfeited"):
                text = Said("{result} (forfeit)", result=text)
            events.append(Event("match_over", winner, text))
    elif state.is_active:
        game = state.game
        if isinstance(game.position, Position) and game.position.bar[0] and game.phase in (Phase.ROLL, Phase.PLAY):
            events.append(
                Event("bar", game.player_on_roll, Said("{name} is on the bar", name=names[game.player_on_roll]))
            )
    return events


PHRASES = {WinKind.SINGLE: N_("a single game"), WinKind.GAMMON: N_("a gammon"), WinKind.BACKGAMMON: N_("a backgammon")}
""":attr:`engine.WinKind.phrase`, for the catalogue."""


def phrase(kind: WinKind) -> Said:
    """What is won or resigned (``a gammon``), in the reader's language."""
    return Said(PHRASES.get(kind, kind.phrase))


WIN_WORDS = {
    1: N_("a single game"),
    2: N_("a double game"),
    3: N_("a triple game"),
}
NARDY_WIN_WORDS = {1: N_("oin (a single game)"), 2: N_("mars (a double game)"), 3: N_("koks (a triple game)")}
"""How plakoto, fevga and nardy name a win by its points (docs/rules.md sections 20-22)."""
TABLES_ENDINGS = {
    "mother": N_(" (the mother is pinned)"),
    "forfeit": N_(" (forfeit)"),
    "timeout": N_(" (time ran out)"),
}


def tables_result(game: TablesGame, name: str, points: int, reason: str) -> Said:
    """One line for the end of a game of plakoto, fevga or nardy, in the game's own words."""
    words = (NARDY_WIN_WORDS if game.game == "nardy" else WIN_WORDS).get(points, WIN_WORDS[1])
    how = Said(TABLES_ENDINGS[reason]) if reason in TABLES_ENDINGS else ""
    return said_n(
        "{name} wins {kind}{how}: {count} point",
        "{name} wins {kind}{how}: {count} points",
        points,
        name=name,
        kind=Said(words),
        how=how,
    )


def span(delta: timedelta) -> str:
    hours = max(int(delta.total_seconds() // 3600), 0)
    if hours >= 48:
        return said_n("{count} day", "{count} days", hours // 24)
    if hours >= 1:
        return said_n("{count} hour", "{count} hours", hours)
    minutes = max(int(delta.total_seconds() // 60), 1)
    return said_n("{count} minute", "{count} minutes", minutes)


def describe_action(action: Action, names: list[str]) -> str:
    who = names[action.player] if action.player is not None else ""
    kind = action.kind
    if kind == "setup":
        return Said("the game starts from the position {position}", position=action.text)
    if kind == "opening":
        assert action.dice is not None
        d0, d1 = action.dice
        if d0 == d1:
            return Said("opening throw: both threw {number}, throwing again", number=d0)
        starter = 0 if d0 > d1 else 1
        return Said(
            "opening throw: {first} {first_die}, {second} {second_die}: {starter} starts",
            first=names[0],
            first_die=d0,
            second=names[1],
            second_die=d1,
            starter=names[starter],
        )
    if kind == "roll":
        assert action.dice is not None
        dice = f"{max(action.dice)}-{min(action.dice)}"
        return Said("{name} rolled {dice}", name=who, dice=dice)
    if kind == "play":
        if action.auto:
            return Said("{name} can't move and loses the turn", name=who)
        return Said("{name} played {play}", name=who, play=action.text)
    if kind == "closed_out":
        return Said("{name} is closed out and can't roll", name=who)
    if kind == "throws_first":
        return Said("{name} won the last game with a hit and throws first", name=who)
    if kind == "use_opening":
        return Said("{name} plays the opening throw", name=who)
    if kind == "double":
        return Said("{name} doubles to {value}", name=who, value=action.value)
    if kind == "take":
        return Said("{name} takes", name=who)
    if kind == "pass":
        return Said("{name} passes", name=who)
    if kind == "beaver":
        return Said("{name} beavers: the cube is at {value}", name=who, value=action.value)
    if kind == "resign":
        return Said("{name} offers to resign {kind}", name=who, kind=phrase(WinKind(action.value or 1)))
    if kind == "accept":
        return Said("{name} accepts the resignation", name=who)
    if kind == "reject":
        return Said("{name} rejects the resignation; play goes on", name=who)
    if kind == "forfeit":
        if action.text == "timeout":
            return Said("{name} ran out of time", name=who)
        return Said("{name} forfeits", name=who)
    return ""
