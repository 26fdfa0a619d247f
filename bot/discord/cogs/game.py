"""``/bg``: every slash command of the bot.

Each command is a thin translation: read the options, call the core (through
:class:`bot.discord.table.Table` where a board is shown), show the result.
Refusals are raised and answered privately by the tree's ``on_error``.
"""

from __future__ import annotations

import asyncio
import io
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.config import SETTING
from bot.core.advice import parse_level
from bot.core.model import (
    AUTOMATIC_DOUBLES_LIMIT,
    CUBE_LIMIT,
    HOYLE_LENGTH,
    ChallengeOptions,
    GameSummary,
    ServiceError,
)
from bot.core.notifications import zone_names
from bot.core.shots import shots as blot_shots
from bot.discord import autocomplete, dice_text, help_pages, lessons, presenter, privacy, replays
from bot.discord.cogs import Guarded
from bot.discord.cooldowns import cooldown
from bot.discord.limits import shown
from bot.discord.parts import Parts
from bot.discord.refusals import UserError
from bot.discord.replies import (
    BOARD_PERMISSIONS,
    CHANNEL_PERMISSIONS,
    THREAD_PERMISSIONS,
    asked_at,
    defer,
    player_ref,
    require_permissions,
    send_private,
    send_public,
)
from engine import UNLIMITED, WinKind

if TYPE_CHECKING:
    from bot.discord.client import BackgammonBot

LevelName = Literal["beginner", "intermediate", "expert"]
AUTOMATIC_DOUBLES = {"off": 0, "twice": AUTOMATIC_DOUBLES_LIMIT, "every tie": UNLIMITED}
"""The ``automatic_doubles`` choices: how many opening ties double the cube."""
HISTORY_SEARCH = 30
STAKE_CEILING = int(SETTING["MAX_STAKE"].high or 1)
"""The highest ``MAX_STAKE`` may be: each bot's cog narrows the stake option to its own limit."""
"""Another member's recent games looked through for the 10 the asker may see."""


@app_commands.guild_only()
class GameCog(Guarded, commands.GroupCog, group_name="bg", group_description="Play backgammon"):
    """Backgammon commands."""

    def __init__(self, parts: Parts) -> None:
        self.settings = parts.settings
        self.service = parts.service
        self.advice = parts.advice
        self.table = parts.table
        self.cooldowns = parts.cooldowns
        self.replays = parts.replays
        self.progress = parts.progress
        self.drawing = parts.drawing
        super().__init__()
        # The stake goes up to the core's limit (a setting), so Discord refuses more before we are asked.
        cap_option(self.challenge, "stake", self.service.limits.max_stake)

    # -- starting a game -------------------------------------------------------------

    @cooldown("challenge")
    @app_commands.command(name="challenge", description="Challenge a member to a money game or a match")
    @app_commands.describe(
        opponent="Who you want to play",
        match_length="Points to win the match (0 = a money game)",
        stake="Money game: what a point is worth on the points leaderboard",
        days="Days per move before the game is forfeited (1-14)",
        jacoby="Money game: gammons count single until the cube is turned",
        beavers="Money game: a doubled player may redouble at once, keeping the cube",
        automatic_doubles="Money game: ties in the opening throw double the cube (twice, or every tie up to the cube limit)",
        opening_reroll="The opening throw only decides who starts; the winner throws again",
        thread="Play in a new public thread",
        hints="Allow /bg hint for both players (accepting the challenge agrees to it)",
        seed="Any text of yours the dice are mixed with (provably fair: see /bg rules)",
        rules="hoyle: Hoyle's rubber (best of three games, no cube, a gammon counts two, a hit's winner throws first)",
        backgammon="Hoyle's rubber: a backgammon counts 3, or 4 by agreement",
        cube_limit="The highest the cube may go (default 64)",
        early_doubles="Off: nobody may double before the game's first play (the old texts' rule)",
        closed_out="On the bar against a closed board: roll and dance (today), or skip the throw (old texts; .mat can't show it)",
        kibitzers="Onlookers may answer privately what they would play (shown after each decision; default on)",
    )
    async def challenge(
        self,
        interaction: discord.Interaction,
        opponent: discord.Member,
        match_length: app_commands.Range[int, 0, 25] = 0,
        stake: app_commands.Range[int, 1, STAKE_CEILING] = 1,
        days: app_commands.Range[int, 1, 14] | None = None,
        jacoby: bool = False,
        beavers: bool = False,
        automatic_doubles: Literal["off", "twice", "every tie"] = "off",
        opening_reroll: bool = False,
        thread: bool = False,
        hints: bool = False,
        seed: app_commands.Range[str, 1, 64] | None = None,
        rules: Literal["standard", "hoyle"] = "standard",
        backgammon: Literal[3, 4] = 3,
        cube_limit: Literal[2, 4, 8, 16, 32, 64] = CUBE_LIMIT,
        early_doubles: bool = True,
        closed_out: Literal["roll", "skip"] = "roll",
        kibitzers: bool = True,
    ) -> None:
        if thread and isinstance(interaction.channel, discord.Thread):
            raise UserError("This is already a thread: challenge without `thread`, or from a channel.")
        require_permissions(interaction, CHANNEL_PERMISSIONS + (THREAD_PERMISSIONS if thread else ()))
        hoyle = rules == "hoyle"
        if hoyle and match_length not in (0, HOYLE_LENGTH):
            raise UserError("Hoyle's rubber is the best of three games: leave out `match_length`.")
        options = ChallengeOptions(
            match_length=HOYLE_LENGTH if hoyle else match_length,
            stake=stake,
            move_days=days if days is not None else self.settings.default_move_days,
            jacoby=jacoby,
            beavers=beavers,
            automatic_doubles=AUTOMATIC_DOUBLES[automatic_doubles],
            opening_reroll=opening_reroll,
            thread=thread,
            hints=hints,
            hoyle=hoyle,
            backgammon_value=backgammon,
            cube_limit=cube_limit,
            early_doubles=early_doubles,
            closed_out=closed_out,
            kibitzers=kibitzers,
        )
        if opponent.id == self.table.computer.user_id:
            # challenging me: the computer plays at once (no challenge to accept)
            await self._start_computer_game(interaction, self.table.computer.default_level, options)
            return
        if opponent.bot:
            raise UserError(
                f"{shown(opponent.display_name)} is a bot and can't play: challenge a member, or me to play the computer."
            )
        challenge = await self.table.quick(
            interaction,
            self.service.challenges.create(
                interaction.guild_id,
                interaction.channel_id,
                player_ref(interaction.user),
                player_ref(opponent),
                options,
                seed=seed,
            ),
        )
        await self.table.post_challenge(interaction, challenge, thread)

    @cooldown("challenge")
    @app_commands.command(name="computer", description="Play the computer (unrated); it moves by itself")
    @app_commands.describe(
        level="How strong it plays (default: expert)",
        match_length="Points to win the match (0 = a money game)",
    )
    async def computer(
        self,
        interaction: discord.Interaction,
        level: LevelName | None = None,
        match_length: app_commands.Range[int, 0, 25] = 0,
    ) -> None:
        options = ChallengeOptions(match_length=match_length, move_days=self.settings.default_move_days)
        await self._start_computer_game(interaction, level or self.table.computer.default_level, options)

    async def _start_computer_game(
        self, interaction: discord.Interaction, level: str, options: ChallengeOptions
    ) -> None:
        self.advice.require()
        if options.thread:
            raise UserError("Games against the computer are played right here: leave out `thread`.")
        require_permissions(interaction, CHANNEL_PERMISSIONS)
        level_name = parse_level(level)
        options = replace(options, computer_level=level_name, thread=False, hints=True)
        outcome = await self.table.quick(
            interaction,
            self.service.play_computer(
                interaction.guild_id,
                interaction.channel_id,
                player_ref(interaction.user),
                self.table.computer.ref(),
                options,
            ),
        )
        await self.table.post_new_game(interaction, outcome)

    # -- turn actions ---------------------------------------------------------------------

    @cooldown("turn")
    @app_commands.command(name="roll", description="Roll the dice")
    async def roll(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(interaction, lambda state: self.service.roll(state.id, interaction.user.id))

    @cooldown("turn")
    @app_commands.command(name="move", description="Play your roll, e.g. 13/7 8/7 or bar/22 6/off")
    @app_commands.describe(play="Your play; start typing to see the legal ones")
    async def move(self, interaction: discord.Interaction, play: app_commands.Range[str, 1, 100]) -> None:
        await self.table.slash_action(interaction, lambda state: self.service.play(state.id, interaction.user.id, play))

    @move.autocomplete("play")
    async def move_autocomplete(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        # Autocomplete can't be deferred: answer from memory when this process
        # has seen the game (a stale view only ranks suggestions; play() checks).
        channel_id = interaction.channel_id or 0
        try:
            state = self.service.cache.peek_in_channel(channel_id) or await self.service.lookups.game_in_channel(
                channel_id
            )
        except ServiceError:  # a busy database: no suggestions this time (autocomplete has no error answer)
            return []
        if state is None:
            return []
        actor = state.to_act()
        if actor is None or actor.user_id != interaction.user.id:
            return []
        plays = autocomplete.rank_plays(state.legal_play_texts(), current)
        return [app_commands.Choice(name=p[:100], value=p[:100]) for p in plays]

    @cooldown("turn")
    @app_commands.command(name="double", description="Offer a double")
    async def double(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(interaction, lambda state: self.service.double(state.id, interaction.user.id))

    @cooldown("turn")
    @app_commands.command(name="take", description="Take the double")
    async def take(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(interaction, lambda state: self.service.take(state.id, interaction.user.id))

    @cooldown("turn")
    @app_commands.command(name="pass", description="Pass the double (you lose the game at the current cube)")
    async def pass_(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(
            interaction, lambda state: self.service.pass_double(state.id, interaction.user.id)
        )

    @cooldown("turn")
    @app_commands.command(name="beaver", description="Money game: take the double and redouble at once")
    async def beaver(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(interaction, lambda state: self.service.beaver(state.id, interaction.user.id))

    @cooldown("turn")
    @app_commands.command(name="resign", description="Offer to resign this game; your opponent accepts or rejects")
    @app_commands.describe(level="How much you give up: a single game, a gammon or a backgammon")
    async def resign(
        self, interaction: discord.Interaction, level: Literal["single", "gammon", "backgammon"] = "single"
    ) -> None:
        await self.table.slash_action(
            interaction, lambda state: self.service.resign(state.id, interaction.user.id, WinKind[level.upper()])
        )

    @cooldown("turn")
    @app_commands.command(name="accept-resign", description="Accept your opponent's offer to resign")
    async def accept_resign(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(
            interaction, lambda state: self.service.accept_resignation(state.id, interaction.user.id)
        )

    @cooldown("turn")
    @app_commands.command(name="reject-resign", description="Reject your opponent's offer to resign and play on")
    async def reject_resign(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(
            interaction, lambda state: self.service.reject_resignation(state.id, interaction.user.id)
        )

    @cooldown("turn")
    @app_commands.command(name="forfeit", description="Give up the whole match (it counts as a loss)")
    async def forfeit(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(interaction, lambda state: self.service.forfeit(state.id, interaction.user.id))

    @cooldown("turn")
    @app_commands.command(name="abandon", description="Moderators: end a stuck game in this channel, unrated")
    async def abandon(self, interaction: discord.Interaction) -> None:
        perms = interaction.permissions
        if not (perms.manage_messages or perms.manage_guild):
            raise UserError(
                "Only moderators (Manage Messages or Manage Server) can abandon a game. "
                "Players can use `/bg resign` or `/bg forfeit`."
            )
        await self.table.slash_action(interaction, lambda state: self.service.abandon(state.id, interaction.user.id))

    # -- advice and analysis ------------------------------------------------------------------

    @cooldown("hint")
    @app_commands.command(name="hint", description="Privately: the best plays, or the cube action, for your turn")
    async def hint(self, interaction: discord.Interaction) -> None:
        state = await self.table.quick(interaction, self.table.game_here(interaction))
        self.advice.require()
        user = interaction.user.id
        if state.seat(user) is None:
            raise UserError("You're not in this game: hints are for the player to act.")
        actor = state.to_act()
        if actor is None or actor.user_id != user:
            raise UserError(
                f"It's not your turn: hints are for the player to act ({shown(actor.name) if actor else 'nobody'} now)."
            )
        if not (self.table.computer.plays_in(state) or state.options.hints):
            raise UserError(
                "Hints are off in this game: between people they need both players' agreement, "
                "given with `/bg challenge hints:True` (accepting agrees)."
            )
        lines = await self.table.quick(interaction, self.advice.hint(state))
        await send_private(interaction, content=presenter.hint_text(state, lines))

    @cooldown("review")
    @app_commands.command(name="analysis", description="Error rates, blunders and luck of a finished game")
    @app_commands.describe(game="Game number (default: your latest finished game)")
    async def analysis(self, interaction: discord.Interaction, game: app_commands.Range[int, 1] | None = None) -> None:
        self.advice.require()
        require_permissions(interaction, ("send_messages", "embed_links", "attach_files"))
        game_id = game or await self._latest_finished(interaction)
        found = await self.table.readable_game(interaction, game_id)
        if not isinstance(found, GameSummary):
            raise UserError(f"Game #{game_id} is still being played: its analysis comes when it ends.")
        summaries = await self.table.quick(interaction, self.advice.analysis(found))
        embed = presenter.analysis_embed(found, summaries)
        details = await self.table.quick(interaction, self.advice.details(found))
        charts = lessons.game_charts(found, details)
        pictures = await asyncio.gather(
            *(self.drawing.picture(chart, asked_at=asked_at(interaction)) for _, chart in charts)
        )
        files = [discord.File(io.BytesIO(png), filename=name) for (name, _), png in zip(charts, pictures)]
        if len(files) == 1:
            embed.set_image(url=f"attachment://{files[0].filename}")
        private = not self.table.shown_here(interaction, found)  # a hidden channel's game: to the asker only
        await self._reply(interaction, embed=embed, files=files or None, ephemeral=private)

    async def _latest_finished(self, interaction: discord.Interaction) -> int:
        recent = await self.service.archive.history(interaction.guild_id, interaction.user.id, limit=1)
        if recent:
            return recent[0].id
        raise UserError("You have no finished game here: give a game number, e.g. `/bg analysis game:12`.")

    # -- looking at games ----------------------------------------------------------------------

    @cooldown("board")
    @app_commands.command(name="board", description="Show the board of this channel's game again, at the bottom")
    async def board(self, interaction: discord.Interaction) -> None:
        require_permissions(interaction, BOARD_PERMISSIONS)
        state = await self.table.quick(interaction, self.table.game_here(interaction))
        await self.table.post_board(interaction, state)

    @cooldown("lookup")
    @app_commands.command(name="games", description="Your games in this server, with links to their boards")
    async def games(self, interaction: discord.Interaction) -> None:
        games = await self.table.quick(
            interaction, self.service.lookups.game_list(interaction.guild_id, interaction.user.id)
        )
        embed = presenter.games_embed(games, interaction.user.id)
        await self._reply(
            interaction, embed=embed, view=presenter.games_buttons(games, interaction.user.id), ephemeral=True
        )

    @cooldown("lookup")
    @app_commands.command(name="history", description="Your recent finished games in this server")
    @app_commands.describe(member="Whose games (default: yours)")
    async def history(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        who = member or interaction.user
        mine = who.id == interaction.user.id
        games = await self.table.quick(
            interaction,
            self.service.archive.history(interaction.guild_id, who.id, limit=10 if mine else HISTORY_SEARCH),
        )
        if not mine:  # only the games the asker could read by number
            games = [v for v in games if self.table.may_read(interaction, v)][:10]
        embed = presenter.history_embed(games, who.id, who.display_name)
        await self._reply(interaction, embed=embed, ephemeral=True)

    @cooldown("review")
    @app_commands.command(
        name="export", description="Download a game: .mat (GNU Backgammon, XG), JSON and a GIF replay"
    )
    @app_commands.describe(game="Game number (default: this channel's game, else your latest)")
    async def export(self, interaction: discord.Interaction, game: app_commands.Range[int, 1] | None = None) -> None:
        game_id = game or await self._default_game_id(interaction)
        state = await self.table.readable_game(interaction, game_id)
        await defer(interaction, ephemeral=True)  # the replay takes a moment to draw
        text, data = await asyncio.gather(
            self.service.archive.export_mat(game_id), self.service.archive.export_json(game_id)
        )
        files = [
            discord.File(io.BytesIO(text.encode("utf-8")), filename=f"backgammon-game-{game_id}.mat"),
            discord.File(io.BytesIO(data.encode("utf-8")), filename=f"game-{game_id}.json"),
        ]
        limit = replays.upload_limit(interaction.guild) - len(text) - len(data)
        lines = [f"Game #{game_id}: {' vs '.join(shown(p.name) for p in state.players)}"]
        try:
            replay = await self.replays.render(state, limit=limit)
        except UserError as error:
            lines.append(f"No replay: {error.message}")
        else:
            files.append(discord.File(io.BytesIO(replay.gif), filename=f"game-{game_id}-replay.gif"))
            if replay.note:
                lines.append(replay.note)
        seed = "" if not state.is_active else " (the seed is revealed when the game ends)"
        lines.append(
            f"`.mat` for GNU Backgammon or XG; the JSON holds the action log and the fair-dice commitment{seed}: "
            f"check it with `{dice_text.VERIFY_SCRIPT}`."
        )
        await self._reply(interaction, content="\n".join(lines), files=files, ephemeral=True)

    async def _default_game_id(self, interaction: discord.Interaction) -> int:
        here = await self.service.lookups.game_in_channel(interaction.channel_id or 0)
        if here is not None:
            return here.id
        recent = await self.service.archive.history(interaction.guild_id, interaction.user.id, limit=1)
        if recent:
            return recent[0].id
        raise UserError("No game to export here: give a game number, e.g. `/bg export game:12`.")

    # -- tables -------------------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(name="leaderboard", description="The server's best players")
    @app_commands.describe(kind="Order by rating (default) or by points won")
    async def leaderboard(self, interaction: discord.Interaction, kind: Literal["rating", "points"] = "rating") -> None:
        require_permissions(interaction, ("embed_links",))
        message = await self.table.quick(interaction, self.table.leaderboard_message(interaction.guild, kind, 0))
        await self._reply(interaction, **message)

    @cooldown("lookup")
    @app_commands.command(name="stats", description="Rating and record of a member")
    @app_commands.describe(
        member="Whose stats (default: yours)",
        everywhere="Their rating over every server the bot is in (default: this server's)",
    )
    async def stats(
        self, interaction: discord.Interaction, member: discord.Member | None = None, everywhere: bool = False
    ) -> None:
        require_permissions(interaction, ("embed_links", "attach_files"))
        who = member or interaction.user
        scope = None if everywhere else interaction.guild_id
        stats = await self.table.quick(interaction, self.service.lookups.stats(scope, who.id))
        sees = privacy.for_interaction(interaction, public=True)  # a best finish names its tournament
        record = await self.table.quick(
            interaction, self.service.tournaments.record(interaction.guild_id, who.id, sees=sees)
        )
        embed = presenter.stats_embed(who.display_name, stats, record)
        chart = None
        if stats is not None:
            history = await self.table.quick(interaction, self.progress.rating_history(scope, who.id))
            place = (
                "every server"
                if everywhere
                else (interaction.guild.name if interaction.guild is not None else "this server")
            )
            # everywhere: matches in servers the asker may not see, so no opponent's name
            chart = lessons.rating_chart(who.display_name, place, history, opponents=not everywhere)
        if chart is None:
            await self._reply(interaction, embed=embed)
            return
        png = await self.drawing.picture(chart, asked_at=asked_at(interaction))
        name = f"rating-{who.id}.png"
        embed.set_image(url=f"attachment://{name}")
        await self._reply(interaction, embed=embed, file=discord.File(io.BytesIO(png), filename=name))

    @cooldown("lookup")
    @app_commands.command(
        name="rules", description="How to play here: commands, challenge options, the old words, the odds"
    )
    @app_commands.describe(topic="What to read (default: how to play)")
    async def rules(
        self,
        interaction: discord.Interaction,
        topic: Literal["how to play", "options", "glossary", "odds"] = "how to play",
    ) -> None:
        pages = {
            "how to play": help_pages.rules_embed,
            "options": help_pages.options_embed,
            "glossary": help_pages.glossary_embed,
            "odds": help_pages.odds_embed,
        }
        await send_private(interaction, embed=pages[topic]())

    @cooldown("lookup")
    @app_commands.command(
        name="settings", description="How I reach you: pings, direct messages, a daily digest, quiet hours, vacation"
    )
    @app_commands.describe(
        turn="On your turn: a ping on the board, a direct message, or nothing but the daily digest",
        reminders="The reminder before a turn runs out",
        digest_hour="Your daily digest of the games waiting for you, at this hour (your time zone)",
        digest="Off: no daily digest",
        timezone="Your time zone, e.g. Europe/London (start typing)",
        quiet_from="Quiet hours start (your time): no pings; reminders wait until they end",
        quiet_to="Quiet hours end (your time)",
        quiet="Off: no quiet hours",
        vacation_days="Go on vacation in this server for this many days (your clocks wait); 0: come back",
    )
    async def settings(
        self,
        interaction: discord.Interaction,
        turn: Literal["ping", "dm", "digest"] | None = None,
        reminders: bool | None = None,
        digest_hour: app_commands.Range[int, 0, 23] | None = None,
        digest: bool | None = None,
        timezone: app_commands.Range[str, 1, 64] | None = None,
        quiet_from: app_commands.Range[int, 0, 23] | None = None,
        quiet_to: app_commands.Range[int, 0, 23] | None = None,
        quiet: bool | None = None,
        vacation_days: app_commands.Range[int, 0, 60] | None = None,
    ) -> None:
        members = self.service.members
        user, guild_id = interaction.user.id, interaction.guild_id or 0
        prefs = await self.table.quick(interaction, members.prefs(user))
        changes: dict[str, Any] = {}
        if turn is not None:
            changes["turn"] = turn
        if reminders is not None:
            changes["reminders"] = reminders
        if digest_hour is not None:
            changes["digest_hour"] = digest_hour
        elif digest is False:
            changes["digest_hour"] = None
        if timezone is not None:
            changes["tz"] = timezone.strip()
        if quiet is False:
            changes["quiet"] = None
        elif quiet_from is not None or quiet_to is not None:
            if quiet_from is None or quiet_to is None:
                old = prefs.quiet or (22, 7)
                quiet_from = old[0] if quiet_from is None else quiet_from
                quiet_to = old[1] if quiet_to is None else quiet_to
            changes["quiet"] = (quiet_from, quiet_to)
        if changes:
            prefs = await self.table.quick(interaction, members.set_prefs(user, **changes))
            closed = getattr(interaction.client, "closed_dms", None)
            if closed is not None:
                closed.forget(user)  # they may have opened their direct messages: try again
        lines = [prefs.describe()]
        if vacation_days == 0:
            moved = await self.table.quick(interaction, members.come_back(guild_id, user))
            lines.append(
                f"Welcome back: your clocks run again{f' ({len(moved)} game(s) given their time back)' if moved else ''}."
            )
        elif vacation_days is not None:
            away = await self.table.quick(interaction, members.go_away(guild_id, user, vacation_days))
            lines.append(
                f"🏖️ On vacation here until {presenter.timestamp(away.until)}: your move clocks wait meanwhile "
                f"({int(away.days_left)} day(s) of this year's allowance left)."
            )
        else:
            away = await self.table.quick(interaction, members.away(guild_id, user))
            if away is not None:
                lines.append(f"🏖️ On vacation here until {presenter.timestamp(away.until)}.")
        await send_private(interaction, content="\n".join(lines))

    @settings.autocomplete("timezone")
    async def timezone_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=name, value=name) for name in zone_names(current)]

    @cooldown("lookup")
    @app_commands.command(name="shots", description="How many of the 36 throws hit each blot in this channel's game")
    async def shots(self, interaction: discord.Interaction) -> None:
        state = await self.table.quick(interaction, self.table.game_here(interaction))
        odds = await self.table.quick(interaction, blot_shots(state))
        await send_private(interaction, content=presenter.shots_text(state, odds))

    # -- replying ---------------------------------------------------------------------------------

    async def _reply(self, interaction: discord.Interaction, *, ephemeral: bool = False, **kwargs: object) -> None:
        if ephemeral:
            await send_private(interaction, **kwargs)
        else:
            await send_public(interaction, **kwargs)


def cap_option(command: app_commands.Command[Any, ..., Any], name: str, most: int) -> None:
    """Set the upper bound of a command's integer option (read from the annotation
    at import; the limit is a setting). The cog's command is its own copy; its
    parameters are too once replaced, as here (discord.py has no public setter)."""
    parameters = command._params
    parameters[name] = replace(parameters[name], max_value=most)


async def setup(bot: BackgammonBot) -> None:
    """The extension's entry (``bot.load_extension("bot.discord.cogs.game")``): its parts come from the client."""
    await bot.add_cog(GameCog(bot.parts))
