"""``/bgtools``: trust and interop — fair dice, dice statistics, positions, replays.

A second group because ``/bg`` is near Discord's 25 subcommands a group.
Like ``/bg``, each command reads its options, calls the service through the
table, and shows the result; refusals are raised and answered privately.

Positions are GNU Backgammon IDs or XGIDs, both ways: ``/bgtools position``
shows both, ``/bgtools setup`` takes either, and the message command "Show
board" (Message -> Apps) draws the first position written in a message.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.model import ChallengeOptions, GameSummary
from bot.discord import dice_text, presenter, replays, speech
from bot.discord.boards import scene_for_id
from bot.discord.cogs import Guarded
from bot.discord.cooldowns import cooldown, hold
from bot.discord.limits import quote, reason, shown
from bot.discord.parts import Parts
from bot.discord.refusals import UserError
from bot.discord.replies import (
    BOARD_PERMISSIONS,
    CHANNEL_PERMISSIONS,
    asked_at,
    defer,
    player_ref,
    require_permissions,
    send_private,
    send_public,
)
from engine import IdError, Xgid
from engine.ids import find_ids, read_id
from i18n import _, ngettext, worded

if TYPE_CHECKING:
    from bot.discord.client import BackgammonBot

SHOW_BOARD = "Show board"
"""The message command (Message -> Apps) that draws a position written in a message."""


@app_commands.guild_only()
class ToolsCog(
    Guarded,
    commands.GroupCog,
    group_name="bgtools",
    group_description="Backgammon tools: fair dice, positions, replays",
):
    """Fair dice, statistics, positions and replays."""

    def __init__(self, parts: Parts, bot: commands.Bot | None = None) -> None:
        self.settings = parts.settings
        self.service = parts.service
        self.advice = parts.advice
        self.table = parts.table
        self.cooldowns = parts.cooldowns
        self.replays = parts.replays
        self.drawing = parts.drawing
        super().__init__()
        # A message command is no subcommand of /bgtools: it goes in the tree itself, and out with the cog.
        self.bot = bot
        self.show_board_menu = app_commands.ContextMenu(
            name=SHOW_BOARD,
            callback=self.show_board,
            allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=False, private_channel=False),
        )
        self.show_board_menu.guild_only = True
        if bot is not None:
            bot.tree.add_command(self.show_board_menu)

    async def cog_unload(self) -> None:
        if self.bot is not None:
            self.bot.tree.remove_command(self.show_board_menu.name, type=self.show_board_menu.type)

    # -- fair dice ------------------------------------------------------------------------------

    @cooldown("review")
    @app_commands.command(name="verify", description="Recompute every roll of a finished game from its revealed seed")
    @app_commands.describe(game="Game number (default: your latest finished game)")
    async def verify(self, interaction: discord.Interaction, game: app_commands.Range[int, 1] | None = None) -> None:
        game_id = game or await self._default_game(interaction)
        state = await self.table.readable_game(interaction, game_id)
        result = await self.table.quick(interaction, self.service.archive.verify(game_id))
        if self.table.shown_here(interaction, state):
            await send_public(interaction, content=dice_text.verify_text(state, result))
        else:  # everyone here could not see the game's channel: to the asker only
            await send_private(interaction, content=dice_text.verify_text(state, result))

    @cooldown("lookup")
    @app_commands.command(name="dice", description="A player's dice: roll counts, doubles, pips and a fairness test")
    @app_commands.describe(member="Whose rolls (default: yours)")
    async def dice(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        require_permissions(interaction, ("send_messages", "embed_links"))
        who = member or interaction.user
        stats = await self.table.quick(interaction, self.service.lookups.dice_stats(interaction.guild_id, who.id))
        await send_public(interaction, embed=dice_text.dice_embed(who.display_name, stats))

    # -- positions --------------------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(name="position", description="This channel's game as a GNU Backgammon ID and an XGID")
    async def position(self, interaction: discord.Interaction) -> None:
        state = await self.table.quick(interaction, self.table.game_here(interaction))
        await send_public(interaction, content=presenter.position_text(state))

    @cooldown("challenge")
    @app_commands.command(
        name="setup", description="Practise from a GNU Backgammon ID or an XGID (unrated; default: the computer)"
    )
    @app_commands.describe(
        position="PositionID:MatchID as GNU Backgammon shows it, or an XGID=... as XG shows it",
        opponent="Who plays the other side (default: the computer); a member must accept first",
    )
    async def setup(
        self,
        interaction: discord.Interaction,
        position: app_commands.Range[str, 1, 100],
        opponent: discord.Member | None = None,
    ) -> None:
        require_permissions(interaction, CHANNEL_PERMISSIONS)
        computer = opponent is None or opponent.id == self.table.computer.user_id
        if not computer:
            # a member is seated only by clicking Accept: a practice challenge
            assert opponent is not None
            if opponent.bot:
                raise UserError(
                    _("{display_name} is a bot and can't play: leave out `opponent` to play me.").format(
                        display_name=shown(opponent.display_name)
                    )
                )
            challenge = await self.table.quick(
                interaction,
                self.service.challenges.create_practice(
                    interaction.guild_id or 0,
                    interaction.channel_id or 0,
                    player_ref(interaction.user),
                    player_ref(opponent),
                    position.strip(),
                    options=ChallengeOptions(move_days=self.settings.default_move_days),
                ),
            )
            await self.table.post_challenge(interaction, challenge, False)
            return
        self.advice.require()
        options = ChallengeOptions(
            move_days=self.settings.default_move_days, computer_level=self.table.computer.default_level, hints=True
        )
        outcome = await self.table.quick(
            interaction,
            self.service.setup_practice(
                interaction.guild_id or 0,
                interaction.channel_id or 0,
                player_ref(interaction.user),
                self.table.computer.ref(),
                position.strip(),
                options=options,
            ),
        )
        await self.table.post_new_game(interaction, outcome)

    # -- server settings ---------------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(
        name="vacation-allowance", description="Server managers: days of vacation each member may take a year"
    )
    @app_commands.describe(days="Days a year (default 14; 0: no vacations)")
    async def vacation_allowance(self, interaction: discord.Interaction, days: app_commands.Range[int, 0, 366]) -> None:
        permissions = getattr(interaction, "permissions", None)
        if permissions is None or not permissions.manage_guild:
            raise UserError(_("Only members who can manage this server can set its vacation allowance."))
        await self.table.quick(interaction, self.service.members.set_allowance(interaction.guild_id or 0, days))
        await send_private(
            interaction,
            content=_("Members may now take {days} day(s) of vacation a year in this server.").format(days=days),
        )

    @cooldown("lookup")
    @app_commands.command(name="language", description="Server managers: the language of the bot's public posts here")
    @app_commands.describe(language="Boards, challenges, tournaments and puzzles in this server are written in it")
    @app_commands.choices(language=speech.SERVER_CHOICES)
    async def language(self, interaction: discord.Interaction, language: str) -> None:
        permissions = getattr(interaction, "permissions", None)
        if permissions is None or not permissions.manage_guild:
            raise UserError(_("Only members who can manage this server can set its language."))
        chosen = None if language == speech.SERVER else language
        guild_id = interaction.guild_id or 0
        await self.table.quick(interaction, self.service.languages.set_server(guild_id, chosen))
        now = await speech.public(interaction.client, guild_id)
        await send_private(
            interaction,
            content=_("The bot's public posts in this server are now in {language}.").format(
                language=speech.language_name(now)
            ),
        )

    async def show_board(self, interaction: discord.Interaction, message: discord.Message) -> None:
        """Message -> Apps -> Show board: the board of the first position written in
        the message (an XGID, a GNU Backgammon ID, a Position ID), only for the asker."""
        hold(self.cooldowns, "board", interaction.user)
        found = find_ids(message_text(message))
        if not found:
            raise UserError(
                _(
                    "No position found in that message: I look for a GNU Backgammon ID (`PositionID:MatchID`, "
                    "or a Position ID alone) or an XGID (`XGID=...`)."
                )
            )
        shown_id: tuple[str, str, Xgid | None] | None = None  # (kind, GNU Backgammon ID, XGID)
        refusal: tuple[str, str, IdError] | None = None  # the first that could not be read
        for candidate in found:
            try:
                gnubg_id, xgid = read_id(candidate.text)
            except IdError as error:
                refusal = refusal or (candidate.kind, candidate.text, error)
                continue
            shown_id = (candidate.kind, gnubg_id, xgid)
            break
        if shown_id is None:
            assert refusal is not None
            kind, text, unread = refusal
            raise UserError(
                _("I can't read the {kind} {text} in that message: {error}.").format(
                    kind=_(presenter.POSITION_KINDS[kind]),
                    text=quote(text),
                    error=reason(worded(unread)),
                )
            )
        kind, gnubg_id, xgid = shown_id
        if xgid is None:
            try:
                xgid = Xgid.from_gnubg_id(gnubg_id)
            except IdError:
                xgid = None  # a finished game, a resignation waiting: no XGID shows it
        scene = scene_for_id(gnubg_id, from_bottom=kind == "xgid")
        png = await self.table.quick(interaction, self.drawing.render(scene, asked_at=asked_at(interaction)))
        content = presenter.found_position_text(
            kind, gnubg_id, None if xgid is None else str(xgid), message.jump_url, len(found)
        )
        await send_private(interaction, content=content, file=discord.File(io.BytesIO(png), filename="position.png"))

    # -- replays ----------------------------------------------------------------------------------

    @cooldown("review")
    @app_commands.command(name="replay", description="An animated GIF of a finished game")
    @app_commands.describe(
        game="Game number (default: your latest finished game)",
        number="Which game of a match (default: all of it if it fits)",
    )
    async def replay(
        self,
        interaction: discord.Interaction,
        game: app_commands.Range[int, 1] | None = None,
        number: app_commands.Range[int, 1, 100] | None = None,
    ) -> None:
        require_permissions(interaction, BOARD_PERMISSIONS)
        game_id = game or await self._default_game(interaction)
        state = await self.table.readable_game(interaction, game_id)
        if not isinstance(state, GameSummary):
            raise UserError(
                _(
                    "Game #{game_id} is still being played: its replay comes when it ends (`/bg board` shows it now)."
                ).format(game_id=game_id)
            )
        replays.check_number(state, number)  # a wrong number is refused before anything is drawn
        private = not self.table.shown_here(interaction, state)  # a hidden channel's game: to the asker only
        await defer(interaction, ephemeral=private)  # drawing takes a few seconds
        replay = await self.replays.render(state, number, limit=replays.upload_limit(interaction.guild))
        names = _(" vs ").join(shown(p.name) for p in state.players)
        which = (
            ""
            if state.game_count == 1
            else (
                " " + _("(game {number})").format(number=replay.games[0])
                if len(replay.games) == 1
                else " " + _("(games {first}-{last})").format(first=replay.games[0], last=replay.games[-1])
            )
        )
        content = "🎬 " + ngettext(
            "Replay of game #{game}{which}: {names}, {count} frame.",
            "Replay of game #{game}{which}: {names}, {count} frames.",
            replay.frames,
        ).format(game=game_id, which=which, names=names, count=replay.frames)
        if replay.note:
            content += "\n" + replay.note
        file = discord.File(io.BytesIO(replay.gif), filename=f"game-{game_id}-replay.gif")
        if private:
            await send_private(interaction, content=content, file=file)
        else:
            await send_public(interaction, content=content, file=file)

    # -- helpers ----------------------------------------------------------------------------------

    async def _default_game(self, interaction: discord.Interaction) -> int:
        recent = await self.service.archive.history(interaction.guild_id or 0, interaction.user.id, limit=1)
        if recent:
            return recent[0].id
        raise UserError(_("You have no finished game here: give a game number, e.g. `game:12`."))


def message_text(message: discord.Message) -> str:
    """The words of a message where a position may be written: its text and its embeds'."""
    parts = [message.content or ""]
    for embed in message.embeds:
        parts += [embed.title or "", embed.description or ""]
        parts += [f"{field.name}\n{field.value}" for field in embed.fields]
        parts.append(embed.footer.text or "")
    return "\n".join(p for p in parts if p)


async def setup(bot: BackgammonBot) -> None:
    """The extension's entry (``bot.load_extension("bot.discord.cogs.tools")``): its parts come
    from the client, and the tree takes its message command."""
    await bot.add_cog(ToolsCog(bot.parts, bot))
