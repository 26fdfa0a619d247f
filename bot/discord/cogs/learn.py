"""``/bglearn``: pictures that teach — the old masters' openings, the server's puzzles, drills.

A group of its own: ``/bg`` holds 24 of the 25 subcommands Discord allows a
group. Like the other cogs, each command reads its options, calls the core,
and shows the result; refusals are raised and answered privately.

The puzzle of the day is due work of the core (:meth:`bot.core.puzzles.Puzzles.run_due`,
a scheduler job) that owes its post and its reveal to the outbox; this cog
registers how the dispatcher posts them (:meth:`LearnCog.post_puzzle`,
:meth:`LearnCog.post_reveal`), and answers the puzzles' and drills' menus.
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.imports import MAX_FILE_BYTES, Imports
from bot.core.met import MAX_LENGTH as MET_MAX_LENGTH
from bot.core.met import afor_game, amatch_equity, parse_score
from bot.core.puzzles import Drill, Puzzle, PuzzleDelivery
from bot.discord import lessons, privacy
from bot.discord.cogs import Guarded
from bot.discord.components import answer_controls
from bot.discord.cooldowns import cooldown, hold
from bot.discord.dispatcher import NotDelivered
from bot.discord.errors import report
from bot.discord.limits import fit, pinging
from bot.discord.met_panel import met_message
from bot.discord.parts import Parts
from bot.discord.refusals import UserError
from bot.discord.replies import (
    asked_at,
    defer,
    require_permissions,
    send_private,
    send_public,
)
from engine.openings import covered_rolls, parse_roll
from i18n import _

if TYPE_CHECKING:
    from bot.discord.client import BackgammonBot

log = logging.getLogger(__name__)

RollChoice = Literal[tuple(f"{high}-{low}" for high, low in covered_rolls())]  # type: ignore[valid-type]
"""The opening throws the old texts give a play for."""


@app_commands.guild_only()
class LearnCog(
    Guarded,
    commands.GroupCog,
    group_name="bglearn",
    group_description="Learn: the old masters' openings, puzzles, drills",
):
    """Openings, puzzles and drills."""

    def __init__(self, parts: Parts) -> None:
        self.settings = parts.settings
        self.service = parts.service
        self.advice = parts.advice
        self.table = parts.table
        self.cooldowns = parts.cooldowns
        self.puzzles = parts.puzzles
        self.dispatcher = parts.dispatcher
        self.drawing = parts.drawing
        super().__init__()
        self.dispatcher.handlers["puzzle"] = self.post_puzzle
        self.dispatcher.handlers["puzzle_reveal"] = self.post_reveal
        if parts.scheduler is not None:
            parts.scheduler.add_job("puzzles", self.puzzles.run_due, self.puzzles.next_wakeup)

    # -- the old masters' openings ----------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(
        name="openings", description="The old masters' opening plays beside the neural net's, on a board"
    )
    @app_commands.describe(roll="One opening throw (default: every throw the old texts cover)")
    async def openings(self, interaction: discord.Interaction, roll: RollChoice | None = None) -> None:  # type: ignore[valid-type]
        require_permissions(interaction, ("send_messages", "attach_files", "embed_links"))
        rolls = [parse_roll(roll)] if roll else list(covered_rolls())
        items = await self.table.quick(interaction, self.advice.openings(rolls))
        if roll:
            item, entry = items[0], None
            embed = lessons.opening_embed(item)
        else:
            item, entry = lessons.biggest_departure(items)
            embed = lessons.openings_embed(items)
        png = await self.drawing.render(lessons.opening_scene(item, entry), asked_at=asked_at(interaction))
        name = f"opening-{item.roll[0]}-{item.roll[1]}.png"
        embed.set_image(url=f"attachment://{name}")
        await send_public(interaction, embed=embed, file=discord.File(io.BytesIO(png), filename=name))

    # -- match equity -----------------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(name="met", description="Match equity, take points and gammon values at a score (privately)")
    @app_commands.describe(
        length="Match length (default: the match in this channel)",
        score="Your score first, e.g. 2-4 (default 0-0)",
        cube="The cube's value now (default 1)",
    )
    async def met(
        self,
        interaction: discord.Interaction,
        length: app_commands.Range[int, 1, MET_MAX_LENGTH] | None = None,
        score: app_commands.Range[str, 3, 5] | None = None,
        cube: Literal[1, 2, 4, 8, 16, 32, 64] = 1,
    ) -> None:
        if length is None:
            state = await self.table.quick(
                interaction, self.service.lookups.game_in_channel(interaction.channel_id or 0)
            )
            if state is None or state.match.game is None or state.game.is_money:
                raise UserError(_("No match is played in this channel: give a `length` (and a `score`)."))
            equity = await self.table.quick(interaction, afor_game(state.game))
            names = (state.players[0].name, state.players[1].name)
        else:
            equity = await self.table.quick(interaction, amatch_equity(length, parse_score(score or "0-0"), cube))
            names = (_("You"), _("Opponent"))
        await send_private(interaction, **await met_message(interaction, equity, names))

    # -- games played elsewhere -------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(name="import", description="Analyse a .mat match file from another site (privately)")
    @app_commands.describe(
        file="A .mat export (GNU Backgammon, XG, DailyGammon, Galaxy, FIBS), up to 1 MB",
        me="Your name in the file: your errors go to your drills (default: the player named like you)",
    )
    async def import_match(
        self,
        interaction: discord.Interaction,
        file: discord.Attachment,
        me: app_commands.Range[str, 1, 64] | None = None,
    ) -> None:
        if file.size > MAX_FILE_BYTES:
            raise UserError(_("That file is larger than {number} MB.").format(number=MAX_FILE_BYTES // 1_000_000))
        await defer(interaction, ephemeral=True)  # reading and analysing take longer than 3 s
        data = await file.read()
        user = interaction.user
        imported = await Imports(self.advice.analyst, self.puzzles.add_imported_drills).analyse(
            data,
            importer=user.id,
            me=me,
            member_names=[user.name, user.display_name, getattr(user, "global_name", None) or ""],
        )
        await send_private(interaction, embed=lessons.imported_embed(imported))

    # -- puzzles ----------------------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(
        name="puzzle", description="A position from this server's games where a member erred; find the best"
    )
    @app_commands.describe(
        daily="Moderators: post a puzzle of the day in this channel (on), or stop (off)",
        names="Moderators: show the players' names in this server's puzzles, or hide them (the default)",
    )
    async def puzzle(
        self,
        interaction: discord.Interaction,
        daily: Literal["on", "off"] | None = None,
        names: Literal["shown", "hidden"] | None = None,
    ) -> None:
        puzzles = self.puzzles
        if daily is not None or names is not None:
            await self._configure(interaction, daily, names)
            return
        require_permissions(interaction, ("send_messages", "attach_files"))
        sees = privacy.for_interaction(interaction, public=False)  # answered privately
        puzzle = await self.table.quick(
            interaction, puzzles.on_demand(interaction.guild_id or 0, interaction.user.id, sees)
        )
        await send_private(interaction, **await self._puzzle_message(puzzle, interaction))

    async def _configure(self, interaction: discord.Interaction, daily: str | None, names: str | None) -> None:
        perms = interaction.permissions
        if not (perms.manage_guild or perms.manage_messages):
            raise UserError(_("Only moderators (Manage Messages or Manage Server) set up the puzzle of the day."))
        if daily == "on":
            require_permissions(interaction, ("send_messages", "attach_files", "embed_links"))
        channel: int | None | bool = False
        if daily is not None:
            channel = interaction.channel_id if daily == "on" else None
        settings = await self.table.quick(
            interaction,
            self.puzzles.configure(
                interaction.guild_id or 0, channel_id=channel, names=None if names is None else names == "shown"
            ),
        )
        where = settings.get("puzzle_channel")
        lines = [
            _("Puzzle of the day: on, in {channel}: posted at the start of each day (UTC), revealed the next.").format(
                channel=f"<#{where}>"
            )
            if where
            else _("Puzzle of the day: off."),
            _("Players' names: shown in puzzles.")
            if settings.get("puzzle_names")
            else _("Players' names: hidden in puzzles."),
        ]
        await send_private(interaction, content="\n".join(lines))

    async def _puzzle_message(
        self, puzzle: Puzzle, interaction: discord.Interaction | None = None, *, daily_post: bool = False
    ) -> dict[str, Any]:
        scene = lessons.decision_scene(puzzle.decision, puzzle.names_now)
        png = await self.drawing.render(scene, asked_at=asked_at(interaction) if interaction else None)
        labels = [lessons.choice_label(c.label) for c in puzzle.decision.choices]
        return {
            "content": lessons.puzzle_content(puzzle, daily_post=daily_post),
            "file": discord.File(io.BytesIO(png), filename=f"puzzle-{puzzle.id}.png"),
            "view": answer_controls("pz", puzzle.id, labels),
        }

    @cooldown("lookup")
    @app_commands.command(name="leaderboard", description="This server's puzzle leaderboard: right answers and streaks")
    async def leaderboard(self, interaction: discord.Interaction) -> None:
        require_permissions(interaction, ("embed_links",))
        puzzles = self.puzzles
        guild_id = interaction.guild_id or 0
        scores = await self.table.quick(interaction, puzzles.leaderboard(guild_id))
        mine = await puzzles.score(guild_id, interaction.user.id)
        place = interaction.guild.name if interaction.guild is not None else _("this server")
        await send_public(interaction, embed=lessons.leaderboard_embed(place, scores, mine, interaction.user.id))

    # -- drills -----------------------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(
        name="drill", description="Privately: a position where you erred before, until you get it right"
    )
    async def drill(self, interaction: discord.Interaction) -> None:
        puzzles = self.puzzles
        drill = await self.table.quick(interaction, puzzles.next_drill(interaction.user.id))
        if drill is None:
            counts = await puzzles.drill_counts(interaction.user.id)
            await send_private(interaction, content=lessons.no_drill_text(counts))
            return
        await send_private(interaction, **await self._drill_message(drill, interaction))

    async def _drill_message(self, drill: Drill, interaction: discord.Interaction) -> dict[str, Any]:
        png = await self.drawing.render(lessons.decision_scene(drill.decision, True), asked_at=asked_at(interaction))
        return {
            "content": lessons.drill_content(drill),
            "file": discord.File(io.BytesIO(png), filename=f"drill-{drill.id}.png"),
            "view": answer_controls("dr", drill.id, [lessons.choice_label(c.label) for c in drill.decision.choices]),
        }

    # -- answers (the menus) ------------------------------------------------------------------------

    async def answer(self, interaction: discord.Interaction, what: str, item_id: int, index: int) -> None:
        """A member chose in a puzzle's or a drill's menu: answered privately."""
        try:
            hold(self.cooldowns, "lookup", interaction.user)
            puzzles = self.puzzles
            if what == "pz":
                puzzle, answered = await self.table.quick(
                    interaction, puzzles.answer(item_id, interaction.user.id, index)
                )
                text = lessons.answer_text(puzzle, answered)
            else:
                drill, answered = await self.table.quick(
                    interaction, puzzles.answer_drill(item_id, interaction.user.id, index)
                )
                text = lessons.answer_text(drill, answered)
            await send_private(interaction, content=text)
        except Exception as error:  # menus have no tree.on_error: the same single error path
            await report(interaction, error)

    # -- the puzzle of the day, from the outbox -----------------------------------------------------

    async def post_puzzle(self, delivery: Any) -> None:
        """Post a server's puzzle of the day (once: after a crash, look first)."""
        assert isinstance(delivery, PuzzleDelivery) and delivery.puzzle is not None and self.dispatcher is not None
        puzzle = delivery.puzzle
        name = f"puzzle-{puzzle.id}.png"
        if delivery.retried:
            found = await self.dispatcher.look_back(
                delivery.channel_id, lambda m: any(a.filename == name for a in m.attachments)
            )
            if found is not None:
                await self.puzzles.posted(puzzle, found.channel.id, found.id)
                await self.dispatcher.deliveries.delivered(delivery.entries)
                return
        where = self.dispatcher.where(delivery)
        message = await where.send(await self._puzzle_message(puzzle, daily_post=True))
        if message is None:
            raise where.error or NotDelivered("the puzzle could not be posted")
        await self.puzzles.posted(puzzle, message.channel.id, message.id)
        await self.dispatcher.deliveries.delivered(delivery.entries)

    async def post_reveal(self, delivery: Any) -> None:
        """Reveal a puzzle under its post (once), and take its menu away."""
        assert isinstance(delivery, PuzzleDelivery) and delivery.reveal is not None and self.dispatcher is not None
        puzzle = delivery.reveal.puzzle
        embed = lessons.reveal_embed(delivery.reveal)
        title = embed.title
        if delivery.retried:
            found = await self.dispatcher.look_back(
                delivery.channel_id, lambda m: any(e.title == title for e in m.embeds)
            )
            if found is not None:
                await self.dispatcher.deliveries.delivered(delivery.entries)
                return
        payload: dict[str, Any] = {"embed": embed, "allowed_mentions": pinging()}
        if puzzle.message_id is not None:
            payload["reference"] = discord.MessageReference(
                message_id=puzzle.message_id, channel_id=delivery.channel_id, fail_if_not_exists=False
            )
        where = self.dispatcher.where(delivery)
        message = await where.send(payload)
        if message is None:
            raise where.error or NotDelivered("the puzzle's answer could not be posted")
        await self.dispatcher.deliveries.delivered(delivery.entries)
        if puzzle.message_id is not None:
            try:  # the menu goes: the answers are in
                channel = self.dispatcher.client.get_partial_messageable(delivery.channel_id)
                await channel.get_partial_message(puzzle.message_id).edit(**fit(view=None))
            except discord.HTTPException as error:
                log.debug("could not take the menu off puzzle %s: %s", puzzle.id, error)


async def setup(bot: BackgammonBot) -> None:
    """The extension's entry (``bot.load_extension("bot.discord.cogs.learn")``): its parts come from the client."""
    await bot.add_cog(LearnCog(bot.parts))
