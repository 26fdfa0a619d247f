"""Board colour themes.

A :class:`Theme` is a frozen (hashable) bag of RGB colours, so it can key the
caches of pre-drawn boards and checker sprites. Every theme paints an opaque
board with its own frame, so the image reads the same on Discord's dark
(#313338) and light (#ffffff) backgrounds.

Checker colours are per *seat*: ``checker[0]`` is the light set, ``checker[1]``
the dark set. Which player sits in which seat is a scene option
(:attr:`renderer.scene.BoardScene.on_roll_colour`), so a player keeps their
colour from turn to turn.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Theme:
    """The colours of one board style."""

    name: str
    background: RGB
    """Behind everything: the name bands and the status line."""
    frame: RGB
    """The board's wooden (or plain) rim, the bar and the cube strip."""
    frame_edge: RGB
    """A thin line that separates the frame from the playing surface."""
    felt: RGB
    """The playing surface between the points."""
    tray: RGB
    """The bear-off tray and the recess where the cube waits."""
    points: tuple[RGB, RGB]
    """The two alternating triangle colours (odd points, even points)."""
    point_edge: RGB | None
    """An outline around each triangle, or None for none."""
    number_text: RGB
    """Point numbers printed on the frame."""
    checker: tuple[RGB, RGB]
    """Checker fill for seat 0 (light) and seat 1 (dark)."""
    checker_edge: tuple[RGB, RGB]
    """Checker outline for each seat; strong in the high-contrast theme."""
    checker_text: tuple[RGB, RGB]
    """Stack counts written on a checker of each seat."""
    checker_edge_width: int
    """Outline thickness in final-image pixels."""
    die: tuple[RGB, RGB]
    """Die body for each seat (a player's dice match their checkers)."""
    pip: tuple[RGB, RGB]
    """Die pips for each seat."""
    cube: RGB
    cube_text: RGB
    text: RGB
    """Names and other text on the background."""
    muted_text: RGB
    """Secondary text: pip counts, the last play."""
    turn_band: RGB
    """The band of the player who must act now."""
    highlight: RGB
    """Last play: rings on checkers that arrived, outlines where they left."""
    highlight_text: RGB
    """Text written on the highlight colour (touched point numbers)."""
    hit: RGB
    """Last play: the mark on a point where a checker was hit, and the hit checker."""

    def __hash__(self) -> int:
        # Themes key the renderer's caches, looked up dozens of times per board.
        # Equal themes have equal names, so the name is a valid hash, and much
        # cheaper than hashing every colour.
        return hash(self.name)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Pickled for a drawing worker with every board: a known theme by its
        # name (the worker's own copy, whose caches are warm), another whole.
        if THEMES.get(self.name) == self:
            return _known_theme, (self.name,)
        return Theme, tuple([getattr(self, f.name) for f in fields(self)])


def _known_theme(name: str) -> Theme:
    return THEMES[name]


CLASSIC = Theme(
    name="classic",
    background=(44, 30, 20),
    frame=(104, 66, 38),
    frame_edge=(58, 37, 21),
    felt=(38, 96, 62),
    tray=(30, 74, 48),
    points=((224, 205, 160), (150, 52, 40)),
    point_edge=None,
    number_text=(240, 226, 196),
    checker=((242, 236, 222), (40, 32, 28)),
    checker_edge=((120, 110, 95), (12, 10, 8)),
    checker_text=((30, 26, 22), (245, 240, 228)),
    checker_edge_width=2,
    die=((250, 248, 240), (34, 28, 24)),
    pip=((20, 20, 20), (250, 248, 240)),
    cube=(250, 246, 232),
    cube_text=(20, 20, 20),
    text=(248, 240, 224),
    muted_text=(214, 196, 168),
    turn_band=(150, 104, 44),
    highlight=(255, 214, 64),
    highlight_text=(30, 24, 10),
    hit=(230, 60, 50),
)
"""A wooden frame, green felt, cream and red points, ivory and ebony checkers."""


HIGH_CONTRAST = Theme(
    name="high-contrast",
    background=(12, 12, 12),
    frame=(40, 40, 40),
    frame_edge=(0, 0, 0),
    felt=(88, 88, 88),
    tray=(60, 60, 60),
    # Okabe-Ito blue and orange: told apart by every common colour-vision type.
    points=((0, 114, 178), (230, 159, 0)),
    point_edge=(0, 0, 0),
    number_text=(255, 255, 255),
    checker=((255, 255, 255), (0, 0, 0)),
    checker_edge=((0, 0, 0), (255, 255, 255)),
    checker_text=((0, 0, 0), (255, 255, 255)),
    checker_edge_width=3,
    die=((255, 255, 255), (0, 0, 0)),
    pip=((0, 0, 0), (255, 255, 255)),
    cube=(255, 255, 255),
    cube_text=(0, 0, 0),
    text=(255, 255, 255),
    muted_text=(225, 225, 225),
    turn_band=(0, 84, 140),
    # Okabe-Ito yellow and vermillion; the marks also differ in shape.
    highlight=(240, 228, 66),
    highlight_text=(0, 0, 0),
    hit=(213, 94, 0),
)
"""Colour-blind safe: white and black checkers with strong outlines, blue and orange points."""


THEMES: dict[str, Theme] = {CLASSIC.name: CLASSIC, HIGH_CONTRAST.name: HIGH_CONTRAST}
"""Themes by name, for command lines and settings."""
