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

import i18n
from bot.config import SETTING
from bot.core.advice import parse_level
from bot.core.model import (
    AUTOMATIC_DOUBLES_LIMIT,
    CUBE_LIMIT,
    HOYLE_LENGTH,
    ChallengeOptions,
    GameSummary,
    ServiceError,
    variant_name,
)
from bot.core.notifications import zone_names
from bot.core.shots import shots as blot_shots
from bot.discord import autocomplete, dice_text, game_rules, help_pages, lessons, presenter, privacy, replays, speech
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
from bot.discord.tutor_panel import tutor_choices, tutor_threshold
from engine import UNLIMITED, WinKind
from engine.variants import FAMILIES, VARIANTS, TablesGame
from i18n import _, ngettext

if TYPE_CHECKING:
    from bot.discord.client import BackgammonBot

LevelName = Literal["beginner", "intermediate", "expert"]
DEFAULT_LENGTHS = {"tavla": 5, "takhteh": 7, "portes": 5, "tavli": 5}
"""The match length of the games played as matches when the challenge names none (docs/rules.md 16-23)."""
AUTOMATIC_DOUBLES = {"off": 0, "twice": AUTOMATIC_DOUBLES_LIMIT, "every tie": UNLIMITED}
"""The ``automatic_doubles`` choices: how many opening ties double the cube."""
HISTORY_SEARCH = 30
"""Another member's recent games looked through for the 10 the asker may see."""
STAKE_CEILING = int(SETTING["MAX_STAKE"].high or 1)
"""The highest ``MAX_STAKE`` may be: each bot's cog narrows the stake option to its own limit."""


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
        stake="Money game: a point's worth on the points leaderboard",
        days="Days per move before the game is forfeited (1-14)",
        jacoby="Money game: gammons count single until the cube is turned",
        beavers="Money game: a doubled player may redouble at once",
        automatic_doubles="Money game: ties in the opening throw double the cube",
        opening_reroll="The opening throw only picks who starts, who throws again",
        thread="Play in a new public thread",
        hints="Allow /bg hint for both players",
        seed="Your text the dice are mixed with (provably fair: /bg rules)",
        rules="hoyle: Hoyle's rubber (best of three, no cube, a gammon counts two)",
        backgammon="Hoyle's rubber: a backgammon counts 3, or 4 by agreement",
        cube_limit="The highest the cube may go (default 64)",
        early_doubles="Off: no double before the game's first play (old texts)",
        closed_out="On the bar against a closed board: roll (today) or skip the throw (old texts; no .mat)",
        game="backgammon, tavla, plakoto, nardy, tavli... (/bg rules)",
        kibitzers="Onlookers may say privately what they'd play (default on)",
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
        game: app_commands.Range[str, 1, 40] = "backgammon",
        kibitzers: bool = True,
    ) -> None:
        game = game_named(game)
        if thread and isinstance(interaction.channel, discord.Thread):
            raise UserError(_("This is already a thread: challenge without `thread`, or from a channel."))
        require_permissions(interaction, CHANNEL_PERMISSIONS + (THREAD_PERMISSIONS if thread else ()))
        hoyle = rules == "hoyle"
        if hoyle and match_length not in (0, HOYLE_LENGTH):
            raise UserError(_("Hoyle's rubber is the best of three games: leave out `match_length`."))
        if hoyle and game != "backgammon":
            raise UserError(
                _("Hoyle's rubber is a rule of backgammon: leave out `rules` for {game}.").format(game=game)
            )
        match_length = match_length or DEFAULT_LENGTHS.get(game, 0)
        options = ChallengeOptions(
            variant=game,
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
                _("{display_name} is a bot and can't play: challenge a member, or me to play the computer.").format(
                    display_name=shown(opponent.display_name)
                )
            )
        challenge = await self.table.quick(
            interaction,
            self.service.challenges.create(
                interaction.guild_id or 0,
                interaction.channel_id or 0,
                player_ref(interaction.user),
                player_ref(opponent),
                options,
                seed=seed,
            ),
        )
        await self.table.post_challenge(interaction, challenge, thread)

    @challenge.autocomplete("game")
    async def challenge_game_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return game_choices(VARIANTS, current)

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
        if not options.is_tables:  # plakoto, fevga, nardy and tavli need no neural net
            self.advice.require()
        if options.thread:
            raise UserError(_("Games against the computer are played right here: leave out `thread`."))
        require_permissions(interaction, CHANNEL_PERMISSIONS)
        level_name = parse_level(level)
        options = replace(options, computer_level=level_name, thread=False, hints=True)
        outcome = await self.table.quick(
            interaction,
            self.service.play_computer(
                interaction.guild_id or 0,
                interaction.channel_id or 0,
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
        await self.table.slash_action(
            interaction, lambda state: self.service.roll(state.id, interaction.user.id), tutor=("roll", None)
        )

    @cooldown("turn")
    @app_commands.command(name="move", description="Play your roll, e.g. 13/7 8/7 or bar/22 6/off")
    @app_commands.describe(play="Your play; start typing to see the legal ones")
    async def move(self, interaction: discord.Interaction, play: app_commands.Range[str, 1, 100]) -> None:
        await self.table.slash_action(
            interaction, lambda state: self.service.play(state.id, interaction.user.id, play), tutor=("play", play)
        )

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
        await self.table.slash_action(
            interaction, lambda state: self.service.double(state.id, interaction.user.id), tutor=("double", None)
        )

    @cooldown("turn")
    @app_commands.command(name="take", description="Take the double")
    async def take(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(
            interaction, lambda state: self.service.take(state.id, interaction.user.id), tutor=("take", None)
        )

    @cooldown("turn")
    @app_commands.command(name="pass", description="Pass the double (you lose the game at the current cube)")
    async def pass_(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(
            interaction, lambda state: self.service.pass_double(state.id, interaction.user.id), tutor=("pass", None)
        )

    @cooldown("turn")
    @app_commands.command(name="beaver", description="Money game: take the double and redouble at once")
    async def beaver(self, interaction: discord.Interaction) -> None:
        await self.table.slash_action(
            interaction, lambda state: self.service.beaver(state.id, interaction.user.id), tutor=("beaver", None)
        )

    @cooldown("turn")
    @app_commands.command(name="resign", description="Offer to resign this game; your opponent accepts or rejects")
    @app_commands.describe(level="What you give up: a single game, a gammon or a backgammon")
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
                _(
                    "Only moderators (Manage Messages or Manage Server) can abandon a game. "
                    "Players can use `/bg resign` or `/bg forfeit`."
                )
            )
        await self.table.slash_action(interaction, lambda state: self.service.abandon(state.id, interaction.user.id))

    # -- advice and analysis ------------------------------------------------------------------

    @cooldown("hint")
    @app_commands.command(name="hint", description="Privately: the best plays, or the cube action, for your turn")
    async def hint(self, interaction: discord.Interaction) -> None:
        state = await self.table.quick(interaction, self.table.game_here(interaction))
        no_engine_for(state.options)
        self.advice.require()
        user = interaction.user.id
        if state.seat(user) is None:
            raise UserError(_("You're not in this game: hints are for the player to act."))
        actor = state.to_act()
        if actor is None or actor.user_id != user:
            raise UserError(
                _("It's not your turn: hints are for the player to act ({value} now).").format(
                    value=shown(actor.name) if actor else _("nobody")
                )
            )
        if not (self.table.computer.plays_in(state) or state.options.hints):
            raise UserError(
                _(
                    "Hints are off in this game: between people they need both players' agreement, "
                    "given with `/bg challenge hints:True` (accepting agrees)."
                )
            )
        lines = await self.table.quick(interaction, self.advice.hint(state))
        await send_private(interaction, content=presenter.hint_text(state, lines))

    @cooldown("review")
    @app_commands.command(name="analysis", description="Error rates, blunders and luck of a finished game")
    @app_commands.describe(game="Game number (default: your latest finished game)")
    async def analysis(self, interaction: discord.Interaction, game: app_commands.Range[int, 1] | None = None) -> None:
        require_permissions(interaction, ("send_messages", "embed_links", "attach_files"))
        game_id = game or await self._latest_finished(interaction)
        found = await self.table.readable_game(interaction, game_id)
        no_engine_for(found.options)  # before the engines' absence: no engine, installed or not, knows these games
        self.advice.require()
        if not isinstance(found, GameSummary):
            raise UserError(
                _("Game #{game_id} is still being played: its analysis comes when it ends.").format(game_id=game_id)
            )
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
        recent = await self.service.archive.history(interaction.guild_id or 0, interaction.user.id, limit=1)
        if recent:
            return recent[0].id
        raise UserError(_("You have no finished game here: give a game number, e.g. `/bg analysis game:12`."))

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
            interaction, self.service.lookups.game_list(interaction.guild_id or 0, interaction.user.id)
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
            self.service.archive.history(interaction.guild_id or 0, who.id, limit=10 if mine else HISTORY_SEARCH),
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
        lines = [
            _("Game #{game}: {names}").format(game=game_id, names=_(" vs ").join(shown(p.name) for p in state.players))
        ]
        try:
            replay = await self.replays.render(state, limit=limit)
        except UserError as error:
            lines.append(_("No replay: {message}").format(message=error.message))
        else:
            files.append(discord.File(io.BytesIO(replay.gif), filename=f"game-{game_id}-replay.gif"))
            if replay.note:
                lines.append(replay.note)
        seed = "" if not state.is_active else _(" (the seed is revealed when the game ends)")
        lines.append(
            _(
                "`.mat` for GNU Backgammon or XG; the JSON holds the action log and the fair-dice commitment{seed}: check it with `{verify_script}`."
            ).format(seed=seed, verify_script=dice_text.VERIFY_SCRIPT)
        )
        await self._reply(interaction, content="\n".join(lines), files=files, ephemeral=True)

    async def _default_game_id(self, interaction: discord.Interaction) -> int:
        here = await self.service.lookups.game_in_channel(interaction.channel_id or 0)
        if here is not None:
            return here.id
        recent = await self.service.archive.history(interaction.guild_id or 0, interaction.user.id, limit=1)
        if recent:
            return recent[0].id
        raise UserError(_("No game to export here: give a game number, e.g. `/bg export game:12`."))

    # -- tables -------------------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(name="leaderboard", description="The server's best players")
    @app_commands.describe(kind="Order by rating (default) or by points won", game="Whose game's ratings")
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        kind: Literal["rating", "points"] = "rating",
        game: app_commands.Range[str, 1, 40] = "backgammon",
    ) -> None:
        require_permissions(interaction, ("embed_links",))
        family = game_named(game, FAMILIES)
        message = await self.table.quick(
            interaction, self.table.leaderboard_message(interaction.guild, kind, 0, family)
        )
        await self._reply(interaction, **message)

    @leaderboard.autocomplete("game")
    async def leaderboard_game_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return game_choices(FAMILIES, current)

    @cooldown("lookup")
    @app_commands.command(name="stats", description="Rating and record of a member")
    @app_commands.describe(
        member="Whose stats (default: yours)",
        everywhere="Their rating over every server (default: this server's)",
        game="Whose game's rating",
    )
    async def stats(
        self,
        interaction: discord.Interaction,
        member: discord.Member | None = None,
        everywhere: bool = False,
        game: app_commands.Range[str, 1, 40] = "backgammon",
    ) -> None:
        require_permissions(interaction, ("embed_links", "attach_files"))
        family = game_named(game, FAMILIES)
        who = member or interaction.user
        scope = None if everywhere else interaction.guild_id
        stats = await self.table.quick(interaction, self.service.lookups.stats(scope, who.id, family))
        sees = privacy.for_interaction(interaction, public=True)  # a best finish names its tournament
        record = await self.table.quick(
            interaction, self.service.tournaments.record(interaction.guild_id, who.id, sees=sees)
        )
        embed = presenter.stats_embed(who.display_name, stats, record)
        if family != "backgammon":
            embed.title = f"{embed.title} · {variant_name(family)}"
        chart = None
        if stats is not None:
            history = await self.table.quick(interaction, self.progress.rating_history(scope, who.id, family=family))
            place = (
                _("every server")
                if everywhere
                else (interaction.guild.name if interaction.guild is not None else _("this server"))
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

    @stats.autocomplete("game")
    async def stats_game_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return game_choices(FAMILIES, current)

    @cooldown("lookup")
    @app_commands.command(
        name="rules", description="How to play here: commands, challenge options, the old words, the odds"
    )
    @app_commands.describe(topic="What to read (default: how to play)", game="A game's own rules")
    async def rules(
        self,
        interaction: discord.Interaction,
        topic: Literal["how to play", "options", "glossary", "odds"] = "how to play",
        game: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        if game is not None:
            await send_private(interaction, embed=game_rules.game_embed(game_named(game)))
            return
        pages = {
            "how to play": help_pages.rules_embed,
            "options": help_pages.options_embed,
            "glossary": help_pages.glossary_embed,
            "odds": help_pages.odds_embed,
        }
        await send_private(interaction, embed=pages[topic]())

    @rules.autocomplete("game")
    async def rules_game_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return game_choices(VARIANTS, current)

    @cooldown("lookup")
    @app_commands.command(
        name="settings", description="How I reach you: pings, direct messages, a daily digest, quiet hours, vacation"
    )
    @app_commands.describe(
        turn="On your turn: a ping, a direct message, or only the daily digest",
        reminders="The reminder before a turn runs out",
        digest_hour="The hour of your daily digest of games waiting (your time)",
        digest="Off: no daily digest",
        timezone="Your time zone, e.g. Europe/London (start typing)",
        quiet_from="Quiet hours start (your time): no pings, reminders wait",
        quiet_to="Quiet hours end (your time)",
        quiet="Off: no quiet hours",
        vacation_days="Vacation days in this server (your clocks wait); 0: come back",
        language="The language I write to you in",
        tutor="Warn me before a blunder: off, blunders, errors, or a figure",
    )
    @app_commands.choices(language=speech.MEMBER_CHOICES)
    async def member_settings(
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
        language: str | None = None,
        tutor: app_commands.Range[str, 1, 12] | None = None,
    ) -> None:
        members = self.service.members
        user, guild_id = interaction.user.id, interaction.guild_id or 0
        if language is not None:
            chosen = None if language == speech.CLIENT else language
            await self.table.quick(interaction, self.service.languages.choose(user, chosen))
            i18n.speak(chosen or str(interaction.locale))  # the answer already in the new language
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
        if tutor is not None:
            changes["tutor"] = tutor_threshold(tutor)
        if changes:
            prefs = await self.table.quick(interaction, members.set_prefs(user, **changes))
            closed = getattr(interaction.client, "closed_dms", None)
            if closed is not None:
                closed.forget(user)  # they may have opened their direct messages: try again
        lines = [prefs.describe()]
        if vacation_days == 0:
            moved = await self.table.quick(interaction, members.come_back(guild_id, user))
            lines.append(
                ngettext(
                    "Welcome back: your clocks run again ({count} game given its time back).",
                    "Welcome back: your clocks run again ({count} games given their time back).",
                    len(moved),
                ).format(count=len(moved))
                if moved
                else _("Welcome back: your clocks run again.")
            )
        elif vacation_days is not None:
            away = await self.table.quick(interaction, members.go_away(guild_id, user, vacation_days))
            lines.append(
                "🏖️ "
                + ngettext(
                    "On vacation here until {until}: your move clocks wait meanwhile"
                    " ({count} day of this year's allowance left).",
                    "On vacation here until {until}: your move clocks wait meanwhile"
                    " ({count} days of this year's allowance left).",
                    int(away.days_left),
                ).format(until=presenter.timestamp(away.until), count=int(away.days_left))
            )
        else:
            still_away = await self.table.quick(interaction, members.away(guild_id, user))
            if still_away is not None:
                lines.append(
                    "🏖️ " + _("On vacation here until {until}.").format(until=presenter.timestamp(still_away.until))
                )
        await send_private(interaction, content="\n".join(lines))

    @member_settings.autocomplete("tutor")
    async def tutor_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return tutor_choices(current)

    @member_settings.autocomplete("timezone")
    async def timezone_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=name, value=name) for name in zone_names(current)]

    @cooldown("lookup")
    @app_commands.command(name="shots", description="How many of the 36 throws hit each blot in this channel's game")
    async def shots(self, interaction: discord.Interaction) -> None:
        state = await self.table.quick(interaction, self.table.game_here(interaction))
        if isinstance(state.game, TablesGame):  # tavli's portes has blots: the game, not the match, decides
            raise UserError(
                _("`/bg shots` counts backgammon's hits: nobody is hit in {game}.").format(
                    game=variant_name(state.game.game)
                )
            )
        odds = await self.table.quick(interaction, blot_shots(state))
        await send_private(interaction, content=presenter.shots_text(state, odds))

    # -- replying ---------------------------------------------------------------------------------

    async def _reply(self, interaction: discord.Interaction, *, ephemeral: bool = False, **kwargs: object) -> None:
        if ephemeral:
            await send_private(interaction, **kwargs)
        else:
            await send_public(interaction, **kwargs)


def no_engine_for(options: ChallengeOptions) -> None:
    """:raises UserError: (answered privately) for plakoto, fevga, nardy and tavli, which no engine analyses."""
    if options.is_tables:
        raise UserError(
            _("Hints and analysis are not available for {game}: no engine here knows it.").format(
                game=variant_name(options.variant)
            )
        )


def game_choices(names: tuple[str, ...], current: str) -> list[app_commands.Choice[str]]:
    """The games (or rating families) whose name holds what is typed, in the member's language.
    (Autocompleted, not fixed choices: /bg's options and their choices must stay within Discord's 4000 characters.)"""
    typed = current.strip().lower()
    return [
        app_commands.Choice(name=variant_name(name), value=name)
        for name in names
        if typed in name or typed in variant_name(name).lower()
    ]


def game_named(text: str, names: tuple[str, ...] = VARIANTS) -> str:
    """The game a member typed or chose (a name in their language, or the key).

    :raises UserError: for no such game.
    """
    typed = text.strip().lower()
    for name in names:
        if typed in (name, variant_name(name).lower()):
            return name
    raise UserError(
        _("There is no game {game}: choose one of {games}.").format(
            game=shown(text[:40]), games=", ".join(variant_name(name) for name in names)
        )
    )


def cap_option(command: app_commands.Command[Any, ..., Any], name: str, most: int) -> None:
    """Set the upper bound of a command's integer option (read from the annotation
    at import; the limit is a setting). The cog's command is its own copy; its
    parameters are too once replaced, as here (discord.py has no public setter)."""
    parameters = command._params
    parameters[name] = replace(parameters[name], max_value=most)


async def setup(bot: BackgammonBot) -> None:
    """The extension's entry (``bot.load_extension("bot.discord.cogs.game")``): its parts come from the client."""
    await bot.add_cog(GameCog(bot.parts))
