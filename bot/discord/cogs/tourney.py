"""``/bgtourney``: server tournaments (knockout, round robin, Swiss).

Each command reads its options, calls the core (``service.tournaments``) and
shows the result; refusals are raised and answered privately. Making,
starting and cancelling a tournament takes Manage Events, or the role the
server names with ``/bgtourney role`` (the organiser may always start and
cancel their own). The extension also registers how the tournaments' owed
messages are posted (the dispatcher) and their due work (the scheduler).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.tournaments import KNOCKOUT, ROUND_KIND, ROUND_ROBIN, SWISS, UPDATE_KIND, TournamentOptions
from bot.core.tournaments.model import MAX_PLAYERS, MAX_ROUND_DAYS, MAX_SIGNUP_HOURS, MAX_SWISS_ROUNDS
from bot.discord import presenter, privacy
from bot.discord import tourneys as words
from bot.discord.cogs import Guarded
from bot.discord.cooldowns import cooldown
from bot.discord.limits import plain
from bot.discord.parts import Parts
from bot.discord.refusals import UserError
from bot.discord.replies import (
    BOARD_PERMISSIONS,
    THREAD_PERMISSIONS,
    player_ref,
    require_permissions,
    send_private,
    send_public,
)
from bot.discord.tourneys import Tourneys
from i18n import _

if TYPE_CHECKING:
    from bot.discord.client import BackgammonBot

FormatName = Literal["knockout", "round robin", "swiss"]
FORMATS = {"knockout": KNOCKOUT, "round robin": ROUND_ROBIN, "swiss": SWISS}


@app_commands.guild_only()
class TourneyCog(
    Guarded,
    commands.GroupCog,
    group_name="bgtourney",
    group_description="Backgammon tournaments: knockout, round robin, Swiss",
):
    """Tournaments run by the bot over days."""

    def __init__(self, parts: Parts, tourneys: Tourneys) -> None:
        self.service = parts.service
        self.tournaments = parts.service.tournaments
        self.table = parts.table
        self.cooldowns = parts.cooldowns
        self.tourneys = tourneys
        super().__init__()

    async def _may_organise(self, interaction: discord.Interaction) -> bool:
        """Manage Events, or the server's organiser role."""
        permissions = interaction.permissions
        if permissions.manage_events or permissions.administrator:
            return True
        role = await self.table.quick(interaction, self.tournaments.organiser_role(interaction.guild_id or 0))
        member_roles = {r.id for r in getattr(interaction.user, "roles", [])}
        return role is not None and role in member_roles

    # -- making and running one --------------------------------------------------------------------

    @cooldown("challenge")
    @app_commands.command(name="create", description="Announce a tournament members join with a button")
    @app_commands.describe(
        name="What it is called",
        format="Knockout (byes to the top seeds), round robin (everyone plays everyone) or Swiss",
        match_length="Points to win each match (default 3)",
        move_days="Time per move in days (default 2)",
        round_days="Time per round in days (default 7): a match going on then ends by its move deadlines",
        signup_hours="Sign-up closes and it starts this many hours from now (default: you start it)",
        max_players="The most who may join (default: as many as the format takes)",
        seeding="By server rating (default) or random",
        rated="Whether the matches count for the server's ratings (default yes)",
        rounds="Swiss: how many rounds (default: enough to find a winner)",
    )
    async def create(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 60],
        format: FormatName = "knockout",
        match_length: app_commands.Range[int, 1, 25] = 3,
        move_days: app_commands.Range[int, 1, 14] = 2,
        round_days: app_commands.Range[int, 1, MAX_ROUND_DAYS] = 7,
        signup_hours: app_commands.Range[int, 1, MAX_SIGNUP_HOURS] | None = None,
        max_players: app_commands.Range[int, 2, MAX_PLAYERS] | None = None,
        seeding: Literal["rating", "random"] = "rating",
        rated: bool = True,
        rounds: app_commands.Range[int, 1, MAX_SWISS_ROUNDS] | None = None,
    ) -> None:
        require_permissions(interaction, BOARD_PERMISSIONS + THREAD_PERMISSIONS)
        if not isinstance(interaction.channel, discord.TextChannel):
            raise UserError(
                _(
                    "Tournaments are made in a text channel (not in a thread or a voice channel's chat): "
                    "each match opens in a thread of that channel."
                )
            )
        if not await self._may_organise(interaction):
            raise UserError(
                _("Making a tournament takes the Manage Events permission, or the server's organiser role.")
            )
        options = TournamentOptions(
            format=FORMATS[format],
            match_length=match_length,
            move_days=move_days,
            round_days=round_days,
            max_players=max_players or 0,
            seeding=seeding,
            rated=rated,
            swiss_rounds=rounds or 0,
            signup_hours=signup_hours,
        )
        view = await self.table.quick(
            interaction,
            self.tournaments.create(
                interaction.guild_id or 0,
                interaction.channel_id or 0,
                player_ref(interaction.user),
                name,
                options,
            ),
        )
        payload = await self.tourneys.announcement(view)
        payload.pop("attachments", None)
        message = await send_public(interaction, **payload)
        await self.tournaments.set_message(view.id, message.id)

    @cooldown("challenge")
    @app_commands.command(name="start", description="Close sign-up and start round 1")
    @app_commands.describe(tournament="Which (default: the one signing up here)")
    async def start(
        self, interaction: discord.Interaction, tournament: app_commands.Range[int, 1] | None = None
    ) -> None:
        view = await self.table.quick(interaction, self.tournaments.current(interaction.guild_id or 0, tournament))
        moderator = await self._may_organise(interaction)
        view = await self.table.quick(
            interaction, self.tournaments.start(view.id, player_ref(interaction.user), moderator=moderator)
        )
        await send_private(
            interaction,
            content=_("{name} has started: the matches open in their threads now.").format(name=plain(view.name)),
        )

    @cooldown("challenge")
    @app_commands.command(name="cancel", description="Cancel a tournament (games going on stay ordinary games)")
    @app_commands.describe(tournament="Which (default: the one on here)")
    async def cancel(
        self, interaction: discord.Interaction, tournament: app_commands.Range[int, 1] | None = None
    ) -> None:
        view = await self.table.quick(interaction, self.tournaments.current(interaction.guild_id or 0, tournament))
        moderator = await self._may_organise(interaction)
        view = await self.table.quick(
            interaction, self.tournaments.cancel(view.id, player_ref(interaction.user), moderator=moderator)
        )
        await send_private(interaction, content=_("{name} is cancelled.").format(name=plain(view.name)))

    @cooldown("challenge")
    @app_commands.command(name="withdraw", description="Leave a tournament (your open matches are forfeited)")
    @app_commands.describe(tournament="Which (default: the one on here)")
    async def withdraw(
        self, interaction: discord.Interaction, tournament: app_commands.Range[int, 1] | None = None
    ) -> None:
        view = await self.table.quick(interaction, self._mine(interaction, tournament))
        view = await self.table.quick(interaction, self.tournaments.withdraw(view.id, player_ref(interaction.user)))
        await send_private(interaction, content=_("You left {name}.").format(name=plain(view.name)))

    async def _mine(self, interaction: discord.Interaction, tournament: int | None) -> Any:
        """The tournament meant: the one given, else the member's only one here."""
        if tournament is not None:
            return await self.tournaments.get(tournament, interaction.guild_id)
        mine = await self.tournaments.entered(interaction.guild_id or 0, interaction.user.id)
        if len(mine) == 1:
            return mine[0]
        if not mine:
            raise UserError(_("You're not in a tournament here."))
        raise UserError(_("You're in more than one tournament here: say which with `tournament:`."))

    # -- looking ------------------------------------------------------------------------------------

    @cooldown("review")
    @app_commands.command(name="standings", description="The standings, as a picture and in words")
    @app_commands.describe(tournament="Which (default: the one on here)")
    async def standings(
        self, interaction: discord.Interaction, tournament: app_commands.Range[int, 1] | None = None
    ) -> None:
        await self._show(interaction, tournament, bracket=False)

    @cooldown("review")
    @app_commands.command(name="bracket", description="The bracket (a knockout) or the round's tables, as a picture")
    @app_commands.describe(tournament="Which (default: the one on here)")
    async def bracket(
        self, interaction: discord.Interaction, tournament: app_commands.Range[int, 1] | None = None
    ) -> None:
        await self._show(interaction, tournament, bracket=True)

    async def _show(self, interaction: discord.Interaction, tournament: int | None, *, bracket: bool) -> None:
        require_permissions(interaction, ("send_messages", "attach_files"))
        sees = privacy.for_interaction(interaction, public=True)
        view = await self.table.quick(
            interaction, self.tournaments.current(interaction.guild_id or 0, tournament, sees=sees)
        )
        if view.is_open:
            await send_public(
                interaction, content="\n".join([words.header(view), words.status_line(view), words.entrants_text(view)])
            )
            return
        if not interaction.response.is_done():
            await interaction.response.defer(thinking=True)  # drawing takes a moment
        file = await self.tourneys.picture(view)
        text = words.tables_text(view) if bracket else words.standings_text(view)
        content = "\n".join(p for p in (words.header(view), words.status_line(view), text) if p)
        await send_public(interaction, content=content, file=file)

    @cooldown("lookup")
    @app_commands.command(name="list", description="This server's tournaments")
    @app_commands.describe(everything="Ended ones too")
    async def list_(self, interaction: discord.Interaction, everything: bool = False) -> None:
        sees = privacy.for_interaction(interaction, public=True)
        views = await self.table.quick(
            interaction, self.tournaments.in_guild(interaction.guild_id or 0, everything=everything, sees=sees)
        )
        if not views:
            await send_public(interaction, content=_("No tournament here yet. `/bgtourney create` announces one."))
            return
        lines = []
        for view in views:
            announcement = _("announcement")
            link = (
                f" ([{announcement}]({presenter.jump_url(view.guild_id, view.channel_id, view.message_id)}))"
                if view.message_id
                else ""
            )
            entered = _("{count} in").format(count=len(view.entrants))
            lines.append(
                f"- **#{view.id} {plain(view.name)}**: {view.options.describe()}; {entered}; "
                f"{words.status_line(view)}{link}"
            )
        await send_public(interaction, content="\n".join(lines))

    @cooldown("lookup")
    @app_commands.command(name="role", description="Name the role that may make tournaments (Manage Server)")
    @app_commands.describe(role="The organisers' role (leave out to clear it: Manage Events only)")
    @app_commands.default_permissions(manage_guild=True)
    async def role(self, interaction: discord.Interaction, role: discord.Role | None = None) -> None:
        if not (interaction.permissions.manage_guild or interaction.permissions.administrator):
            raise UserError(_("Naming the organisers' role takes the Manage Server permission."))
        await self.table.quick(
            interaction, self.tournaments.set_organiser_role(interaction.guild_id or 0, role.id if role else None)
        )
        said = (
            _("Members with {role} may now make tournaments.").format(role=role.mention)
            if role
            else _("Only members with Manage Events may make tournaments now.")
        )
        await send_private(interaction, content=said)


async def setup(bot: BackgammonBot) -> None:
    """The extension's entry: the cog, and the tournaments' owed messages and due work."""
    parts = bot.parts
    tourneys = Tourneys(bot, parts.service, parts.table.poster, parts.cooldowns)
    bot.tourneys = tourneys
    parts.dispatcher.handlers[ROUND_KIND] = tourneys.open_round
    parts.dispatcher.handlers[UPDATE_KIND] = tourneys.update
    if parts.scheduler is not None:
        tournaments = parts.service.tournaments
        parts.scheduler.add_job("tournaments", tournaments.run_due, tournaments.next_wakeup)
    await bot.add_cog(TourneyCog(parts, tourneys))
