"""``/bgclub``: the channel as a club. Kibitzer polls (the onlookers' answers, revealed
after the player acted), the server's table of kibitzers, consultation games (a
team votes on each of its decisions, :mod:`bot.core.consultations`), and the chouette
(its games played on the board in its thread; its running ledger posted after each,
once, by :meth:`ClubCog.post_ledger`, the dispatcher's handler for its kind).

A group of its own: ``/bg`` holds 24 of the 25 subcommands Discord allows a
group. The polls' buttons and pickers (:mod:`bot.discord.kibitzing`) come here;
the reveal is owed to the outbox by the core (:mod:`bot.core.kibitzers`) and
posted by :meth:`ClubCog.post_reveal`, the dispatcher's handler for its kind.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.advice import parse_level
from bot.core.chouettes import LEDGER_KIND, ChouetteDelivery, Chouettes, ChouetteSession
from bot.core.consultations import PROMPT_KIND, REMINDER_KIND, ROLL, TALLY_KIND, Consultations, question_of
from bot.core.kibitzers import REVEAL_KIND, Kibitzers, RevealDelivery, poll_of
from bot.core.model import (
    ChallengeError,
    ChallengeOptions,
    Delivery,
    GameState,
    NoGameError,
    Outcome,
    PlayerRef,
    TeamSeat,
)
from bot.discord import presenter, privacy
from bot.discord.boards import Followup, InChannel
from bot.discord.chouette_panel import ledger_headline, session_text, suggestion_text
from bot.discord.cogs import Guarded
from bot.discord.cooldowns import cooldown, hold
from bot.discord.dispatcher import NotDelivered
from bot.discord.errors import report
from bot.discord.kibitzing import (
    DYNAMIC_ITEMS,
    SELECT_LIMIT,
    KibitzButton,
    KibitzModal,
    answer_words,
    picker,
    reveal_text,
    table_embed,
)
from bot.discord.limits import fit, pinging, shown
from bot.discord.parts import Parts
from bot.discord.presenter import timestamp
from bot.discord.refusals import UserError
from bot.discord.replies import (
    CHANNEL_PERMISSIONS,
    THREAD_PERMISSIONS,
    asked_at,
    defer,
    edit_clicked,
    player_ref,
    require_permissions,
    send_private,
    send_public,
)
from bot.discord.team_votes import (
    TeamChallengeButton,
    head,
    prompt_text,
    reminder_text,
    role_pinged,
    tally_text,
    team_challenge_controls,
)
from engine import WinKind
from engine.chouette import ChouetteOptions, CrewDoubles, Rotation
from i18n import _

if TYPE_CHECKING:
    from bot.discord.client import BackgammonBot

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Team:
    """A team named in a command: ``role`` or ``thread``, its id and its name."""

    kind: str
    team_id: int
    name: str


@app_commands.guild_only()
class ClubCog(
    Guarded,
    commands.GroupCog,
    group_name="bgclub",
    group_description="Play together: kibitzer polls, the server's kibitzers, the chouette",
):
    """Kibitzer polls."""

    def __init__(self, parts: Parts) -> None:
        self.service = parts.service
        self.table = parts.table
        self.cooldowns = parts.cooldowns
        self.dispatcher = parts.dispatcher
        self.kibitzers = Kibitzers(
            parts.service.store,
            parts.service.clock,
            parts.service.lookups.get_game,
            parts.service.deliveries,
            advice=lambda: parts.advice,  # the bot's own engines and their worker processes
        )
        self.chouettes = Chouettes(parts.service.store, parts.service.clock, parts.service)
        self.consultations = Consultations(
            parts.service.store,
            parts.service.clock,
            parts.service,
            parts.service.lookups.get_game,
            parts.service.deliveries,
        )
        self.advice = parts.advice
        self.settings = parts.settings
        self._joined: set[tuple[int, int]] = set()
        """(team thread, member) added to the thread by this process (one call each)."""
        self._open: set[int] = set()
        """Games with a poll answered and not yet revealed (in this process)."""
        self._reveals: set[asyncio.Task[Any]] = set()
        super().__init__()
        self.dispatcher.handlers[REVEAL_KIND] = self.post_reveal
        self.dispatcher.handlers[LEDGER_KIND] = self.post_ledger
        self.dispatcher.handlers[PROMPT_KIND] = self.post_team_message
        self.dispatcher.handlers[TALLY_KIND] = self.post_team_message
        self.dispatcher.handlers[REMINDER_KIND] = self.post_team_message
        if self.table is not None:
            self.table.poster.listeners.append(self.after_post)
            self.table.computer.followers.append(self.after_post)
        if parts.scheduler is not None:
            parts.scheduler.add_job("kibitzers", lambda now, shard: self.kibitzers.reveal_leftovers(shard))
            parts.scheduler.add_job("chouettes", lambda now, shard: self.chouettes.catch_up())
            parts.scheduler.add_job("consultations", self.votes_due, self.consultations.next_due)

    async def cog_unload(self) -> None:
        self.chouettes.close()
        if self.table is not None and self.after_post in self.table.poster.listeners:
            self.table.poster.listeners.remove(self.after_post)
        if self.table is not None and self.after_post in self.table.computer.followers:
            self.table.computer.followers.remove(self.after_post)
        for task in list(self._reveals):
            task.cancel()
        await asyncio.gather(*self._reveals, return_exceptions=True)

    # -- the table ---------------------------------------------------------------------------

    @cooldown("lookup")
    @app_commands.command(
        name="kibitzers", description="This server's kibitzers: answers given, how often the net agreed"
    )
    async def kibitzers_table(self, interaction: discord.Interaction) -> None:
        require_permissions(interaction, ("embed_links",))
        scores = await self.table.quick(interaction, self.kibitzers.table(interaction.guild_id or 0))
        place = interaction.guild.name if interaction.guild is not None else None
        await send_public(interaction, embed=table_embed(scores, place), allowed_mentions=pinging())

    # -- the polls ---------------------------------------------------------------------------

    async def _game_seen(self, interaction: discord.Interaction, game_id: int) -> GameState:
        """The game, if the member may see where it is played (a custom id names any game:
        another server's, a hidden channel's, and those read like a game nobody played)."""
        state = await self.table.quick(interaction, self.service.lookups.get_game(game_id))
        sees = privacy.for_interaction(interaction, public=False)
        if state.guild_id != interaction.guild_id or not sees(state.channel_id, [p.user_id for p in state.players]):
            raise NoGameError(_("there is no game #{game}").format(game=game_id))
        return state

    async def ask(self, interaction: discord.Interaction, game_id: int, version: int) -> None:
        """ "What would you play?": the picker, for an onlooker only."""
        try:
            hold(self.cooldowns, "lookup", interaction.user)
            state = await self._game_seen(interaction, game_id)
            if state.seat(interaction.user.id) is not None:
                raise UserError(_("You play in this game: the poll is for the onlookers."))
            poll = poll_of(state)
            if poll is None or state.version != version:
                raise UserError(_("The player has acted: this poll is closed, and its answers follow the board."))
            if len(poll.answers) > SELECT_LIMIT:
                if interaction.response.is_done():  # a slow read deferred the click: a modal can't follow
                    raise UserError(_("More plays are legal than a menu holds: click again to type yours."))
                await interaction.response.send_modal(KibitzModal(game_id, version))
                return
            # under quick too: on a busy store this read alone can outlast Discord's 3 seconds
            mine = await self.table.quick(interaction, self.kibitzers.answer_of(game_id, version, interaction.user.id))
            text = _("What would you play? Only you see your answer; the room's answers show once the player acts.")
            if mine is not None:
                text += "\n" + _("Your answer so far: {answer}.").format(answer=answer_words(mine))
            await send_private(interaction, content=text, view=picker(game_id, version, list(poll.answers)))
        except Exception as error:  # buttons have no tree.on_error: the same single error path
            await report(interaction, error)

    async def vote(self, interaction: discord.Interaction, game_id: int, version: int, answer: str) -> None:
        """An onlooker's answer: kept, and acknowledged to them alone (no count, no hint)."""
        try:
            hold(self.cooldowns, "lookup", interaction.user)
            state = await self._game_seen(interaction, game_id)
            kept = await self.table.quick(interaction, self.kibitzers.vote(state, version, interaction.user.id, answer))
            self._open.add(game_id)
            actor = state.to_act()
            who = shown(actor.name) if actor is not None else "?"
            await send_private(
                interaction,
                content=_("Your answer: {answer}. The room's answers show once {player} has acted.").format(
                    answer=answer_words(kept), player=who
                ),
            )
        except Exception as error:
            await report(interaction, error)

    # -- the reveal --------------------------------------------------------------------------

    def after_post(self, outcome: Outcome, message: discord.Message | None, embeds: Sequence[discord.Embed]) -> None:
        """A board went up: if its game had a poll open, its player has acted; if a team
        is to act, its vote opens (or it rolls)."""
        state = outcome.state
        if question_of(state) is not None:
            self._spawn(self._advance(state), f"bg-consult-{state.id}")
        if state.id not in self._open:
            return
        task = asyncio.get_running_loop().create_task(self._reveal(state), name=f"bg-kibitz-{state.id}")
        self._reveals.add(task)
        task.add_done_callback(self._reveals.discard)

    async def _reveal(self, state: Any) -> None:
        try:
            await self.kibitzers.reveal_after(state)
            if not await self.kibitzers.polls.open_polls(state.id):
                self._open.discard(state.id)
        except Exception:
            log.exception("could not reveal the polls of game %s", state.id)

    def _spawn(self, work: Any, name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._reveals.add(task)
        task.add_done_callback(self._reveals.discard)

    async def idle(self) -> None:
        """Until the reveals under way are owed (tests)."""
        while self._reveals:
            await asyncio.gather(*list(self._reveals), return_exceptions=True)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Connected (again): polls whose player acted while the bot was away are revealed."""
        task = asyncio.get_running_loop().create_task(self._leftovers(), name="bg-kibitz-leftovers")
        self._reveals.add(task)
        task.add_done_callback(self._reveals.discard)

    async def _leftovers(self) -> None:
        try:
            await self.kibitzers.reveal_leftovers(self.dispatcher.shard)
            self._open.update(p.game_id for p in await self.kibitzers.polls.open_polls(shard=self.dispatcher.shard))
        except Exception:
            log.exception("could not reveal the polls left over")
        try:
            await self.chouettes.catch_up()  # a board's end or a rotation a stop cut short
        except Exception:
            log.exception("could not catch up with the chouettes")
        try:
            await self.votes_due(self.service.clock(), self.dispatcher.shard)
            for state in await self.consultations.waiting(self.dispatcher.shard):
                await self._advance(state)  # a decision put to nobody when the bot went away
        except Exception:
            log.exception("could not settle the team votes left over")

    async def post_reveal(self, delivery: Any) -> None:
        """Post a poll's reveal in the game's channel, once (after a crash, look first)."""
        assert isinstance(delivery, RevealDelivery) and delivery.reveal is not None
        reveal = delivery.reveal
        player = await self.service.names.name(reveal.player_id)
        text = reveal_text(reveal, player)
        head = text.split("\n", 1)[0]
        if delivery.retried:
            found = await self.dispatcher.look_back(delivery.channel_id, lambda m: m.content.startswith(head))
            if found is not None:
                await self.dispatcher.deliveries.delivered(delivery.entries)
                return
        where = self.dispatcher.where(delivery)
        message = await where.send({"content": text, "allowed_mentions": pinging()})
        if message is None:
            raise where.error or NotDelivered("the kibitzers' reveal could not be posted")
        await self.dispatcher.deliveries.delivered(delivery.entries)

    # -- consultation games ------------------------------------------------------------------

    @cooldown("challenge")
    @app_commands.command(
        name="consult",
        description="A team plays in consultation (its members vote on every move): the computer, a member, a team",
    )
    @app_commands.describe(
        role="The team: the members of this role (a private thread is made for them)",
        thread="The team: the members of this private thread (where they talk it over)",
        opponent="Challenge this member (not in the team) instead of the computer",
        opponent_role="Challenge the team of this role (a member of it accepts and captains it)",
        opponent_thread="Challenge the team of this private thread (a member of it accepts and captains it)",
        level="How strong the computer plays (default: expert)",
        match_length="Points to win the match (0 = a money game)",
        position="Start from this position (a GNU Backgammon ID or an XGID): one practice game",
    )
    async def consult(
        self,
        interaction: discord.Interaction,
        role: discord.Role | None = None,
        thread: discord.Thread | None = None,
        opponent: discord.Member | None = None,
        opponent_role: discord.Role | None = None,
        opponent_thread: discord.Thread | None = None,
        level: Literal["beginner", "intermediate", "expert"] | None = None,
        match_length: app_commands.Range[int, 0, 25] = 0,
        position: app_commands.Range[str, 1, 120] | None = None,
    ) -> None:
        """Start a consultation game: the team (whoever starts it is its captain) against the
        computer at once, or a challenge to a member or another team (they accept)."""
        if (role is None) == (thread is None):
            raise UserError(_("Name the team: a role, or a private thread of its members."))
        opponents = sum(o is not None for o in (opponent, opponent_role, opponent_thread))
        if opponents > 1:
            raise UserError(_("Name one opponent: a member, a role or a thread (none: the computer)."))
        if opponents and level is not None:
            raise UserError(_("The level is the computer's: leave it out against a member or a team."))
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            raise UserError(_("Start a consultation game in a text channel: its board is public there."))
        require_permissions(interaction, CHANNEL_PERMISSIONS + ("create_private_threads", "send_messages_in_threads"))
        team = await self._team_named(interaction, role, thread, captain=True)
        if opponents:
            await self._challenge(
                interaction, channel, team, opponent, opponent_role, opponent_thread, match_length, position
            )
            return
        self.advice.require()
        captain = interaction.user
        await defer(interaction)
        thread_id = thread.id if thread is not None else await self._team_thread(channel, team.name, captain)
        seat = TeamSeat(0, team.team_id, team.kind, thread_id, captain.id)
        options = ChallengeOptions(
            match_length=match_length,
            move_days=self.settings.default_move_days,
            computer_level=parse_level(level or self.table.computer.default_level),
            teams=(seat,),
            practice=position is not None,
        )
        outcome = await self.table.quick(
            interaction,
            self.service.play_computer(
                interaction.guild_id or 0,
                channel.id,
                PlayerRef(team.team_id, team.name),
                self.table.computer.ref(),
                replace(options, match_length=0) if position is not None else options,
                gnubg_id=position,
            ),
        )
        await self.table.post_new_game(interaction, outcome)

    async def _team_named(
        self,
        interaction: discord.Interaction,
        role: discord.Role | None,
        thread: discord.Thread | None,
        *,
        captain: bool,
    ) -> _Team:
        """A team named by a role or a private thread (``captain``: the member who names
        it must be in it, as its captain)."""
        user = interaction.user
        if role is not None:
            if role.is_default():
                raise UserError(_("Name a role of the team, not everyone."))
            if captain and not any(r.id == role.id for r in getattr(user, "roles", [])):
                raise UserError(_("You captain the team you start: take a team whose role you have."))
            return _Team("role", role.id, role.name)
        assert thread is not None
        if thread.type is not discord.ChannelType.private_thread:
            raise UserError(_("A team's thread must be private: the other side must not read it."))
        if captain and not await self._thread_has(thread.id, user.id):
            raise UserError(_("You captain the team you start: take a thread you are in."))
        return _Team("thread", thread.id, thread.name)

    async def _team_thread(self, channel: Any, name: str, captain: discord.abc.Snowflake) -> int:
        """A role team's private thread under the channel, its captain in it."""
        made = await channel.create_thread(
            name=(_("Team") + f" · {name}")[:90],
            type=discord.ChannelType.private_thread,
            invitable=False,
            auto_archive_duration=10080,
        )
        await made.add_user(captain)
        self._joined.add((made.id, captain.id))
        return int(made.id)

    async def _member_of(self, team: _Team | TeamSeat, member: discord.abc.Snowflake) -> bool:
        """Whether ``member`` (a guild member, with their roles) belongs to the team."""
        if team.kind == "role":
            return any(r.id == team.team_id for r in getattr(member, "roles", []))
        return await self._thread_has(team.team_id, member.id)

    async def _challenge(
        self,
        interaction: discord.Interaction,
        channel: discord.TextChannel,
        team: _Team,
        opponent: discord.Member | None,
        opponent_role: discord.Role | None,
        opponent_thread: discord.Thread | None,
        match_length: int,
        position: str | None,
    ) -> None:
        """A team's challenge to a member or to another team: posted with its own buttons,
        the game starting when the other side accepts (:meth:`click_team_challenge`)."""
        seats: tuple[TeamSeat, ...] = (TeamSeat(0, team.team_id, team.kind, 0, interaction.user.id),)
        pings: discord.AllowedMentions
        if opponent is not None:
            if opponent.bot:
                raise UserError(_("Challenge a member, not a bot: leave the opponents out to play the computer."))
            if await self._member_of(team, opponent):
                raise UserError(
                    _("{name} is in the team: a team can't play one of its own members.").format(
                        name=shown(opponent.display_name)
                    )
                )
            challenged = player_ref(opponent)
            pings = pinging(*await self.service.members.pings([opponent.id]))  # not in their quiet hours
        else:
            other = await self._team_named(interaction, opponent_role, opponent_thread, captain=False)
            if other.team_id == team.team_id:
                raise UserError(_("A team can't play itself: name another team."))
            if await self._member_of(other, interaction.user):
                raise UserError(_("You are in both teams: a member plays for one side only."))
            seats += (TeamSeat(1, other.team_id, other.kind, 0, 0),)
            challenged = PlayerRef(other.team_id, other.name)
            # a role is pinged only if its members let anyone mention it: the bot's own right to
            # ping every role is not lent to whoever names one
            mentionable = opponent_role is not None and opponent_role.mentionable
            pings = role_pinged(other.team_id) if mentionable else pinging()
        options = ChallengeOptions(match_length=match_length, move_days=self.settings.default_move_days, teams=seats)
        challenges = self.service.challenges
        guild_id, challenger = interaction.guild_id or 0, PlayerRef(team.team_id, team.name)
        made = (
            challenges.create_practice(guild_id, channel.id, challenger, challenged, position, options=options)
            if position is not None
            else challenges.create(guild_id, channel.id, challenger, challenged, options)
        )
        challenge = await self.table.quick(interaction, made)
        content = (
            presenter.challenge_content(challenge)
            + "\n👥 "
            + (
                _(
                    "The team votes on every move in its private thread; the game is unrated, its result goes to the team's record."
                )
                if opponent is not None
                else _(
                    "Any member of the challenged team may accept, and captains it; each team votes in its own private thread."
                )
            )
        )
        message = await send_public(
            interaction, content=content, view=team_challenge_controls(challenge.id), allowed_mentions=pings
        )
        try:
            await challenges.set_message(challenge.id, message.id)
        except Exception:
            log.debug("could not remember the team challenge's message", exc_info=True)
        if opponent_thread is not None:  # a thread team has no role to ping: it hears of it in its thread
            await self._tell_thread(opponent_thread.id, challenge, message)

    async def _tell_thread(self, thread_id: int, challenge: Any, message: discord.Message) -> None:
        """A pointer to the challenge in the challenged thread team's own thread (pinging nobody)."""
        link = presenter.jump_url(challenge.guild_id, message.channel.id, message.id)
        text = "👥 " + _("{team} challenges this thread's team: any of its members may answer it here: {link}").format(
            team=f"**{shown(challenge.challenger.name)}**", link=link
        )
        try:
            await self.bot_client.get_partial_messageable(thread_id).send(
                **fit(content=text, allowed_mentions=pinging())
            )
        except discord.HTTPException:
            log.info("could not tell the thread team %s of a challenge", thread_id, exc_info=True)

    async def click_team_challenge(self, interaction: discord.Interaction, action: str, challenge_id: int) -> None:
        """A team challenge's button: Accept and Decline for the challenged side (any member
        of a challenged team, who becomes its captain), Withdraw for the team's captain."""
        try:
            hold(self.cooldowns, "challenge", interaction.user)
            challenges = self.service.challenges
            challenge = await self.table.quick(interaction, challenges.pending(challenge_id))
            seat = challenge.options.challenger_seat
            ours, theirs = challenge.options.team_at(seat), challenge.options.team_at(1 - seat)
            if ours is None:
                raise UserError(_("This is not a team's challenge."))
            if action == "cancel":
                if interaction.user.id != ours.captain_id:
                    raise UserError(_("Only the team's captain can withdraw its challenge."))
                closed = await self.table.quick(interaction, challenges.cancel(challenge_id, ours.team_id))
                await edit_clicked(
                    interaction, content=presenter.challenge_closed_content(closed, closed.status), view=None
                )
                return
            if theirs is None:
                if interaction.user.id != challenge.challenged.user_id:
                    raise UserError(
                        _("Only {name} can answer this challenge.").format(name=shown(challenge.challenged.name))
                    )
                side = interaction.user.id
            else:
                if not await self._member_of(theirs, interaction.user):
                    raise UserError(
                        _("Only the members of {team} can answer this challenge.").format(
                            team=shown(challenge.challenged.name)
                        )
                    )
                side = theirs.team_id
            if await self._member_of(ours, interaction.user):
                raise UserError(
                    _("You are in {team}, the challenging team: a member plays for one side only.").format(
                        team=shown(challenge.challenger.name)
                    )
                )
            if action == "decline":
                closed = await self.table.quick(interaction, challenges.decline(challenge_id, side))
                await edit_clicked(
                    interaction, content=presenter.challenge_closed_content(closed, closed.status), view=None
                )
                return
            await self._accept_team_challenge(interaction, challenge, ours, theirs, side)
        except ChallengeError as error:
            await self.table.close_dead_challenge(interaction, challenge_id)
            await report(interaction, error)
        except Exception as error:
            await report(interaction, error)

    async def _accept_team_challenge(
        self, interaction: discord.Interaction, challenge: Any, ours: TeamSeat, theirs: TeamSeat | None, side: int
    ) -> None:
        """The game starts: each role team gets its private thread (its captain in it), the
        accepting member of a challenged team becomes its captain."""
        require_permissions(interaction, CHANNEL_PERMISSIONS + ("create_private_threads", "send_messages_in_threads"))
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            raise UserError(_("Start a consultation game in a text channel: its board is public there."))
        if not interaction.response.is_done():
            await interaction.response.defer()
        await self.service.names.remember(player_ref(interaction.user))
        teams = [ours] + ([replace(theirs, captain_id=interaction.user.id)] if theirs is not None else [])
        made: list[int] = []
        try:
            for i, team in enumerate(teams):
                if team.kind == "thread":
                    teams[i] = replace(team, thread_id=team.team_id)
                    continue
                name = challenge.challenger.name if i == 0 else challenge.challenged.name
                made.append(await self._team_thread(channel, name, discord.Object(team.captain_id)))
                teams[i] = replace(team, thread_id=made[-1])
            outcome = await self.service.challenges.accept(
                challenge.id, side, accepted_by=interaction.id, teams=tuple(teams)
            )
        except BaseException:  # answered meanwhile, expired: the threads made for it go
            for thread_id in made:
                try:
                    await self.bot_client.http.delete_channel(thread_id)
                except discord.HTTPException:
                    log.debug("could not delete an unused team thread", exc_info=True)
            raise
        await self.table.poster.publish(
            outcome,
            Followup(interaction),
            old=None,
            asked=asked_at(interaction),
            alongside=edit_clicked(interaction, view=None),
        )

    @cooldown("lookup")
    @app_commands.command(name="team", description="A team's record in consultation games")
    @app_commands.describe(role="The team of this role", thread="The team of this thread")
    async def team_record(
        self, interaction: discord.Interaction, role: discord.Role | None = None, thread: discord.Thread | None = None
    ) -> None:
        team = role or thread
        if team is None:
            raise UserError(_("Name the team: a role, or its thread."))
        record = await self.table.quick(interaction, self.consultations.record(team.id, interaction.guild_id or 0))
        await send_public(
            interaction,
            content=_("👥 **{team}** in consultation: {won} won, {lost} lost.").format(
                team=shown(team.name), won=record.won, lost=record.lost
            ),
            allowed_mentions=pinging(),
        )

    async def _thread_has(self, thread_id: int, user_id: int) -> bool:
        """Whether the member is in the private thread (a thread's team: its members)."""
        try:
            await self.bot_client.http.get_thread_member(thread_id, user_id)
        except discord.NotFound:
            return False
        return True

    async def _in_team(self, interaction: discord.Interaction, team: TeamSeat) -> bool:
        return await self._member_of(team, interaction.user)

    async def _on_other_side(self, interaction: discord.Interaction, state: GameState, team: TeamSeat) -> bool:
        """Whether the member also plays against ``team``: the member it plays, or a member
        of the other team too (who then votes for neither: no side reads both threads)."""
        other = 1 - team.seat
        other_team = state.options.team_at(other)
        if other_team is None:
            return state.players[other].user_id == interaction.user.id
        return await self._member_of(other_team, interaction.user)

    async def _join_thread(self, team: TeamSeat, member: discord.abc.Snowflake) -> None:
        """A role's member who votes joins the team's private thread (its talk, its tallies)."""
        if team.kind != "role" or (team.thread_id, member.id) in self._joined:
            return
        try:
            await self.bot_client.http.add_user_to_thread(team.thread_id, member.id)
            self._joined.add((team.thread_id, member.id))
        except discord.HTTPException:
            log.info("could not add a member to the team thread %s", team.thread_id, exc_info=True)

    @property
    def bot_client(self) -> discord.Client:
        return self.table.client

    async def team_ask(self, interaction: discord.Interaction, game_id: int, version: int) -> None:
        """ "Vote for the team": the ballot's picker, for the team's members only."""
        try:
            hold(self.cooldowns, "lookup", interaction.user)
            state = await self._game_seen(interaction, game_id)
            question = question_of(state)

            async def admitted() -> tuple[Any, str | None]:
                """The open vote and the member's ballot so far, once the member may vote
                (store reads and Discord calls: under the slow-call guard, as a whole)."""
                vote = await self.consultations.votes.vote(game_id, version)
                closed = question is None or question.kind == ROLL or state.version != version
                if closed or vote is None or vote.closed:
                    raise UserError(_("This vote is closed: the team has played."))
                assert question is not None
                if not await self._in_team(interaction, question.team):
                    raise UserError(_("Only the team's members vote on its moves."))
                if await self._on_other_side(interaction, state, question.team):
                    raise UserError(_("You are on both sides of this game: a member plays for one side only."))
                await self._join_thread(question.team, interaction.user)
                if len(vote.answers) > SELECT_LIMIT:
                    return vote, None
                return vote, await self.consultations.ballot_of(game_id, version, interaction.user.id)

            vote, mine = await self.table.quick(interaction, admitted())
            if len(vote.answers) > SELECT_LIMIT:
                if interaction.response.is_done():
                    raise UserError(_("More plays are legal than a menu holds: click again to type yours."))
                await interaction.response.send_modal(KibitzModal(game_id, version, team=True))
                return
            text = _("Your vote for the team? Only you see it; the tally goes to the team's thread.")
            if mine is not None:
                text += "\n" + _("Your vote so far: {answer}.").format(answer=answer_words(mine))
            await send_private(interaction, content=text, view=picker(game_id, version, list(vote.answers), team=True))
        except Exception as error:
            await report(interaction, error)

    async def team_vote(self, interaction: discord.Interaction, game_id: int, version: int, answer: str) -> None:
        """A member's ballot: kept, acknowledged to them alone; one given after a deadline
        nobody voted by closes the vote at once."""
        try:
            hold(self.cooldowns, "lookup", interaction.user)
            state = await self._game_seen(interaction, game_id)
            question = question_of(state)

            async def kept() -> tuple[Any, str | None]:
                """The ballot kept and read back (store reads and Discord calls: under the
                slow-call guard, as a whole)."""
                member = (
                    question is not None
                    and await self._in_team(interaction, question.team)
                    and not await self._on_other_side(interaction, state, question.team)
                )
                vote = await self.consultations.ballot(state, version, interaction.user.id, answer, member=member)
                return vote, await self.consultations.ballot_of(game_id, version, interaction.user.id)

            vote, mine = await self.table.quick(interaction, kept())
            when = timestamp(datetime.fromtimestamp(vote.deadline, tz=UTC))
            await send_private(
                interaction,
                content=_("Your vote: {answer}. The vote closes {when}; the tally goes to the team's thread.").format(
                    answer=answer_words(mine or answer), when=when
                ),
            )
            if vote.deadline <= self.service.clock().timestamp():
                self._spawn(self._close(vote, state), f"bg-consult-close-{game_id}")
        except Exception as error:
            await report(interaction, error)

    async def votes_due(self, now: datetime, shard: Any) -> None:
        """The scheduler's pass: owe the reminders due, close the votes due."""
        await self.consultations.remind(now, shard)
        for vote in await self.consultations.due(now, shard):
            await self._close(vote, None)

    async def _close(self, vote: Any, before: GameState | None) -> None:
        try:
            outcome = await self.consultations.close(vote)
            if outcome is not None:
                await self._post(before or outcome.state, outcome)
        except Exception:
            log.exception("could not close the team vote of game %s at %s", vote.game_id, vote.version)

    async def _advance(self, state: GameState) -> None:
        """The team is to act: its vote opens; a roll with no cube choice is made (and posted)."""
        try:
            outcome = await self.consultations.advance(state)
            if outcome is not None:
                await self._post(state, outcome)
        except Exception:
            log.exception("could not put game %s to its team", state.id)

    async def _post(self, before: GameState, outcome: Outcome) -> None:
        """The team's action, as a new board (its listeners: the computer's turn, the next vote)."""
        board = before.board_message
        channel = InChannel(self.bot_client, board[0] if board is not None else before.channel_id, before.guild_id)
        await self.table.poster.publish(outcome, self.table.poster.new_board(before.id, channel), old=board)

    async def post_team_message(self, delivery: Any) -> None:
        """A vote's prompt (with its button) or tally, in the team's thread, once (after a crash, look first)."""
        assert isinstance(delivery, Delivery)
        data = delivery.data
        if delivery.kind == PROMPT_KIND:
            team = await self.service.names.name(await self._team_of(data))
            text = prompt_text(data, team)
        elif delivery.kind == REMINDER_KIND:
            text = reminder_text(data)
        else:
            text = tally_text(data)
        first = text.split("\n", 1)[0]
        starts = head(data)
        if delivery.retried:
            kind_word = first[len(starts) :]
            found = await self.dispatcher.look_back(
                delivery.channel_id,
                lambda m: m.content.startswith(starts) and m.content.split("\n", 1)[0].endswith(kind_word),
            )
            if found is not None:
                await self.dispatcher.deliveries.delivered(delivery.entries)
                return
        payload: dict[str, Any] = {"content": text, "allowed_mentions": pinging()}
        if delivery.kind == REMINDER_KIND and data.get("role"):  # a role team's reminder pings its role, nobody else
            guild = self.bot_client.get_guild(delivery.guild_id)
            role = guild.get_role(int(data["role"])) if guild is not None else None
            if role is not None and role.mentionable:  # only a role anyone may mention
                payload["allowed_mentions"] = role_pinged(role.id)
        if delivery.kind in (PROMPT_KIND, REMINDER_KIND):
            view = discord.ui.View(timeout=None)
            view.add_item(KibitzButton(int(data["game"]), int(data["version"]), team=True))
            payload["view"] = view
        where = self.dispatcher.where(delivery)
        message = await where.send(payload)
        if message is None:
            raise where.error or NotDelivered("the team's vote message could not be posted")
        await self.dispatcher.deliveries.delivered(delivery.entries)

    async def _team_of(self, data: dict[str, Any]) -> int:
        state = await self.service.lookups.get_game(int(data["game"]))
        return state.players[int(data.get("seat", 0))].user_id

    # -- the chouette ----------------------------------------------------------------------------

    async def post_ledger(self, delivery: Any) -> None:
        """Post a chouette's running ledger after one of its games, once (after a crash, look first)."""
        assert isinstance(delivery, ChouetteDelivery) and delivery.session is not None
        session = delivery.session
        names = {p: await self.service.names.name(p) for p in session.row.players}
        head = ledger_headline(session)
        if delivery.retried:
            found = await self.dispatcher.look_back(delivery.channel_id, lambda m: m.content.startswith(head))
            if found is not None:
                await self.dispatcher.deliveries.delivered(delivery.entries)
                return
        where = self.dispatcher.where(delivery)
        message = await where.send({"content": session_text(session, names, head), "allowed_mentions": pinging()})
        if message is None:
            raise where.error or NotDelivered("the chouette's ledger could not be posted")
        await self.dispatcher.deliveries.delivered(delivery.entries)

    async def _show(self, interaction: discord.Interaction, session: ChouetteSession, headline: str = "") -> None:
        names = {p: await self.service.names.name(p) for p in session.row.players}
        await send_public(interaction, content=session_text(session, names, headline), allowed_mentions=pinging())

    @cooldown("challenge")
    @app_commands.command(name="chouette", description="A chouette in a new thread: a box against a captain and crew")
    @app_commands.describe(
        box="Who takes the box first",
        captain="Who captains the team first (plays its checkers)",
        crew1="The crew, in line",
        crew_doubles="Crew members double on their own (default), or only with the captain",
        rotation="Who keeps the box: the result against the captain (default), or the box's net in the game",
        consultation="Whether the crew may advise the captain on the play (the captain decides)",
    )
    async def chouette(
        self,
        interaction: discord.Interaction,
        box: discord.Member,
        captain: discord.Member,
        crew1: discord.Member | None = None,
        crew2: discord.Member | None = None,
        crew3: discord.Member | None = None,
        crew4: discord.Member | None = None,
        crew5: discord.Member | None = None,
        crew6: discord.Member | None = None,
        crew_doubles: Literal["independent", "with captain"] = "independent",
        rotation: Literal["captain", "majority"] = "captain",
        consultation: bool = True,
    ) -> None:
        members = [m for m in (box, captain, crew1, crew2, crew3, crew4, crew5, crew6) if m is not None]
        if any(m.bot for m in members):
            raise UserError(_("A chouette is played by members: leave the bots out."))
        if interaction.user.id not in {m.id for m in members}:
            raise UserError(_("Seat yourself in the chouette you start."))
        options = ChouetteOptions(
            crew_doubles=CrewDoubles(crew_doubles), rotation=Rotation(rotation), consultation=consultation
        )
        in_thread = isinstance(interaction.channel, discord.Thread)
        require_permissions(interaction, CHANNEL_PERMISSIONS + (() if in_thread else THREAD_PERMISSIONS))
        for member in members:
            await self.service.names.remember(player_ref(member))
        if in_thread:
            session = await self.table.quick(
                interaction,
                self.chouettes.start(
                    interaction.guild_id or 0, interaction.channel_id or 0, [m.id for m in members], options
                ),
            )
            await self._show(interaction, session)
            await self._first_board(session)
            return
        await send_public(
            interaction,
            content=_("🎲 A chouette of {count} starts in the thread below.").format(count=len(members)),
            allowed_mentions=pinging(),
        )
        message = await interaction.original_response()
        thread = await message.create_thread(
            name=_("Chouette") + f" · {box.display_name}"[:90], auto_archive_duration=10080
        )
        try:
            session = await self.chouettes.start(interaction.guild_id or 0, thread.id, [m.id for m in members], options)
        except BaseException:
            try:
                await thread.delete()
            except discord.HTTPException:
                log.debug("could not delete an unused chouette thread", exc_info=True)
            raise
        names = {p: await self.service.names.name(p) for p in session.row.players}
        await thread.send(
            **fit(
                content=session_text(session, names, " ".join(m.mention for m in members)),
                allowed_mentions=pinging(*(m.id for m in members)),
            )
        )
        await self._first_board(session)

    async def _first_board(self, session: ChouetteSession) -> None:
        """The session's first game on the board (posted by the dispatcher in the thread);
        if it fails here, the scheduler's pass starts it."""
        try:
            await self.chouettes.ensure_board(session.id)
        except Exception:
            log.exception("chouette %s: its first board did not start", session.id)

    @cooldown("turn")
    @app_commands.command(name="double", description="Chouette: the box doubles the team, or you double the box")
    async def chouette_double(self, interaction: discord.Interaction) -> None:
        session = await self.table.quick(
            interaction, self.chouettes.double(interaction.channel_id or 0, interaction.user.id)
        )
        await self._show(interaction, session)

    @cooldown("turn")
    @app_commands.command(name="take", description="Chouette: take the double that waits on your cube")
    @app_commands.describe(member="The box: whose double you take (when more than one waits)")
    async def chouette_take(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        session = await self.table.quick(
            interaction,
            self.chouettes.answer(
                interaction.channel_id or 0, interaction.user.id, True, member.id if member is not None else None
            ),
        )
        await self._show(interaction, session)

    @cooldown("turn")
    @app_commands.command(name="drop", description="Chouette: pass the double that waits on your cube")
    @app_commands.describe(member="The box: whose double you pass (when more than one waits)")
    async def chouette_drop(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        session = await self.table.quick(
            interaction,
            self.chouettes.answer(
                interaction.channel_id or 0, interaction.user.id, False, member.id if member is not None else None
            ),
        )
        await self._show(interaction, session)

    @cooldown("turn")
    @app_commands.command(
        name="result", description="Chouette: concede the checkers' game (the side that lost reports)"
    )
    @app_commands.describe(winner="Who won the checkers' game", win="Single, gammon or backgammon")
    async def chouette_result(
        self,
        interaction: discord.Interaction,
        winner: Literal["box", "team"],
        win: Literal["single", "gammon", "backgammon"] = "single",
    ) -> None:
        kind = {"single": WinKind.SINGLE, "gammon": WinKind.GAMMON, "backgammon": WinKind.BACKGAMMON}[win]
        session = await self.table.quick(
            interaction,
            self.chouettes.result(interaction.channel_id or 0, interaction.user.id, winner == "team", kind),
        )
        await self._show(interaction, session, _("The game is scored; the next one starts."))

    @cooldown("turn")
    @app_commands.command(name="suggest", description="Chouette: advise your captain (when consultation is allowed)")
    @app_commands.describe(advice="What you would play or do")
    async def chouette_suggest(self, interaction: discord.Interaction, advice: app_commands.Range[str, 1, 200]) -> None:
        await self.table.quick(interaction, self.chouettes.suggest(interaction.channel_id or 0, interaction.user.id))
        name = await self.service.names.name(interaction.user.id)
        await send_public(interaction, content=suggestion_text(name, advice), allowed_mentions=pinging())

    @cooldown("lookup")
    @app_commands.command(name="ledger", description="Chouette: who is the box, the cubes, and who owes whom")
    async def chouette_ledger(self, interaction: discord.Interaction) -> None:
        session = await self.table.quick(interaction, self.chouettes.in_channel(interaction.channel_id or 0))
        await self._show(interaction, session)

    @cooldown("turn")
    @app_commands.command(name="stop", description="Chouette: end the session; the ledger is settled and posted")
    async def chouette_stop(self, interaction: discord.Interaction) -> None:
        session = await self.table.quick(
            interaction, self.chouettes.end(interaction.channel_id or 0, interaction.user.id)
        )
        await self._show(interaction, session)


async def setup(bot: BackgammonBot) -> None:
    """The extension's entry: its parts come from the client; the polls' buttons are its own."""
    await bot.add_cog(ClubCog(bot.parts))
    bot.add_dynamic_items(*DYNAMIC_ITEMS, TeamChallengeButton)
