"""What a board picture shows, in backgammon words.

A :class:`BoardScene` is everything :func:`renderer.board.render_board` needs:
the position, whose view to draw, the players, dice, cube, score and the last
play. It holds no pixels; the layout and the theme decide how it looks.

Sides in a scene are named relative to the position: index 0 is always
**the player on roll** (the one ``position`` is seen from) and index 1 is
**the opponent**. This holds for ``names``, ``score``, ``cube_owner`` and
``last_play_by``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from engine.gnubgid import decode_match_id
from engine.play import Move
from engine.position import Position
from i18n import N_, current
from renderer.themes import CLASSIC, Theme

ON_ROLL = 0
"""Side index of the player on roll."""
OPPONENT = 1
"""Side index of the opponent."""
DEFAULT_NAMES = (N_("Player"), N_("Opponent"))
"""The names shown for a side with an empty name (translated where drawn)."""


@dataclass(frozen=True, slots=True)
class BoardScene:
    """One moment of a game, ready to draw.

    ``last_play`` is given **in the mover's own numbering**, exactly as the
    engine's :class:`~engine.moves.Move` objects come out of
    :func:`~engine.moves.legal_plays` for that mover (25 = the mover's bar,
    0 = borne off), and ``last_play_by`` says who the mover was. Usually the
    opponent just played and now the other player is on roll, so the default
    is ``last_play_by=1``: a move from the opponent's point 13 is drawn on the
    on-roll player's point 12. ``position`` is the position *after* the play.
    """

    position: Position
    """The checkers, seen from the player on roll (the engine's convention)."""
    viewpoint: int = ON_ROLL
    """Whose side the board is drawn from: 0 = the player on roll, 1 = the
    opponent. That player's home board is bottom right and the point numbers
    are theirs."""
    names: tuple[str, str] = ("", "")
    """(player on roll, opponent). Any Unicode; emoji a font lacks are dropped
    and long names are cut with an ellipsis. Empty names show as "Player"."""
    on_roll_colour: int = 0
    """Which checker set the player on roll plays: 0 = the theme's light
    checkers, 1 = the dark ones (the opponent has the other). Keep it tied to
    the player, e.g. the Match ID's ``player_on_roll``, so colours don't swap
    every turn."""
    dice: tuple[int, int] | None = None
    """The dice rolled and still to be played by the player on roll, or None
    before the roll. With ``opening`` they are one die per player."""
    opening: bool = False
    """The dice are the opening throw: ``dice[0]`` was thrown by the player on
    roll, ``dice[1]`` by the opponent, and each is drawn on its thrower's side."""
    cube_value: int = 1
    """The doubling cube's value (1, 2, 4, ...). A centred cube at 1 shows 64."""
    cube_owner: int | None = None
    """None = centred (either may double), 0 = the player on roll owns it, 1 = the opponent."""
    cube_offered: bool = False
    """The player on roll has just doubled: the cube is drawn in the middle of
    their half showing ``2 * cube_value`` and the opponent must take or pass."""
    match_length: int = 0
    """Points to win the match; 0 = a money game."""
    score: tuple[int, int] = (0, 0)
    """Match score (player on roll, opponent)."""
    stake: int | None = None
    """Money game stake per point, shown when ``match_length`` is 0."""
    crawford: bool = False
    """This is the Crawford game (no doubling)."""
    last_play: tuple[Move, ...] | None = None
    """The last play, in the mover's numbering (see the class docstring)."""
    last_play_by: int = OPPONENT
    """Who made ``last_play``: 0 = the player on roll, 1 = the opponent."""
    to_act_label: str | None = None
    """Overrides the status line ("Ann to play 6-4", "Bob to take or pass", ...)."""
    theme: Theme = field(default=CLASSIC)
    """Colours; see :mod:`renderer.themes`."""
    language: str = field(default_factory=current)
    """The language of the board's words (a catalogue name, see :mod:`i18n`): by
    default the one in force where the scene is made (English outside any
    :func:`i18n.speaking`), so a scene made for a message carries the message's
    language to whichever worker draws it. ``to_act_label`` is already in it."""

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Pickled for a drawing worker with every board: its values in order,
        # not the generic state of a slotted dataclass (checked when it was made).
        return _unpickled, tuple([getattr(self, name) for name in _FIELDS])

    def __post_init__(self) -> None:
        if self.viewpoint not in (0, 1):
            raise ValueError(f"viewpoint is 0 or 1, not {self.viewpoint!r}")
        if self.on_roll_colour not in (0, 1):
            raise ValueError(f"on_roll_colour is 0 or 1, not {self.on_roll_colour!r}")
        if self.last_play_by not in (0, 1):
            raise ValueError(f"last_play_by is 0 or 1, not {self.last_play_by!r}")
        if self.cube_owner not in (None, 0, 1):
            raise ValueError(f"cube_owner is None, 0 or 1, not {self.cube_owner!r}")
        if self.cube_value < 1 or self.cube_value & (self.cube_value - 1):
            raise ValueError(f"the cube shows a power of two, not {self.cube_value}")
        if self.dice is not None and (
            len(self.dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in self.dice)
        ):
            raise ValueError(f"dice are two numbers 1..6, not {self.dice!r}")
        if len(self.names) != 2:
            raise ValueError("names are (player on roll, opponent)")

    @property
    def to_act(self) -> int:
        """Who must act now: the opponent when a double awaits an answer, else the player on roll."""
        return OPPONENT if self.cube_offered else ON_ROLL

    @classmethod
    def from_ids(
        cls,
        position_id: str,
        match_id: str | None = None,
        **options: object,
    ) -> BoardScene:
        """A scene from a GNU Backgammon Position ID and optional Match ID.

        The Match ID gives cube value and owner, dice, match length, score,
        Crawford and a pending double. Its player numbers (0/1) are turned into
        scene sides: the Match ID's ``player_on_roll`` is side 0 and plays the
        light checkers when it is player 0. ``options`` override any field
        (e.g. ``names=``, ``dice=``, ``theme=``).

        :raises engine.gnubgid.IdError: if an ID cannot be decoded.
        """
        position = Position.from_position_id(position_id)
        fields: dict[str, object] = {}
        if match_id:
            state = decode_match_id(match_id)
            me = state.player_on_roll
            fields = {
                "cube_value": state.cube,
                "cube_owner": None if state.cube_owner is None else int(state.cube_owner != me),
                "dice": tuple(state.dice) if all(state.dice) else None,
                "match_length": state.match_length,
                "score": (state.score[me], state.score[1 - me]),
                "crawford": state.crawford,
                "cube_offered": state.double_offered,
                "on_roll_colour": me,
            }
        fields.update(options)
        return cls(position, **fields)  # type: ignore[arg-type]


_FIELDS = tuple(f.name for f in fields(BoardScene))


def _unpickled(*values: object) -> BoardScene:
    scene = object.__new__(BoardScene)
    for name, value in zip(_FIELDS, values, strict=True):
        object.__setattr__(scene, name, value)
    return scene
