"""Scenes from the engine's :class:`engine.game.Game`: a board for now, frames for a replay.

The game speaks of players 0 and 1; a scene speaks of "on roll" and
"opponent". Player 0 always plays the light checkers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.game import Action, Game, GameSettings, Phase
from i18n import _, current, ngettext, speaking
from renderer.scene import DEFAULT_NAMES, BoardScene
from renderer.themes import CLASSIC, Theme

FRAME_ACTIONS = {
    "setup",
    "opening",
    "roll",
    "play",
    "double",
    "take",
    "beaver",
    "pass",
    "resign",
    "accept",
    "reject",
    "forfeit",
}
"""Logged actions worth a frame in a replay (auto actions show in the next frame)."""


def scene_from_game(
    game: Game,
    names: tuple[str, str] = ("", ""),
    *,
    viewer: int | None = None,
    stake: int | None = None,
    theme: Theme = CLASSIC,
    language: str | None = None,
) -> BoardScene:
    """The scene of ``game`` as it stands.

    :param names: players 0 and 1.
    :param viewer: the player (0 or 1) whose home board is drawn bottom right;
        None draws it for the player on roll.
    :param stake: money game stake per point, shown when the game is for money.
    :param language: the language of the board's words; None: the one in force.
    """
    with speaking(language or current()) as spoken:
        return _scene_from_game(game, names, viewer, stake, theme, spoken)


def _scene_from_game(
    game: Game, names: tuple[str, str], viewer: int | None, stake: int | None, theme: Theme, language: str
) -> BoardScene:
    on = game.player_on_roll
    other = 1 - on
    dice: tuple[int, int] | None = None
    opening = False
    if game.dice is not None:
        last = next((a for a in reversed(game.log) if not a.auto), None)
        if last is not None and last.kind == "opening" and game.opening_dice is not None:
            opening = True
            dice = (game.opening_dice[on], game.opening_dice[other])
        else:
            dice = (game.dice.die1, game.dice.die2)
    last_play = None
    last_play_by = 1
    if game.last_play is not None and game.last_play[1].moves:
        player, play = game.last_play
        last_play, last_play_by = play.moves, int(player != on)
    label = None
    if game.result is not None:
        winner = names[game.result.winner] or _(DEFAULT_NAMES[int(game.result.winner != on)])
        points = game.result.points
        label = ngettext("{player} wins {count} point", "{player} wins {count} points", points).format(
            player=winner, count=points
        )
    return BoardScene(
        position=game.position,
        viewpoint=0 if viewer is None or viewer == on else 1,
        names=(names[on], names[other]),
        on_roll_colour=on,
        dice=dice,
        opening=opening,
        cube_value=game.cube_value,
        cube_owner=None if game.cube_owner is None else int(game.cube_owner != on),
        cube_offered=game.phase is Phase.DOUBLED,
        match_length=game.settings.match_length,
        score=(game.score[on], game.score[other]),
        stake=stake if game.is_money else None,
        crawford=game.crawford,
        last_play=last_play,
        last_play_by=last_play_by,
        to_act_label=label,
        theme=theme,
        language=language,
    )


def scenes_from_game(
    actions: Iterable[Action | Mapping[str, Any]],
    settings: GameSettings | None = None,
    names: tuple[str, str] = ("", ""),
    *,
    score: tuple[int, int] = (0, 0),
    crawford: bool = False,
    viewer: int = 0,
    stake: int | None = None,
    theme: Theme = CLASSIC,
    language: str | None = None,
) -> Iterator[BoardScene]:
    """One scene per logged action of a game, for :func:`renderer.replay.render_replay`.

    The board is drawn from ``viewer``'s side throughout (default player 0) so
    it does not turn around every move. The first scene is the empty start.

    :raises engine.game.GameError: if the log does not replay.
    """
    language = language or current()
    game = Game(settings, score=score, crawford=crawford)
    yield scene_from_game(game, names, viewer=viewer, stake=stake, theme=theme, language=language)
    for raw in actions:
        action = raw if isinstance(raw, Action) else Action.from_dict(dict(raw))
        game.apply(action)
        if not action.auto and action.kind in FRAME_ACTIONS:
            yield scene_from_game(game, names, viewer=viewer, stake=stake, theme=theme, language=language)
