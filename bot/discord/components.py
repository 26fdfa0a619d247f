"""Persistent buttons and menus: all state lives in the custom id.

Every component is a :class:`discord.ui.DynamicItem` registered once with
``bot.add_dynamic_items(*DYNAMIC_ITEMS)``, so a board posted before a restart
still works after it. Game controls carry the game id and the game's version
(``bg:roll:12:57``): a click on an old board reaches the service with that
version and gets "the game has moved on" instead of acting on a position the
player never saw. The views hold no rules: each callback hands the click to
:class:`bot.discord.table.Table`.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.core.consultations import ROLL, question_of
from bot.core.kibitzers import poll_of
from bot.core.model import GameState
from bot.core.tournaments import TournamentView
from bot.discord.builder import BuildButton, start_button
from bot.discord.kibitzing import KibitzButton
from bot.discord.met_panel import MetButton
from bot.discord.patience_panel import PatienceButton
from bot.discord.replies import table_of, tourneys_of
from bot.discord.tutor_panel import TutorButton
from engine import Phase
from i18n import N_, _

GAME_BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "roll": (N_("Roll"), discord.ButtonStyle.primary),
    "opening": (N_("Play the opening throw"), discord.ButtonStyle.success),
    "double": (N_("Double"), discord.ButtonStyle.secondary),
    "take": (N_("Take"), discord.ButtonStyle.success),
    "pass": (N_("Pass"), discord.ButtonStyle.danger),
    "beaver": (N_("Beaver"), discord.ButtonStyle.secondary),
    "raccept": (N_("Accept resignation"), discord.ButtonStyle.success),
    "rreject": (N_("Reject resignation"), discord.ButtonStyle.danger),
}
CHALLENGE_BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "accept": (N_("Accept"), discord.ButtonStyle.success),
    "seed": (N_("Accept with my own seed"), discord.ButtonStyle.secondary),
    "decline": (N_("Decline"), discord.ButtonStyle.danger),
    "cancel": (N_("Withdraw"), discord.ButtonStyle.secondary),
}
SELECT_LIMIT = 25


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:(?P<action>roll|opening|double|take|pass|beaver|raccept|rreject):(?P<game>[0-9]+):(?P<version>[0-9]+)",
):
    """Roll / Play the opening throw / Double / Take / Pass / Beaver / Accept or Reject a resignation."""

    def __init__(self, action: str, game_id: int, version: int, label: str | None = None) -> None:
        default, style = GAME_BUTTONS[action]
        super().__init__(
            discord.ui.Button(label=label or _(default), style=style, custom_id=f"bg:{action}:{game_id}:{version}")
        )
        self.action = action
        self.game_id = game_id
        self.version = version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GameButton:
        return cls(match["action"], int(match["game"]), int(match["version"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await table_of(interaction).click_game_button(interaction, self.action, self.game_id, self.version)
        finally:
            let_go(self.view, interaction)


class PlaySelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"bg:play:(?P<game>[0-9]+):(?P<version>[0-9]+)",
):
    """A menu of the legal plays (when there are at most 25)."""

    def __init__(self, game_id: int, version: int, plays: list[str]) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"bg:play:{game_id}:{version}",
            placeholder=_("Choose your play"),
            options=[discord.SelectOption(label=p[:100], value=p[:100]) for p in plays[:SELECT_LIMIT]],
            min_values=1,
            max_values=1,
        )
        super().__init__(select)
        self.game_id = game_id
        self.version = version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PlaySelect:
        options = [o.value for o in getattr(item, "options", [])] or ["-"]
        return cls(int(match["game"]), int(match["version"]), options)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self.item.values or _chosen(interaction)
        play = values[0] if values else ""
        try:
            await table_of(interaction).click_play(interaction, self.game_id, self.version, play)
        finally:
            let_go(self.view, interaction)


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:ch:(?P<action>accept|seed|decline|cancel):(?P<id>[0-9]+):(?P<thread>[01])",
):
    """Accept, Accept with my own seed, Decline (the challenged member) and Withdraw (the challenger)."""

    def __init__(self, action: str, challenge_id: int, thread: bool) -> None:
        label, style = CHALLENGE_BUTTONS[action]
        super().__init__(
            discord.ui.Button(label=_(label), style=style, custom_id=f"bg:ch:{action}:{challenge_id}:{int(thread)}")
        )
        self.action = action
        self.challenge_id = challenge_id
        self.thread = thread

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChallengeButton:
        return cls(match["action"], int(match["id"]), match["thread"] == "1")

    async def callback(self, interaction: discord.Interaction) -> None:
        await table_of(interaction).click_challenge(interaction, self.action, self.challenge_id, self.thread)


class RematchButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:rematch:(?P<kind>again|double):(?P<game>[0-9]+)",
):
    """Rematch (same settings, colours swapped) or Double or nothing (a money game
    at twice the stake), on a finished game's board: a challenge the other player accepts."""

    LABELS = {"again": N_("Rematch"), "double": N_("Double or nothing")}

    def __init__(self, kind: str, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=_(self.LABELS[kind]),
                style=discord.ButtonStyle.secondary,
                custom_id=f"bg:rematch:{kind}:{game_id}",
            )
        )
        self.kind = kind
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> RematchButton:
        return cls(match["kind"], int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await table_of(interaction).click_rematch(interaction, self.game_id, double=self.kind == "double")


class LeaderboardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:lb:(?P<kind>rating|points):(?P<offset>[0-9]+):(?P<dir>prev|next)(?::(?P<family>[a-z]+))?",
):
    """Prev / Next page of the leaderboard (anyone may page); a game family's but
    backgammon's names the family last (boards posted before families still page)."""

    def __init__(
        self, kind: str, offset: int, direction: str, *, disabled: bool = False, family: str = "backgammon"
    ) -> None:
        label = "◀ " + _("Prev") if direction == "prev" else _("Next") + " ▶"
        tail = "" if family == "backgammon" else f":{family}"
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"bg:lb:{kind}:{offset}:{direction}{tail}",
                disabled=disabled,
            )
        )
        self.kind = kind
        self.offset = offset
        self.family = family

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LeaderboardButton:
        return cls(match["kind"], int(match["offset"]), match["dir"], family=match["family"] or "backgammon")

    async def callback(self, interaction: discord.Interaction) -> None:
        await table_of(interaction).click_leaderboard(interaction, self.kind, self.offset, self.family)


class TourneyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"bg:tj:(?P<action>join|leave):(?P<id>[0-9]+)",
):
    """Join / Leave on a tournament's announcement, while sign-up is open."""

    LABELS = {"join": (N_("Join"), discord.ButtonStyle.success), "leave": (N_("Leave"), discord.ButtonStyle.secondary)}

    def __init__(self, action: str, tournament_id: int) -> None:
        label, style = self.LABELS[action]
        super().__init__(discord.ui.Button(label=_(label), style=style, custom_id=f"bg:tj:{action}:{tournament_id}"))
        self.action = action
        self.tournament_id = tournament_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TourneyButton:
        return cls(match["action"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await tourneys_of(interaction).click(interaction, self.action, self.tournament_id)


def learning_of(interaction: discord.Interaction) -> Any:
    """The ``/bglearn`` cog that answers puzzle and drill menus (found by name: like the
    table, a component rebuilt from its custom id has no constructor of ours)."""
    return interaction.client.get_cog("LearnCog")  # type: ignore[attr-defined]


class AnswerSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"bglearn:(?P<what>pz|dr):(?P<id>[0-9]+)",
):
    """The choices of a puzzle (``pz``) or a drill (``dr``); the value is the choice's index."""

    PLACEHOLDER = {"pz": N_("Your answer (only you see it)"), "dr": N_("Your answer")}

    def __init__(self, what: str, item_id: int, labels: list[str]) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"bglearn:{what}:{item_id}",
            placeholder=_(self.PLACEHOLDER[what]),
            options=[
                discord.SelectOption(label=label[:100], value=str(i)) for i, label in enumerate(labels[:SELECT_LIMIT])
            ],
            min_values=1,
            max_values=1,
        )
        super().__init__(select)
        self.what = what
        self.item_id = item_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AnswerSelect:
        labels = [o.label for o in getattr(item, "options", [])] or ["-"]
        return cls(match["what"], int(match["id"]), labels)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self.item.values or _chosen(interaction)
        index = int(values[0]) if values and str(values[0]).isdigit() else -1
        await learning_of(interaction).answer(interaction, self.what, self.item_id, index)


def answer_controls(what: str, item_id: int, labels: list[str]) -> discord.ui.View:
    controls = discord.ui.View(timeout=None)
    controls.add_item(AnswerSelect(what, item_id, labels))
    return controls


DYNAMIC_ITEMS = (
    GameButton,
    MetButton,
    PlaySelect,
    ChallengeButton,
    RematchButton,
    LeaderboardButton,
    BuildButton,
    PatienceButton,
    TourneyButton,
    AnswerSelect,
    TutorButton,
)


# -- building views ---------------------------------------------------------------------


def rematch_controls(state: GameState) -> discord.ui.View | None:
    """Rematch (and Double or nothing for a money game) under a game two people
    finished; None for a practice game, the computer's, a tournament's, a team's (it challenges
    again with ``/bgclub consult``), or one abandoned."""
    options = state.options
    if state.is_active or state.status != "finished" or options.practice or options.computer_level:
        return None
    if options.teams:
        return None
    if options.tournament is not None:
        return None
    if any(player.is_bot for player in state.players):
        return None
    controls = discord.ui.View(timeout=None)
    controls.add_item(RematchButton("again", state.id))
    if not options.match_length:
        controls.add_item(RematchButton("double", state.id))
    return controls


def _chosen(interaction: discord.Interaction) -> list[str]:
    """A select's values as the click's payload holds them (when the item had none)."""
    data = interaction.data
    values = data.get("values") if data else None
    return [str(value) for value in values] if isinstance(values, list) else []


def let_go(view: discord.ui.view.BaseView | None, interaction: discord.Interaction | None = None) -> None:
    """Break a finished view's ties with its items, and a finished click's with
    itself. discord.py's views and items point at each other, and so do an
    interaction and its response (and the message it answered with): each would
    wait for the garbage collector, with all it holds (the clicked message and
    its components, the member, the board's file). Under load that was most of
    what the collector freed, in pauses of 50-150 ms with every click in flight
    waiting. Only for an interaction whose callback is done: a later
    ``interaction.response`` would be a fresh one that does not know it answered."""
    if interaction is not None:
        try:
            # a private cached slot: InteractionResponse._parent is the interaction
            delattr(interaction, "_cs_response")
        except AttributeError:
            pass
        interaction._original_response = None  # its message's state holds the interaction
    if view is None:
        return
    for item in view.children:
        item._view = None
        inner = getattr(item, "item", None)  # a DynamicItem's own button or menu
        if inner is not None:
            inner._view = None
    view.clear_items()


def game_controls(state: GameState) -> discord.ui.View | None:
    """The controls for whoever must act now (None when nothing is clickable);
    under a finished game, the rematch buttons."""
    if not state.is_active:
        return rematch_controls(state)
    if state.match.game is None or state.to_act() is None:
        return None
    if state.to_act().is_bot:  # type: ignore[union-attr]
        return None  # the computer acts by itself: nothing to click meanwhile
    game = state.game
    if state.options.team_at(game.turn) is not None:  # a team: its members vote, nobody clicks for it
        question = question_of(state)
        if question is None or question.kind == ROLL:
            return None
        controls = discord.ui.View(timeout=None)
        controls.add_item(KibitzButton(state.id, state.version, team=True))
        return controls
    items: list[discord.ui.Item[Any]] = []
    if game.phase is Phase.ROLL:
        offer = game.opening_offer
        if offer is not None:  # Hoyle: play the opening throw, or throw again
            play = _("Play {high}-{low}").format(high=offer.high, low=offer.low)
            items.append(GameButton("opening", state.id, state.version, play))
        items.append(GameButton("roll", state.id, state.version, _("Throw again") if offer is not None else None))
        if game.can_double(game.turn):
            items.append(GameButton("double", state.id, state.version))
    elif game.phase is Phase.PLAY:
        count = len(state.legal_play_texts())
        if 1 <= count <= SELECT_LIMIT:  # spelt only when they fit: doubles can have hundreds
            items.append(PlaySelect(state.id, state.version, state.legal_play_texts()))
        if count:
            items.append(start_button(state.id, state.version))
    elif game.phase is Phase.DOUBLED:
        items.append(GameButton("take", state.id, state.version))
        items.append(GameButton("pass", state.id, state.version))
        if game.can_beaver(game.turn):
            items.append(GameButton("beaver", state.id, state.version))
    elif game.phase is Phase.RESIGNATION:
        items.append(GameButton("raccept", state.id, state.version))
        items.append(GameButton("rreject", state.id, state.version))
    if items and not game.is_money and game.phase is not Phase.RESIGNATION and game.settings.cube:
        items.append(MetButton(state.id))  # the score's take points, privately
    if items and poll_of(state) is not None:
        items.append(KibitzButton(state.id, state.version))  # the onlookers' private "what would you play?"
    if not items:
        return None
    controls = discord.ui.View(timeout=None)
    for item in items:
        controls.add_item(item)
    return controls


class SeedModal(discord.ui.Modal, title="Accept with your own seed"):
    """The accepter's own text for the dice: it salts the committed seed."""

    seed: discord.ui.TextInput[SeedModal] = discord.ui.TextInput(
        custom_id="seed",
        label="Any text: the dice are mixed with it",
        placeholder="e.g. a word, a number, the time",
        min_length=1,
        max_length=64,
    )

    def __init__(self, challenge_id: int, thread: bool) -> None:
        super().__init__(timeout=900)
        self.title = _("Accept with your own seed")  # the class's are English: worded for the member here
        self.seed.label = _("Any text: the dice are mixed with it")
        self.seed.placeholder = _("e.g. a word, a number, the time")
        self.challenge_id = challenge_id
        self.thread = thread

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await table_of(interaction).accept_with_seed(interaction, self.challenge_id, self.thread, str(self.seed.value))


def challenge_controls(challenge_id: int, thread: bool) -> discord.ui.View:
    controls = discord.ui.View(timeout=None)
    for action in ("accept", "seed", "decline", "cancel"):
        controls.add_item(ChallengeButton(action, challenge_id, thread))
    return controls


def tourney_controls(view: TournamentView) -> discord.ui.View | None:
    """Join / Leave under a tournament's announcement while sign-up is open."""
    if not view.is_open:
        return None
    controls = discord.ui.View(timeout=None)
    controls.add_item(TourneyButton("join", view.id))
    controls.add_item(TourneyButton("leave", view.id))
    return controls


def leaderboard_controls(
    kind: str, offset: int, limit: int, total: int, family: str = "backgammon"
) -> discord.ui.View | None:
    if total <= limit:
        return None
    controls = discord.ui.View(timeout=None)
    controls.add_item(LeaderboardButton(kind, max(offset - limit, 0), "prev", disabled=offset <= 0, family=family))
    controls.add_item(LeaderboardButton(kind, offset + limit, "next", disabled=offset + limit >= total, family=family))
    return controls


def disabled_copy(message: discord.Message) -> discord.ui.View | None:
    """The message's components, all disabled (a finished view: never stored for dispatch)."""
    if not message.components:
        return None
    view = discord.ui.View.from_message(message, timeout=None)
    for item in view.children:
        if hasattr(item, "disabled"):
            item.disabled = True
    view.stop()
    return view
